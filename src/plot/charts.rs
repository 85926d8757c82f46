//! The six charts of a study, each drawn on any plotters backend (PNG and SVG share the code).

use plotters::chart::{ChartBuilder, MeshStyle};
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontTransform;

/// A panel of the closed-pits chart: its label and the mean it plots.
type Measure = (&'static str, fn(&OpenPits) -> f64);

use super::layout::*;
use super::rounds::{RoundRange, Rounds};
use crate::analysis::stats::Proportion;
use crate::analysis::summary::{
    ArmSummary, CaptureSources, OpenPits, RoundsByNumber, StudySummary,
};
use crate::engine::Side;

/// A chart builder with the common margins and label areas.
pub(super) fn builder<'a, 'b, DB: DrawingBackend>(
    area: &'a Area<DB>,
    x_area: u32,
    y_area: u32,
) -> ChartBuilder<'a, 'b, DB> {
    let mut b = ChartBuilder::on(area);
    b.margin_top(MARGIN.0)
        .margin_right(MARGIN.1)
        .margin_bottom(MARGIN.2)
        .margin_left(MARGIN.3)
        .x_label_area_size(x_area)
        .y_label_area_size(y_area);
    b
}

/// The common mesh look: light grey grid, 5-pixel ticks, the bundled font.
pub(super) fn style_mesh<X: Ranged, Y: Ranged, DB: DrawingBackend>(
    m: &mut MeshStyle<'_, '_, X, Y, DB>,
) {
    m.set_all_tick_mark_size(5)
        .x_label_style(font(TICK_SIZE))
        .y_label_style(font(TICK_SIZE))
        .axis_desc_style(font(AXIS_DESC_SIZE))
        .bold_line_style(GRID_BOLD.stroke_width(1))
        .light_line_style(GRID_LIGHT.stroke_width(1))
        .axis_style(TEXT_COLOUR.stroke_width(1));
}

/// Height of the x label area under a categorical axis whose labels take `labels_height` pixels
/// (the tick gap, the labels and the axis description).
pub(super) fn category_x_area(labels_height: u32) -> u32 {
    TICK_LABEL_GAP as u32 + labels_height + 10 + line_height(AXIS_DESC_SIZE) as u32
}

/// "study NAME" and, for a single arm, which arm and players it is.
fn study_line(study: &StudySummary) -> String {
    match study.arms.as_slice() {
        [arm] => format!(
            "study {}, arm {}: South {} vs North {}, {} matches",
            study.name,
            arm.name,
            arm.south,
            arm.north,
            thousands(arm.matches)
        ),
        arms => format!("study {}, {} arms", study.name, arms.len()),
    }
}

/// 12345678 as "12,345,678".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn arm_names(study: &StudySummary) -> Vec<&str> {
    study.arms.iter().map(|a| a.name.as_str()).collect()
}

/// One legend entry per arm (line, marker and colour of its series).
fn arm_legend(study: &StudySummary) -> Legend {
    Legend {
        heading: Some("arm".to_string()),
        items: study
            .arms
            .iter()
            .enumerate()
            .map(|(i, arm)| {
                let (colour, marker) = series_style(i);
                LegendItem {
                    label: arm.name.clone(),
                    glyph: Glyph::Line { colour, marker: Some(marker), dashed: false },
                }
            })
            .collect(),
    }
}

/// At most this many markers per line; longer series get a marker every few points.
const MAX_MARKERS: usize = 30;

/// Draws the points of series `i` (colour and marker of [`series_style`]) as lines, broken
/// where consecutive x values are more than 1 apart so that a missing value is not bridged,
/// with markers: on every point of a short series, on every few points of a long one (shifted
/// by the series index so that series of the same colour show their markers apart), and always
/// on a point that no line reaches.
fn draw_line_series<DB, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    points: &[(f64, f64)],
    i: usize,
) -> AreaResult<(), DB>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let (colour, m) = series_style(i);
    let stride = points.len().div_ceil(MAX_MARKERS).max(1);
    let mut marked: Vec<(f64, f64)> = Vec::new();
    let mut start = 0;
    for end in 1..=points.len() {
        if end == points.len() || points[end].0 - points[end - 1].0 > 1.0 + 1e-9 {
            if end - start > 1 {
                chart.draw_series(LineSeries::new(
                    points[start..end].iter().copied(),
                    colour.stroke_width(2),
                ))?;
            }
            for (k, &p) in points.iter().enumerate().take(end).skip(start) {
                if end - start == 1 || k % stride == i % stride {
                    marked.push(p);
                }
            }
            start = end;
        }
    }
    draw_markers(chart, &marked, m, colour, 4)
}

// --- 1. first-player win rate ---------------------------------------------------------------

pub(super) const FIRST_PLAYER_TITLE: &str = "First-player advantage: win rates with 95% intervals";

/// A series of the first-player chart: the (low, rate, high) of an arm, None when it has no data
/// (or, for the points series, when they equal the wins over finished matches).
type RateOf = fn(&ArmSummary) -> Option<(f64, f64, f64)>;

/// (low, rate, high) of a proportion with trials.
fn proportion_bar(p: &Proportion) -> Option<(f64, f64, f64)> {
    (p.trials > 0 && p.rate.is_finite()).then_some((p.ci_low, p.rate, p.ci_high))
}

