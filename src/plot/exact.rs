//! Charts of exact analysis (R15): the value of every round start of a board as a heat map
//! (`rajapasu solve --all-starts`), and the perfect_play study's comparison of random play with
//! perfect play by board size. Same fonts, palette and frame as the study charts; PNG and SVG.

use std::path::{Path, PathBuf};

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::layout::*;
use super::{register_font, write_chart, Draw, PlotError, HEIGHT, WIDTH};
use crate::engine::{BySide, Side};

struct StartValues<'a> {
    cells: &'a [StartCell],
    pits_per_row: u8,
    subtitle: &'a str,
}

impl Draw for StartValues<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> AreaResult<(), DB> {
        start_values(root, self.cells, self.pits_per_row, self.subtitle)
    }
}

struct PerfectPlay<'a> {
    points: &'a [BoardPoint],
    subtitle: &'a str,
}

impl Draw for PerfectPlay<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> AreaResult<(), DB> {
        perfect_play(root, self.points, self.subtitle)
    }
}

/// The value of one round start (open pits, starter), as drawn in the heat map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StartCell {
    pub open: BySide<u8>,
    pub starter: Side,
    /// Value for the starter (R15).
    pub value: i32,
}

pub const START_VALUES_TITLE: &str = "Perfect-play value of a round for its starter, by open pits";

/// One board of the perfect_play study, as drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardPoint {
    pub pits_per_row: u8,
    pub seeds_per_pit: u8,
    /// Round-1 starter win rate under random play, 0..1.
    pub random_win_rate: f64,
    /// Perfect-play round-1 value for the starter as a share of the counters, -1..1.
    pub perfect_share: f64,
    /// The perfect-match value (R17) says otherwise than round 1 (win/draw/loss for the first
    /// player against the sign of the round-1 value); drawn ringed.
    pub match_differs: bool,
}

pub const PERFECT_PLAY_TITLE: &str =
    "The round-1 starter's advantage, random play against perfect play, by board size";

/// The colour of a value: Okabe-Ito blue for the starter's gain, vermillion for its loss, paler
/// towards 0 (white), saturating at `scale`.
fn value_colour(value: i32, scale: i32) -> RGBColor {
    let t = (value.unsigned_abs() as f64 / scale.max(1) as f64).min(1.0);
    let base = if value >= 0 { PALETTE[0] } else { PALETTE[1] };
    let mix = |c: u8| (255.0 + (c as f64 - 255.0) * (0.15 + 0.85 * t)).round() as u8;
    if value == 0 {
        RGBColor(245, 245, 245)
    } else {
        RGBColor(mix(base.0), mix(base.1), mix(base.2))
    }
}

/// Draws the heat map of `cells` (a board with `pits_per_row` pits a row) as
/// `out_dir/start_values.png` and `.svg`; `subtitle` names the board and rules.
pub fn plot_start_values(
    cells: &[StartCell],
    pits_per_row: u8,
    subtitle: &str,
    out_dir: &Path,
) -> Result<Vec<PathBuf>, PlotError> {
    register_font()?;
    std::fs::create_dir_all(out_dir)
        .map_err(|error| PlotError::CreateDir { path: out_dir.to_path_buf(), error })?;
    write_chart(
        out_dir,
        "start_values",
        (WIDTH, HEIGHT),
        &StartValues { cells, pits_per_row, subtitle },
    )
}

