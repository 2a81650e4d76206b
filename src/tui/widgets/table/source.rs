//! What a table shows: typed cells (so sorting compares amounts and dates, not strings),
//! the columns, and the sources rows come from ([`RowsSource`]: a `Vec` of rows with one
//! accessor per column).

use super::*;

/// One cell's value. Typed, so sorting compares amounts and dates, not strings.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell<'a> {
    Text(Cow<'a, str>),
    /// An amount: right-aligned, coloured by sign, with its currency.
    Money(Money),
    Int(i64),
    /// A calendar date in the display time zone (unix seconds).
    Date(Option<i64>),
    /// Date and time in the display time zone (unix seconds).
    DateTime(Option<i64>),
    /// Text with a meaning (e.g. `overdue`, `failed`) that the theme colours.
    Tag(Cow<'a, str>, Role),
    Empty,
}

impl<'a> Cell<'a> {
    /// Borrowed text.
    pub fn text(s: &'a str) -> Self {
        Cell::Text(Cow::Borrowed(s))
    }

    /// Optional text; empty when absent.
    pub fn opt(s: Option<&'a str>) -> Self {
        s.map_or(Cell::Empty, Cell::text)
    }

    /// Owned text.
    pub fn owned(s: String) -> Self {
        Cell::Text(Cow::Owned(s))
    }

    /// What the cell shows.
    pub fn display(&self, tz: &TimeZone) -> Cow<'_, str> {
        match self {
            Cell::Text(s) | Cell::Tag(s, _) => Cow::Borrowed(s.as_ref()),
            Cell::Money(m) => Cow::Owned(format!(
                "{} {}",
                format_major_grouped(m.minor, m.currency),
                m.currency
            )),
            Cell::Int(n) => Cow::Owned(n.to_string()),
            Cell::Date(Some(ts)) => Cow::Owned(crate::time::date_in(*ts, tz)),
            Cell::DateTime(Some(ts)) => Cow::Owned(datetime_in(*ts, tz)),
            Cell::Date(None) | Cell::DateTime(None) | Cell::Empty => Cow::Borrowed(""),
        }
    }

    /// What a copy or CSV export carries: amounts as plain major units (`-1234.50`).
    pub fn export(&self, tz: &TimeZone) -> Cow<'_, str> {
        match self {
            Cell::Money(m) => Cow::Owned(format_major(m.minor, m.currency)),
            other => other.display(tz),
        }
    }

    /// The role the theme styles the cell with.
    pub fn role(&self) -> Role {
        match self {
            Cell::Money(m) => money_role(m.minor),
            Cell::Tag(_, r) => *r,
            _ => Role::Text,
        }
    }

    pub(super) fn right_aligned(&self) -> bool {
        matches!(self, Cell::Money(_) | Cell::Int(_))
    }

    pub(super) fn rank(&self) -> u8 {
        match self {
            Cell::Money(_) => 0,
            Cell::Int(_) => 1,
            Cell::Date(_) | Cell::DateTime(_) => 2,
            Cell::Text(_) | Cell::Tag(_, _) => 3,
            Cell::Empty => 4,
        }
    }

    pub(super) fn is_blank(&self) -> bool {
        matches!(self, Cell::Empty | Cell::Date(None) | Cell::DateTime(None))
            || matches!(self, Cell::Text(s) if s.is_empty())
    }
}

/// The role of an amount by its sign.
pub fn money_role(minor: i64) -> Role {
    match minor.cmp(&0) {
        Ordering::Less => Role::AmountNegative,
        Ordering::Equal => Role::AmountZero,
        Ordering::Greater => Role::AmountPositive,
    }
}

pub(super) fn datetime_in(ts: i64, tz: &TimeZone) -> String {
    jiff::Timestamp::from_second(ts)
        .map(|t| {
            t.to_zoned(tz.clone())
                .strftime("%Y-%m-%d %H:%M")
                .to_string()
        })
        .unwrap_or_default()
}

/// A column's header and how wide it may grow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub title: String,
    pub max_width: u16,
}