/// A rate drawn per arm in the first-player chart: its legend label, colour, marker and rate.
type RateSeries = (String, RGBColor, Marker, RateOf);

/// The first-player chart's series: match wins, the points where some match is unfinished
/// (R16: each counted as half a win), and round 1 won by its starter.
fn first_player_series(study: &StudySummary) -> Vec<RateSeries> {
    let wins: RateOf = |a| proportion_bar(&a.first_player_wins);
    let round1: RateOf = |a| proportion_bar(&a.round1_starter_wins);
    let points: RateOf = |a| {
        let p = &a.first_player_points;
        (a.unfinished > 0 && p.rate.is_finite()).then_some((p.ci_low, p.rate, p.ci_high))
    };
    let mut series: Vec<RateSeries> = vec![(
        "match won by the first player (finished matches)".into(),
        PALETTE[0],
        Marker::Circle,
        wins,
    )];
    if study.arms.iter().any(|a| points(a).is_some()) {
        series.push((
            "first player's points, unfinished as half a win (R16; all matches)".into(),
            PALETTE[2],
            Marker::Diamond,
            points,
        ));
    }
    series.push((
        "round 1 won by its starter (all matches)".into(),
        PALETTE[1],
        Marker::Square,
        round1,
    ));
    series
}

pub(super) fn first_player_win_rate<DB: DrawingBackend>(
    root: &Area<DB>,
    study: &StudySummary,
) -> AreaResult<(), DB> {
    let series = first_player_series(study);
    let plot = frame(root, FIRST_PLAYER_TITLE, &study_line(study), &first_player_legend(&series))?;
    let (y0, y1) = first_player_y_range(study, &series);
    let (mut y_ticks, decimals) = nice_ticks(y0, y1, 10);
    y_ticks.retain(|v| *v <= 100.0);
    let y_fmt = move |v: &f64| format!("{v:.decimals$}");
    let tick_width = max_text_width(&plot, y_ticks.iter().map(&y_fmt), TICK_SIZE)?;
    let y_area = y_label_area(tick_width);

    let n = study.arms.len();
    let (pw, _) = plot.dim_in_pixel();
    let slot = pw.saturating_sub(y_area + MARGIN.1 + MARGIN.3) / n as u32;
    let labels = CategoryLabels::new(&plot, &arm_names(study), slot)?;
    let x_range =
        Linear { lo: -0.5, hi: n as f64 - 0.5, ticks: (0..n).map(|i| i as f64).collect() };
    let mut chart = builder(&plot, category_x_area(labels.height()), y_area)
        .build_cartesian_2d(x_range, Linear { lo: y0, hi: y1, ticks: y_ticks })?;
    let mut mesh = chart.configure_mesh();
    style_mesh(&mut mesh);
    mesh.disable_x_mesh()
        .x_desc("arm")
        .y_desc("first-player win rate (%)")
        .x_label_formatter(&|_| String::new())
        .y_label_formatter(&y_fmt)
        .draw()?;

    chart.draw_series(DashedLineSeries::new(
        vec![(-0.5, 50.0), (n as f64 - 0.5, 50.0)],
        8,
        6,
        REFERENCE_COLOUR.stroke_width(2),
    ))?;
    draw_rate_bars(&plot, &mut chart, study, &series, y0)?;

    let centres: Vec<i32> = (0..n).map(|i| chart.backend_coord(&(i as f64, y0)).0).collect();
    let bottom = chart.plotting_area().get_pixel_range().1.end;
    labels.draw(&plot, &centres, bottom + TICK_LABEL_GAP)
}

/// The first-player chart's legend: its series and the 50% line.
fn first_player_legend(series: &[RateSeries]) -> Legend {
    let mut items: Vec<LegendItem> = series
        .iter()
        .map(|(label, colour, marker, _)| LegendItem {
            label: label.clone(),
            glyph: Glyph::ErrorBar { colour: *colour, marker: *marker },
        })
        .collect();
    items.push(LegendItem {
        label: "50%: no first-player advantage".into(),
        glyph: Glyph::Line { colour: REFERENCE_COLOUR, marker: None, dashed: true },
    });
    Legend { heading: None, items }
}

/// The first-player chart's y range (%): every interval and 50%, with room above for the labels.
fn first_player_y_range(study: &StudySummary, series: &[RateSeries]) -> (f64, f64) {
    let mut lo = 50.0f64;
    let mut hi = 50.0f64;
    for arm in &study.arms {
        for (low, _, high) in series.iter().filter_map(|s| (s.3)(arm)) {
            lo = lo.min(100.0 * low);
            hi = hi.max(100.0 * high);
        }
    }
    let pad = ((hi - lo) * 0.08).max(1.0);
    // Above the bars, room for their value labels (rate and interval, written upwards): at a
    // million matches an interval is narrower than its marker, and only the label shows it.
    let room = 0.42 * (hi - lo + 2.0 * pad);
    ((lo - pad).max(0.0), (hi + pad + room).min(100.0 + room))
}

