//! Safe by construction: a query is parsed (with the dialect polars uses) and checked
//! BEFORE it reaches polars. Only one `SELECT`/`WITH` query is let through; any other
//! statement (`CREATE`, `DELETE`, `SHOW`, `EXPLAIN`, `COPY`, ...) and any table function
//! in a `FROM` (`read_parquet('…')`, `read_csv`, `read_ipc`, `read_json`, or any other
//! call) is refused, so a typed or saved query reads the registered tables and nothing
//! else (polars has no switch to turn its file-reading table functions off).

use std::ops::ControlFlow;

use sqlparser::ast::{
    Ident, ObjectName, Query, SetExpr, Spanned, Statement, TableFactor, Visit, Visitor,
};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::{Parser, ParserOptions};
use sqlparser::tokenizer::Span;

use super::{Pos, QueryError};

/// The most operators (`AND`, `OR`, `NOT`, comparisons, arithmetic) a query may hold:
/// each can be one level of recursion when the query is parsed and planned.
pub const MAX_OPERATORS: usize = 2_000;

/// The longest query text, in bytes.
pub const MAX_BYTES: usize = 256 << 10;

/// Every name the statements read from (a `FROM` or `JOIN`, in any subquery or CTE; a
/// CTE's own name too), lowercased: the engine registers only the tables and views among
/// them, so an alias or a column that happens to be a view's name builds nothing.
pub fn relations(statements: &[Statement]) -> std::collections::BTreeSet<String> {
    let mut names = std::collections::BTreeSet::new();
    for statement in statements {
        let _ = sqlparser::ast::visit_relations(statement, |name: &ObjectName| {
            if let Some(last) = name.0.last().and_then(|part| part.as_ident()) {
                names.insert(last.value.to_ascii_lowercase());
            }
            ControlFlow::<()>::Continue(())
        });
    }
    names
}

/// Refuses a query too long or with too many operators to be parsed and planned safely,
/// before any parser sees it (counting tokens does not recurse). A long `IN (…)` list is
/// one operator, however many values it holds.
pub fn check_size(sql: &str) -> Result<(), QueryError> {
    use sqlparser::keywords::Keyword;
    use sqlparser::tokenizer::{Token, Tokenizer};
    if sql.len() > MAX_BYTES {
        return Err(QueryError::Refused {
            message: format!(
                "the query is {} KiB; at most {} KiB: put long lists of values in fewer, simpler queries",
                sql.len() >> 10,
                MAX_BYTES >> 10
            ),
            at: None,
        });
    }
    // A text the tokenizer cannot read is left to the parser, which says where.
    let Ok(tokens) = Tokenizer::new(&GenericDialect, sql).tokenize() else {
        return Ok(());
    };
    let operators = tokens
        .iter()
        .filter(|t| match t {
            Token::Word(w) => matches!(w.keyword, Keyword::AND | Keyword::OR | Keyword::NOT),
            Token::DoubleEq
            | Token::Eq
            | Token::Neq
            | Token::Lt
            | Token::Gt
            | Token::LtEq
            | Token::GtEq
            | Token::Spaceship
            | Token::Plus
            | Token::Minus
            | Token::Mul
            | Token::Div
            | Token::Mod
            | Token::StringConcat => true,
            _ => false,
        })
        .count();
    if operators > MAX_OPERATORS {
        return Err(QueryError::Refused {
            message: format!(
                "the query has {operators} operators; at most {MAX_OPERATORS}: write `col IN ('a', 'b', …)` instead of a chain of `OR col = …`, or split the query"
            ),
            at: None,
        });
    }
    Ok(())
}

/// Parses `sql` and refuses what is not one plain query over tables.
pub fn check(sql: &str) -> Result<Vec<Statement>, QueryError> {
    let statements = parse(sql)?;
    match statements.len() {
        0 => {
            return Err(QueryError::Syntax {
                message: "the query is empty: write a SELECT".into(),
                at: None,
            });
        }
        1 => {}
        _ => {
            return Err(QueryError::Refused {
                message: "one statement at a time: remove the `;` and what follows".into(),
                at: pos(statements[1].span()),
            });
        }
    }
    for st in &statements {
        if !matches!(st, Statement::Query(_)) {
            let word = st.to_string();
            let word = word
                .split_whitespace()
                .next()
                .unwrap_or("that")
                .to_uppercase();
            return Err(QueryError::Refused {
                message: format!(
                    "{word} statements are not allowed: only queries (SELECT … / WITH …) read the snapshot"
                ),
                at: pos(st.span()),
            });
        }
        let mut v = FromCheck;
        if let ControlFlow::Break(e) = st.visit(&mut v) {
            return Err(e);
        }
    }
    Ok(statements)
}

/// The statements of `sql`, as polars' SQL front end parses them.
pub fn parse(sql: &str) -> Result<Vec<Statement>, QueryError> {
    Parser::new(&GenericDialect)
        .with_options(ParserOptions::new().with_trailing_commas(true))
        .try_with_sql(sql)
        .and_then(|mut p| p.parse_statements())
        .map_err(|e| syntax(&e.to_string(), sql))
}

