//! Charts of a study for papers: each chart is written as a PNG (for slides and quick looks) and
//! an SVG (for print), with the same layout.
//!
//! [`plot_study`] draws, for a [`StudySummary`], the charts of [`Chart::ALL`] into a directory:
//! `NAME.png` and `NAME.svg` for each chart NAME (see [`Chart::file_stem`]). Every text uses the
//! bundled DejaVu Sans (`assets/fonts`), so no system font is needed and the PNGs look the same
//! on every machine. Several arms are drawn side by side (categorical charts) or as one series
//! per arm (distributions), in a colour-blind-safe palette with a distinct marker per arm; long
//! arm names wrap.
//!
//! Every file is written under a temporary name in the same directory and renamed when complete,
//! so a reader sees either no chart or a whole one.

mod charts;
pub mod exact;
mod layout;
pub mod metrics;
mod ratings;
mod rounds;
#[cfg(test)]
mod tests;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::prelude::*;
use plotters::style::FontStyle;

use crate::analysis::summary::StudySummary;
use crate::io::atomic::write_atomically_via_path;
use crate::io::{write_string_atomically, IoError};
pub use charts::thousands;
use layout::{Area, AreaResult, FAMILY};
pub use ratings::{plot_ratings, RatingsChart};
pub use rounds::RoundRange;

/// Size of every chart in pixels (PNG) or user units (SVG).
pub const WIDTH: u32 = 1200;
pub const HEIGHT: u32 = 750;

/// The bundled font, registered for plotters under [`layout::FAMILY`].
const FONT_PATH: &str = "assets/fonts/DejaVuSans.ttf";
const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// An error drawing or writing a chart; the message names the file.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The output directory could not be created.
    #[error("{}: cannot create the chart directory: {error}", path.display())]
    CreateDir { path: PathBuf, error: std::io::Error },
    /// Plotters could not draw or encode the chart `path` (the message says why, e.g. the
    /// temporary file could not be written).
    #[error("{}: cannot draw the chart: {message}", path.display())]
    Draw { path: PathBuf, message: String },
    /// Writing a chart file failed (the error names the file).
    #[error(transparent)]
    Io(#[from] IoError),
    /// The bundled font could not be loaded (a corrupted build).
    #[error("{FONT_PATH}: the bundled font cannot be loaded")]
    Font,
    /// A study without arms has nothing to chart.
    #[error("study `{study}` has no arms: there is nothing to chart")]
    NoArms { study: String },
}

/// The charts of a study, in the order [`plot_study`] writes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Chart {
    /// First-player and round-1 starter win rates per arm, with 95% Wilson intervals, and the
    /// first player's points with unfinished matches as halves (R16) where any are unfinished.
    FirstPlayerWinRate,
    /// Share of laps by lap length (counters sown), log scale, one line per arm.
    LapLength,
    /// Share of moves by number of laps, log scale, one line per arm.
    LapsPerMove,
    /// Stacked capture-source shares of South and North, grouped by arm.
    CaptureSources,
    /// Share of matches by number of rounds, one line per arm.
    RoundsPerMatch,
    /// Mean open pits at the start of each round, by round; needs round detail.
    ClosedPits,
    /// Rounds won by their starter and by the match's first player, by round number, with
    /// intervals; needs round detail.
    RoundsByNumber,
}

impl Chart {
    pub const ALL: [Chart; 7] = [
        Chart::FirstPlayerWinRate,
        Chart::LapLength,
        Chart::LapsPerMove,
        Chart::CaptureSources,
        Chart::RoundsPerMatch,
        Chart::ClosedPits,
        Chart::RoundsByNumber,
    ];

