//! What every chart shares: text styles, the colour and marker palette, the title band, the
//! legend panel at the right, wrapped category labels under the x axis and tick positions.
//!
//! Everything is measured with the bundled font (see [`super::register_font`]), so that the
//! layout is the same in PNG and SVG and long arm names wrap instead of overlapping.

use std::ops::Range;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// A drawing area in pixels.
pub(super) type Area<DB> = DrawingArea<DB, Shift>;
/// The result of a drawing operation on the backend `DB`.
pub(super) type AreaResult<T, DB> =
    Result<T, DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// The font family of every text: the bundled DejaVu Sans is registered under this name.
pub(super) const FAMILY: &str = "sans-serif";

pub(super) const TITLE_SIZE: f64 = 30.0;
pub(super) const SUBTITLE_SIZE: f64 = 18.0;
pub(super) const AXIS_DESC_SIZE: f64 = 20.0;
pub(super) const TICK_SIZE: f64 = 16.0;
pub(super) const LEGEND_SIZE: f64 = 16.0;
pub(super) const PANEL_TITLE_SIZE: f64 = 20.0;

/// Height of the x label area of a numeric x axis (tick labels and the axis description).
pub(super) const X_LABEL_AREA: u32 = 70;
/// Margins of the chart inside its area (top, right, bottom, left).
pub(super) const MARGIN: (u32, u32, u32, u32) = (16, 24, 10, 10);
/// Distance from the axis to the tick labels: plotters puts them twice the tick mark length
/// away, and [`super::charts`] sets 5-pixel tick marks.
pub(super) const TICK_LABEL_GAP: i32 = 10;

pub(super) const TEXT_COLOUR: RGBColor = RGBColor(20, 20, 20);
pub(super) const SUBTLE_COLOUR: RGBColor = RGBColor(90, 90, 90);
pub(super) const GRID_BOLD: RGBColor = RGBColor(215, 215, 215);
pub(super) const GRID_LIGHT: RGBColor = RGBColor(238, 238, 238);
pub(super) const REFERENCE_COLOUR: RGBColor = RGBColor(110, 110, 110);

/// A text style in the bundled font.
pub(super) fn font(size: f64) -> TextStyle<'static> {
    (FAMILY, size).into_font().color(&TEXT_COLOUR)
}

/// Line height of text of the given size.
pub(super) fn line_height(size: f64) -> i32 {
    (size * 1.3).ceil() as i32
}

/// The arm palette: the colour-blind-safe Okabe-Ito colours (yellow, too pale on white, replaced
/// by olive). Arms beyond the eighth reuse a colour with another marker.
pub(super) const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(230, 159, 0),   // orange
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(0, 0, 0),       // black
    RGBColor(153, 153, 51),  // olive
];

/// A point marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
}

const MARKERS: [Marker; 4] = [Marker::Circle, Marker::Square, Marker::Triangle, Marker::Diamond];

/// Colour and marker of series `i`: the pair differs for every i below 32.
pub(super) fn series_style(i: usize) -> (RGBColor, Marker) {
    (PALETTE[i % PALETTE.len()], MARKERS[(i + i / PALETTE.len()) % MARKERS.len()])
}

/// Expands `$body` once per marker shape, with `$shape` a closure making the filled shape of
/// marker `$m` ("radius" `$r` pixels, colour `$colour`) as an element relative to a point.
macro_rules! with_marker_shape {
    ($m:expr, $r:expr, $colour:expr, |$shape:ident| $body:expr) => {{
        let (r, style): (i32, ShapeStyle) = ($r, $colour.filled());
        match $m {
            Marker::Circle => {
                let $shape = move || Circle::new((0, 0), r, style);
                $body
            }
            Marker::Square => {
                let $shape = move || Rectangle::new([(-r + 1, -r + 1), (r - 1, r - 1)], style);
                $body
            }
            Marker::Triangle => {
                let $shape =
                    move || Polygon::new(vec![(0, -r - 1), (r + 1, r - 1), (-r - 1, r - 1)], style);
                $body
            }
            Marker::Diamond => {
                let $shape = move || {
                    Polygon::new(vec![(0, -r - 1), (r + 1, 0), (0, r + 1), (-r - 1, 0)], style)
                };
                $body
            }
        }
    }};
}