/// A parser message as an error with its position ("… at Line: 2, Column: 5").
/// A message about the end of the text without a position points just past its end.
fn syntax(text: &str, sql: &str) -> QueryError {
    let text = text
        .trim_start_matches("sql parser error: ")
        .trim_start_matches("sql tokenizer error: ");
    let (message, at) = match text.rfind(" at Line: ") {
        Some(i) => {
            let rest = &text[i + " at Line: ".len()..];
            let mut it = rest.split(", Column: ");
            let line = it.next().and_then(|l| l.trim().parse().ok());
            let column = it
                .next()
                .and_then(|c| c.trim().split(|ch: char| !ch.is_ascii_digit()).next())
                .and_then(|c| c.parse().ok());
            let at = line.zip(column).map(|(line, column)| Pos { line, column });
            (text[..i].to_string(), at)
        }
        None => (text.to_string(), None),
    };
    let at = at.or_else(|| text.contains("EOF").then(|| end_of(sql)));
    QueryError::Syntax { message, at }
}

/// Just past the last character of `sql`.
fn end_of(sql: &str) -> Pos {
    let body = sql.trim_end();
    let line = body.lines().count().max(1) as u64;
    let last = body.lines().last().unwrap_or_default();
    Pos {
        line,
        column: last.chars().count() as u64 + 1,
    }
}

pub(super) fn pos(span: Span) -> Option<Pos> {
    (span.start.line > 0).then_some(Pos {
        line: span.start.line,
        column: span.start.column,
    })
}

#[derive(Default)]
struct FromCheck;

fn refuse_function(name: &ObjectName) -> ControlFlow<QueryError> {
    ControlFlow::Break(QueryError::Refused {
        message: format!(
            "table function {name}(…) is not allowed: a query reads only the snapshot's tables (see `tieout query --tables`)"
        ),
        at: pos(name.span()),
    })
}

/// A query body that writes: `SELECT … INTO`, or an `INSERT`/`UPDATE`/`DELETE`/`MERGE`
/// after a `WITH` (both parse as a query, so the statement check alone lets them by).
fn writes(body: &SetExpr) -> Option<(&'static str, Span)> {
    match body {
        SetExpr::Select(s) => s.into.as_ref().map(|i| ("SELECT … INTO", i.span())),
        SetExpr::SetOperation { left, right, .. } => writes(left).or_else(|| writes(right)),
        SetExpr::Insert(st) => Some(("INSERT", st.span())),
        SetExpr::Update(st) => Some(("UPDATE", st.span())),
        SetExpr::Delete(st) => Some(("DELETE", st.span())),
        SetExpr::Merge(st) => Some(("MERGE", st.span())),
        SetExpr::Query(_) | SetExpr::Values(_) | SetExpr::Table(_) => None,
    }
}

impl Visitor for FromCheck {
    type Break = QueryError;

    /// Every query, nested ones and those of a `WITH` included, only reads.
    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<QueryError> {
        match writes(&query.body) {
            Some((what, span)) => ControlFlow::Break(QueryError::Refused {
                message: format!(
                    "{what} is not allowed: a query only reads the snapshot (SELECT … / WITH … SELECT …) and writes nothing; use --out to keep a result"
                ),
                at: pos(span).or_else(|| pos(query.span())),
            }),
            None => ControlFlow::Continue(()),
        }
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<QueryError> {
        match factor {
            TableFactor::Table {
                name,
                args: Some(_),
                ..
            }
            | TableFactor::Function { name, .. } => refuse_function(name),
            TableFactor::TableFunction { expr, .. } => ControlFlow::Break(QueryError::Refused {
                message: format!("table function {expr} is not allowed"),
                at: pos(expr.span()),
            }),
            _ => ControlFlow::Continue(()),
        }
    }
}

/// Where an identifier named `name` (case-insensitively) first appears in the query.
pub fn find_ident(statements: &[Statement], name: &str) -> Option<Pos> {
    struct Finder<'a>(&'a str);
    impl Visitor for Finder<'_> {
        type Break = Span;
        fn pre_visit_expr(&mut self, expr: &sqlparser::ast::Expr) -> ControlFlow<Span> {
            use sqlparser::ast::Expr;
            let found = |id: &Ident| id.value.eq_ignore_ascii_case(self.0).then_some(id.span);
            let hit = match expr {
                Expr::Identifier(id) => found(id),
                Expr::CompoundIdentifier(parts) => parts.iter().find_map(found),
                _ => None,
            };
            hit.map_or(ControlFlow::Continue(()), ControlFlow::Break)
        }
        fn pre_visit_relation(&mut self, relation: &ObjectName) -> ControlFlow<Span> {
            let text = relation.to_string();
            let last = text.rsplit('.').next().unwrap_or(&text);
            if last.trim_matches('"').eq_ignore_ascii_case(self.0) {
                return ControlFlow::Break(relation.span());
            }
            ControlFlow::Continue(())
        }
    }
    first_span(statements, &mut Finder(name))
}

/// Where a call of the function `name` first appears in the query.
pub fn find_function(statements: &[Statement], name: &str) -> Option<Pos> {
    struct Finder<'a>(&'a str);
    impl Visitor for Finder<'_> {
        type Break = Span;
        fn pre_visit_expr(&mut self, expr: &sqlparser::ast::Expr) -> ControlFlow<Span> {
            if let sqlparser::ast::Expr::Function(f) = expr
                && f.name.to_string().eq_ignore_ascii_case(self.0)
            {
                return ControlFlow::Break(f.name.span());
            }
            ControlFlow::Continue(())
        }
    }
    first_span(statements, &mut Finder(name))
}

/// Where `finder` first stops in the statements.
fn first_span(statements: &[Statement], finder: &mut impl Visitor<Break = Span>) -> Option<Pos> {
    statements.iter().find_map(|st| match st.visit(finder) {
        ControlFlow::Break(span) => pos(span),
        ControlFlow::Continue(()) => None,
    })
}
