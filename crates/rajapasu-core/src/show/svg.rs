//! The drawing of one board state, the only one: `show --svg` writes it as a file, and the page
//! embeds it and changes only its counts, dots, classes and texts (assets/show/show.js).
//!
//! Traditional layout (R2): South's row at the bottom from its left end (pit 0) to its right end,
//! North's row opposite, so that sowing runs counter-clockwise.

use std::fmt::Write;

use super::film::BoardState;
use crate::engine::Side;

/// Dots drawn in a pit; a pit holding more shows this many, and its number tells the count.
pub const MAX_DOTS: usize = 19;

const PIT_SPACING: f64 = 112.0;
const BOWL_RADIUS: f64 = 46.0;
const MARGIN: f64 = 40.0;
const BAND: f64 = 60.0;
const NORTH_Y: f64 = 170.0;
const SOUTH_Y: f64 = NORTH_Y + 2.0 * BOWL_RADIUS + 24.0;
const HEIGHT: f64 = SOUTH_Y + BOWL_RADIUS + 70.0 + BAND + 40.0;

/// The drawing's size in its own units (width, height) for `pits_per_row` pits a row.
pub fn size(pits_per_row: u8) -> (f64, f64) {
    // Wide enough for the side bands of small boards.
    ((2.0 * MARGIN + pits_per_row as f64 * PIT_SPACING).max(640.0), HEIGHT)
}

/// Left edge of the rows: the rows are centred.
fn rows_left(pits_per_row: u8) -> f64 {
    (size(pits_per_row).0 - pits_per_row as f64 * PIT_SPACING) / 2.0
}

/// Dot centres relative to the bowl's centre, in the order they fill: the centre, a ring of 6,
/// a ring of 12.
pub fn dot_positions() -> [(f64, f64); MAX_DOTS] {
    let mut out = [(0.0, 0.0); MAX_DOTS];
    for (i, slot) in out.iter_mut().enumerate().skip(1) {
        let (radius, k, n, offset) =
            if i <= 6 { (14.0, i - 1, 6.0, -90.0) } else { (28.5, i - 7, 12.0, -75.0) };
        let angle = (offset + 360.0 * k as f64 / n).to_radians();
        *slot = (radius * angle.cos(), radius * angle.sin());
    }
    out
}

/// The centre of global pit `g`'s bowl.
pub fn pit_centre(g: usize, pits_per_row: u8) -> (f64, f64) {
    let p = pits_per_row as usize;
    let column = if g < p { g } else { 2 * p - 1 - g };
    let x = rows_left(pits_per_row) + (column as f64 + 0.5) * PIT_SPACING;
    (x, if g < p { SOUTH_Y } else { NORTH_Y })
}