fn start_values<DB: DrawingBackend>(
    root: &Area<DB>,
    cells: &[StartCell],
    p: u8,
    subtitle: &str,
) -> AreaResult<(), DB> {
    let scale = cells.iter().map(|c| c.value.abs()).max().unwrap_or(1).max(1);
    let legend = Legend {
        heading: Some("value for the starter".into()),
        items: vec![
            LegendItem {
                label: format!("+{scale}: the starter wins"),
                glyph: Glyph::Swatch(value_colour(scale, scale)),
            },
            LegendItem {
                label: format!("+{}", (scale / 2).max(1)),
                glyph: Glyph::Swatch(value_colour((scale / 2).max(1), scale)),
            },
            LegendItem { label: "0: a draw".into(), glyph: Glyph::Swatch(value_colour(0, scale)) },
            LegendItem {
                label: format!("-{}", (scale / 2).max(1)),
                glyph: Glyph::Swatch(value_colour(-(scale / 2).max(1), scale)),
            },
            LegendItem {
                label: format!("-{scale}: the starter loses"),
                glyph: Glyph::Swatch(value_colour(-scale, scale)),
            },
        ],
    };
    let plot = frame(root, START_VALUES_TITLE, subtitle, &legend)?;
    let panels = plot.split_evenly((1, 2));
    for (panel, starter) in panels.iter().zip(Side::ALL) {
        let (w, _) = panel.dim_in_pixel();
        let heading = font(PANEL_TITLE_SIZE).pos(Pos::new(HPos::Center, VPos::Top));
        panel.draw_text(&format!("{starter} starts"), &heading, (w as i32 / 2, 4))?;
        let (_, body) = panel.split_vertically(line_height(PANEL_TITLE_SIZE) + 8);
        let ticks: Vec<f64> = (1..=p).map(f64::from).collect();
        let range = || Linear { lo: 0.5, hi: p as f64 + 0.5, ticks: ticks.clone() };
        let mut chart = ChartBuilder::on(&body)
            .margin_top(MARGIN.0)
            .margin_right(MARGIN.1)
            .margin_bottom(MARGIN.2)
            .margin_left(MARGIN.3)
            .x_label_area_size(X_LABEL_AREA)
            .y_label_area_size(y_label_area(30))
            .build_cartesian_2d(range(), range())?;
        chart
            .configure_mesh()
            .disable_mesh()
            .set_all_tick_mark_size(5)
            .x_label_style(font(TICK_SIZE))
            .y_label_style(font(TICK_SIZE))
            .axis_desc_style(font(AXIS_DESC_SIZE))
            .axis_style(TEXT_COLOUR.stroke_width(1))
            .x_desc("South's open pits")
            .y_desc("North's open pits")
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| format!("{v:.0}"))
            .draw()?;
        let text = font(if p > 5 { 14.0 } else { 18.0 }).pos(Pos::new(HPos::Center, VPos::Center));
        for c in cells.iter().filter(|c| c.starter == starter) {
            let (x, y) = (c.open[Side::South] as f64, c.open[Side::North] as f64);
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)],
                value_colour(c.value, scale).filled(),
            )))?;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)],
                WHITE.stroke_width(1),
            )))?;
            chart.draw_series(std::iter::once(Text::new(
                format!("{}", c.value),
                (x, y),
                text.clone(),
            )))?;
        }
    }
    Ok(())
}

/// Draws the perfect_play study's chart as `out_dir/perfect_play.png` and `.svg`.
pub fn plot_perfect_play(
    points: &[BoardPoint],
    subtitle: &str,
    out_dir: &Path,
) -> Result<Vec<PathBuf>, PlotError> {
    register_font()?;
    std::fs::create_dir_all(out_dir)
        .map_err(|error| PlotError::CreateDir { path: out_dir.to_path_buf(), error })?;
    write_chart(out_dir, "perfect_play", (WIDTH, HEIGHT), &PerfectPlay { points, subtitle })
}

