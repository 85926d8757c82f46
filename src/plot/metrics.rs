//! The small multiples of a study's game-quality metrics: one panel per metric, the readings
//! side by side along x, one mark (with its 95% interval) per player strength. An arm named
//! `READING--PLAYER` is reading READING played by PLAYER; an arm whose players differ (a
//! SkillTrace arm, North the doubled player) goes to the SkillTrace panel, which shows North's
//! score.

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use super::layout::{draw_markers, font, series_style, Area, AreaResult};
use super::{register_font, write_chart, Draw, PlotError};
use crate::analysis::metrics::ArmMetrics;

/// The metrics drawn, in panel order.
pub const PANELS: [&str; 16] = [
    "AdvantageP1",
    "Balance",
    "Completion",
    "DurationTurns",
    "DurationRounds",
    "DecisionMoves",
    "BranchingFactorAvg",
    "BoardCoverage",
    "LeadChange",
    "Stability",
    "DramaAverage",
    "DecisivenessMoves",
    "Comebacks",
    "LapsPerMove",
    "CaptureShareRemainder",
    "SkillTrace",
];

const COLUMNS: usize = 4;
const PANEL: (u32, u32) = (420, 300);

/// (reading, player) of an arm name.
pub fn split_arm(name: &str) -> (&str, &str) {
    name.split_once("--").unwrap_or((name, "all"))
}

fn order<'a>(names: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for n in names {
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

/// (x index, series index, value, low, high) of each mark of a panel.
type Mark = (usize, usize, f64, f64, f64);

fn marks(arms: &[ArmMetrics], metric: &str, readings: &[&str], players: &[&str]) -> Vec<Mark> {
    let mut out = Vec::new();
    for a in arms {
        let (reading, player) = split_arm(&a.name);
        let skill = a.south != a.north;
        if skill != (metric == "SkillTrace") {
            continue;
        }
        let wanted = if skill { "SouthScore" } else { metric };
        let Some(m) = a.metrics.iter().find(|m| m.name == wanted) else { continue };
        let (v, lo, hi) = if skill {
            (1.0 - m.value, 1.0 - m.ci_high, 1.0 - m.ci_low)
        } else {
            (m.value, m.ci_low, m.ci_high)
        };
        if !v.is_finite() {
            continue;
        }
        let x = readings.iter().position(|r| *r == reading).expect("every reading is listed");
        let s = players.iter().position(|p| *p == player).expect("every player is listed");
        out.push((
            x,
            s,
            v,
            if lo.is_finite() { lo } else { v },
            if hi.is_finite() { hi } else { v },
        ));
    }
    out
}

fn draw<DB: DrawingBackend>(root: &Area<DB>, arms: &[ArmMetrics]) -> AreaResult<(), DB> {
    root.fill(&WHITE)?;
    let readings = order(arms.iter().map(|a| split_arm(&a.name).0));
    let players = order(arms.iter().map(|a| split_arm(&a.name).1));
    let (w, _) = root.dim_in_pixel();
    root.draw_text(
        "Game-quality metrics by reading (95% bootstrap intervals); one mark per player",
        &font(22.0).pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Top,
        )),
        (w as i32 / 2, 10),
    )?;
    // Legend: one line of players, then the readings' numbers.
    let mut x = 20;
    for (i, p) in players.iter().enumerate() {
        let (colour, _) = series_style(i);
        root.draw(&Circle::new((x, 52), 6, colour.filled()))?;
        root.draw_text(p, &font(16.0), (x + 12, 44))?;
        x += 40 + 9 * p.len() as i32;
    }
    let key: Vec<String> =
        readings.iter().enumerate().map(|(i, r)| format!("{}={r}", i + 1)).collect();
    root.draw_text(&format!("readings: {}", key.join("  ")), &font(14.0), (20, 68))?;
    let (_, body) = root.split_vertically(92);
    let rows = PANELS.len().div_ceil(COLUMNS);
    let panels = body.split_evenly((rows, COLUMNS));
    for (panel, metric) in panels.iter().zip(PANELS) {
        let marks = marks(arms, metric, &readings, &players);
        let (lo, hi) = marks
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), m| (lo.min(m.3), hi.max(m.4)));
        let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
        let pad = ((hi - lo) * 0.1).max(1e-3);
        let title =
            if metric == "SkillTrace" { "SkillTrace (doubled player's score)" } else { metric };
        let mut chart = ChartBuilder::on(panel)
            .caption(title, font(16.0))
            .margin(8)
            .x_label_area_size(22)
            .y_label_area_size(52)
            .build_cartesian_2d(0.5f64..readings.len() as f64 + 0.5, (lo - pad)..(hi + pad))?;
        chart
            .configure_mesh()
            .x_labels(readings.len().min(12))
            .x_label_formatter(&|v| format!("{}", v.round() as i64))
            .y_labels(5)
            .label_style(font(12.0))
            .light_line_style(WHITE)
            .draw()?;
        let width = 0.6 / players.len().max(1) as f64;
        for (s, _) in players.iter().enumerate() {
            let (colour, marker) = series_style(s);
            let offset = |x: usize| x as f64 + 1.0 - 0.3 + width * (s as f64 + 0.5);
            let mine: Vec<&Mark> = marks.iter().filter(|m| m.1 == s).collect();
            chart.draw_series(mine.iter().map(|m| {
                PathElement::new(
                    vec![(offset(m.0), m.3), (offset(m.0), m.4)],
                    colour.stroke_width(2),
                )
            }))?;
            let points: Vec<(f64, f64)> = mine.iter().map(|m| (offset(m.0), m.2)).collect();
            draw_markers(&mut chart, &points, marker, colour, 4)?;
        }
    }
    Ok(())
}

/// Writes `DIR/metrics.png` and `DIR/metrics.svg`; returns their paths.
pub fn plot_metrics(arms: &[ArmMetrics], dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
    if arms.is_empty() {
        return Err(PlotError::NoArms { study: dir.display().to_string() });
    }
    register_font()?;
    std::fs::create_dir_all(dir)
        .map_err(|error| PlotError::CreateDir { path: dir.to_path_buf(), error })?;
    let size = (PANEL.0 * COLUMNS as u32, 92 + PANEL.1 * PANELS.len().div_ceil(COLUMNS) as u32);
    write_chart(dir, "metrics", size, &MetricsChart(arms))
}

/// The metrics chart of a study's arms, as [`Draw`].
struct MetricsChart<'a>(&'a [ArmMetrics]);

impl Draw for MetricsChart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> AreaResult<(), DB> {
        draw(root, self.0)
    }
}
