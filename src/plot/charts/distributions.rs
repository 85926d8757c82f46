//! The distribution charts (lap length, laps per move, rounds per match): one line per arm,
//! the share of observations at each value.

use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{arm_legend, builder, draw_line_series, study_line, style_mesh};
use crate::analysis::summary::{ArmSummary, StudySummary};
use crate::plot::layout::*;

/// The note on a gap in a distribution chart's values, from its series (value, share) per arm.
pub(crate) type GapNote = fn(&[Vec<(f64, f64)>]) -> Option<String>;

/// A distribution chart: one line per arm, the share of observations at each value.
pub(crate) struct DistributionChart {
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

pub(crate) const LAP_LENGTH: DistributionChart = DistributionChart {
    title: "Lap length: counters sown per lap",
    x_desc: "lap length (counters sown)",
    y_desc: "share of laps (%, log scale)",
    log_y: true,
    histogram: |arm| &arm.lap_length_histogram,
    empty: "no laps recorded",
    gap_note: lap_length_gap_note,
};

pub(crate) const LAPS_PER_MOVE: DistributionChart = DistributionChart {
    title: "Laps per move",
    x_desc: "laps per move",
    y_desc: "share of moves (%, log scale)",
    log_y: true,
    histogram: |arm| &arm.laps_per_move_histogram,
    empty: "no moves recorded",
    gap_note: |_| None,
};

pub(crate) const ROUNDS_PER_MATCH: DistributionChart = DistributionChart {
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

    pub(crate) fn draw<DB: DrawingBackend>(
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