fn perfect_play<DB: DrawingBackend>(
    root: &Area<DB>,
    points: &[BoardPoint],
    subtitle: &str,
) -> AreaResult<(), DB> {
    let mut rows: Vec<u8> = points.iter().map(|b| b.pits_per_row).collect();
    rows.sort_unstable();
    rows.dedup();
    let mut items: Vec<LegendItem> = rows
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let (colour, marker) = series_style(i);
            LegendItem {
                label: format!("{p} pits per row"),
                glyph: Glyph::Line { colour, marker: Some(marker), dashed: false },
            }
        })
        .collect();
    items.push(LegendItem {
        label: "label: pits x counters per pit".into(),
        glyph: Glyph::Swatch(WHITE),
    });
    if points.iter().any(|b| b.match_differs) {
        items.push(LegendItem {
            label: "ringed: the match's perfect answer differs from round 1's".into(),
            glyph: Glyph::Swatch(WHITE),
        });
    }
    let legend = Legend { heading: Some("board".into()), items };
    let plot = frame(root, PERFECT_PLAY_TITLE, subtitle, &legend)?;
    let (x_ticks, _) = nice_ticks(0.0, 100.0, 10);
    // From 0 (or below the lowest value) to 100% of the counters.
    let lowest = points.iter().map(|b| 100.0 * b.perfect_share).fold(0.0, f64::min);
    let y_lo = (((lowest - 5.0) / 20.0).floor() * 20.0).clamp(-100.0, -20.0);
    let (y_ticks, _) = nice_ticks(y_lo, 100.0, 10);
    let mut chart = ChartBuilder::on(&plot)
        .margin_top(MARGIN.0)
        .margin_right(MARGIN.1)
        .margin_bottom(MARGIN.2)
        .margin_left(MARGIN.3)
        .x_label_area_size(X_LABEL_AREA)
        .y_label_area_size(y_label_area(40))
        .build_cartesian_2d(
            Linear { lo: 0.0, hi: 100.0, ticks: x_ticks },
            Linear { lo: y_lo, hi: 100.0, ticks: y_ticks },
        )?;
    chart
        .configure_mesh()
        .set_all_tick_mark_size(5)
        .x_label_style(font(TICK_SIZE))
        .y_label_style(font(TICK_SIZE))
        .axis_desc_style(font(AXIS_DESC_SIZE))
        .bold_line_style(GRID_BOLD.stroke_width(1))
        .light_line_style(GRID_LIGHT.stroke_width(1))
        .axis_style(TEXT_COLOUR.stroke_width(1))
        .x_desc("random play: round 1 won by its starter (%)")
        .y_desc("perfect play: round-1 value for the starter (% of counters)")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()?;
    let reference = REFERENCE_COLOUR.stroke_width(2);
    chart.draw_series(DashedLineSeries::new(vec![(50.0, y_lo), (50.0, 100.0)], 8, 6, reference))?;
    chart.draw_series(DashedLineSeries::new(vec![(0.0, 0.0), (100.0, 0.0)], 8, 6, reference))?;
    let label = font(12.0).color(&SUBTLE_COLOUR).pos(Pos::new(HPos::Left, VPos::Bottom));
    for (i, p) in rows.iter().enumerate() {
        let (colour, marker) = series_style(i);
        let pts: Vec<(f64, f64)> = points
            .iter()
            .filter(|b| b.pits_per_row == *p)
            .map(|b| (100.0 * b.random_win_rate, 100.0 * b.perfect_share))
            .collect();
        draw_markers(&mut chart, &pts, marker, colour, 6)?;
        for b in points.iter().filter(|b| b.pits_per_row == *p) {
            let at = (100.0 * b.random_win_rate, 100.0 * b.perfect_share);
            if b.match_differs {
                chart.draw_series(std::iter::once(Circle::new(
                    at,
                    11,
                    TEXT_COLOUR.stroke_width(2),
                )))?;
            }
            chart.draw_series(std::iter::once(
                EmptyElement::at(at)
                    + Text::new(
                        format!("{}x{}", b.pits_per_row, b.seeds_per_pit),
                        (7, -3),
                        label.clone(),
                    ),
            ))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(path: &Path) -> String {
        std::fs::read_to_string(path).unwrap().to_ascii_lowercase()
    }

    /// Every text drawn in an SVG chart, trimmed.
    fn texts(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| Some(t.split_once('>')?.1.split_once("</text>")?.0.trim().to_string()))
            .collect()
    }

    fn png_size(bytes: &[u8]) -> (u32, u32) {
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        (
            u32::from_be_bytes(bytes[16..20].try_into().unwrap()),
            u32::from_be_bytes(bytes[20..24].try_into().unwrap()),
        )
    }

    #[test]
    fn heat_map_shows_every_value_in_its_colour() {
        let dir = tempfile::tempdir().unwrap();
        let mut cells = Vec::new();
        for (i, (s, n)) in [(1, 1), (1, 2), (2, 1), (2, 2)].into_iter().enumerate() {
            for starter in Side::ALL {
                let value = [12, -12, 0, 3][i] * if starter == Side::South { 1 } else { -1 };
                cells.push(StartCell { open: BySide::new(s, n), starter, value });
            }
        }
        let written = plot_start_values(&cells, 2, "2 pits a row", dir.path()).unwrap();
        assert_eq!(
            written,
            [dir.path().join("start_values.png"), dir.path().join("start_values.svg")]
        );
        assert_eq!(png_size(&std::fs::read(&written[0]).unwrap()), (WIDTH, HEIGHT));
        let svg = read(&written[1]);
        let texts = texts(&svg);
        for text in [
            "12",
            "-12",
            "0",
            "3",
            "-3",
            "south starts",
            "north starts",
            "south&apos;s open pits",
            "+12: the starter wins",
        ] {
            assert!(texts.iter().any(|t| t == text), "{text} not in {texts:?}");
        }
        // The largest gain in full blue, the largest loss in full vermillion, 0 in light grey.
        for colour in ["#0072b2", "#d55e00", "#f5f5f5"] {
            assert!(svg.contains(colour), "{colour}");
        }
        assert_eq!(value_colour(12, 12), PALETTE[0]);
        assert_eq!(value_colour(-12, 12), PALETTE[1]);
    }

    #[test]
    fn perfect_play_chart_labels_every_board() {
        let dir = tempfile::tempdir().unwrap();
        let points: Vec<BoardPoint> = (2..=7u8)
            .flat_map(|p| {
                (1..=3u8).map(move |s| BoardPoint {
                    pits_per_row: p,
                    seeds_per_pit: s,
                    random_win_rate: 0.1 * s as f64 + 0.05 * p as f64,
                    perfect_share: 0.3 - 0.1 * s as f64,
                    match_differs: s == 2,
                })
            })
            .collect();
        let written = plot_perfect_play(&points, "test", dir.path()).unwrap();
        assert_eq!(png_size(&std::fs::read(&written[0]).unwrap()), (WIDTH, HEIGHT));
        let texts = texts(&read(&written[1]));
        assert!(texts.iter().any(|t| t.starts_with("the round-1 starter")), "{texts:?}");
        assert!(texts.iter().any(|t| t.starts_with("ringed: the match")), "{texts:?}");
        assert_eq!(
            read(&written[1]).matches("r=\"11\"").count(),
            points.iter().filter(|b| b.match_differs).count(),
            "one ring per board that differs"
        );
        for p in 2..=7 {
            assert!(texts.contains(&format!("{p} pits per row")));
            for s in 1..=3 {
                assert!(texts.contains(&format!("{p}x{s}")), "{p}x{s}");
            }
        }
    }
}

