//! Which column of a tickets export holds what: columns are found by name (case, spaces,
//! `_`, `-` and `.` ignored; any order; columns tieout does not use are ignored), first
//! through an explicit map (`--columns ticket_id=Id,email="Requester email"`, or the
//! `[columns]` table of `tickets.toml`), then through the built-in header aliases of the
//! common helpdesk exports. When no column gives the order id, it is looked for in the
//! subject and message with the order pattern ([`OrderPattern`]).

use regex::Regex;

/// What tieout reads from a ticket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Field {
    TicketId,
    Email,
    OrderId,
    Message,
    Subject,
    Amount,
}

impl Field {
    pub const ALL: [Field; 6] = [
        Field::TicketId,
        Field::Email,
        Field::OrderId,
        Field::Message,
        Field::Subject,
        Field::Amount,
    ];

    /// The field's name in `--columns` and `tickets.toml`.
    pub fn key(self) -> &'static str {
        match self {
            Field::TicketId => "ticket_id",
            Field::Email => "email",
            Field::OrderId => "order_id",
            Field::Message => "message",
            Field::Subject => "subject",
            Field::Amount => "amount",
        }
    }

    pub fn parse(key: &str) -> Option<Field> {
        Field::ALL.into_iter().find(|f| norm(f.key()) == norm(key))
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// A header as it is compared: lower case, letters and digits only
/// (`Requester Email`, `requester_email` and `requester.email` are all `requesteremail`).
pub fn norm(header: &str) -> String {
    header
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// A built-in header: the field it gives, the export it comes from, and (for a header too
/// common to trust alone) another header that must be present with it.
struct Alias {
    field: Field,
    header: &'static str,
    from: &'static str,
    needs: Option<&'static str>,
}

const fn alias(field: Field, header: &'static str, from: &'static str) -> Alias {
    Alias {
        field,
        header,
        from,
        needs: None,
    }
}

/// The built-in headers, in the order they are tried for each field (the first present
/// wins). Sources: each helpdesk's documented ticket/conversation export or API fields.
const ALIASES: &[Alias] = &[
    // tieout's own four-column file (README, "The workbench").
    alias(Field::TicketId, "ticket_id", "tieout"),
    alias(Field::Email, "email", "tieout"),
    alias(Field::OrderId, "order_id", "tieout"),
    alias(Field::Message, "message", "tieout"),
    alias(Field::Amount, "amount", "tieout"),
    alias(
        Field::Subject,
        "subject",
        "Zendesk, Freshdesk, Help Scout, Gorgias, Front",
    ),
    // Zendesk's ticket CSV export: Id, Requester, Requester email, Subject, Description, ...
    alias(Field::TicketId, "Id", "Zendesk"),
    alias(Field::Email, "Requester email", "Zendesk"),
    alias(Field::Message, "Description", "Zendesk, Freshdesk"),
    // Freshdesk's ticket export: Ticket ID, Subject, Description, Requester Email, ...
    // (the API's `description_text` is the plain-text description).
    alias(Field::TicketId, "Ticket ID", "Freshdesk, Gorgias"),
    alias(Field::Message, "description_text", "Freshdesk API"),
    // Help Scout's conversation export: Conversation ID, Customer email, Subject, Preview.
    // The conversation fields of its Mailbox API reports (`id`, `number`, `subject`,
    // `status`, `preview`, `customerName`, `customerEmail`) are the same names once
    // normalised ([`norm`]), so a CSV built from the API resolves too; the header spelling
    // of the web app's own CSV download is not in the documentation we could read.
    alias(
        Field::TicketId,
        "Conversation ID",
        "Help Scout, Front, Intercom",
    ),
    alias(Field::Email, "Customer email", "Help Scout, Gorgias"),
    alias(Field::Message, "Preview", "Help Scout"),
    // Gorgias' ticket export: Ticket id, Customer email, Subject, First message. Its API's
    // ticket object (`id`, `customer.email`, `subject`) normalises to the same names.
    alias(Field::Message, "First message", "Gorgias"),
    // Intercom's conversation export: conversation_id, message_author_email,
    // message_body, source.subject.
    alias(Field::Email, "message_author_email", "Intercom"),
    alias(Field::Email, "user email", "Intercom"),
    alias(Field::Message, "message_body", "Intercom"),
    alias(Field::Subject, "source.subject", "Intercom"),
    // Front's analytics message export: Conversation ID, Contact handle, Subject, Extract.
    alias(Field::Email, "Contact handle", "Front"),
    alias(Field::Message, "Extract", "Front"),
    // Shopify's order export: Name (#1001), Email, Total, Notes, Id; `Name` is trusted as
    // the order only beside Shopify's `Financial Status`.
    Alias {
        field: Field::OrderId,
        header: "Name",
        from: "Shopify order export",
        needs: Some("Financial Status"),
    },
    alias(Field::Amount, "Total", "Shopify order export"),
    alias(Field::Message, "Notes", "Shopify order export"),
    // Other common spellings.
    alias(Field::OrderId, "Order number", "common"),
    alias(Field::OrderId, "Order", "common"),
    alias(Field::Email, "From", "Front"),
    alias(Field::Message, "Body", "common"),
];

/// An explicit mapping of fields to headers, from `--columns` or `tickets.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnMap(Vec<(Field, String)>);

impl ColumnMap {
    /// `ticket_id=Id,email="Requester email",message=Description`: comma-separated
    /// `field=header` pairs; a header with a comma or spaces may be quoted.
    pub fn parse(spec: &str) -> Result<ColumnMap, String> {
        let mut out = ColumnMap::default();
        for pair in split_unquoted(spec) {
            let pair = pair.trim();
            if pair.is_empty() {
                continue;
            }
            let (key, header) = pair.split_once('=').ok_or_else(|| {
                format!("--columns: '{pair}' is not field=header (e.g. email=\"Requester email\")")
            })?;
            let header = header.trim().trim_matches('"').trim();
            out.set(key.trim(), header)?;
        }
        Ok(out)
    }

    /// Maps `key` (a field name) to `header`; an unknown field is an error naming the known.
    pub fn set(&mut self, key: &str, header: &str) -> Result<(), String> {
        let field = Field::parse(key).ok_or_else(|| {
            format!(
                "unknown ticket field '{key}' in the column map; the fields are {}",
                Field::ALL.map(Field::key).join(", ")
            )
        })?;
        if header.is_empty() {
            return Err(format!("the column map gives '{key}' no header"));
        }
        self.0.retain(|(f, _)| *f != field);
        self.0.push((field, header.to_string()));
        Ok(())
    }

    /// This map with `over`'s entries replacing its own (the command line over the file).
    pub fn overlaid(mut self, over: &ColumnMap) -> ColumnMap {
        for (f, h) in &over.0 {
            self.0.retain(|(g, _)| g != f);
            self.0.push((*f, h.clone()));
        }
        self
    }

    fn get(&self, field: Field) -> Option<&str> {
        self.0
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, h)| h.as_str())
    }
}