/// Each series' rate of each arm, side by side within the arm's slot: marker, interval and label
/// (or "no data" at `y0`).
fn draw_rate_bars<DB: DrawingBackend>(
    plot: &Area<DB>,
    chart: &mut ChartContext<'_, DB, Cartesian2d<Linear, Linear>>,
    study: &StudySummary,
    series: &[RateSeries],
    y0: f64,
) -> AreaResult<(), DB> {
    let offset = if series.len() == 2 { 0.12 } else { 0.16 };
    for (k, (_, colour, m, rate_of)) in series.iter().enumerate() {
        let dx = (k as f64 - (series.len() - 1) as f64 / 2.0)
            * if series.len() == 2 { 2.0 * offset } else { offset };
        let stroke = colour.stroke_width(2);
        for (i, arm) in study.arms.iter().enumerate() {
            let Some((low, rate, high)) = rate_of(arm) else {
                // A points series missing for an arm means "equal to the wins" (no unfinished
                // match), not "no data".
                if k == 0 || series.len() == 2 || k == series.len() - 1 {
                    let note =
                        font(13.0).color(&SUBTLE_COLOUR).pos(Pos::new(HPos::Center, VPos::Bottom));
                    chart.draw_series(std::iter::once(Text::new(
                        "no data",
                        (i as f64 + dx, y0),
                        note,
                    )))?;
                }
                continue;
            };
            let x = i as f64 + dx;
            let (low, rate, high) = (100.0 * low, 100.0 * rate, 100.0 * high);
            draw_markers(chart, &[(x, rate)], *m, *colour, 6)?;
            // The interval over the marker, with end ticks wider than it.
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(x, low), (x, high)],
                stroke,
            )))?;
            for y in [low, high] {
                chart.draw_series(std::iter::once(
                    EmptyElement::at((x, y)) + PathElement::new(vec![(-9, 0), (9, 0)], stroke),
                ))?;
            }
            let (px, top) = chart.backend_coord(&(x, high.max(rate)));
            let (bx, by) = plot.get_base_pixel();
            let label = format!("{rate:.2}% [{low:.2}, {high:.2}]");
            let style = font(13.0)
                .color(colour)
                .transform(FontTransform::Rotate270)
                .pos(Pos::new(HPos::Left, VPos::Center));
            plot.draw_text(&label, &style, (px - bx, top - 10 - by))?;
        }
    }
    Ok(())
}

// --- 2, 3, 5. distributions -------------------------------------------------------------------

/// The note on a gap in a distribution chart's values, from its series (value, share) per arm.
pub(super) type GapNote = fn(&[Vec<(f64, f64)>]) -> Option<String>;

/// A distribution chart: one line per arm, the share of observations at each value.
pub(super) struct DistributionChart {
    pub title: &'static str,
    pub x_desc: &'static str,
    pub y_desc: &'static str,
    pub log_y: bool,
    pub histogram: fn(&ArmSummary) -> &[(u64, u64)],
    /// The note drawn when no arm has any observation.
    pub empty: &'static str,
    /// A note explaining a gap in the values, if there is one to explain.
    pub gap_note: GapNote,
}

pub(super) const LAP_LENGTH: DistributionChart = DistributionChart {
    title: "Lap length: counters sown per lap",
    x_desc: "lap length (counters sown)",
    y_desc: "share of laps (%, log scale)",
    log_y: true,
    histogram: |arm| &arm.lap_length_histogram,
    empty: "no laps recorded",
    gap_note: lap_length_gap_note,
};

pub(super) const LAPS_PER_MOVE: DistributionChart = DistributionChart {
    title: "Laps per move",
    x_desc: "laps per move",
    y_desc: "share of moves (%, log scale)",
    log_y: true,
    histogram: |arm| &arm.laps_per_move_histogram,
    empty: "no moves recorded",
    gap_note: |_| None,
};

pub(super) const ROUNDS_PER_MATCH: DistributionChart = DistributionChart {
    title: "Rounds per match",
    x_desc: "rounds per match",
    y_desc: "share of matches (%)",
    log_y: false,
    histogram: |arm| &arm.rounds_histogram,
    empty: "no matches recorded",
    gap_note: |_| None,
};

impl DistributionChart {
    /// Each arm's (value, share in %) points, zero counts left out.
    fn shares(&self, arm: &ArmSummary) -> Vec<(f64, f64)> {
        let bins = (self.histogram)(arm);
        let total: u64 = bins.iter().map(|&(_, c)| c).sum();
        let mut points: Vec<(f64, f64)> = bins
            .iter()
            .filter(|&&(_, c)| c > 0)
            .map(|&(v, c)| (v as f64, 100.0 * c as f64 / total as f64))
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        points
    }