/// One match state as drawn in the match-equity chart (R17).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EquityCell {
    /// South's holdings at the round's start.
    pub south: u32,
    pub starter: Side,
    /// The value for the starter.
    pub value: crate::exact::MatchValue,
    pub rounds: Option<u32>,
}

pub const MATCH_EQUITY_TITLE: &str =
    "Perfect match play: the match value for the round's starter, by South's holdings";

struct MatchEquity<'a> {
    cells: &'a [EquityCell],
    subtitle: &'a str,
}

impl Draw for MatchEquity<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> AreaResult<(), DB> {
        match_equity(root, self.cells, self.subtitle)
    }
}

/// The colour of a match value for the starter: Okabe-Ito blue (win), grey (draw), vermillion (loss).
pub fn match_value_colour(value: crate::exact::MatchValue) -> RGBColor {
    match value {
        crate::exact::MatchValue::Win => PALETTE[0],
        crate::exact::MatchValue::Draw => RGBColor(200, 200, 200),
        crate::exact::MatchValue::Loss => PALETTE[1],
    }
}

/// Draws the match-equity chart of `cells` (every match state of a board) as
/// `out_dir/match_equity.png` and `.svg`: a band per starter, one cell per holdings split,
/// coloured by the value for the starter, with its rounds printed where they fit; the states
/// whose rounds do not fit (near the even split on large boards) again in a close-up below.
pub fn plot_match_equity(
    cells: &[EquityCell],
    subtitle: &str,
    out_dir: &Path,
) -> Result<Vec<PathBuf>, PlotError> {
    register_font()?;
    std::fs::create_dir_all(out_dir)
        .map_err(|error| PlotError::CreateDir { path: out_dir.to_path_buf(), error })?;
    write_chart(out_dir, "match_equity", (WIDTH, HEIGHT), &MatchEquity { cells, subtitle })
}

