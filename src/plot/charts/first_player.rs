//! The first-player chart: each arm's match wins of the first player, the points where some
//! match is unfinished, and round 1 won by its starter, with 95% intervals.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontTransform;

use super::{arm_names, builder, category_x_area, study_line, style_mesh};
use crate::analysis::stats::Proportion;
use crate::analysis::summary::{ArmSummary, StudySummary};
use crate::plot::layout::*;

pub(crate) const FIRST_PLAYER_TITLE: &str = "First-player advantage: win rates with 95% intervals";

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

pub(crate) fn first_player_win_rate<DB: DrawingBackend>(
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