    pub(super) fn draw<DB: DrawingBackend>(
        &self,
        root: &Area<DB>,
        study: &StudySummary,
    ) -> AreaResult<(), DB> {
        let plot = frame(root, self.title, &study_line(study), &arm_legend(study))?;
        let series: Vec<Vec<(f64, f64)>> = study.arms.iter().map(|arm| self.shares(arm)).collect();
        let all = || series.iter().flatten();
        let x_min = all().map(|p| p.0).fold(f64::INFINITY, f64::min);
        let x_max = all().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
        let (x_min, x_max) = if x_min.is_finite() { (x_min as u64, x_max as u64) } else { (0, 1) };
        let x_ticks = integer_ticks(x_min, x_max, 16);
        let pad = if x_max > x_min { 0.5 } else { 1.0 };
        let x_range = Linear { lo: x_min as f64 - pad, hi: x_max as f64 + pad, ticks: x_ticks };

        let y_max = all().map(|p| p.1).fold(0.0, f64::max);
        if self.log_y {
            let y_min = all().map(|p| p.1).fold(f64::INFINITY, f64::min);
            // Whole decades, at least one.
            let (y0, y1) = if y_min.is_finite() {
                let y1 = 10f64.powf(y_max.log10().ceil()).min(100.0);
                (10f64.powf(y_min.log10().floor()).min(y1 / 10.0), y1)
            } else {
                (0.1, 100.0)
            };
            let ticks = log_ticks(y0, y1);
            let light: Vec<f64> = (y0.log10().floor() as i32..y1.log10().ceil() as i32)
                .flat_map(|e| (2..10).map(move |m| m as f64 * 10f64.powi(e)))
                .filter(|v| *v > y0 && *v < y1)
                .collect();
            let y_range =
                (y0..y1).log_scale().with_key_points(ticks.clone()).with_light_points(light);
            self.draw_chart(&plot, study, &series, x_range, y_range, &ticks, &|v| percent_label(*v))
        } else {
            let y1 = (y_max * 1.08).clamp(1.0, 100.0);
            let (ticks, decimals) = nice_ticks(0.0, y1, 10);
            let fmt = move |v: &f64| format!("{v:.decimals$}");
            let y_range = Linear { lo: 0.0, hi: y1, ticks: ticks.clone() };
            self.draw_chart(&plot, study, &series, x_range, y_range, &ticks, &fmt)
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn draw_chart<DB, X, Y>(
        &self,
        plot: &Area<DB>,
        study: &StudySummary,
        series: &[Vec<(f64, f64)>],
        x_range: X,
        y_range: Y,
        y_ticks: &[f64],
        y_fmt: &dyn Fn(&f64) -> String,
    ) -> AreaResult<(), DB>
    where
        DB: DrawingBackend,
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let tick_width = max_text_width(plot, y_ticks.iter().map(y_fmt), TICK_SIZE)?;
        let mut chart = builder(plot, X_LABEL_AREA, y_label_area(tick_width))
            .build_cartesian_2d(x_range, y_range)?;
        let mut mesh = chart.configure_mesh();
        style_mesh(&mut mesh);
        mesh.x_desc(self.x_desc)
            .y_desc(self.y_desc)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(y_fmt)
            .draw()?;
        debug_assert_eq!(series.len(), study.arms.len());
        for (i, points) in series.iter().enumerate() {
            draw_line_series(&mut chart, points, i)?;
        }
        if series.iter().all(Vec::is_empty) {
            draw_note(&chart, self.empty)?;
        }
        if let Some(note) = (self.gap_note)(series) {
            // At the top right of the plot, where the rare long values leave room.
            let (xs, ys) = chart.plotting_area().get_pixel_range();
            let style =
                font(LEGEND_SIZE).color(&SUBTLE_COLOUR).pos(Pos::new(HPos::Right, VPos::Top));
            let width = ((xs.end - xs.start) as u32).saturating_mul(11) / 20;
            let (bx, by) = plot.get_base_pixel();
            for (k, line) in wrap(plot, &note, &style, width, 4)?.iter().enumerate() {
                plot.draw_text(
                    line,
                    &style,
                    (xs.end - 12 - bx, ys.start + 10 + k as i32 * line_height(LEGEND_SIZE) - by),
                )?;
            }
        }
        Ok(())
    }
}

/// The values missing inside the range of the series (no arm has them), as (first, last) runs.
fn gaps(series: &[Vec<(f64, f64)>]) -> Vec<(u64, u64)> {
    let present: std::collections::BTreeSet<u64> =
        series.iter().flatten().map(|p| p.0 as u64).collect();
    let (Some(&lo), Some(&hi)) = (present.first(), present.last()) else { return Vec::new() };
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for v in lo..=hi {
        if present.contains(&v) {
            continue;
        }
        match runs.last_mut() {
            Some(run) if run.1 + 1 == v => run.1 = v,
            _ => runs.push((v, v)),
        }
    }
    runs
}

/// Why laps of 4 to 6 counters never occur under the default rules, when they do not.
fn lap_length_gap_note(series: &[Vec<(f64, f64)>]) -> Option<String> {
    let (first, last) = gaps(series).into_iter().find(|run| run.0 == 4)?;
    Some(format!(
        "No lap sows {first} to {last} counters: a pit is emptied the moment it reaches four (R6), so a pit lifted holds at most \
         3 counters, or 7 or more when it was filled at the round's start (R12) and not emptied since."
    ))
}

// --- 4. capture sources -----------------------------------------------------------------------

pub(super) const CAPTURE_SOURCES_TITLE: &str =
    "Capture sources: shares of the counters each seat captured";

/// Colours of pussa, own fours, gifted fours and remainder, and whether a label on them is white.
pub(super) const SOURCE_COLOURS: [(RGBColor, bool); 4] = [
    (RGBColor(0, 114, 178), true),
    (RGBColor(0, 158, 115), true),
    (RGBColor(230, 159, 0), false),
    (RGBColor(190, 190, 190), false),
];
pub(super) const SOURCE_NAMES: [&str; 4] = ["pussa", "own fours", "gifted fours", "remainder"];

/// How far each seat's bar stands from its arm's centre, and half a bar's width (x units).
const SEAT_OFFSET: f64 = 0.21;
const HALF_BAR: f64 = 0.17;

pub(super) fn capture_sources<DB: DrawingBackend>(
    root: &Area<DB>,
    study: &StudySummary,
) -> AreaResult<(), DB> {
    let legend = Legend {
        heading: Some("source".into()),
        items: SOURCE_NAMES
            .iter()
            .zip(SOURCE_COLOURS)
            .map(|(name, (colour, _))| LegendItem {
                label: name.to_string(),
                glyph: Glyph::Swatch(colour),
            })
            .collect(),
    };
    let plot = frame(root, CAPTURE_SOURCES_TITLE, &study_line(study), &legend)?;
    let (y_ticks, _) = nice_ticks(0.0, 100.0, 10);
    let tick_width = max_text_width(&plot, y_ticks.iter().map(|v| format!("{v:.0}")), TICK_SIZE)?;
    let y_area = y_label_area(tick_width);

    let n = study.arms.len();
    let (pw, _) = plot.dim_in_pixel();
    let slot = pw.saturating_sub(y_area + MARGIN.1 + MARGIN.3) / n as u32;
    // Seat labels under each bar: full names when they fit, S and N otherwise.
    let bar_px = (slot as f64 * 2.0 * HALF_BAR) as u32;
    let seat_style = font(TICK_SIZE);
    let long_fits = plot.estimate_text_size("South", &seat_style)?.0 + 4
        <= (slot as f64 * 2.0 * SEAT_OFFSET) as u32;
    let seat_names: [&str; 2] = if long_fits { ["South", "North"] } else { ["S", "N"] };
    let labels = CategoryLabels::new(&plot, &arm_names(study), slot)?;
    let seat_height = line_height(TICK_SIZE) as u32 + 4;
    let x_desc = if long_fits {
        "arm and seat".to_string()
    } else {
        "arm and seat (S = South, N = North)".to_string()
    };

    let x_ticks: Vec<f64> =
        (0..n).flat_map(|i| [i as f64 - SEAT_OFFSET, i as f64 + SEAT_OFFSET]).collect();
    let x_range = Linear { lo: -0.5, hi: n as f64 - 0.5, ticks: x_ticks };
    let mut chart = builder(&plot, category_x_area(seat_height + labels.height()), y_area)
        .build_cartesian_2d(x_range, Linear { lo: 0.0, hi: 100.0, ticks: y_ticks })?;
    let mut mesh = chart.configure_mesh();
    style_mesh(&mut mesh);
    mesh.disable_x_mesh()
        .x_desc(x_desc)
        .y_desc("share of captured counters (%)")
        .x_label_formatter(&|_| String::new())
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()?;

    for (i, arm) in study.arms.iter().enumerate() {
        for side in Side::ALL {
            let centre = i as f64 + if side == Side::South { -SEAT_OFFSET } else { SEAT_OFFSET };
            draw_source_bar(&plot, &mut chart, arm.capture_sources[side], centre, bar_px)?;
        }
    }

    let bottom = chart.plotting_area().get_pixel_range().1.end;
    let (bx, by) = plot.get_base_pixel();
    let seat_style = seat_style.pos(Pos::new(HPos::Center, VPos::Top));
    for i in 0..n {
        for (k, name) in seat_names.iter().enumerate() {
            let x = i as f64 + if k == 0 { -SEAT_OFFSET } else { SEAT_OFFSET };
            let px = chart.backend_coord(&(x, 0.0)).0;
            plot.draw_text(name, &seat_style, (px - bx, bottom + TICK_LABEL_GAP - by))?;
        }
    }
    let centres: Vec<i32> = (0..n).map(|i| chart.backend_coord(&(i as f64, 0.0)).0).collect();
    labels.draw(&plot, &centres, bottom + TICK_LABEL_GAP + seat_height as i32)
}

/// One seat's stacked bar of capture sources at `centre` (`bar_px` wide), each share labelled
/// where its label fits; "none" when the seat captured nothing.
fn draw_source_bar<DB: DrawingBackend>(
    plot: &Area<DB>,
    chart: &mut ChartContext<'_, DB, Cartesian2d<Linear, Linear>>,
    sources: CaptureSources,
    centre: f64,
    bar_px: u32,
) -> AreaResult<(), DB> {
    if sources.total() == 0 {
        let note = font(13.0).color(&SUBTLE_COLOUR).pos(Pos::new(HPos::Center, VPos::Bottom));
        chart.draw_series(std::iter::once(Text::new("none", (centre, 0.0), note)))?;
        return Ok(());
    }
    let value_style = |white: bool| {
        font(13.0)
            .color(if white { &WHITE } else { &TEXT_COLOUR })
            .pos(Pos::new(HPos::Center, VPos::Center))
    };
    let mut bottom = 0.0;
    for (share, (colour, white)) in sources.shares().into_iter().zip(SOURCE_COLOURS) {
        let top = bottom + 100.0 * share;
        if share > 0.0 {
            let rect = [(centre - HALF_BAR, bottom), (centre + HALF_BAR, top)];
            chart.draw_series(std::iter::once(Rectangle::new(rect, colour.filled())))?;
            chart.draw_series(std::iter::once(Rectangle::new(rect, WHITE.stroke_width(1))))?;
            let height_px =
                chart.backend_coord(&(centre, bottom)).1 - chart.backend_coord(&(centre, top)).1;
            let text = format!("{:.0}%", 100.0 * share);
            let fits = plot.estimate_text_size(&text, &value_style(white))?.0 + 6 <= bar_px;
            if height_px >= 18 && fits {
                chart.draw_series(std::iter::once(Text::new(
                    text,
                    (centre, (bottom + top) / 2.0),
                    value_style(white),
                )))?;
            }
        }
        bottom = top;
    }
    Ok(())
}

// --- 6. closed pits ---------------------------------------------------------------------------

pub(super) const CLOSED_PITS_TITLE: &str =
    "Open pits at the start of each round (the others are closed, R12)";

/// The rounds of an arm shown on the closed-pits chart: those reached by at least 1% of the
/// matches that reached round 1 (the most-reached round).
pub(super) fn shown_rounds(open_pits: &[OpenPits]) -> Vec<OpenPits> {
    let reached = open_pits.iter().map(|p| p.matches).max().unwrap_or(0);
    let mut rounds: Vec<OpenPits> =
        open_pits.iter().copied().filter(|p| p.matches > 0 && p.matches * 100 >= reached).collect();
    rounds.sort_by_key(|p| p.round);
    rounds
}

/// The closed-pits chart's axes: the rounds shown, the mean open pits, and the width of the
/// y tick labels.
struct PitsAxes {
    r_min: u64,
    r_max: u64,
    /// At most one round tick per this many pixels of plot width.
    tick_space: u32,
    y1: f64,
    y_ticks: Vec<f64>,
    decimals: usize,
    tick_width: u32,
}

impl PitsAxes {
    fn new<DB: DrawingBackend>(
        root: &Area<DB>,
        rounds: &[Vec<OpenPits>],
    ) -> AreaResult<PitsAxes, DB> {
        let all = || rounds.iter().flatten();
        let r_min = all().map(|p| p.round).min().unwrap_or(1) as u64;
        let r_max = all().map(|p| p.round).max().unwrap_or(1) as u64;
        let tick_space = max_text_width(root, [r_max.to_string()], TICK_SIZE)? + 18;
        let y_max = all()
            .flat_map(|p| [p.south_mean_open, p.north_mean_open, p.starter_mean_open])
            .fold(1.0, f64::max);
        let y1 = y_max.ceil() + if y_max.ceil() - y_max < 0.3 { 1.0 } else { 0.0 };
        let (y_ticks, decimals) = nice_ticks(0.0, y1, 8);
        let tick_width =
            max_text_width(root, y_ticks.iter().map(|v| format!("{v:.decimals$}")), TICK_SIZE)?;
        Ok(PitsAxes { r_min, r_max, tick_space, y1, y_ticks, decimals, tick_width })
    }

