//! The trail screen: `enter` on a ticket shows how its suggestion was reached, the very
//! lines `tieout suggest --explain` writes for it (`domain::refunds::trail::section`, the
//! one rendering), wrapped to the screen and scrolled with the moving keys. `enter` there
//! opens the ticket's evidence; `esc` goes back to the queue.

use super::*;
use crate::domain::refunds::trail;
use crate::model::dashboard::DashboardLinks;

/// One ticket's trail.
pub struct TrailScreen {
    title: String,
    lines: Vec<String>,
    /// The first wrapped line shown.
    scroll: usize,
    /// Wrapped lines and visible rows at the last draw (what the moving keys clamp to).
    total: usize,
    rows: usize,
    a: Assessment,
    data: Arc<AccountData>,
    links: DashboardLinks,
}

impl TrailScreen {
    pub fn new(a: &Assessment, data: Arc<AccountData>, links: DashboardLinks) -> Self {
        TrailScreen {
            title: format!(
                "{} trail",
                a.suggestion.ticket_id.as_deref().unwrap_or("ticket")
            ),
            lines: trail::section(&a.trail),
            scroll: 0,
            total: 0,
            rows: 0,
            a: a.clone(),
            data,
            links,
        }
    }

    fn max_scroll(&self) -> usize {
        self.total.saturating_sub(self.rows)
    }

    fn scroll_by(&mut self, delta: isize) {
        self.scroll = self
            .scroll
            .saturating_add_signed(delta)
            .min(self.max_scroll());
    }
}

/// A trail line wrapped to `width`: a list item's continuation lines indented under its
/// text.
fn wrapped(line: &str, width: usize) -> Vec<String> {
    let indent = match line.split_once(' ') {
        Some((head, _)) if head == "-" || head.trim_end_matches('.').parse::<u32>().is_ok() => {
            head.chars().count() + 1
        }
        _ => 0,
    };
    if line.is_empty() {
        return vec![String::new()];
    }
    let first = wrap(line, width);
    let Some((head, rest)) = first.split_first() else {
        return vec![String::new()];
    };
    if indent == 0 || rest.is_empty() {
        return first;
    }
    let tail = rest.join(" ");
    let mut out = vec![head.clone()];
    out.extend(
        wrap(&tail, width.saturating_sub(indent))
            .into_iter()
            .map(|l| format!("{}{l}", " ".repeat(indent))),
    );
    out
}

fn role_of(line: &str) -> Role {
    if line.ends_with(':') || line.starts_with("Decided by:") {
        Role::Title
    } else if line.ends_with("applies, and decides") {
        Role::Ok
    } else if line.contains(": failed: ") {
        Role::Failed
    } else {
        Role::Text
    }
}

impl Pane for TrailScreen {
    fn title(&self) -> String {
        self.title.clone()
    }

    fn on_data(&mut self, _ws: &Workspace, _cx: &mut Cx<'_>) -> bool {
        // The trail of one load's decision: close rather than explain stale data.
        false
    }

    fn handle(&mut self, action: Action, cx: &mut Cx<'_>) -> Handled {
        let page = isize::try_from(self.rows.max(1)).unwrap_or(isize::MAX);
        match action {
            Action::Up => self.scroll_by(-1),
            Action::Down => self.scroll_by(1),
            Action::PageUp => self.scroll_by(-page),
            Action::PageDown => self.scroll_by(page),
            Action::HalfPageUp => self.scroll_by(-(page / 2).max(1)),
            Action::HalfPageDown => self.scroll_by((page / 2).max(1)),
            Action::Top => self.scroll = 0,
            Action::Bottom => self.scroll = self.max_scroll(),
            Action::Open => {
                if self.a.suggestion.evidence.is_empty() {
                    cx.toast("no evidence: no customer");
                } else {
                    let screen =
                        EvidenceScreen::new(&self.a, self.data.clone(), &self.links, cx.tz());
                    cx.push(Box::new(screen));
                }
            }
            Action::CopyCell | Action::CopyRow => cx.copy(self.lines.join("\n")),
            _ => return Handled::No,
        }
        Handled::Yes
    }

    fn render(&mut self, area: Rect, buf: &mut Buffer, cx: &ViewCx<'_>) {
        let block = Block::bordered()
            .border_style(cx.theme.style(Role::Border))
            .title(Line::from(vec![
                Span::styled(format!(" {} ", self.title), cx.theme.style(Role::Title)),
                Span::styled(
                    format!("· {} ", self.a.suggestion.rule),
                    cx.theme.style(Role::Muted),
                ),
            ]));
        let inner = block.inner(area);
        let width = usize::from(inner.width).max(1);
        let lines: Vec<Line<'static>> = self
            .lines
            .iter()
            .flat_map(|l| {
                let style = cx.theme.style(role_of(l));
                wrapped(l, width)
                    .into_iter()
                    .map(move |w| Line::from(Span::styled(w, style)))
            })
            .collect();
        self.total = lines.len();
        self.rows = usize::from(inner.height);
        self.scroll = self.scroll.min(self.max_scroll());
        let shown: Vec<Line<'static>> = lines
            .into_iter()
            .skip(self.scroll)
            .take(self.rows)
            .collect();
        Paragraph::new(shown).block(block).render(area, buf);
    }

    fn hints(&self) -> Vec<Action> {
        vec![Action::Open, Action::Back, Action::CopyRow]
    }
}
