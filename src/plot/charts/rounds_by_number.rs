//! The round-number chart: round wins by round number, of the round's starter and of the
//! match's first player, with 95% intervals.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{arm_legend, builder, study_line, style_mesh};
use crate::analysis::stats::Proportion;
use crate::analysis::summary::{RoundsByNumber, StudySummary};
use crate::plot::layout::*;
use crate::plot::rounds::{RoundRange, Rounds};

pub(crate) const ROUNDS_BY_NUMBER_TITLE: &str = "Round wins by round number, with 95% intervals";

/// A panel of the round-number chart: its title and the rate it plots.
type RoundRate = (&'static str, fn(&RoundsByNumber) -> &Proportion);

/// The round-number chart's panels: the round's starter and the match's first player.
const ROUND_PANELS: [RoundRate; 2] = [
    ("won by the round's starter", |g| &g.starter_wins),
    ("won by the match's first player", |g| &g.first_player_wins),
];

pub(crate) fn rounds_by_number<DB: DrawingBackend>(
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