/// Where a table's rows come from. Must be cheap to read from another thread (the source
/// is shared with sort/filter jobs).
pub trait TableSource: Send + Sync + 'static {
    fn columns(&self) -> &[Column];
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The cell at `row` (an index into the source, not the view), `col`.
    fn cell(&self, row: usize, col: usize) -> Cell<'_>;
    /// A meaning for the whole row (e.g. overdue), if any.
    fn row_role(&self, _row: usize) -> Option<Role> {
        None
    }
}

/// How a column reads its cell from a row.
pub type CellOf<T> = Box<dyn for<'r> Fn(&'r T) -> Cell<'r> + Send + Sync>;

/// A [`CellOf`] from a closure (the bound lets the closure's cell borrow from its row).
pub fn cell_of<T, F>(f: F) -> CellOf<T>
where
    F: for<'r> Fn(&'r T) -> Cell<'r> + Send + Sync + 'static,
{
    Box::new(f)
}

/// One column of a [`RowsSource`]: a title, a maximum width and an accessor.
pub struct ColumnDef<T> {
    pub title: &'static str,
    pub max_width: u16,
    pub get: CellOf<T>,
}

/// Shorthand for a [`ColumnDef`].
pub fn col<T: 'static>(
    title: &'static str,
    max_width: u16,
    get: fn(&T) -> Cell<'_>,
) -> ColumnDef<T> {
    ColumnDef {
        title,
        max_width,
        get: Box::new(get),
    }
}

/// A column showing a row's declared field (`report::fields`): its title, and its value as
/// a typed cell (amounts as money, times as dates, `yes`/`no`), or the text people read
/// where the declaration gives one. `row` reaches the declared row from the table's row.
pub fn field_col<T: 'static, R: 'static>(
    field: Field<R>,
    max_width: u16,
    row: fn(&T) -> &R,
) -> ColumnDef<T> {
    ColumnDef {
        title: field.pane_title(),
        max_width,
        get: cell_of(move |t: &T| field_cell(&field, row(t))),
    }
}

/// A declared field's cell in `row`.
pub fn field_cell<'r, R>(field: &Field<R>, row: &'r R) -> Cell<'r> {
    if field.shown.is_some() {
        return Cell::owned(field.people_text(row));
    }
    match field.value(row) {
        Value::Str(Some(Cow::Borrowed(s))) => Cell::text(s),
        Value::Str(Some(Cow::Owned(s))) => Cell::owned(s),
        Value::Money(Some(m)) => Cell::Money(m),
        Value::Int(Some(n)) => Cell::Int(n),
        Value::Time(t) => Cell::Date(t),
        Value::Bool(b) => Cell::text(if b { "yes" } else { "no" }),
        Value::List(items) => Cell::owned(items.join(" ")),
        Value::Str(None) | Value::Money(None) | Value::Int(None) => Cell::Empty,
    }
}

/// A table over a `Vec` of rows, one accessor per column.
pub struct RowsSource<T> {
    pub(super) rows: Vec<T>,
    pub(super) defs: Vec<ColumnDef<T>>,
    pub(super) columns: Vec<Column>,
    pub(super) row_role: Option<fn(&T) -> Option<Role>>,
}

impl<T: Send + Sync + 'static> RowsSource<T> {
    pub fn new(rows: Vec<T>, defs: Vec<ColumnDef<T>>) -> Self {
        let columns = defs
            .iter()
            .map(|d| Column {
                title: d.title.to_string(),
                max_width: d.max_width,
            })
            .collect();
        RowsSource {
            rows,
            defs,
            columns,
            row_role: None,
        }
    }

    /// Gives whole rows a meaning (e.g. `Role::Overdue`).
    pub fn with_row_role(mut self, f: fn(&T) -> Option<Role>) -> Self {
        self.row_role = Some(f);
        self
    }

    pub fn rows(&self) -> &[T] {
        &self.rows
    }
}

impl<T: Send + Sync + 'static> TableSource for RowsSource<T> {
    fn columns(&self) -> &[Column] {
        &self.columns
    }
    fn len(&self) -> usize {
        self.rows.len()
    }
    fn cell(&self, row: usize, col: usize) -> Cell<'_> {
        match (self.rows.get(row), self.defs.get(col)) {
            (Some(r), Some(d)) => (d.get)(r),
            _ => Cell::Empty,
        }
    }
    fn row_role(&self, row: usize) -> Option<Role> {
        self.row_role.and_then(|f| self.rows.get(row).and_then(f))
    }
}