/// Draws marker `m` at each of `points` (chart coordinates).
pub(super) fn draw_markers<DB, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    points: &[(f64, f64)],
    m: Marker,
    colour: RGBColor,
    r: i32,
) -> AreaResult<(), DB>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    with_marker_shape!(m, r, colour, |shape| {
        chart.draw_series(points.iter().map(|&p| EmptyElement::at(p) + shape()))?;
    });
    Ok(())
}

/// Draws marker `m` at pixel `at` of `area`.
fn draw_marker_at<DB: DrawingBackend>(
    area: &Area<DB>,
    at: (i32, i32),
    m: Marker,
    colour: RGBColor,
    r: i32,
) -> AreaResult<(), DB> {
    with_marker_shape!(m, r, colour, |shape| {
        area.draw(&(EmptyElement::at(at) + shape()))?;
    });
    Ok(())
}

/// Draws `text` in grey at the centre of the chart's plotting area (e.g. "no laps recorded").
pub(super) fn draw_note<DB: DrawingBackend, X: Ranged, Y: Ranged>(
    chart: &ChartContext<'_, DB, Cartesian2d<X, Y>>,
    text: &str,
) -> AreaResult<(), DB> {
    let area = chart.plotting_area().strip_coord_spec();
    let (w, h) = area.dim_in_pixel();
    let style =
        font(AXIS_DESC_SIZE).color(&SUBTLE_COLOUR).pos(Pos::new(HPos::Center, VPos::Center));
    area.draw_text(text, &style, (w as i32 / 2, h as i32 / 2))
}

/// What a legend entry shows before its label.
#[derive(Clone, Copy, Debug)]
pub(super) enum Glyph {
    /// A line sample, optionally dashed, with an optional marker in its middle.
    Line { colour: RGBColor, marker: Option<Marker>, dashed: bool },
    /// A marker with a vertical error bar through it.
    ErrorBar { colour: RGBColor, marker: Marker },
    /// A filled square (bars).
    Swatch(RGBColor),
}

#[derive(Clone, Debug)]
pub(super) struct LegendItem {
    pub label: String,
    pub glyph: Glyph,
}

/// The legend panel drawn at the right of a chart.
#[derive(Clone, Debug, Default)]
pub(super) struct Legend {
    pub heading: Option<String>,
    pub items: Vec<LegendItem>,
}

const LEGEND_PAD: i32 = 14;
const LEGEND_SAMPLE: i32 = 40;
const LEGEND_GAP: i32 = 10;
/// Labels wider than this wrap onto further lines.
const LEGEND_TEXT_MAX: u32 = 250;
const LEGEND_MAX_LINES: usize = 3;

/// A legend laid out for drawing: wrapped labels and the panel width.
struct LegendLayout {
    heading: Vec<String>,
    labels: Vec<Vec<String>>,
    width: u32,
}

impl Legend {
    fn layout<DB: DrawingBackend>(&self, area: &Area<DB>) -> AreaResult<LegendLayout, DB> {
        let style = font(LEGEND_SIZE);
        let mut text_width = 0;
        let heading = match &self.heading {
            Some(h) => wrap(
                area,
                h,
                &style,
                LEGEND_TEXT_MAX + LEGEND_SAMPLE as u32 + LEGEND_GAP as u32,
                LEGEND_MAX_LINES,
            )?,
            None => Vec::new(),
        };
        for line in &heading {
            text_width = text_width.max(
                area.estimate_text_size(line, &style)?
                    .0
                    .saturating_sub((LEGEND_SAMPLE + LEGEND_GAP) as u32),
            );
        }
        let mut labels = Vec::with_capacity(self.items.len());
        for item in &self.items {
            let lines = wrap(area, &item.label, &style, LEGEND_TEXT_MAX, LEGEND_MAX_LINES)?;
            for line in &lines {
                text_width = text_width.max(area.estimate_text_size(line, &style)?.0);
            }
            labels.push(lines);
        }
        let width = if self.items.is_empty() {
            0
        } else {
            (2 * LEGEND_PAD + LEGEND_SAMPLE + LEGEND_GAP) as u32 + text_width
        };
        Ok(LegendLayout { heading, labels, width })
    }