    /// The file name without extension.
    pub fn file_stem(self) -> &'static str {
        match self {
            Chart::FirstPlayerWinRate => "first_player_win_rate",
            Chart::LapLength => "lap_length",
            Chart::LapsPerMove => "laps_per_move",
            Chart::CaptureSources => "capture_sources",
            Chart::RoundsPerMatch => "rounds_per_match",
            Chart::ClosedPits => "closed_pits",
            Chart::RoundsByNumber => "rounds_by_number",
        }
    }

    /// The chart's title, as drawn at its top.
    pub fn title(self) -> &'static str {
        match self {
            Chart::FirstPlayerWinRate => charts::FIRST_PLAYER_TITLE,
            Chart::LapLength => charts::LAP_LENGTH.title,
            Chart::LapsPerMove => charts::LAPS_PER_MOVE.title,
            Chart::CaptureSources => charts::CAPTURE_SOURCES_TITLE,
            Chart::RoundsPerMatch => charts::ROUNDS_PER_MATCH.title,
            Chart::ClosedPits => charts::CLOSED_PITS_TITLE,
            Chart::RoundsByNumber => charts::ROUNDS_BY_NUMBER_TITLE,
        }
    }

    /// Whether the study has the data for this chart: the closed-pits chart needs the open-pit
    /// counts of round detail in at least one arm; the others are always drawn.
    pub fn has_data(self, study: &StudySummary) -> bool {
        match self {
            Chart::ClosedPits => study.arms.iter().any(|arm| !arm.open_pits.is_empty()),
            Chart::RoundsByNumber => study.arms.iter().any(|arm| !arm.by_round.is_empty()),
            _ => true,
        }
    }

    /// Draws the chart with the default round range (the tests' entry point).
    #[cfg(test)]
    fn draw<DB: DrawingBackend>(self, study: &StudySummary, root: &Area<DB>) -> AreaResult<(), DB> {
        self.draw_rounds(study, RoundRange::default(), root)
    }

    fn draw_rounds<DB: DrawingBackend>(
        self,
        study: &StudySummary,
        rounds: RoundRange,
        root: &Area<DB>,
    ) -> AreaResult<(), DB> {
        match self {
            Chart::FirstPlayerWinRate => charts::first_player_win_rate(root, study),
            Chart::LapLength => charts::LAP_LENGTH.draw(root, study),
            Chart::LapsPerMove => charts::LAPS_PER_MOVE.draw(root, study),
            Chart::CaptureSources => charts::capture_sources(root, study),
            Chart::RoundsPerMatch => charts::ROUNDS_PER_MATCH.draw(root, study),
            Chart::ClosedPits => charts::closed_pits(root, study, rounds),
            Chart::RoundsByNumber => charts::rounds_by_number(root, study, rounds),
        }
    }
}

/// Draws every chart of `study` for which it has data (see [`Chart::has_data`]: the closed-pits
/// chart is skipped without open-pit data) as `out_dir/NAME.png` and `out_dir/NAME.svg`,
/// creating `out_dir` if needed, and returns the paths written, PNG then SVG for each chart in
/// the order of [`Chart::ALL`]. Existing files of the same names are replaced.
pub fn plot_study(study: &StudySummary, out_dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
    plot_study_rounds(study, out_dir, RoundRange::default())
}

/// [`plot_study`], the charts by round number showing `rounds`.
pub fn plot_study_rounds(
    study: &StudySummary,
    out_dir: &Path,
    rounds: RoundRange,
) -> Result<Vec<PathBuf>, PlotError> {
    if study.arms.is_empty() {
        return Err(PlotError::NoArms { study: study.name.clone() });
    }
    register_font()?;
    fs::create_dir_all(out_dir)
        .map_err(|error| PlotError::CreateDir { path: out_dir.to_path_buf(), error })?;
    let mut written = Vec::new();
    for chart in Chart::ALL.into_iter().filter(|c| c.has_data(study)) {
        written.extend(write_chart(
            out_dir,
            chart.file_stem(),
            (WIDTH, HEIGHT),
            &StudyChart { chart, study, rounds },
        )?);
    }
    Ok(written)
}

/// Registers the bundled font under the family every chart text uses (once per process).
fn register_font() -> Result<(), PlotError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED
        .get_or_init(|| plotters::style::register_font(FAMILY, FontStyle::Normal, FONT).is_ok());
    if ok {
        Ok(())
    } else {
        Err(PlotError::Font)
    }
}

/// A chart drawn on any backend: the PNG and the SVG come from the same drawing code.
pub(crate) trait Draw {
    fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> AreaResult<(), DB>;
}

/// Writes `dir/STEM.png` and `dir/STEM.svg` of `size` pixels, each atomically; returns their
/// paths, PNG first.
pub(crate) fn write_chart(
    dir: &Path,
    stem: &str,
    size: (u32, u32),
    chart: &impl Draw,
) -> Result<Vec<PathBuf>, PlotError> {
    let png = dir.join(format!("{stem}.png"));
    write_atomically_via_path(&png, |tmp| {
        let root = BitMapBackend::new(tmp, size).into_drawing_area();
        chart
            .draw(&root)
            .and_then(|()| root.present())
            .map_err(|e| PlotError::Draw { path: png.clone(), message: e.to_string() })
    })?;
    let svg_path = dir.join(format!("{stem}.svg"));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        chart
            .draw(&root)
            .and_then(|()| root.present())
            .map_err(|e| PlotError::Draw { path: svg_path.clone(), message: e.to_string() })?;
    }
    write_string_atomically(&svg_path, &svg)?;
    Ok(vec![png, svg_path])
}

/// A study chart over a range of round numbers, as [`Draw`].
struct StudyChart<'a> {
    chart: Chart,
    study: &'a StudySummary,
    rounds: RoundRange,
}

impl Draw for StudyChart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> AreaResult<(), DB> {
        self.chart.draw_rounds(self.study, self.rounds, root)
    }
}