pub(super) fn match_equity<DB: DrawingBackend>(
    root: &Area<DB>,
    cells: &[EquityCell],
    subtitle: &str,
) -> AreaResult<(), DB> {
    use crate::exact::MatchValue;
    let legend = Legend {
        heading: Some("for the round's starter".into()),
        items: vec![
            LegendItem {
                label: "win (number: rounds to force it)".into(),
                glyph: Glyph::Swatch(match_value_colour(MatchValue::Win)),
            },
            LegendItem {
                label: "draw (the match never ends)".into(),
                glyph: Glyph::Swatch(match_value_colour(MatchValue::Draw)),
            },
            LegendItem {
                label: "loss (number: rounds held out)".into(),
                glyph: Glyph::Swatch(match_value_colour(MatchValue::Loss)),
            },
        ],
    };
    let plot = frame(root, MATCH_EQUITY_TITLE, subtitle, &legend)?;
    let lo = cells.iter().map(|c| c.south).min().unwrap_or(0);
    let hi = cells.iter().map(|c| c.south).max().unwrap_or(1).max(lo);
    let (width, height) = plot.dim_in_pixel();
    // Every state in the overview; the states whose rounds its cells cannot hold (near the even
    // split, where the rounds run to two digits) again in a close-up with wider cells.
    let overview = EquityLabels::fit(&plot, cells, (lo, hi), width)?;
    let Some((zoom_lo, zoom_hi)) = overview.close_up((lo, hi)) else {
        let panel_height = equity_panel_height(height, true);
        let (panel, _) = plot.split_vertically(panel_height);
        return equity_panel(&panel, cells, &overview, "", true);
    };
    let overview_height = equity_panel_height(height * 2 / 5, false);
    let (top, rest) = plot.split_vertically(overview_height);
    equity_panel(&top, cells, &overview, "Every match state", false)?;
    let close_up = EquityLabels::fit(&plot, cells, (zoom_lo, zoom_hi), width)?;
    let (_, rest_height) = rest.dim_in_pixel();
    let (bottom, _) = rest.split_vertically(equity_panel_height(rest_height, true));
    let title = format!(
        "Close-up: South holding {zoom_lo} to {zoom_hi}, where the rounds do not fit above"
    );
    equity_panel(&bottom, cells, &close_up, &title, true)
}

/// A band (one starter's row of cells) is never taller than this, in pixels.
const EQUITY_BAND_MAX: i32 = 110;
/// The widest tick label of the match-equity chart's y axis ("South starts"), in pixels.
const EQUITY_Y_TICKS: u32 = 110;
/// Height of an x label area without the axis description.
const X_TICK_AREA: u32 = 36;
/// States shown either side of those the close-up is for.
const CLOSE_UP_PAD: u32 = 2;

/// Height of a match-equity panel within `available` pixels: a title line, two bands of at most
/// [`EQUITY_BAND_MAX`] and the x axis (with its description when `x_desc`).
fn equity_panel_height(available: u32, x_desc: bool) -> i32 {
    let axis = if x_desc { X_LABEL_AREA } else { X_TICK_AREA };
    let fixed = line_height(PANEL_TITLE_SIZE) + 8 + (MARGIN.0 + MARGIN.2 + axis) as i32;
    (fixed + 2 * EQUITY_BAND_MAX).min(available as i32)
}

/// Which states of a range of South's holdings get their rounds printed, and at what size: the
/// largest size (18 down to 10 pixels) at which a one-digit count fits its cell with a pixel to
/// spare either side; a label wider than its cell is left out.
struct EquityLabels {
    range: (u32, u32),
    size: f64,
    /// The states (South's holdings, starter) with rounds whose label does not fit.
    left_out: Vec<(u32, Side)>,
}

impl EquityLabels {
    fn fit<DB: DrawingBackend>(
        area: &Area<DB>,
        cells: &[EquityCell],
        range: (u32, u32),
        width: u32,
    ) -> AreaResult<EquityLabels, DB> {
        let inner = width.saturating_sub(MARGIN.1 + MARGIN.3 + y_label_area(EQUITY_Y_TICKS));
        let cell = inner as f64 / (range.1 - range.0 + 1) as f64;
        let fits = |label: String, size: f64| -> AreaResult<bool, DB> {
            Ok(max_text_width(area, [label], size)? as f64 + 2.0 <= cell)
        };
        let mut size = 10.0;
        for candidate in (10..=18).rev().map(f64::from) {
            if fits("8".into(), candidate)? {
                size = candidate;
                break;
            }
        }
        let mut left_out = Vec::new();
        for c in cells.iter().filter(|c| (range.0..=range.1).contains(&c.south)) {
            if let Some(k) = c.rounds {
                if !fits(k.to_string(), size)? {
                    left_out.push((c.south, c.starter));
                }
            }
        }
        Ok(EquityLabels { range, size, left_out })
    }