fn split_unquoted(spec: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (i, c) in spec.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => {
                parts.push(&spec[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&spec[start..]);
    parts
}

/// Where each field is in a file's header, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    columns: [Option<usize>; 6],
    /// Per field: the header used and where its meaning came from.
    pub found: Vec<(Field, String, &'static str)>,
}

impl Layout {
    pub fn column(&self, field: Field) -> Option<usize> {
        self.columns[field.index()]
    }

    /// Whether the order id came from Shopify's order export (one row per line item,
    /// so later rows of the same order repeat it).
    pub fn is_shopify_orders(&self) -> bool {
        self.found
            .iter()
            .any(|(f, _, from)| *f == Field::OrderId && from.starts_with("Shopify"))
    }
}

/// Finds the fields in `headers`: the explicit map first (a mapped header that is not
/// there is an error), then the built-in aliases. The email is required; the error names
/// the headers found and how to map them.
pub fn resolve(headers: &[String], map: &ColumnMap) -> Result<Layout, String> {
    let normed: Vec<String> = headers.iter().map(|h| norm(h)).collect();
    let find = |h: &str| normed.iter().position(|n| *n == norm(h));
    let mut layout = Layout {
        columns: [None; 6],
        found: Vec::new(),
    };
    for field in Field::ALL {
        if let Some(h) = map.get(field) {
            let at = find(h).ok_or_else(|| {
                format!(
                    "the column map names \"{h}\" for {}, but the header has no such column; the header has: {}",
                    field.key(),
                    listed(headers)
                )
            })?;
            layout.columns[field.index()] = Some(at);
            layout
                .found
                .push((field, headers[at].clone(), "column map"));
            continue;
        }
        let hit = ALIASES
            .iter()
            .filter(|a| a.field == field)
            .filter(|a| a.needs.is_none_or(|n| find(n).is_some()))
            .find_map(|a| find(a.header).map(|at| (at, a.from)));
        if let Some((at, from)) = hit {
            // One column gives one field: a header already taken is not reused.
            if !layout.columns.contains(&Some(at)) {
                layout.columns[field.index()] = Some(at);
                layout.found.push((field, headers[at].clone(), from));
            }
        }
    }
    if layout.column(Field::Email).is_none() {
        return Err(format!(
            "no column gives the customer's email (looked for {}); the header has: {}; name it with --columns email=\"<header>\"",
            looked_for(Field::Email),
            listed(headers)
        ));
    }
    Ok(layout)
}

/// A CSV file needs somewhere for the order id to come from: an order column, or a
/// subject or message to find it in (a JSON object without them is a ticket for review).
pub fn check_order_source(layout: &Layout, headers: &[String]) -> Result<(), String> {
    if [Field::OrderId, Field::Subject, Field::Message]
        .iter()
        .all(|f| layout.column(*f).is_none())
    {
        return Err(format!(
            "no column gives the order id, a subject or a message to find it in (looked for {}); the header has: {}; name one with --columns order_id=\"<header>\"",
            looked_for(Field::OrderId),
            listed(headers)
        ));
    }
    Ok(())
}

fn looked_for(field: Field) -> String {
    ALIASES
        .iter()
        .filter(|a| a.field == field)
        .map(|a| a.header)
        .collect::<Vec<_>>()
        .join(", ")
}

fn listed(headers: &[String]) -> String {
    if headers.is_empty() {
        return "no columns".to_string();
    }
    headers
        .iter()
        .map(|h| format!("\"{}\"", h.trim()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// An email cell as a helpdesk may write it: `Ann Lee <ann@x.io>` gives `ann@x.io`.
pub fn email_of(cell: &str) -> String {
    let cell = cell.trim();
    match (cell.rfind('<'), cell.rfind('>')) {
        (Some(a), Some(b)) if a < b && cell[a + 1..b].contains('@') => cell[a + 1..b].trim().into(),
        _ => cell.to_string(),
    }
}

/// The order ids looked for in a ticket's subject and message when no column gives one.
#[derive(Debug, Clone)]
pub struct OrderPattern(Vec<Regex>);

/// `ORD-1234`-style ids (two to ten capitals, a dash, three or more digits) and Shopify's
/// order names (`#1001`).
pub const DEFAULT_ORDER_PATTERNS: [&str; 2] = [r"\b[A-Z]{2,10}-[0-9]{3,}\b", r"#[0-9]{3,}\b"];

impl Default for OrderPattern {
    fn default() -> Self {
        // The default patterns are constants that compile.
        OrderPattern(
            DEFAULT_ORDER_PATTERNS
                .iter()
                .filter_map(|p| Regex::new(p).ok())
                .collect(),
        )
    }
}

/// What the pattern found in a ticket's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    One(String),
    None,
    Several(Vec<String>),
}

impl OrderPattern {
    /// Patterns given by the user (`--order-pattern`, `order_pattern` in `tickets.toml`),
    /// replacing the defaults; a pattern that does not compile is an error saying why.
    pub fn new(patterns: &[String]) -> Result<OrderPattern, String> {
        patterns
            .iter()
            .map(|p| {
                Regex::new(p).map_err(|e| {
                    format!("the order pattern '{p}' is not a valid regular expression: {e}")
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(OrderPattern)
    }

    /// The distinct order ids (ignoring case) in `texts`, in order of appearance.
    pub fn find(&self, texts: &[&str]) -> Found {
        let mut ids: Vec<String> = Vec::new();
        for text in texts {
            let mut hits: Vec<(usize, String)> = self
                .0
                .iter()
                .flat_map(|re| {
                    re.find_iter(text)
                        .map(|m| (m.start(), m.as_str().to_string()))
                })
                .collect();
            hits.sort();
            for (_, id) in hits {
                if !ids.iter().any(|x| x.eq_ignore_ascii_case(&id)) {
                    ids.push(id);
                }
            }
        }
        match ids.len() {
            0 => Found::None,
            1 => Found::One(ids.remove(0)),
            _ => Found::Several(ids),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn headers_are_found_by_name_in_any_order_and_spelling() {
        let l = resolve(
            &h(&[
                "Status",
                " Requester Email ",
                "SUBJECT",
                "id",
                "Description",
            ]),
            &ColumnMap::default(),
        )
        .expect("zendesk");
        assert_eq!(l.column(Field::Email), Some(1));
        assert_eq!(l.column(Field::Subject), Some(2));
        assert_eq!(l.column(Field::TicketId), Some(3));
        assert_eq!(l.column(Field::Message), Some(4));
        assert_eq!(l.column(Field::OrderId), None);
    }

    /// The conversation and ticket fields Help Scout's Mailbox API reports and Gorgias'
    /// ticket object document resolve through the built-in headers as they are named
    /// there.
    #[test]
    fn help_scout_and_gorgias_api_field_names_resolve() {
        let l = resolve(
            &h(&[
                "id",
                "number",
                "subject",
                "status",
                "preview",
                "customerName",
                "customerEmail",
            ]),
            &ColumnMap::default(),
        )
        .expect("help scout");
        assert_eq!(l.column(Field::TicketId), Some(0));
        assert_eq!(l.column(Field::Subject), Some(2));
        assert_eq!(l.column(Field::Message), Some(4));
        assert_eq!(l.column(Field::Email), Some(6));
        let l = resolve(
            &h(&["id", "status", "channel", "customer.email", "subject"]),
            &ColumnMap::default(),
        )
        .expect("gorgias");
        assert_eq!(l.column(Field::TicketId), Some(0));
        assert_eq!(l.column(Field::Email), Some(3));
        assert_eq!(l.column(Field::Subject), Some(4));
    }

    #[test]
    fn shopify_name_is_the_order_only_beside_financial_status() {
        let l = resolve(
            &h(&["Name", "Email", "Financial Status", "Total"]),
            &ColumnMap::default(),
        )
        .expect("shopify");
        assert_eq!(l.column(Field::OrderId), Some(0));
        assert_eq!(l.column(Field::Amount), Some(3));
        assert!(l.is_shopify_orders());
        let names = h(&["Name", "Email"]);
        let l = resolve(&names, &ColumnMap::default()).expect("email only");
        assert_eq!(
            l.column(Field::OrderId),
            None,
            "a person's name is not an order"
        );
        let e = check_order_source(&l, &names).expect_err("nowhere to find an order");
        assert!(e.contains("no column gives the order id"), "{e}");
    }

    #[test]
    fn a_missing_email_names_what_was_found() {
        let e = resolve(&h(&["Id", "Subject"]), &ColumnMap::default()).expect_err("no email");
        assert!(e.contains("the header has: \"Id\", \"Subject\""), "{e}");
        assert!(e.contains("--columns email="), "{e}");
    }

    #[test]
    fn an_explicit_map_wins_and_must_name_a_real_column() {
        let map =
            ColumnMap::parse("ticket_id=Ref, email=\"Mail, primary\",message=Text").expect("map");
        let l = resolve(&h(&["Text", "Mail, primary", "Ref", "email"]), &map).expect("mapped");
        assert_eq!(l.column(Field::Email), Some(1));
        assert_eq!(l.column(Field::TicketId), Some(2));
        let e = resolve(&h(&["Text", "email"]), &map).expect_err("no Ref");
        assert!(
            e.contains("names \"Mail, primary\" for email") || e.contains("names \"Ref\""),
            "{e}"
        );
        let e = ColumnMap::parse("mail=x").expect_err("unknown field");
        assert!(e.contains("ticket_id, email, order_id"), "{e}");
        let e = ColumnMap::parse("email").expect_err("no =");
        assert!(e.contains("field=header"), "{e}");
    }

    #[test]
    fn order_ids_are_found_in_text_never_guessed() {
        let p = OrderPattern::default();
        assert_eq!(
            p.find(&["Refund ORD-7010 please", ""]),
            Found::One("ORD-7010".into())
        );
        assert_eq!(
            p.find(&["Order #1042", "about #1042"]),
            Found::One("#1042".into())
        );
        assert_eq!(p.find(&["T-1001: a refund, COVID-19"]), Found::None);
        assert_eq!(
            p.find(&["ORD-1 ORD-123", "and ORD-456"]),
            Found::Several(vec!["ORD-123".into(), "ORD-456".into()])
        );
        let custom = OrderPattern::new(&["A[0-9]+".into()]).expect("custom");
        assert_eq!(custom.find(&["order A77"]), Found::One("A77".into()));
        assert!(OrderPattern::new(&["(".into()]).is_err());
    }

    #[test]
    fn emails_in_angle_brackets_are_taken_out() {
        assert_eq!(email_of("Ann Lee <ann@x.io>"), "ann@x.io");
        assert_eq!(email_of(" ann@x.io "), "ann@x.io");
        assert_eq!(email_of("<not an email>"), "<not an email>");
    }
}