    /// Draws the legend into `area` (the panel at the right of the chart), from `top` down.
    fn draw<DB: DrawingBackend>(
        &self,
        layout: &LegendLayout,
        area: &Area<DB>,
        top: i32,
    ) -> AreaResult<(), DB> {
        let style = font(LEGEND_SIZE).pos(Pos::new(HPos::Left, VPos::Center));
        let lh = line_height(LEGEND_SIZE);
        let mut y = top + lh / 2;
        for line in &layout.heading {
            area.draw_text(line, &style, (LEGEND_PAD, y))?;
            y += lh;
        }
        if !layout.heading.is_empty() {
            y += lh / 3;
        }
        let x0 = LEGEND_PAD;
        let x1 = LEGEND_PAD + LEGEND_SAMPLE;
        let mid = (x0 + x1) / 2;
        for (item, lines) in self.items.iter().zip(&layout.labels) {
            match item.glyph {
                Glyph::Line { colour, marker: m, dashed } => {
                    let stroke = colour.stroke_width(2);
                    if dashed {
                        area.draw(&DashedPathElement::new(vec![(x0, y), (x1, y)], 7, 5, stroke))?;
                    } else {
                        area.draw(&PathElement::new(vec![(x0, y), (x1, y)], stroke))?;
                    }
                    if let Some(m) = m {
                        draw_marker_at(area, (mid, y), m, colour, 5)?;
                    }
                }
                Glyph::ErrorBar { colour, marker: m } => {
                    let stroke = colour.stroke_width(2);
                    let h = lh / 2;
                    area.draw(&PathElement::new(vec![(mid, y - h), (mid, y + h)], stroke))?;
                    area.draw(&PathElement::new(vec![(mid - 6, y - h), (mid + 6, y - h)], stroke))?;
                    area.draw(&PathElement::new(vec![(mid - 6, y + h), (mid + 6, y + h)], stroke))?;
                    draw_marker_at(area, (mid, y), m, colour, 5)?;
                }
                Glyph::Swatch(colour) => {
                    let h = lh / 2 - 1;
                    area.draw(&Rectangle::new(
                        [(mid - h, y - h), (mid + h, y + h)],
                        colour.filled(),
                    ))?;
                }
            }
            for line in lines {
                area.draw_text(line, &style, (x1 + LEGEND_GAP, y))?;
                y += lh;
            }
            y += lh / 3;
        }
        Ok(())
    }
}

/// Fills `root` white, draws the title band (title and subtitle, centred) and the legend panel
/// at the right, and returns the area left for the chart.
pub(super) fn frame<DB: DrawingBackend>(
    root: &Area<DB>,
    title: &str,
    subtitle: &str,
    legend: &Legend,
) -> AreaResult<Area<DB>, DB> {
    root.fill(&WHITE)?;
    let (w, _) = root.dim_in_pixel();
    let centre = w as i32 / 2;
    let mut y = 14;
    let title_style = font(TITLE_SIZE).pos(Pos::new(HPos::Center, VPos::Top));
    for line in wrap(root, title, &title_style, w - 40, 2)? {
        root.draw_text(&line, &title_style, (centre, y))?;
        y += line_height(TITLE_SIZE);
    }
    let subtitle_style =
        font(SUBTITLE_SIZE).color(&SUBTLE_COLOUR).pos(Pos::new(HPos::Center, VPos::Top));
    y += 2;
    for line in wrap(root, subtitle, &subtitle_style, w - 40, 2)? {
        root.draw_text(&line, &subtitle_style, (centre, y))?;
        y += line_height(SUBTITLE_SIZE);
    }
    let (_, body) = root.split_vertically(y + 6);
    let layout = legend.layout(root)?;
    if layout.width == 0 {
        return Ok(body);
    }
    let (plot, panel) = body.split_horizontally(w.saturating_sub(layout.width) as i32);
    legend.draw(&layout, &panel, MARGIN.0 as i32)?;
    Ok(plot)
}

