//! The charts of a tournament ([`Report`]): ratings with intervals, the pairwise score heat map,
//! and the first-player advantage in self-play against strength. Same fonts, palette, legend and
//! atomic PNG + SVG files as the study charts.

use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::charts::{builder, category_x_area, style_mesh};
use super::layout::*;
use super::{register_font, write_chart, Draw, PlotError, HEIGHT, WIDTH};
use crate::ratings::report::{PlayerRating, Report};

/// The charts of a tournament, in the order [`plot_ratings`] writes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RatingsChart {
    /// Each player's rating with its 95% interval, highest first.
    Ratings,
    /// The score of each player (row) against each other (column), unfinished = 1/2.
    PairwiseScores,
    /// Each player's self-play first-player rate (both ways of counting unfinished matches)
    /// against its rating; needs self-play.
    FirstPlayerByStrength,
}

impl RatingsChart {
    pub const ALL: [RatingsChart; 3] =
        [RatingsChart::Ratings, RatingsChart::PairwiseScores, RatingsChart::FirstPlayerByStrength];

    pub fn file_stem(self) -> &'static str {
        match self {
            RatingsChart::Ratings => "ratings",
            RatingsChart::PairwiseScores => "pairwise_scores",
            RatingsChart::FirstPlayerByStrength => "first_player_by_strength",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            RatingsChart::Ratings => "Ratings (Elo scale) with 95% bootstrap intervals",
            RatingsChart::PairwiseScores => {
                "Pairwise scores: row player's score against column player"
            }
            RatingsChart::FirstPlayerByStrength => {
                "First-player advantage in self-play against strength"
            }
        }
    }

    /// The first-player chart needs at least one player's self-play.
    pub fn has_data(self, report: &Report) -> bool {
        match self {
            RatingsChart::FirstPlayerByStrength => {
                report.ratings.iter().any(|p| p.self_play.as_ref().is_some_and(|s| s.matches > 0))
            }
            _ => true,
        }
    }

    pub(super) fn draw<DB: DrawingBackend>(
        self,
        report: &Report,
        root: &Area<DB>,
    ) -> AreaResult<(), DB> {
        match self {
            RatingsChart::Ratings => ratings(root, report),
            RatingsChart::PairwiseScores => pairwise_scores(root, report),
            RatingsChart::FirstPlayerByStrength => first_player_by_strength(root, report),
        }
    }
}

/// A ratings chart of a report, as [`Draw`].
struct ReportChart<'a> {
    chart: RatingsChart,
    report: &'a Report,
}

impl Draw for ReportChart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &Area<DB>) -> AreaResult<(), DB> {
        self.chart.draw(self.report, root)
    }
}

/// Draws every chart of `report` that has data as `out_dir/NAME.png` and `out_dir/NAME.svg`;
/// returns the paths written, PNG then SVG, in the order of [`RatingsChart::ALL`].
pub fn plot_ratings(report: &Report, out_dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
    register_font()?;
    fs::create_dir_all(out_dir)
        .map_err(|error| PlotError::CreateDir { path: out_dir.to_path_buf(), error })?;
    let mut written = Vec::new();
    for chart in RatingsChart::ALL.into_iter().filter(|c| c.has_data(report)) {
        written.extend(write_chart(
            out_dir,
            chart.file_stem(),
            (WIDTH, HEIGHT),
            &ReportChart { chart, report },
        )?);
    }
    Ok(written)
}

fn subtitle(report: &Report) -> String {
    let matches: u64 = report.pairs.iter().map(|p| p.matches).sum();
    format!(
        "tournament {}: {} players, {} matches between them; Bradley-Terry, {}; unfinished = draw (R16)",
        report.name,
        report.ratings.len(),
        matches,
        report.method.anchor
    )
}