/// Escapes text for XML content and attribute values.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A text description of the state (the drawing's text alternative).
pub fn describe(state: &BoardState) -> String {
    let p = state.rules.pits_per_row as usize;
    let row = |side: Side| {
        (0..p)
            .map(|l| {
                let g = side.index() * p + l;
                if state.is_open(g) {
                    state.board[g].to_string()
                } else {
                    "closed".into()
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "{}. South's row, pits 0 to {}: {}. North's row, pits {} to {}: {}. Reserves: South {}, North {}.",
        state.caption,
        p - 1,
        row(Side::South),
        p,
        2 * p - 1,
        row(Side::North),
        state.reserve[Side::South],
        state.reserve[Side::North]
    )
}

/// The SVG of `state`. `style`: a stylesheet to put inside (for a standalone file); the page
/// has its stylesheet in its head instead.
pub fn board_svg(state: &BoardState, style: Option<&str>) -> String {
    let p = state.rules.pits_per_row;
    let (width, height) = size(p);
    let mut s = String::with_capacity(16 * 1024);
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="0 0 {width} {height}" role="img" aria-label="{}">"#,
        escape(&describe(state))
    );
    if let Some(css) = style {
        let _ = write!(s, "<style>{css}</style>");
    }
    s.push_str(r#"<defs><marker id="arrow" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" class="arrow-head"/></marker></defs>"#);
    let (top, bottom) = (NORTH_Y - BOWL_RADIUS - 14.0, SOUTH_Y + BOWL_RADIUS + 14.0);
    let rows = rows_left(p);
    let _ = write!(
        s,
        r#"<rect class="board-wood" x="{}" y="{top}" width="{}" height="{}" rx="40"/>"#,
        rows - 14.0,
        width - 2.0 * rows + 28.0,
        bottom - top
    );
    // Sowing runs counter-clockwise: up at the right end (South to North), down at the left.
    let (right, left) = (width - rows + 4.0, rows - 4.0);
    let _ = write!(
        s,
        r#"<path class="direction" d="M{right} {} L{right} {}" marker-end="url(#arrow)"/><path class="direction" d="M{left} {} L{left} {}" marker-end="url(#arrow)"/>"#,
        SOUTH_Y - 20.0,
        NORTH_Y + 20.0,
        NORTH_Y + 20.0,
        SOUTH_Y - 20.0
    );
    for side in [Side::North, Side::South] {
        side_band(&mut s, state, side, width);
    }
    let dots = dot_positions();
    for g in 0..state.rules.pits() {
        let (x, y) = pit_centre(g, p);
        let n = state.board[g] as usize;
        let side = Side::from_index(g / p as usize);
        let local = g % p as usize;
        let mut class = String::from("pit");
        if !state.is_open(g) {
            class.push_str(" closed");
        }
        for (pit, source) in &state.highlights {
            if *pit as usize == g {
                let _ = write!(class, " src-{}", source.key());
            }
        }
        let _ = write!(
            s,
            r#"<g class="{class}" data-pit="{g}" data-count="{n}" transform="translate({x} {y})">"#
        );
        let _ = write!(s, r#"<circle class="bowl" r="{BOWL_RADIUS}"/>"#);
        let _ = write!(s, r#"<path class="closed-mark" d="M-20 -20L20 20M20 -20L-20 20"/>"#);
        s.push_str(r#"<g class="dots">"#);
        for (i, (dx, dy)) in dots.iter().enumerate() {
            let off = if i < n { "" } else { " off" };
            let _ = write!(s, r#"<circle class="dot{off}" cx="{dx:.1}" cy="{dy:.1}" r="5.6"/>"#);
        }
        s.push_str("</g>");
        // Counts outside the board, on each player's side; pit numbers beyond them.
        let sign = if side == Side::South { 1.0 } else { -1.0 };
        let count_y = sign * (BOWL_RADIUS + 42.0) + if side == Side::South { 0.0 } else { 22.0 };
        let label_y = sign * (BOWL_RADIUS + 62.0) + if side == Side::South { 0.0 } else { 10.0 };
        let _ = write!(s, r#"<text class="count" y="{count_y}">{n}</text>"#);
        let _ = write!(s, r#"<text class="closed-text" y="{count_y}">closed</text>"#);
        let _ = write!(
            s,
            r#"<text class="pit-label" y="{label_y}">pit {g} · {}{local}</text>"#,
            if side == Side::South { "S" } else { "N" }
        );
        s.push_str("</g>");
    }
    let _ = write!(
        s,
        r#"<text class="caption" x="{}" y="{}">{}</text>"#,
        width / 2.0,
        height - 14.0,
        escape(&state.caption)
    );
    s.push_str("</svg>");
    s
}

/// A side's band: its name and its reserve (North above the board, South below).
fn side_band(s: &mut String, state: &BoardState, side: Side, width: f64) {
    let y = match side {
        Side::North => 8.0,
        Side::South => SOUTH_Y + BOWL_RADIUS + 80.0,
    };
    let name = match side {
        Side::South => "South",
        Side::North => "North",
    };
    let n = state.reserve[side];
    let _ = write!(
        s,
        r#"<g class="side side-{}" data-side="{}" transform="translate(0 {y})">"#,
        side.name(),
        side.name()
    );
    let _ = write!(s, r#"<text class="side-name" x="{MARGIN}" y="38">{name}</text>"#);
    let _ = write!(s, r#"<text class="to-move" x="{}" y="38">to move</text>"#, MARGIN + 110.0);
    let x = width - MARGIN - 250.0;
    let _ = write!(
        s,
        r#"<g class="reserve" data-reserve="{}" data-count="{n}" transform="translate({x} 0)">"#,
        side.name()
    );
    s.push_str(r#"<rect class="reserve-box" width="250" height="52" rx="10"/>"#);
    s.push_str(r#"<text class="reserve-label" x="16" y="34">reserve</text>"#);
    let _ = write!(s, r#"<text class="reserve-count" x="234" y="37">{n}</text>"#);
    s.push_str("</g></g>");
}