    fn x_range(&self, plot_width: u32) -> Linear {
        let pad = if self.r_max > self.r_min { 0.5 } else { 1.0 };
        Linear {
            lo: self.r_min as f64 - pad,
            hi: self.r_max as f64 + pad,
            ticks: integer_ticks(
                self.r_min,
                self.r_max,
                (plot_width / self.tick_space).clamp(2, 16) as usize,
            ),
        }
    }

    fn y_range(&self) -> Linear {
        Linear { lo: 0.0, hi: self.y1, ticks: self.y_ticks.clone() }
    }

    fn y_label(&self, v: &f64) -> String {
        format!("{v:.*}", self.decimals)
    }
}

const PITS_Y_DESC: &str = "mean open pits at round start";

/// The closed-pits chart's measures: the mean open pits of South, North and the round's starter.
const PITS_MEASURES: [Measure; 3] = [
    ("South", |p| p.south_mean_open),
    ("North", |p| p.north_mean_open),
    ("the round's starter", |p| p.starter_mean_open),
];

pub(super) fn closed_pits<DB: DrawingBackend>(
    root: &Area<DB>,
    study: &StudySummary,
    range: RoundRange,
) -> AreaResult<(), DB> {
    let range = range.resolve(study);
    let rounds: Vec<Vec<OpenPits>> = study
        .arms
        .iter()
        .map(|arm| {
            shown_rounds(&arm.open_pits).into_iter().filter(|p| range.contains(p.round)).collect()
        })
        .collect();
    let axes = PitsAxes::new(root, &rounds)?;
    if let [arm_rounds] = rounds.as_slice() {
        let subtitle = format!(
            "{}; {}, reached by at least 1% of the matches",
            study_line(study),
            range.describe()
        );
        return closed_pits_of_one_arm(root, &subtitle, arm_rounds, &axes);
    }
    let subtitle = format!(
        "{}; {}, reached by at least 1% of an arm's matches",
        study_line(study),
        range.describe()
    );
    let plot = frame(root, CLOSED_PITS_TITLE, &subtitle, &arm_legend(study))?;
    closed_pits_panels(&plot, &rounds, &axes)
}

/// One arm: its three measures as three lines of one chart.
fn closed_pits_of_one_arm<DB: DrawingBackend>(
    root: &Area<DB>,
    subtitle: &str,
    arm_rounds: &[OpenPits],
    axes: &PitsAxes,
) -> AreaResult<(), DB> {
    let legend = Legend {
        heading: Some("open pits of".into()),
        items: PITS_MEASURES
            .iter()
            .enumerate()
            .map(|(k, (name, _))| {
                let (colour, marker) = series_style(k);
                LegendItem {
                    label: name.to_string(),
                    glyph: Glyph::Line { colour, marker: Some(marker), dashed: false },
                }
            })
            .collect(),
    };
    let plot = frame(root, CLOSED_PITS_TITLE, subtitle, &legend)?;
    let y_area = y_label_area(axes.tick_width);
    let plot_width = plot.dim_in_pixel().0.saturating_sub(y_area + MARGIN.1 + MARGIN.3);
    let mut chart = builder(&plot, X_LABEL_AREA, y_area)
        .build_cartesian_2d(axes.x_range(plot_width), axes.y_range())?;
    let mut mesh = chart.configure_mesh();
    style_mesh(&mut mesh);
    mesh.x_desc("round")
        .y_desc(PITS_Y_DESC)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| axes.y_label(v))
        .draw()?;
    for (k, (_, value)) in PITS_MEASURES.iter().enumerate() {
        let points: Vec<(f64, f64)> =
            arm_rounds.iter().map(|p| (p.round as f64, value(p))).collect();
        draw_line_series(&mut chart, &points, k)?;
    }
    Ok(())
}