/// A vertical error bar from `low` to `high` at `x` with end ticks, and the marker at `y`.
fn error_bar<DB: DrawingBackend, X: Ranged<ValueType = f64>, Y: Ranged<ValueType = f64>>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    x: f64,
    (low, y, high): (f64, f64, f64),
    colour: RGBColor,
    marker: Marker,
) -> AreaResult<(), DB> {
    let stroke = colour.stroke_width(2);
    chart.draw_series(std::iter::once(PathElement::new(vec![(x, low), (x, high)], stroke)))?;
    for end in [low, high] {
        chart.draw_series(std::iter::once(
            EmptyElement::at((x, end)) + PathElement::new(vec![(-7, 0), (7, 0)], stroke),
        ))?;
    }
    draw_markers(chart, &[(x, y)], marker, colour, 6)
}

// --- ratings ----------------------------------------------------------------------------------

fn ratings<DB: DrawingBackend>(root: &Area<DB>, report: &Report) -> AreaResult<(), DB> {
    let legend = Legend {
        heading: None,
        items: vec![
            LegendItem {
                label: "rating with its 95% interval".into(),
                glyph: Glyph::ErrorBar { colour: PALETTE[0], marker: Marker::Circle },
            },
            LegendItem {
                label: format!("anchor: {}", report.method.anchor),
                glyph: Glyph::Line { colour: REFERENCE_COLOUR, marker: None, dashed: true },
            },
        ],
    };
    let plot = frame(root, RatingsChart::Ratings.title(), &subtitle(report), &legend)?;
    let players = &report.ratings;
    let finite = |x: f64| if x.is_finite() { Some(x) } else { None };
    let lo =
        players.iter().filter_map(|p| finite(p.ci_low).or(finite(p.rating))).fold(0.0f64, f64::min);
    let hi = players
        .iter()
        .filter_map(|p| finite(p.ci_high).or(finite(p.rating)))
        .fold(0.0f64, f64::max);
    let pad = ((hi - lo) * 0.08).max(10.0);
    let (y0, y1) = (lo - pad, hi + pad);
    let (y_ticks, decimals) = nice_ticks(y0, y1, 10);
    let y_fmt = move |v: &f64| format!("{v:.decimals$}");
    let y_area = y_label_area(max_text_width(&plot, y_ticks.iter().map(&y_fmt), TICK_SIZE)?);
    let n = players.len().max(1);
    let slot = plot.dim_in_pixel().0.saturating_sub(y_area + MARGIN.1 + MARGIN.3) / n as u32;
    let names: Vec<&str> = players.iter().map(|p| p.player.as_str()).collect();
    let labels = CategoryLabels::new(&plot, &names, slot)?;
    let x_range =
        Linear { lo: -0.5, hi: n as f64 - 0.5, ticks: (0..n).map(|i| i as f64).collect() };
    let mut chart = builder(&plot, category_x_area(labels.height()), y_area)
        .build_cartesian_2d(x_range, Linear { lo: y0, hi: y1, ticks: y_ticks })?;
    let mut mesh = chart.configure_mesh();
    style_mesh(&mut mesh);
    mesh.disable_x_mesh()
        .x_desc("player (highest rating first)")
        .y_desc("rating (Elo scale)")
        .x_label_formatter(&|_| String::new())
        .y_label_formatter(&y_fmt)
        .draw()?;
    chart.draw_series(DashedLineSeries::new(
        vec![(-0.5, 0.0), (n as f64 - 0.5, 0.0)],
        8,
        6,
        REFERENCE_COLOUR.stroke_width(2),
    ))?;
    let value_style = font(13.0).color(&SUBTLE_COLOUR).pos(Pos::new(HPos::Left, VPos::Center));
    for (i, p) in players.iter().enumerate() {
        let (low, high) =
            if p.ci_low.is_finite() { (p.ci_low, p.ci_high) } else { (p.rating, p.rating) };
        error_bar(&mut chart, i as f64, (low, p.rating, high), PALETTE[0], Marker::Circle)?;
        chart.draw_series(std::iter::once(Text::new(
            format!("{:.0}", p.rating),
            (i as f64 + 0.08, p.rating),
            value_style.clone(),
        )))?;
    }
    let centres: Vec<i32> =
        (0..players.len()).map(|i| chart.backend_coord(&(i as f64, y0)).0).collect();
    let bottom = chart.plotting_area().get_pixel_range().1.end;
    labels.draw(&plot, &centres, bottom + TICK_LABEL_GAP)
}