    fn shows(&self, c: &EquityCell) -> bool {
        !self.left_out.contains(&(c.south, c.starter))
    }

    /// The holdings a close-up shows: those left out here, with [`CLOSE_UP_PAD`] either side,
    /// within `bounds`; None when every label fits.
    fn close_up(&self, bounds: (u32, u32)) -> Option<(u32, u32)> {
        let lo =
            self.left_out.iter().map(|s| s.0).min()?.saturating_sub(CLOSE_UP_PAD).max(bounds.0);
        let hi = (self.left_out.iter().map(|s| s.0).max()? + CLOSE_UP_PAD).min(bounds.1);
        Some((lo, hi))
    }
}

/// One panel of the match-equity chart: a band per starter, a cell per state of `labels.range`,
/// each state's rounds printed where they fit.
fn equity_panel<DB: DrawingBackend>(
    area: &Area<DB>,
    cells: &[EquityCell],
    labels: &EquityLabels,
    title: &str,
    x_desc: bool,
) -> AreaResult<(), DB> {
    if !title.is_empty() {
        area.draw_text(
            title,
            &font(PANEL_TITLE_SIZE).pos(Pos::new(HPos::Left, VPos::Top)),
            (MARGIN.3 as i32, 4),
        )?;
    }
    let (_, body) =
        area.split_vertically(if title.is_empty() { 0 } else { line_height(PANEL_TITLE_SIZE) + 8 });
    let (lo, hi) = (labels.range.0 as f64, labels.range.1 as f64);
    let (x_ticks, _) = nice_ticks(lo, hi, 12);
    let x_ticks: Vec<f64> =
        x_ticks.into_iter().filter(|t| *t >= lo && *t <= hi && t.fract() == 0.0).collect();
    let mut chart = ChartBuilder::on(&body)
        .margin_top(MARGIN.0)
        .margin_right(MARGIN.1)
        .margin_bottom(MARGIN.2)
        .margin_left(MARGIN.3)
        .x_label_area_size(if x_desc { X_LABEL_AREA } else { X_TICK_AREA })
        .y_label_area_size(y_label_area(EQUITY_Y_TICKS))
        .build_cartesian_2d(
            Linear { lo: lo - 0.5, hi: hi + 0.5, ticks: x_ticks },
            Linear { lo: -0.5, hi: 1.5, ticks: vec![0.0, 1.0] },
        )?;
    let mut mesh = chart.configure_mesh();
    mesh.disable_mesh()
        .set_all_tick_mark_size(5)
        .x_label_style(font(TICK_SIZE))
        .y_label_style(font(TICK_SIZE))
        .axis_desc_style(font(AXIS_DESC_SIZE))
        .axis_style(TEXT_COLOUR.stroke_width(1))
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| {
            if *v < 0.5 {
                "North starts".into()
            } else {
                "South starts".into()
            }
        });
    if x_desc {
        mesh.x_desc("South's holdings at the round's start");
    }
    mesh.draw()?;
    let text = font(labels.size).pos(Pos::new(HPos::Center, VPos::Center));
    for c in cells.iter().filter(|c| (labels.range.0..=labels.range.1).contains(&c.south)) {
        let (x, y) = (c.south as f64, if c.starter == Side::South { 1.0 } else { 0.0 });
        let rect = [(x - 0.5, y - 0.45), (x + 0.5, y + 0.45)];
        chart.draw_series(std::iter::once(Rectangle::new(
            rect,
            match_value_colour(c.value).filled(),
        )))?;
        chart.draw_series(std::iter::once(Rectangle::new(rect, WHITE.stroke_width(1))))?;
        if let Some(k) = c.rounds.filter(|_| labels.shows(c)) {
            chart.draw_series(std::iter::once(Text::new(format!("{k}"), (x, y), text.clone())))?;
        }
    }
    Ok(())
}