/// The characters after which a name may wrap onto the next line.
fn is_break_after(c: char) -> bool {
    matches!(c, ' ' | '-' | '_' | '/' | '.' | ',' | ':' | '+' | '=' | ';')
}

/// Wraps `text` into lines no wider than `max_width` pixels in `style`, breaking after spaces and
/// punctuation (`-`, `_`, `/`, ...) and, inside a word too long for a line, between characters.
/// More than `max_lines` lines are cut, the last kept line ending with an ellipsis.
pub(super) fn wrap<DB: DrawingBackend>(
    area: &Area<DB>,
    text: &str,
    style: &TextStyle,
    max_width: u32,
    max_lines: usize,
) -> AreaResult<Vec<String>, DB> {
    let fits = |s: &str| -> AreaResult<bool, DB> {
        Ok(area.estimate_text_size(s.trim_end(), style)?.0 <= max_width)
    };
    // Tokens: runs of characters ending with a break character.
    let mut tokens: Vec<String> = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        current.push(c);
        if is_break_after(c) {
            tokens.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        tokens.push(current);
    }
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for token in tokens {
        let candidate = format!("{line}{token}");
        if fits(&candidate)? {
            line = candidate;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line).trim_end().to_string());
        }
        if fits(&token)? {
            line = token;
            continue;
        }
        // A token too long for a line: break it between characters.
        for c in token.chars() {
            let candidate = format!("{line}{c}");
            if fits(&candidate)? || line.is_empty() {
                line = candidate;
            } else {
                lines.push(std::mem::replace(&mut line, c.to_string()));
            }
        }
    }
    if !line.trim_end().is_empty() || lines.is_empty() {
        lines.push(line.trim_end().to_string());
    }
    if lines.len() > max_lines {
        lines.truncate(max_lines);
        let last = lines.last_mut().expect("max_lines > 0");
        loop {
            let candidate = format!("{}…", last.trim_end());
            if fits(&candidate)? || last.is_empty() {
                *last = candidate;
                break;
            }
            last.pop();
        }
    }
    Ok(lines)
}

/// Category labels (arm names) wrapped to the width of their slot under the x axis.
pub(super) struct CategoryLabels {
    pub lines: Vec<Vec<String>>,
    pub size: f64,
}

impl CategoryLabels {
    /// Wraps each name to `slot_width` pixels, with the largest font size (16, 14 or 12) at which
    /// every name fits in three lines (six at the smallest size, as a 13-player heat map's
    /// `minimax:depth=2,eval=rows` needs, then cut with an ellipsis).
    pub fn new<DB: DrawingBackend>(
        area: &Area<DB>,
        names: &[&str],
        slot_width: u32,
    ) -> AreaResult<CategoryLabels, DB> {
        let max_width = slot_width.saturating_sub(8).max(20);
        let sizes = [16.0, 14.0, 12.0];
        for (k, &size) in sizes.iter().enumerate() {
            let last = k + 1 == sizes.len();
            let max_lines = if last { 6 } else { 3 };
            let style = font(size);
            let mut lines = Vec::with_capacity(names.len());
            let mut ok = true;
            for name in names {
                let wrapped = wrap(area, name, &style, max_width, usize::MAX)?;
                ok &= wrapped.len() <= max_lines;
                lines.push(if last {
                    wrap(area, name, &style, max_width, max_lines)?
                } else {
                    wrapped
                });
            }
            if ok || last {
                return Ok(CategoryLabels { lines, size });
            }
        }
        unreachable!("the last size is always accepted")
    }

    /// Number of lines of the longest label.
    pub fn max_lines(&self) -> usize {
        self.lines.iter().map(Vec::len).max().unwrap_or(0)
    }

    /// Height of the label block in pixels.
    pub fn height(&self) -> u32 {
        (self.max_lines() as i32 * line_height(self.size)) as u32
    }

    /// Draws label `i` centred at pixel `centres[i]` (backend coordinates), from `top` down.
    pub fn draw<DB: DrawingBackend>(
        &self,
        area: &Area<DB>,
        centres: &[i32],
        top: i32,
    ) -> AreaResult<(), DB> {
        let (bx, by) = area.get_base_pixel();
        let style = font(self.size).pos(Pos::new(HPos::Center, VPos::Top));
        let lh = line_height(self.size);
        for (lines, &x) in self.lines.iter().zip(centres) {
            for (k, line) in lines.iter().enumerate() {
                area.draw_text(line, &style, (x - bx, top - by + k as i32 * lh))?;
            }
        }
        Ok(())
    }
}