// --- pairwise scores --------------------------------------------------------------------------

/// Colour of a score in [0, 1]: vermillion (0) through a light grey (1/2, visible on the white
/// page) to blue (1), colour-blind safe.
fn score_colour(score: f64) -> RGBColor {
    let (low, high, mid) = (PALETTE[1], PALETTE[0], 238.0);
    let mix = |c: RGBColor, t: f64| {
        let f = |v: u8| (mid + (v as f64 - mid) * t).round() as u8;
        RGBColor(f(c.0), f(c.1), f(c.2))
    };
    if score < 0.5 {
        mix(low, (0.5 - score) * 2.0)
    } else {
        mix(high, (score - 0.5) * 2.0)
    }
}

fn pairwise_scores<DB: DrawingBackend>(root: &Area<DB>, report: &Report) -> AreaResult<(), DB> {
    let plot = frame(
        root,
        RatingsChart::PairwiseScores.title(),
        &subtitle(report),
        &pairwise_legend(report),
    )?;
    let players = &report.ratings;
    let n = players.len();
    let names: Vec<&str> = players.iter().map(|p| p.player.as_str()).collect();
    // Row labels at the left, as wide as the longest, wrapped past 200 pixels onto as many lines
    // as the row's height holds (never cut: `minimax:depth=2,eval=rows` is two lines).
    let row_style = font(TICK_SIZE);
    let mut row_lines: Vec<Vec<String>> = Vec::with_capacity(n);
    for name in &names {
        row_lines.push(wrap(&plot, name, &row_style, 200, usize::MAX)?);
    }
    let row_width = max_text_width(&plot, row_lines.iter().flatten().cloned(), TICK_SIZE)?;
    let y_area = row_width + TICK_LABEL_GAP as u32 + line_height(AXIS_DESC_SIZE) as u32 + 10;
    let slot = plot.dim_in_pixel().0.saturating_sub(y_area + MARGIN.1 + MARGIN.3) / n.max(1) as u32;
    let labels = CategoryLabels::new(&plot, &names, slot)?;
    let range = || Linear { lo: -0.5, hi: n as f64 - 0.5, ticks: Vec::new() };
    let mut chart = builder(&plot, category_x_area(labels.height()), y_area)
        .build_cartesian_2d(range(), range())?;
    let mut mesh = chart.configure_mesh();
    style_mesh(&mut mesh);
    mesh.disable_mesh()
        .x_desc("opponent (column)")
        .y_desc("player (row), highest rating at the top")
        .draw()?;
    draw_score_cells(&mut chart, report)?;
    draw_row_labels(&plot, &chart, &row_lines)?;
    let centres: Vec<i32> = (0..n).map(|i| chart.backend_coord(&(i as f64, 0.0)).0).collect();
    let bottom = chart.plotting_area().get_pixel_range().1.end;
    labels.draw(&plot, &centres, bottom + TICK_LABEL_GAP)
}

/// The heat map's legend: the colours of some scores, and the outline of a flagged pair.
fn pairwise_legend(report: &Report) -> Legend {
    let mut items: Vec<LegendItem> = [1.0, 0.75, 0.5, 0.25, 0.0]
        .iter()
        .map(|&s| LegendItem {
            label: format!("{:.0}%", 100.0 * s),
            glyph: Glyph::Swatch(score_colour(s)),
        })
        .collect();
    items.push(LegendItem {
        label: format!(
            "outlined: far from the ratings' prediction (|z| > {:.2})",
            report.goodness_of_fit.threshold_z
        ),
        glyph: Glyph::Line { colour: TEXT_COLOUR, marker: None, dashed: false },
    });
    Legend { heading: Some("row's score, unfinished = 1/2".into()), items }
}