/// Several arms: one panel per measure, one line per arm, the panels' plots equally wide.
fn closed_pits_panels<DB: DrawingBackend>(
    plot: &Area<DB>,
    rounds: &[Vec<OpenPits>],
    axes: &PitsAxes,
) -> AreaResult<(), DB> {
    let (width, _) = plot.dim_in_pixel();
    let first_area = y_label_area(axes.tick_width);
    let other_area = axes.tick_width + TICK_LABEL_GAP as u32 + 8;
    let margins = MARGIN.1 + MARGIN.3;
    let inner = width.saturating_sub(first_area + 2 * other_area + 3 * margins) / 3;
    let (first, rest) = plot.split_horizontally((inner + first_area + margins) as i32);
    let (second, third) = rest.split_horizontally((inner + other_area + margins) as i32);
    let title_height = line_height(PANEL_TITLE_SIZE) as u32 + 6;
    let title_style = font(PANEL_TITLE_SIZE).pos(Pos::new(HPos::Center, VPos::Bottom));
    let y_fmt = |v: &f64| axes.y_label(v);
    for (k, ((name, value), area)) in
        PITS_MEASURES.into_iter().zip([&first, &second, &third]).enumerate()
    {
        let y_area = if k == 0 { first_area } else { other_area };
        let mut chart = builder(area, X_LABEL_AREA, y_area)
            .margin_top(MARGIN.0 + title_height)
            .build_cartesian_2d(axes.x_range(inner), axes.y_range())?;
        let mut mesh = chart.configure_mesh();
        style_mesh(&mut mesh);
        mesh.x_desc("round").x_label_formatter(&|v| format!("{v:.0}")).y_label_formatter(&y_fmt);
        if k == 0 {
            mesh.y_desc(PITS_Y_DESC);
        }
        mesh.draw()?;
        for (i, arm_rounds) in rounds.iter().enumerate() {
            let points: Vec<(f64, f64)> =
                arm_rounds.iter().map(|p| (p.round as f64, value(p))).collect();
            draw_line_series(&mut chart, &points, i)?;
        }
        let (xs, ys) = chart.plotting_area().get_pixel_range();
        let (bx, by) = area.get_base_pixel();
        area.draw_text(name, &title_style, ((xs.start + xs.end) / 2 - bx, ys.start - by - 6))?;
    }
    Ok(())
}