/// A linear axis from `lo` to `hi` with ticks (and grid lines) exactly at `ticks`.
#[derive(Clone, Debug)]
pub(super) struct Linear {
    pub lo: f64,
    pub hi: f64,
    pub ticks: Vec<f64>,
}

impl Ranged for Linear {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        if self.hi == self.lo {
            return (limit.0 + limit.1) / 2;
        }
        let t = (value - self.lo) / (self.hi - self.lo);
        limit.0 + ((limit.1 - limit.0) as f64 * t).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        // Bold points only: light grid lines would clutter the charts.
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

/// Up to about `max_count` evenly spaced "nice" ticks (steps 1, 2 or 5 times a power of ten)
/// covering [lo, hi], and the number of decimals their labels need.
pub(super) fn nice_ticks(lo: f64, hi: f64, max_count: usize) -> (Vec<f64>, usize) {
    let span = (hi - lo).max(f64::EPSILON);
    let raw = span / max_count.max(1) as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * magnitude);
    let decimals = if step >= 1.0 { 0 } else { (-step.log10()).ceil() as usize };
    // The tolerance keeps ends that are multiples of the step despite rounding (1.2 / 0.2).
    let first = (lo / step - 1e-9).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    let ticks = (first..=last).map(|k| k as f64 * step).collect();
    (ticks, decimals)
}

/// Integer ticks from `lo` to `hi` at multiples of a step of 1, 2 or 5 times a power of ten,
/// the smallest step giving at most `max_count` ticks.
pub(super) fn integer_ticks(lo: u64, hi: u64, max_count: usize) -> Vec<f64> {
    let max_count = max_count.max(1) as u64;
    let count = |step: u64| (hi / step + 1).saturating_sub(lo.div_ceil(step));
    let step = [1u64, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000]
        .into_iter()
        .flat_map(|magnitude| [1, 2, 5].map(|m| m * magnitude))
        .find(|&step| count(step) <= max_count)
        .unwrap_or(50_000_000);
    let first = lo.div_ceil(step) * step;
    (first..=hi).step_by(step as usize).map(|v| v as f64).collect()
}

/// Decade ticks for a log axis from `lo` to `hi` (powers of ten), with the 2 and 5 multiples as
/// well when the range spans at most two decades.
pub(super) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let first = lo.log10().floor() as i32;
    let last = hi.log10().ceil() as i32;
    let multiples: &[f64] = if last - first <= 2 { &[1.0, 2.0, 5.0] } else { &[1.0] };
    let mut ticks = Vec::new();
    for e in first..=last {
        for m in multiples {
            let v = m * 10f64.powi(e);
            if v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9) {
                ticks.push(v);
            }
        }
    }
    ticks
}

/// A percentage tick label: no decimals from 1 up, otherwise as many as the value needs
/// (0.5, 0.01, 0.002).
pub(super) fn percent_label(v: f64) -> String {
    if v >= 1.0 || v <= 0.0 {
        format!("{v:.0}")
    } else {
        let decimals = (-v.log10() - 1e-9).ceil().max(1.0) as usize;
        format!("{v:.decimals$}")
    }
}

/// The widest of `labels` in pixels at `size`.
pub(super) fn max_text_width<DB: DrawingBackend>(
    area: &Area<DB>,
    labels: impl IntoIterator<Item = String>,
    size: f64,
) -> AreaResult<u32, DB> {
    let style = font(size);
    let mut w = 0;
    for label in labels {
        w = w.max(area.estimate_text_size(&label, &style)?.0);
    }
    Ok(w)
}

/// Width of a y label area holding tick labels `tick_width` pixels wide and the rotated axis
/// description.
pub(super) fn y_label_area(tick_width: u32) -> u32 {
    tick_width + TICK_LABEL_GAP as u32 + line_height(AXIS_DESC_SIZE) as u32 + 10
}