/// The heat map's y of row `k` from the top of `n` rows (`players[k]`).
fn row_y(n: usize, k: usize) -> f64 {
    (n - 1 - k) as f64
}

/// A cell per row and column: the row's score as a colour and, where the cell is large enough,
/// as a number; self-play grey, pairs that never met pale, flagged pairs outlined.
fn draw_score_cells<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<Linear, Linear>>,
    report: &Report,
) -> AreaResult<(), DB> {
    let players = &report.ratings;
    let cell_px = {
        let a = chart.backend_coord(&(0.0, 0.0));
        let b = chart.backend_coord(&(1.0, 1.0));
        ((b.0 - a.0).abs().min((a.1 - b.1).abs())) as u32
    };
    let text_size = if cell_px >= 60 {
        16.0
    } else if cell_px >= 40 {
        13.0
    } else {
        10.0
    };
    for (r, row) in players.iter().enumerate() {
        for (c, col) in players.iter().enumerate() {
            let (x, y) = (c as f64, row_y(players.len(), r));
            let rect = [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)];
            if r == c {
                // Self-play is not part of the ratings.
                chart.draw_series(std::iter::once(Rectangle::new(
                    rect,
                    RGBColor(200, 200, 200).filled(),
                )))?;
                continue;
            }
            let Some((score, flagged)) = score_of(report, row, col) else {
                chart.draw_series(std::iter::once(Rectangle::new(
                    rect,
                    RGBColor(250, 250, 250).filled(),
                )))?;
                continue;
            };
            chart
                .draw_series(std::iter::once(Rectangle::new(rect, score_colour(score).filled())))?;
            chart.draw_series(std::iter::once(Rectangle::new(rect, WHITE.stroke_width(1))))?;
            if flagged {
                let inset = [(x - 0.45, y - 0.45), (x + 0.45, y + 0.45)];
                chart.draw_series(std::iter::once(Rectangle::new(
                    inset,
                    TEXT_COLOUR.stroke_width(3),
                )))?;
            }
            if cell_px >= 26 {
                let white = (score - 0.5).abs() > 0.3;
                let style = font(text_size)
                    .color(if white { &WHITE } else { &TEXT_COLOUR })
                    .pos(Pos::new(HPos::Center, VPos::Center));
                chart.draw_series(std::iter::once(Text::new(
                    format!("{:.0}", 100.0 * score),
                    (x, y),
                    style,
                )))?;
            }
        }
    }
    Ok(())
}

/// The players' names left of their rows, right-aligned, each `row_lines` entry centred on its row.
fn draw_row_labels<DB: DrawingBackend>(
    plot: &Area<DB>,
    chart: &ChartContext<'_, DB, Cartesian2d<Linear, Linear>>,
    row_lines: &[Vec<String>],
) -> AreaResult<(), DB> {
    let (bx, by) = plot.get_base_pixel();
    let left = chart.plotting_area().get_pixel_range().0.start;
    let right_aligned = font(TICK_SIZE).pos(Pos::new(HPos::Right, VPos::Center));
    let lh = line_height(TICK_SIZE);
    for (k, lines) in row_lines.iter().enumerate() {
        let py = chart.backend_coord(&(0.0, row_y(row_lines.len(), k))).1;
        let first = py - (lines.len() as i32 - 1) * lh / 2;
        for (j, line) in lines.iter().enumerate() {
            plot.draw_text(
                line,
                &right_aligned,
                (left - TICK_LABEL_GAP - bx, first + j as i32 * lh - by),
            )?;
        }
    }
    Ok(())
}

/// `row`'s score against `col` and whether the pair is flagged; None if they never met.
fn score_of(report: &Report, row: &PlayerRating, col: &PlayerRating) -> Option<(f64, bool)> {
    report.pairs.iter().find_map(|p| {
        if p.a == row.player && p.b == col.player {
            Some((p.a_points.rate, p.flagged))
        } else if p.b == row.player && p.a == col.player {
            Some((1.0 - p.a_points.rate, p.flagged))
        } else {
            None
        }
    })
}

