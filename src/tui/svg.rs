//! Renders a drawn buffer to SVG with its colours: one background `<rect>` per run of
//! equal background and one `<text>` per run of equal style, on a monospace grid. Used by
//! the screenshots ([`super::screenshots`]: `cargo run --example screenshots` writes them,
//! `tests/it/screenshots.rs` checks them).

use std::fmt::Write;

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

const CW: f32 = 8.4;
const CH: f32 = 17.0;

/// The terminal's own colours, used where the theme says `reset`.
#[derive(Debug, Clone, Copy)]
pub struct Palette {
    pub fg: (u8, u8, u8),
    pub bg: (u8, u8, u8),
}

impl Palette {
    pub const DARK: Palette = Palette {
        fg: (0xd0, 0xd0, 0xd0),
        bg: (0x1c, 0x1c, 0x1c),
    };
    pub const LIGHT: Palette = Palette {
        fg: (0x26, 0x26, 0x26),
        bg: (0xff, 0xff, 0xff),
    };
}

fn rgb(c: Color, default: (u8, u8, u8)) -> (u8, u8, u8) {
    match c {
        Color::Reset => default,
        Color::Black => (0, 0, 0),
        Color::Red => (0xcd, 0x31, 0x31),
        Color::Green => (0x0d, 0xbc, 0x79),
        Color::Yellow => (0xe5, 0xe5, 0x10),
        Color::Blue => (0x24, 0x72, 0xc8),
        Color::Magenta => (0xbc, 0x3f, 0xbc),
        Color::Cyan => (0x11, 0xa8, 0xcd),
        Color::Gray => (0xe5, 0xe5, 0xe5),
        Color::DarkGray => (0x66, 0x66, 0x66),
        Color::LightRed => (0xf1, 0x4c, 0x4c),
        Color::LightGreen => (0x23, 0xd1, 0x8b),
        Color::LightYellow => (0xf5, 0xf5, 0x43),
        Color::LightBlue => (0x3b, 0x8e, 0xea),
        Color::LightMagenta => (0xd6, 0x70, 0xd6),
        Color::LightCyan => (0x29, 0xb8, 0xdb),
        Color::White => (0xff, 0xff, 0xff),
        Color::Rgb(r, g, b) => (r, g, b),
        Color::Indexed(i) => indexed(i),
    }
}

fn indexed(i: u8) -> (u8, u8, u8) {
    match i {
        0..=15 => (0x80, 0x80, 0x80),
        16..=231 => {
            let i = i - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
            (level(i / 36), level((i / 6) % 6), level(i % 6))
        }
        _ => {
            let v = 8 + (i - 232) * 10;
            (v, v, v)
        }
    }
}

fn hex(c: (u8, u8, u8)) -> String {
    format!("#{}", hex::encode([c.0, c.1, c.2]))
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

type Rgb = (u8, u8, u8);
/// A cell resolved for drawing: symbol, foreground, background, modifiers.
type SvgCell = (String, Rgb, Rgb, Modifier);

/// The SVG document for a buffer.
pub fn to_svg(buf: &Buffer, palette: Palette) -> String {
    let area = buf.area;
    let (w, h) = (f32::from(area.width) * CW, f32::from(area.height) * CH);
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="14">"#
    );
    let _ = writeln!(
        out,
        r#"<rect width="100%" height="100%" fill="{}"/>"#,
        hex(palette.bg)
    );
    for y in area.y..area.y + area.height {
        // Resolve each cell's colours (REVERSED swaps them).
        let cells: Vec<SvgCell> = (area.x..area.x + area.width)
            .map(|x| {
                let c = &buf[(x, y)];
                let st = c.style();
                let mut fg = rgb(st.fg.unwrap_or(Color::Reset), palette.fg);
                let mut bg = rgb(st.bg.unwrap_or(Color::Reset), palette.bg);
                if st.add_modifier.contains(Modifier::REVERSED) {
                    std::mem::swap(&mut fg, &mut bg);
                }
                (c.symbol().to_string(), fg, bg, st.add_modifier)
            })
            .collect();
        let ty = f32::from(y - area.y) * CH;
        // Backgrounds.
        let mut x = 0usize;
        while x < cells.len() {
            let bg = cells[x].2;
            let start = x;
            while x < cells.len() && cells[x].2 == bg {
                x += 1;
            }
            if bg != palette.bg {
                let _ = writeln!(
                    out,
                    r#"<rect x="{:.1}" y="{ty:.1}" width="{:.1}" height="{CH}" fill="{}"/>"#,
                    start as f32 * CW,
                    (x - start) as f32 * CW,
                    hex(bg)
                );
            }
        }
        // Text runs.
        let mut x = 0usize;
        while x < cells.len() {
            let (fg, m) = (cells[x].1, cells[x].3);
            let start = x;
            let mut text = String::new();
            while x < cells.len() && cells[x].1 == fg && cells[x].3 == m {
                text.push_str(&cells[x].0);
                x += 1;
            }
            if text.trim().is_empty() {
                continue;
            }
            let mut attrs = String::new();
            if m.contains(Modifier::BOLD) {
                attrs.push_str(r#" font-weight="bold""#);
            }
            if m.contains(Modifier::ITALIC) {
                attrs.push_str(r#" font-style="italic""#);
            }
            if m.contains(Modifier::UNDERLINED) {
                attrs.push_str(r#" text-decoration="underline""#);
            }
            if m.contains(Modifier::DIM) {
                attrs.push_str(r#" opacity="0.6""#);
            }
            let _ = writeln!(
                out,
                r#"<text x="{:.1}" y="{:.1}" fill="{}" xml:space="preserve" textLength="{:.1}" lengthAdjust="spacingAndGlyphs"{attrs}>{}</text>"#,
                start as f32 * CW,
                ty + CH * 0.75,
                hex(fg),
                (x - start) as f32 * CW,
                escape(&text)
            );
        }
    }
    out.push_str("</svg>\n");
    out
}
