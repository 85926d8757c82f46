//! The six charts of a study, each drawn on any plotters backend (PNG and SVG share the code),
//! one file per family, over what they share here (the frame of a chart, its mesh, the arms'
//! legend and lines), which the tournament's charts use too.

mod capture_sources;
mod closed_pits;
mod distributions;
mod first_player;
mod rounds_by_number;

pub(super) use capture_sources::{capture_sources, CAPTURE_SOURCES_TITLE};
#[cfg(test)]
pub(super) use capture_sources::{SOURCE_COLOURS, SOURCE_NAMES};
#[cfg(test)]
pub(super) use closed_pits::shown_rounds;
pub(super) use closed_pits::{closed_pits, CLOSED_PITS_TITLE};
pub(super) use distributions::{LAPS_PER_MOVE, LAP_LENGTH, ROUNDS_PER_MATCH};
pub(super) use first_player::{first_player_win_rate, FIRST_PLAYER_TITLE};
pub(super) use rounds_by_number::{rounds_by_number, ROUNDS_BY_NUMBER_TITLE};

use plotters::chart::{ChartBuilder, MeshStyle};
use plotters::prelude::*;

use super::layout::*;
use crate::analysis::summary::StudySummary;

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