// --- first player by strength -----------------------------------------------------------------

/// A player with self-play: name, rating, rating interval, the finished-only first-player rate
/// and the points rate where they differ (low, rate, high).
type StrengthRow<'a> = (&'a str, f64, (f64, f64), Option<(f64, f64, f64)>, Option<(f64, f64, f64)>);

fn self_play_rows(report: &Report) -> Vec<StrengthRow<'_>> {
    report
        .ratings
        .iter()
        .filter_map(|p| {
            let sp = p.self_play.as_ref().filter(|s| s.matches > 0)?;
            let w = &sp.first_player_wins;
            let wins = (w.trials > 0).then_some((w.ci_low, w.rate, w.ci_high));
            let pts = &sp.first_player_points;
            let points = (sp.unfinished > 0).then_some((pts.ci_low, pts.rate, pts.ci_high));
            let interval =
                if p.ci_low.is_finite() { (p.ci_low, p.ci_high) } else { (p.rating, p.rating) };
            Some((p.player.as_str(), p.rating, interval, wins, points))
        })
        .collect()
}

fn strength_legend(any_points: bool) -> Vec<LegendItem> {
    let mut items = vec![LegendItem {
        label: "first player's win rate in self-play (finished matches)".into(),
        glyph: Glyph::ErrorBar { colour: PALETTE[0], marker: Marker::Circle },
    }];
    if any_points {
        items.push(LegendItem {
            label: "first player's points, unfinished as half a win (R16; all matches)".into(),
            glyph: Glyph::ErrorBar { colour: PALETTE[2], marker: Marker::Diamond },
        });
    }
    items.push(LegendItem {
        label: "horizontal bars: 95% rating interval".into(),
        glyph: Glyph::Line { colour: SUBTLE_COLOUR, marker: None, dashed: false },
    });
    items.push(LegendItem {
        label: "50%: no first-player advantage".into(),
        glyph: Glyph::Line { colour: REFERENCE_COLOUR, marker: None, dashed: true },
    });
    items
}

/// Where a name of `size` goes beside its point: the first place, nearest first, that overlaps
/// no name in `placed` and stays inside the plot (`xs`, `ys`); else the first that overlaps none.
fn place_name(
    placed: &[(i32, i32, i32, i32)],
    (px, py): (i32, i32),
    (w, h): (i32, i32),
    xs: &Range<i32>,
    ys: &Range<i32>,
) -> (i32, i32) {
    let inside = |&(x, y): &(i32, i32)| {
        x >= xs.start + 2 && x + w <= xs.end - 2 && y >= ys.start + 2 && y + h <= ys.end - 2
    };
    let overlaps = |&(x, y): &(i32, i32)| {
        placed.iter().any(|&(l, t, r, b)| x < r + 2 && x + w + 2 > l && y < b + 1 && y + h + 1 > t)
    };
    let mut candidates = Vec::new();
    for step in 0..12 {
        let d = step * (h + 3);
        candidates.extend([
            (px + 9, py - 6 - h - d),
            (px + 9, py + 6 + d),
            (px - 9 - w, py - 6 - h - d),
            (px - 9 - w, py + 6 + d),
        ]);
    }
    candidates
        .iter()
        .copied()
        .find(|c| inside(c) && !overlaps(c))
        .or_else(|| candidates.iter().copied().find(|c| !overlaps(c)))
        .unwrap_or(candidates[0])
}

