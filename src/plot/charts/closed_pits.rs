//! The closed-pits chart: the mean open pits at the start of each round, of South, North and
//! the round's starter.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{arm_legend, builder, draw_line_series, study_line, style_mesh};
use crate::analysis::summary::{OpenPits, StudySummary};
use crate::plot::layout::*;
use crate::plot::rounds::RoundRange;

/// A panel of the closed-pits chart: its label and the mean it plots.
type Measure = (&'static str, fn(&OpenPits) -> f64);

pub(crate) const CLOSED_PITS_TITLE: &str =
    "Open pits at the start of each round (the others are closed, R12)";

/// The rounds of an arm shown on the closed-pits chart: those reached by at least 1% of the
/// matches that reached round 1 (the most-reached round).
pub(crate) fn shown_rounds(open_pits: &[OpenPits]) -> Vec<OpenPits> {
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

pub(crate) fn closed_pits<DB: DrawingBackend>(
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