// --- 7. round wins by round number -------------------------------------------------------------

pub(super) const ROUNDS_BY_NUMBER_TITLE: &str = "Round wins by round number, with 95% intervals";

/// A panel of the round-number chart: its title and the rate it plots.
type RoundRate = (&'static str, fn(&RoundsByNumber) -> &Proportion);

/// The round-number chart's panels: the round's starter and the match's first player.
const ROUND_PANELS: [RoundRate; 2] = [
    ("won by the round's starter", |g| &g.starter_wins),
    ("won by the match's first player", |g| &g.first_player_wins),
];

pub(super) fn rounds_by_number<DB: DrawingBackend>(
    root: &Area<DB>,
    study: &StudySummary,
    range: RoundRange,
) -> AreaResult<(), DB> {
    let range = range.resolve(study);
    let groups: Vec<Vec<&RoundsByNumber>> = study
        .arms
        .iter()
        .map(|arm| {
            arm.by_round
                .iter()
                .filter(|g| g.first_round <= range.last && g.last_round >= range.first)
                .collect()
        })
        .collect();
    let mut legend = arm_legend(study);
    legend.items.push(LegendItem {
        label: "50%: no advantage".into(),
        glyph: Glyph::Line { colour: REFERENCE_COLOUR, marker: None, dashed: true },
    });
    let subtitle = format!(
        "{}; {}, rounds grouped where few matches get that far; a tied round is won by nobody",
        study_line(study),
        range.describe()
    );
    let plot = frame(root, ROUNDS_BY_NUMBER_TITLE, &subtitle, &legend)?;
    let (y0, y1) = round_rate_y_range(&groups);
    let (y_ticks, decimals) = nice_ticks(y0, y1, 10);
    let y_fmt = move |v: &f64| format!("{v:.decimals$}");
    let tick_width = max_text_width(&plot, y_ticks.iter().map(&y_fmt), TICK_SIZE)?;
    let (width, _) = plot.dim_in_pixel();
    let first_area = y_label_area(tick_width);
    let other_area = tick_width + TICK_LABEL_GAP as u32 + 8;
    let margins = MARGIN.1 + MARGIN.3;
    let inner = width.saturating_sub(first_area + other_area + 2 * margins) / 2;
    let (left, right) = plot.split_horizontally((inner + first_area + margins) as i32);
    let title_height = line_height(PANEL_TITLE_SIZE) as u32 + 6;
    let title_style = font(PANEL_TITLE_SIZE).pos(Pos::new(HPos::Center, VPos::Bottom));
    let tick_space = max_text_width(&plot, [range.last.to_string()], TICK_SIZE)? + 18;
    for (k, ((name, rate), area)) in ROUND_PANELS.into_iter().zip([&left, &right]).enumerate() {
        let y_area = if k == 0 { first_area } else { other_area };
        let x_range = Linear {
            lo: range.first as f64 - 0.5,
            hi: range.last as f64 + 0.5,
            ticks: integer_ticks(
                range.first as u64,
                range.last as u64,
                (inner / tick_space).clamp(2, 12) as usize,
            ),
        };
        let mut chart = builder(area, X_LABEL_AREA, y_area)
            .margin_top(MARGIN.0 + title_height)
            .build_cartesian_2d(x_range, Linear { lo: y0, hi: y1, ticks: y_ticks.clone() })?;
        let mut mesh = chart.configure_mesh();
        style_mesh(&mut mesh);
        mesh.x_desc("round number")
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&y_fmt);
        if k == 0 {
            mesh.y_desc("rounds won (%)");
        }
        mesh.draw()?;
        let (x0, x1) = (range.first as f64 - 0.5, range.last as f64 + 0.5);
        chart.draw_series(DashedLineSeries::new(
            vec![(x0, 50.0), (x1, 50.0)],
            8,
            6,
            REFERENCE_COLOUR.stroke_width(2),
        ))?;
        draw_round_rates(&mut chart, &groups, rate, range)?;
        let (xs, ys) = chart.plotting_area().get_pixel_range();
        let (bx, by) = area.get_base_pixel();
        area.draw_text(name, &title_style, ((xs.start + xs.end) / 2 - bx, ys.start - by - 6))?;
    }
    Ok(())
}