fn first_player_by_strength<DB: DrawingBackend>(
    root: &Area<DB>,
    report: &Report,
) -> AreaResult<(), DB> {
    let rows = self_play_rows(report);
    let items = strength_legend(rows.iter().any(|r| r.4.is_some()));
    let plot = frame(
        root,
        RatingsChart::FirstPlayerByStrength.title(),
        &subtitle(report),
        &Legend { heading: None, items },
    )?;

    let (mut x0, mut x1) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut lo, mut hi) = (50.0f64, 50.0f64);
    for (_, _, (a, b), wins, points) in &rows {
        x0 = x0.min(*a);
        x1 = x1.max(*b);
        for (l, _, h) in wins.iter().chain(points.iter()) {
            lo = lo.min(100.0 * l);
            hi = hi.max(100.0 * h);
        }
    }
    let x_pad = ((x1 - x0) * 0.08).max(20.0);
    let (x0, x1) = (x0 - x_pad, x1 + x_pad);
    let y_pad = ((hi - lo) * 0.08).max(1.0);
    // Room for the markers and names of rates at 0% or 100%; ticks within [0, 100].
    let (y0, y1) = ((lo - y_pad).max(-4.0), (hi + y_pad).min(104.0));
    let (x_ticks, x_dec) = nice_ticks(x0, x1, 10);
    let (mut y_ticks, y_dec) = nice_ticks(y0.max(0.0), y1.min(100.0), 10);
    y_ticks.retain(|v| (0.0..=100.0).contains(v));
    let y_fmt = move |v: &f64| format!("{v:.y_dec$}");
    let x_fmt = move |v: &f64| format!("{v:.x_dec$}");
    let y_area = y_label_area(max_text_width(&plot, y_ticks.iter().map(&y_fmt), TICK_SIZE)?);
    let mut chart = builder(&plot, X_LABEL_AREA, y_area).build_cartesian_2d(
        Linear { lo: x0, hi: x1, ticks: x_ticks },
        Linear { lo: y0, hi: y1, ticks: y_ticks },
    )?;
    let mut mesh = chart.configure_mesh();
    style_mesh(&mut mesh);
    mesh.x_desc("rating (Elo scale)")
        .y_desc("first-player rate in self-play (%)")
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .draw()?;
    chart.draw_series(DashedLineSeries::new(
        vec![(x0, 50.0), (x1, 50.0)],
        8,
        6,
        REFERENCE_COLOUR.stroke_width(2),
    ))?;
    let name_style = font(13.0).color(&TEXT_COLOUR);
    let mut placed: Vec<(i32, i32, i32, i32)> = Vec::new();
    for (name, rating, (a, b), wins, points) in &rows {
        let y_mid = wins.or(*points).map_or(50.0, |w| 100.0 * w.1);
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(*a, y_mid), (*b, y_mid)],
            SUBTLE_COLOUR.stroke_width(1),
        )))?;
        if let Some((l, r, h)) = wins {
            error_bar(
                &mut chart,
                *rating,
                (100.0 * l, 100.0 * r, 100.0 * h),
                PALETTE[0],
                Marker::Circle,
            )?;
        }
        if let Some((l, r, h)) = points {
            // Beside the finished-only bar, a few pixels to the right, so both stay visible.
            let dx = (x1 - x0) * 0.006;
            error_bar(
                &mut chart,
                rating + dx,
                (100.0 * l, 100.0 * r, 100.0 * h),
                PALETTE[2],
                Marker::Diamond,
            )?;
        }
        // The name beside its point (a name moved away from its point gets a thin line to it).
        let (w, h) = plot.estimate_text_size(name, &name_style)?;
        let (px, py) = chart.backend_coord(&(*rating, y_mid));
        let (w, h) = (w as i32, h as i32);
        let (xs, ys) = chart.plotting_area().get_pixel_range();
        let (x, y) = place_name(&placed, (px, py), (w, h), &xs, &ys);
        placed.push((x, y, x + w, y + h));
        let (bx, by) = plot.get_base_pixel();
        if (y - py).abs() > h + 12 {
            let end = (if x > px { x - 2 } else { x + w + 2 }, if y > py { y } else { y + h });
            plot.draw(&PathElement::new(
                vec![(px - bx, py - by), (end.0 - bx, end.1 - by)],
                SUBTLE_COLOUR.stroke_width(1),
            ))?;
        }
        plot.draw_text(name, &name_style.pos(Pos::new(HPos::Left, VPos::Top)), (x - bx, y - by))?;
    }
    if rows.is_empty() {
        draw_note(&chart, "no self-play")?;
    }
    Ok(())
}
