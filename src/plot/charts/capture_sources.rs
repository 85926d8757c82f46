//! The capture-sources chart: the shares of the counters each seat captured, by source.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{arm_names, builder, category_x_area, study_line, style_mesh};
use crate::analysis::summary::{CaptureSources, StudySummary};
use crate::engine::Side;
use crate::plot::layout::*;

pub(crate) const CAPTURE_SOURCES_TITLE: &str =
    "Capture sources: shares of the counters each seat captured";

/// Colours of pussa, own fours, gifted fours and remainder, and whether a label on them is white.
pub(crate) const SOURCE_COLOURS: [(RGBColor, bool); 4] = [
    (RGBColor(0, 114, 178), true),
    (RGBColor(0, 158, 115), true),
    (RGBColor(230, 159, 0), false),
    (RGBColor(190, 190, 190), false),
];
pub(crate) const SOURCE_NAMES: [&str; 4] = ["pussa", "own fours", "gifted fours", "remainder"];

/// How far each seat's bar stands from its arm's centre, and half a bar's width (x units).
const SEAT_OFFSET: f64 = 0.21;
const HALF_BAR: f64 = 0.17;

pub(crate) fn capture_sources<DB: DrawingBackend>(
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