/// The round-number chart's y range (%): every interval of both panels and 50%, padded.
fn round_rate_y_range(groups: &[Vec<&RoundsByNumber>]) -> (f64, f64) {
    let (mut lo, mut hi) = (50.0f64, 50.0f64);
    for g in groups.iter().flatten() {
        for (_, rate) in &ROUND_PANELS {
            let p = rate(g);
            if p.trials > 0 {
                lo = lo.min(100.0 * p.ci_low);
                hi = hi.max(100.0 * p.ci_high);
            }
        }
    }
    let pad = ((hi - lo) * 0.06).max(1.0);
    ((lo - pad).max(0.0), (hi + pad).min(100.0))
}

/// One panel's lines: each arm's `rate` by group of round numbers, with its intervals.
fn draw_round_rates<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<Linear, Linear>>,
    groups: &[Vec<&RoundsByNumber>],
    rate: fn(&RoundsByNumber) -> &Proportion,
    range: Rounds,
) -> AreaResult<(), DB> {
    let n = groups.len() as f64;
    for (i, arm_groups) in groups.iter().enumerate() {
        let (colour, marker) = series_style(i);
        let stroke = colour.stroke_width(1);
        // Arms side by side within a round number, a group at its rounds' centre.
        let dx = if n > 1.0 { (i as f64 - (n - 1.0) / 2.0) * (0.5 / n) } else { 0.0 };
        let mut points = Vec::new();
        for g in arm_groups {
            let p = rate(g);
            if p.trials == 0 {
                continue;
            }
            let x =
                (g.first_round.max(range.first) + g.last_round.min(range.last)) as f64 / 2.0 + dx;
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(x, 100.0 * p.ci_low), (x, 100.0 * p.ci_high)],
                stroke,
            )))?;
            points.push((x, 100.0 * p.rate));
        }
        chart.draw_series(LineSeries::new(points.iter().copied(), colour.stroke_width(1)))?;
        draw_markers(chart, &points, marker, colour, 3)?;
    }
    if groups.iter().all(Vec::is_empty) {
        draw_note(chart, "no rounds in this range (needs --detail round)")?;
    }
    Ok(())
}
