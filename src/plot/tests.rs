use std::fs;
use std::path::{Path, PathBuf};

use plotters::prelude::*;

use super::charts::shown_rounds;
use super::layout::{font, integer_ticks, log_ticks, nice_ticks, percent_label, wrap};
use super::*;
use crate::analysis::stats::{proportion, Distribution};
use crate::analysis::summary::{ArmSummary, CaptureSources, OpenPits};
use crate::engine::BySide;

/// A histogram with geometrically decreasing counts, from `first` while counts stay positive.
fn geometric(first: u64, top: f64, ratio: f64, last: u64) -> Vec<(u64, u64)> {
    (first..=last)
        .map(|v| (v, (top * ratio.powi((v - first) as i32)).round() as u64))
        .filter(|&(_, c)| c > 0)
        .collect()
}

/// Open pits by round of `matches` matches, fewer reaching each round; `v` varies the figures.
fn open_pits_fixture(matches: u64, v: f64) -> Vec<OpenPits> {
    (1..=25u32)
        .map(|r| {
            let matches = (matches as f64 * (0.55 + 0.015 * v).powi(r as i32 - 1)).round() as u64;
            let decline = 0.45 * (r - 1) as f64;
            OpenPits {
                round: r,
                matches,
                south_mean_open: (7.0 - decline * (1.0 + 0.05 * v)).max(1.5),
                north_mean_open: (7.0 - decline * (1.2 - 0.03 * v)).max(1.2),
                starter_mean_open: (7.0 - decline * (0.9 + 0.02 * v)).max(1.8),
            }
        })
        .filter(|p| p.matches > 0)
        .collect()
}

/// Round wins by round number of `matches` matches, grouped as a summary groups them.
fn by_round_fixture(matches: u64, v: f64) -> Vec<crate::analysis::summary::RoundsByNumber> {
    let mut tally = crate::sim::quality::ByRound::default();
    for r in 1..=60u32 {
        let rounds = (matches as f64 * (0.93 - 0.01 * v).powi(r as i32 - 1)).round() as u64;
        let starter = (rounds as f64 * (0.78 - 0.004 * r as f64 - 0.01 * v).max(0.55)) as u64;
        let first = (rounds as f64 * (0.6 - 0.002 * r as f64).max(0.5)) as u64;
        if rounds > 0 {
            let t = crate::sim::quality::ByRoundRecord {
                round: r,
                rounds,
                ties: rounds / 50,
                starter_wins: starter,
                first_player_wins: first,
                ..Default::default()
            };
            tally.rounds.push(t);
        }
    }
    crate::analysis::summarize::round_groups(&tally)
}

/// A realistic arm: 10,000 matches; `k` (0 to 11) varies the figures between arms;
/// `round_detail` fills the open-pit counts.
fn arm(name: &str, k: u64, round_detail: bool) -> ArmSummary {
    let v = k as f64;
    let matches = 10_000;
    let finished = 9_990 - 5 * k;
    let rounds_histogram = geometric(1, 2_600.0 + 150.0 * v, 0.62 - 0.02 * v, 40);
    let lap_length_histogram = geometric(1, 400_000.0, 0.78 + 0.015 * v, 200);
    let laps_per_move_histogram = geometric(1, 60_000.0, 0.55 + 0.025 * v, 200);
    let open_pits = if round_detail { open_pits_fixture(matches, v) } else { Vec::new() };
    let moves: Vec<(u64, u64)> = geometric(20, 900.0, 0.97, 400);
    ArmSummary {
        name: name.to_string(),
        rules: "default".to_string(),
        rules_hash: "0123456789abcdef".to_string(),
        south: "greedy".to_string(),
        north: if k == 0 { "random".to_string() } else { format!("minimax:depth={}", 2 + k) },
        first: "south".to_string(),
        seed: 42 + k,
        detail: if round_detail { "round" } else { "match" }.to_string(),
        matches,
        finished,
        unfinished: matches - finished,
        first_player_wins: proportion(5_350 - 60 * k, finished),
        first_player_points: crate::analysis::stats::half_points(
            5_350 - 60 * k,
            matches - finished,
            matches,
        ),
        seat_wins: BySide::new(
            proportion(5_100 + 100 * k, finished),
            proportion(4_890 - 105 * k, finished),
        ),
        round_starter_wins: proportion(13_000 + 250 * k, 24_000),
        tied_rounds: 130 + k,
        round1_starter_wins: proportion(5_600 + 75 * k, matches),
        rounds_per_match: Distribution::from_histogram(&rounds_histogram),
        moves_per_round: round_detail.then(|| Distribution::from_histogram(&moves)),
        moves_per_match: Distribution::from_histogram(&moves),
        laps_per_move: Distribution::from_histogram(&laps_per_move_histogram),
        lap_length: Distribution::from_histogram(&lap_length_histogram),
        capture_sources: BySide::new(
            CaptureSources {
                pussa: 41_000 + 1_500 * k,
                own_fours: 120_000,
                gifted_fours: 31_000 - 1_500 * k,
                remainder: 9_000,
            },
            CaptureSources {
                pussa: 38_000,
                own_fours: 110_000 + 2_500 * k,
                gifted_fours: 35_000,
                remainder: 12_000 + 500 * k,
            },
        ),
        by_round: if round_detail { by_round_fixture(matches, v) } else { Vec::new() },
        first_player_vs_first_arm: None,
        open_pits,
        endless_moves: 0,
        lap_length_histogram,
        laps_per_move_histogram,
        rounds_histogram,
    }
}

fn one_arm_study(round_detail: bool) -> StudySummary {
    StudySummary { name: "pilot".to_string(), arms: vec![arm("greedy-vs-random", 0, round_detail)] }
}

fn three_arm_study() -> StudySummary {
    StudySummary {
        name: "depth sweep <pussa & fours>".to_string(),
        arms: vec![
            arm("greedy-vs-random", 0, true),
            arm("greedy_vs_minimax_depth3_default_rules", 3, true),
            arm(
                "greedy-vs-minimax-depth4-with-the-pussa-capture-variant-and-closed-pits-refilled",
                6,
                true,
            ),
        ],
    }
}

/// Width and height from a PNG's IHDR chunk, after checking the signature.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(bytes.len() > 33, "PNG too short: {} bytes", bytes.len());
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    assert_eq!(&bytes[12..16], b"IHDR", "the first chunk is IHDR");
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    (be(&bytes[16..20]), be(&bytes[20..24]))
}

/// Checks that `svg` is one well-nested `<svg>` element: every start tag is closed in order.
fn check_xmlish(svg: &str) {
    assert!(
        svg.trim_start().starts_with("<svg"),
        "SVG starts with {:?}",
        &svg[..svg.len().min(40)]
    );
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find('<') {
        let end = rest[start..].find('>').expect("unterminated tag") + start;
        let tag = &rest[start + 1..end];
        rest = &rest[end + 1..];
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(name.trim()), "closing tag </{name}>");
        } else if !tag.ends_with('/') {
            stack.push(tag.split_whitespace().next().expect("tag name"));
        }
    }
    assert!(stack.is_empty(), "unclosed tags: {stack:?}");
    assert!(svg.trim_end().ends_with("</svg>"));
}

/// The contents of the SVG's `<text>` elements, trimmed and unescaped.
fn svg_texts(svg: &str) -> Vec<String> {
    let mut texts = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find("<text") {
        let open_end = rest[start..].find('>').unwrap() + start + 1;
        let close = rest[open_end..].find("</text>").unwrap() + open_end;
        let text = rest[open_end..close].trim();
        texts.push(
            text.replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&apos;", "'")
                .replace("&amp;", "&"),
        );
        rest = &rest[close..];
    }
    texts
}

fn expected_paths(dir: &Path, charts: &[Chart]) -> Vec<PathBuf> {
    charts
        .iter()
        .flat_map(|c| ["png", "svg"].map(|ext| dir.join(format!("{}.{ext}", c.file_stem()))))
        .collect()
}

/// The names of the files in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Plots `study` into a new directory and checks every file; `arm_name` must appear in every
/// chart. Returns the temporary directory (removed when dropped) and the chart directory.
fn check_study(
    study: &StudySummary,
    charts: &[Chart],
    arm_name: &str,
) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("charts");
    let written = plot_study(study, &out).unwrap();
    assert_eq!(written, expected_paths(&out, charts));
    let mut expected: Vec<String> =
        written.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    expected.sort();
    assert_eq!(listing(&out), expected, "no temporary file is left");
    for chart in charts {
        let png = fs::read(out.join(format!("{}.png", chart.file_stem()))).unwrap();
        assert_eq!(png_size(&png), (WIDTH, HEIGHT), "{chart:?}");
        // A blank chart compresses to a few kilobytes; a drawn one is much larger.
        assert!(png.len() > 20_000, "{chart:?}: PNG of {} bytes", png.len());
        let svg = fs::read_to_string(out.join(format!("{}.svg", chart.file_stem()))).unwrap();
        check_xmlish(&svg);
        assert!(
            svg.contains(&format!("width=\"{WIDTH}\""))
                && svg.contains(&format!("height=\"{HEIGHT}\"")),
            "{chart:?}: SVG size"
        );
        let texts = svg_texts(&svg);
        assert!(texts.iter().any(|t| t == chart.title()), "{chart:?}: title in {texts:?}");
        assert!(
            texts.iter().any(|t| t.contains(arm_name)),
            "{chart:?}: arm name {arm_name} in {texts:?}"
        );
        assert!(svg.contains("font-family=\"sans-serif\""), "{chart:?}: the bundled font's family");
    }
    // To look at the checked charts: PLOT_CHECK_DIR=DIR cargo test --release --lib plot::
    if let Some(keep) = std::env::var_os("PLOT_CHECK_DIR") {
        let keep = PathBuf::from(keep).join(&study.name);
        fs::create_dir_all(&keep).unwrap();
        for path in &written {
            fs::copy(path, keep.join(path.file_name().unwrap())).unwrap();
        }
    }
    (dir, out)
}

#[test]
fn one_arm_writes_every_chart() {
    check_study(&one_arm_study(true), &Chart::ALL, "greedy-vs-random");
}

#[test]
fn three_arms_write_every_chart() {
    let study = three_arm_study();
    let (_dir, out) = check_study(&study, &Chart::ALL, "greedy-vs-random");
    // Arms are named in the legend (or under the axis) of every chart: the second name, cut
    // into lines, still shows its first part everywhere.
    for chart in Chart::ALL {
        let texts =
            svg_texts(&fs::read_to_string(out.join(format!("{}.svg", chart.file_stem()))).unwrap());
        assert!(texts.iter().any(|t| t.starts_with("greedy_vs_minimax")), "{chart:?}: {texts:?}");
        assert!(
            texts.iter().any(|t| t.starts_with("greedy-vs-minimax-depth4")),
            "{chart:?}: {texts:?}"
        );
    }
}

#[test]
fn closed_pits_is_skipped_without_open_pit_data() {
    let study = one_arm_study(false);
    assert!(!Chart::ClosedPits.has_data(&study));
    assert!(!Chart::RoundsByNumber.has_data(&study));
    let charts: Vec<Chart> = Chart::ALL
        .into_iter()
        .filter(|&c| c != Chart::ClosedPits && c != Chart::RoundsByNumber)
        .collect();
    let (_dir, out) = check_study(&study, &charts, "greedy-vs-random");
    assert!(!out.join("closed_pits.png").exists() && !out.join("closed_pits.svg").exists());
    assert!(!out.join("rounds_by_number.png").exists());

    // One arm with round detail is enough.
    let mut study = three_arm_study();
    study.arms[0].open_pits.clear();
    study.arms[2].open_pits.clear();
    assert!(Chart::ClosedPits.has_data(&study));
}

#[test]
fn unwritable_directory_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-directory");
    fs::write(&file, "x").unwrap();
    let out = file.join("charts");
    let err = plot_study(&one_arm_study(true), &out).unwrap_err();
    assert!(matches!(err, PlotError::CreateDir { .. }), "{err:?}");
    assert!(err.to_string().contains(&out.display().to_string()), "{err}");
}

#[test]
fn unwritable_chart_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    // A non-empty directory where a chart should go: the rename onto it fails.
    let blocked = dir.path().join("lap_length.png");
    fs::create_dir_all(blocked.join("inside")).unwrap();
    let err = plot_study(&one_arm_study(true), dir.path()).unwrap_err();
    assert!(err.to_string().contains(&blocked.display().to_string()), "{err}");
    // The charts before it were written; no temporary file is left.
    assert_eq!(
        listing(dir.path()),
        ["first_player_win_rate.png", "first_player_win_rate.svg", "lap_length.png"]
    );
}

#[test]
fn study_without_arms_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let study = StudySummary { name: "empty".to_string(), arms: Vec::new() };
    let err = plot_study(&study, dir.path()).unwrap_err();
    assert!(matches!(err, PlotError::NoArms { .. }) && err.to_string().contains("empty"), "{err}");
}

/// An arm without finished matches, lap lengths or captures, with a single value of laps per
/// move and of rounds, and a single round of open-pit data.
fn degenerate_study() -> StudySummary {
    let mut a = arm("nothing-finished", 0, true);
    a.finished = 0;
    a.first_player_wins = proportion(0, 0);
    a.round1_starter_wins = proportion(0, 0);
    a.lap_length_histogram.clear();
    a.laps_per_move_histogram = vec![(1, 5)];
    a.rounds_histogram = vec![(1, 10_000)];
    a.capture_sources = BySide::default();
    a.open_pits.truncate(1);
    StudySummary { name: "edge".to_string(), arms: vec![a] }
}

#[test]
fn degenerate_data_still_draws() {
    check_study(&degenerate_study(), &Chart::ALL, "nothing-finished");
}

fn twelve_arm_study() -> StudySummary {
    let arms = (0..12)
        .map(|i| arm(&format!("arm-{i:02}-greedy-vs-minimax-depth-{}", i % 5), i, true))
        .collect();
    StudySummary { name: "many arms".to_string(), arms }
}

#[test]
fn twelve_arms_draw() {
    check_study(&twelve_arm_study(), &Chart::ALL, "arm-00");
}

#[test]
fn closed_pits_keeps_rounds_reached_by_one_percent() {
    let pits = |round, matches| OpenPits {
        round,
        matches,
        south_mean_open: 7.0,
        north_mean_open: 7.0,
        starter_mean_open: 7.0,
    };
    let shown = shown_rounds(&[pits(3, 99), pits(1, 10_000), pits(2, 100), pits(4, 0)]);
    assert_eq!(shown.iter().map(|p| p.round).collect::<Vec<_>>(), [1, 2]);
    assert!(shown_rounds(&[]).is_empty());
}

#[test]
fn ticks() {
    assert_eq!(nice_ticks(0.0, 100.0, 10), ((0..=10).map(|k| k as f64 * 10.0).collect(), 0));
    let (t, d) = nice_ticks(47.3, 56.1, 10);
    assert_eq!((t.first().copied(), t.last().copied(), d), (Some(48.0), Some(56.0), 0));
    let (t, d) = nice_ticks(0.0, 1.2, 8);
    assert_eq!((t.len(), d), (7, 1));
    assert_eq!(integer_ticks(1, 8, 16), (1..=8).map(|v| v as f64).collect::<Vec<_>>());
    assert_eq!(integer_ticks(1, 60, 16), (1..=12).map(|v| v as f64 * 5.0).collect::<Vec<_>>());
    assert_eq!(integer_ticks(1, 200, 16), (1..=10).map(|v| v as f64 * 20.0).collect::<Vec<_>>());
    assert_eq!(integer_ticks(1, 14, 6), [5.0, 10.0]);
    assert_eq!(integer_ticks(1, 11, 5), [2.0, 4.0, 6.0, 8.0, 10.0]);
    assert_eq!(integer_ticks(1, 14, 8), [2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0]);
    assert_eq!(integer_ticks(3, 3, 16), [3.0]);
    assert_eq!(log_ticks(0.001, 100.0), [0.001, 0.01, 0.1, 1.0, 10.0, 100.0]);
    assert_eq!(log_ticks(1.0, 100.0), [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]);
    assert_eq!(
        [0.001, 0.02, 0.5, 1.0, 20.0, 100.0].map(percent_label),
        ["0.001", "0.02", "0.5", "1", "20", "100"]
    );
}

#[test]
fn wrap_fits_and_keeps_the_text() {
    register_font().unwrap();
    let mut svg = String::new();
    let area = SVGBackend::with_string(&mut svg, (400, 300)).into_drawing_area();
    let style = font(16.0);
    let name = "greedy-vs-minimax-depth4-with-the-pussa-capture-variant";
    let lines = wrap(&area, name, &style, 120, usize::MAX).unwrap();
    assert!(lines.len() > 2, "{lines:?}");
    for line in &lines {
        assert!(area.estimate_text_size(line, &style).unwrap().0 <= 120, "{line}");
    }
    assert_eq!(lines.concat(), name);
    // A word longer than a line breaks between characters; too many lines end with an ellipsis.
    let lines = wrap(&area, "abcdefghijklmnopqrstuvwxyz", &style, 60, 2).unwrap();
    assert_eq!(lines.len(), 2);
    assert!(lines[1].ends_with('…'), "{lines:?}");
    assert_eq!(wrap(&area, "short", &style, 120, 3).unwrap(), ["short"]);
}

#[test]
fn the_replay_page_colours_capture_sources_as_this_chart_does() {
    let page: Vec<(RGBColor, &str)> = crate::show::Source::ALL
        .iter()
        .map(|s| (RGBColor(s.colour()[0], s.colour()[1], s.colour()[2]), s.name()))
        .collect();
    let chart: Vec<(RGBColor, &str)> = super::charts::SOURCE_COLOURS
        .iter()
        .map(|c| c.0)
        .zip(super::charts::SOURCE_NAMES)
        .collect();
    assert_eq!(page, chart);
}

#[test]
fn first_player_chart_adds_the_half_point_rate_only_where_matches_are_unfinished() {
    // (The legend wraps the label after "1/".)
    const POINTS_LABEL: &str = "first player's points, unfinished";
    let texts_of = |study: &StudySummary| {
        let dir = tempfile::tempdir().unwrap();
        plot_study(study, dir.path()).unwrap();
        svg_texts(&fs::read_to_string(dir.path().join("first_player_win_rate.svg")).unwrap())
            .join(" ")
    };
    // The fixture's arms have unfinished matches.
    assert!(texts_of(&three_arm_study()).contains(POINTS_LABEL));
    let mut study = three_arm_study();
    for a in &mut study.arms {
        a.finished = a.matches;
        a.unfinished = 0;
        a.first_player_points =
            crate::analysis::stats::half_points(a.first_player_wins.successes, 0, a.matches);
    }
    assert!(!texts_of(&study).contains(POINTS_LABEL));
}

/// A tournament report of five players, the first four with self-play (some unfinished).
fn tournament_report() -> crate::ratings::report::Report {
    use crate::analysis::stats::half_points;
    use crate::ratings::bradley_terry::PairResults;
    use crate::ratings::report::{rate, Entrant, RatingOptions, SelfPlay};
    let names = ["random", "greedy", "minimax:3", "mcts:128-with-a-long-name", "minimax:4"];
    let entrants: Vec<Entrant> = names
        .iter()
        .enumerate()
        .map(|(i, n)| Entrant {
            name: n.to_string(),
            spec: n.to_string(),
            self_play: (i < 4).then(|| SelfPlay {
                matches: 200,
                unfinished: 20 * i as u64,
                first_player_wins: proportion(
                    (200 - 20 * i as u64) * (55 + 10 * i as u64) / 100,
                    200 - 20 * i as u64,
                ),
                first_player_points: half_points(
                    (200 - 20 * i as u64) * (55 + 10 * i as u64) / 100,
                    20 * i as u64,
                    200,
                ),
            }),
        })
        .collect();
    let mut pairs = Vec::new();
    for a in 0..5 {
        for b in a + 1..5 {
            // Stronger with the index, and a cycle: random beats minimax:4.
            let a_wins = if (a, b) == (0, 4) { 150 } else { 100 - 20 * (b - a) as u64 };
            pairs.push(PairResults { a, b, a_wins, b_wins: 190 - a_wins, draws: 10 });
        }
    }
    rate(
        "ladder",
        "",
        &entrants,
        &pairs,
        &RatingOptions { anchor: Some(0), virtual_draws: 1.0, replicates: 100, seed: 1 },
    )
    .unwrap()
}

#[test]
fn tournament_charts_are_written_with_the_players_named() {
    let report = tournament_report();
    assert!(!report.goodness_of_fit.flagged.is_empty(), "the fixture has a cycle");
    let dir = tempfile::tempdir().unwrap();
    let written = plot_ratings(&report, dir.path()).unwrap();
    assert_eq!(written.len(), 6);
    for chart in RatingsChart::ALL {
        let png = fs::read(dir.path().join(format!("{}.png", chart.file_stem()))).unwrap();
        assert_eq!(png_size(&png), (WIDTH, HEIGHT), "{chart:?}");
        assert!(png.len() > 20_000, "{chart:?}: PNG of {} bytes", png.len());
        let svg =
            fs::read_to_string(dir.path().join(format!("{}.svg", chart.file_stem()))).unwrap();
        check_xmlish(&svg);
        let texts = svg_texts(&svg);
        assert!(texts.iter().any(|t| t == chart.title()), "{chart:?}: title in {texts:?}");
        assert!(texts.iter().any(|t| t.contains("minimax:3")), "{chart:?}: {texts:?}");
        assert!(texts.iter().any(|t| t.starts_with("random")), "{chart:?}: {texts:?}");
    }
    let heat = svg_texts(&fs::read_to_string(dir.path().join("pairwise_scores.svg")).unwrap());
    // random's score against minimax:4 (both seat orders): (150 + 5) / 200.
    assert!(heat.iter().any(|t| t == "78"), "{heat:?}");
    assert!(heat.iter().any(|t| t.starts_with("outlined: far from the ratings")), "{heat:?}");
    let strength =
        svg_texts(&fs::read_to_string(dir.path().join("first_player_by_strength.svg")).unwrap())
            .join(" ");
    assert!(
        strength.contains("first player's points, unfinished") && strength.contains("R16"),
        "{strength}"
    );
    // minimax:4 has no self-play: it is not on the first-player chart.
    assert!(!strength.contains("minimax:4"), "{strength}");
    // Without any self-play, that chart is skipped.
    let mut none = report.clone();
    none.ratings.iter_mut().for_each(|p| p.self_play = None);
    assert!(!RatingsChart::FirstPlayerByStrength.has_data(&none));
    assert_eq!(plot_ratings(&none, &dir.path().join("none")).unwrap().len(), 4);
}

// --- label placement --------------------------------------------------------------------------

/// A backend that draws nothing and records the box of every text, laid out as the bitmap
/// backend lays it out (plotters' default `draw_text`: anchor, then rotation).
struct TextBoxes {
    boxes: Vec<(String, [i32; 4])>,
}

impl plotters_backend::DrawingBackend for TextBoxes {
    type ErrorType = std::convert::Infallible;

    fn get_size(&self) -> (u32, u32) {
        (WIDTH, HEIGHT)
    }
    fn ensure_prepared(
        &mut self,
    ) -> Result<(), plotters_backend::DrawingErrorKind<Self::ErrorType>> {
        Ok(())
    }
    fn present(&mut self) -> Result<(), plotters_backend::DrawingErrorKind<Self::ErrorType>> {
        Ok(())
    }
    fn draw_pixel(
        &mut self,
        _: plotters_backend::BackendCoord,
        _: plotters_backend::BackendColor,
    ) -> Result<(), plotters_backend::DrawingErrorKind<Self::ErrorType>> {
        Ok(())
    }
    fn draw_text<S: plotters_backend::BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: plotters_backend::BackendCoord,
    ) -> Result<(), plotters_backend::DrawingErrorKind<Self::ErrorType>> {
        use plotters::style::text_anchor::{HPos, VPos};
        if text.trim().is_empty() || style.color().alpha == 0.0 {
            return Ok(());
        }
        let ((x0, y0), (x1, y1)) = style
            .layout_box(text)
            .map_err(|e| plotters_backend::DrawingErrorKind::FontError(Box::new(e)))?;
        let (w, h) = (x1 - x0, y1 - y0);
        let dx = match style.anchor().h_pos {
            HPos::Left => 0,
            HPos::Right => -w,
            HPos::Center => -w / 2,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0,
            VPos::Center => -h / 2,
            VPos::Bottom => -h,
        };
        let t = style.transform();
        let (a, b) = (t.transform(dx, dy), t.transform(dx + w, dy + h));
        let (l, r) = (a.0.min(b.0) + pos.0, a.0.max(b.0) + pos.0);
        let (top, bottom) = (a.1.min(b.1) + pos.1, a.1.max(b.1) + pos.1);
        self.boxes.push((text.to_string(), [l, top, r, bottom]));
        Ok(())
    }
}

/// The texts of a drawing, with the boxes they cover.
fn text_boxes(draw: impl FnOnce(&super::layout::Area<TextBoxes>)) -> Vec<(String, [i32; 4])> {
    register_font().unwrap();
    let backend = std::rc::Rc::new(std::cell::RefCell::new(TextBoxes { boxes: Vec::new() }));
    let root: super::layout::Area<TextBoxes> = (&backend).into();
    draw(&root);
    drop(root);
    let boxes = std::mem::take(&mut backend.borrow_mut().boxes);
    boxes
}

/// Every text inside the chart, none cut with an ellipsis, no two overlapping.
fn assert_labels_placed(what: &str, boxes: &[(String, [i32; 4])]) {
    assert!(boxes.len() > 10, "{what}: only {} texts", boxes.len());
    for (text, [l, t, r, b]) in boxes {
        assert!(
            *l >= 0 && *t >= 0 && *r <= WIDTH as i32 && *b <= HEIGHT as i32,
            "{what}: `{text}` at {l},{t}..{r},{b} leaves the chart"
        );
        assert!(!text.contains('…'), "{what}: `{text}` is cut");
    }
    for (i, (a, [al, at, ar, ab])) in boxes.iter().enumerate() {
        for (b, [bl, bt, br, bb]) in &boxes[i + 1..] {
            let overlap = (ar.min(br) - al.max(bl)).max(0) * (ab.min(bb) - at.max(bt)).max(0);
            assert!(
                overlap == 0,
                "{what}: `{a}` ({al},{at}..{ar},{ab}) and `{b}` ({bl},{bt}..{br},{bb}) overlap"
            );
        }
    }
}

/// A summary figure of the committed samples' JSON, as `proportion` makes it from its counts.
fn proportion_of(v: &serde_json::Value) -> crate::analysis::stats::Proportion {
    proportion(v["successes"].as_u64().unwrap(), v["trials"].as_u64().unwrap())
}

/// An arm of a committed summary.json, rebuilt from its counts (older samples lack newer fields).
fn committed_arm(a: &serde_json::Value) -> ArmSummary {
    let bins = |name: &str| -> Vec<(u64, u64)> {
        a[name]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| (b[0].as_u64().unwrap(), b[1].as_u64().unwrap()))
            .collect()
    };
    let sources = |side: usize| {
        let c = &a["capture_sources"][side];
        let n = |k: &str| c[k].as_u64().unwrap();
        CaptureSources {
            pussa: n("pussa"),
            own_fours: n("own_fours"),
            gifted_fours: n("gifted_fours"),
            remainder: n("remainder"),
        }
    };
    let open_pits = a["open_pits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| OpenPits {
            round: o["round"].as_u64().unwrap() as u32,
            matches: o["matches"].as_u64().unwrap(),
            south_mean_open: o["south_mean_open"].as_f64().unwrap(),
            north_mean_open: o["north_mean_open"].as_f64().unwrap(),
            starter_mean_open: o["starter_mean_open"].as_f64().unwrap(),
        })
        .collect();
    let (matches, unfinished) = (a["matches"].as_u64().unwrap(), a["unfinished"].as_u64().unwrap());
    let wins = proportion_of(&a["first_player_wins"]);
    let (rounds, laps, lengths) =
        (bins("rounds_histogram"), bins("laps_per_move_histogram"), bins("lap_length_histogram"));
    let text = |k: &str| a[k].as_str().unwrap().to_string();
    ArmSummary {
        name: text("name"),
        rules: text("rules"),
        rules_hash: text("rules_hash"),
        south: text("south"),
        north: text("north"),
        first: text("first"),
        seed: a["seed"].as_u64().unwrap(),
        detail: text("detail"),
        matches,
        finished: matches - unfinished,
        unfinished,
        first_player_points: crate::analysis::stats::half_points(
            wins.successes,
            unfinished,
            matches,
        ),
        first_player_wins: wins,
        seat_wins: BySide::new(
            proportion_of(&a["seat_wins"][0]),
            proportion_of(&a["seat_wins"][1]),
        ),
        round_starter_wins: proportion_of(&a["round_starter_wins"]),
        tied_rounds: a["tied_rounds"].as_u64().unwrap(),
        round1_starter_wins: proportion_of(&a["round1_starter_wins"]),
        rounds_per_match: Distribution::from_histogram(&rounds),
        moves_per_round: None,
        moves_per_match: Distribution::from_histogram(&rounds),
        laps_per_move: Distribution::from_histogram(&laps),
        lap_length: Distribution::from_histogram(&lengths),
        capture_sources: BySide::new(sources(0), sources(1)),
        open_pits,
        by_round: Vec::new(),
        first_player_vs_first_arm: None,
        endless_moves: a["endless_moves"].as_u64().unwrap(),
        lap_length_histogram: lengths,
        laps_per_move_histogram: laps,
        rounds_histogram: rounds,
    }
}

fn committed_study(name: &str) -> StudySummary {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data").join(name).join("summary.json");
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    StudySummary {
        name: name.to_string(),
        arms: json["arms"].as_array().unwrap().iter().map(committed_arm).collect(),
    }
}

/// The committed ladder's report, rated again from its pairs (data/ladder/ratings.json).
fn committed_ladder() -> crate::ratings::report::Report {
    use crate::ratings::bradley_terry::PairResults;
    use crate::ratings::report::{rate, Entrant, RatingOptions, SelfPlay};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/ladder/ratings.json");
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let mut names: Vec<String> = Vec::new();
    for p in json["pairs"].as_array().unwrap() {
        for k in ["a", "b"] {
            let name = p[k].as_str().unwrap().to_string();
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    let entrants: Vec<Entrant> = names
        .iter()
        .map(|name| {
            let r = json["ratings"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["player"] == name.as_str())
                .unwrap();
            let sp = &r["self_play"];
            Entrant {
                name: name.clone(),
                spec: r["spec"].as_str().unwrap().to_string(),
                self_play: sp.is_object().then(|| {
                    let (matches, unfinished) =
                        (sp["matches"].as_u64().unwrap(), sp["unfinished"].as_u64().unwrap());
                    let wins = proportion_of(&sp["first_player_wins"]);
                    SelfPlay {
                        matches,
                        unfinished,
                        first_player_points: crate::analysis::stats::half_points(
                            wins.successes,
                            unfinished,
                            matches,
                        ),
                        first_player_wins: wins,
                    }
                }),
            }
        })
        .collect();
    let index =
        |name: &serde_json::Value| names.iter().position(|n| n == name.as_str().unwrap()).unwrap();
    let pairs: Vec<PairResults> = json["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| PairResults {
            a: index(&p["a"]),
            b: index(&p["b"]),
            a_wins: p["a_wins"].as_u64().unwrap(),
            b_wins: p["b_wins"].as_u64().unwrap(),
            draws: p["unfinished"].as_u64().unwrap(),
        })
        .collect();
    let anchor = names
        .iter()
        .position(|n| json["method"]["anchor"].as_str().unwrap().starts_with(&format!("{n} =")));
    rate(
        "ladder",
        "",
        &entrants,
        &pairs,
        &RatingOptions { anchor, virtual_draws: 1.0, replicates: 100, seed: 1 },
    )
    .unwrap()
}

#[test]
fn no_chart_label_overlaps_another_or_leaves_the_chart() {
    // The committed samples' studies, and the fixtures of many arms and long names.
    let studies = [
        committed_study("quickstart"),
        committed_study("rule_variants"),
        one_arm_study(true),
        three_arm_study(),
    ];
    for study in &studies {
        for chart in Chart::ALL.into_iter().filter(|c| c.has_data(study)) {
            let boxes = text_boxes(|root| chart.draw(study, root).unwrap());
            assert_labels_placed(&format!("{} {chart:?}", study.name), &boxes);
        }
    }
    for report in [committed_ladder(), tournament_report()] {
        for chart in RatingsChart::ALL.into_iter().filter(|c| c.has_data(&report)) {
            let boxes = text_boxes(|root| chart.draw(&report, root).unwrap());
            assert_labels_placed(&format!("{} {chart:?}", report.name), &boxes);
        }
    }
}

#[test]
fn chart_titles_say_what_they_plot_and_the_lap_gap_is_explained() {
    assert!(
        Chart::ClosedPits.title().starts_with("Open pits"),
        "it plots open pits: {}",
        Chart::ClosedPits.title()
    );
    let study = committed_study("quickstart");
    let texts: Vec<String> = text_boxes(|root| Chart::LapLength.draw(&study, root).unwrap())
        .into_iter()
        .map(|t| t.0)
        .collect();
    let all = texts.join(" ");
    assert!(all.contains("No lap sows 4 to 6 counters") && all.contains("R6"), "{texts:?}");
    // Each first-player bar is labelled with its interval, which a million matches make
    // narrower than the marker.
    let texts: Vec<String> =
        text_boxes(|root| Chart::FirstPlayerWinRate.draw(&study, root).unwrap())
            .into_iter()
            .map(|t| t.0)
            .collect();
    let wins = &study.arms[0].first_player_wins;
    let label = format!(
        "{:.2}% [{:.2}, {:.2}]",
        100.0 * wins.rate,
        100.0 * wins.ci_low,
        100.0 * wins.ci_high
    );
    assert!(texts.contains(&label), "{label} in {texts:?}");
}

/// The committed match states of a reading (`data/match_solution/NAME/match_states.csv`), as
/// the match-equity chart draws them.
fn committed_equity(name: &str) -> Vec<super::exact::EquityCell> {
    use crate::exact::MatchValue;
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/match_solution")
        .join(name)
        .join("match_states.csv");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with(
        "rules_hash,pits_per_row,seeds_per_pit,south_holdings,north_holdings,starter,"
    ));
    lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let value = match f[8] {
                "win" => MatchValue::Win,
                "draw" => MatchValue::Draw,
                _ => MatchValue::Loss,
            };
            let starter = if f[5] == "south" {
                crate::engine::Side::South
            } else {
                crate::engine::Side::North
            };
            super::exact::EquityCell {
                south: f[3].parse().unwrap(),
                starter,
                value,
                rounds: f[9].parse().ok(),
            }
        })
        .collect()
}

#[test]
fn match_equity_rounds_fit_their_cells_and_each_is_shown() {
    for name in ["default", "next_starter-round_winner", "pussa_chain", "skip_origin"] {
        let cells = committed_equity(name);
        let boxes = text_boxes(|root| {
            super::exact::match_equity(root, &cells, "7 pits a row, 7 counters a pit").unwrap()
        });
        assert_labels_placed(&format!("match equity {name}"), &boxes);
        // Every state's rounds are printed, in the overview or the close-up (10 is left out of
        // the count: it is also an axis tick).
        let mut counts: Vec<u32> =
            cells.iter().filter_map(|c| c.rounds).filter(|k| *k != 10).collect();
        counts.sort();
        counts.dedup();
        for k in counts {
            let states = cells.iter().filter(|c| c.rounds == Some(k)).count();
            let printed = boxes.iter().filter(|(text, _)| *text == k.to_string()).count();
            assert!(
                printed >= states,
                "{name}: {states} states need {k} rounds, {printed} labels say so"
            );
        }
        // The two-digit counts near the even split are printed large enough to read.
        for (text, [_, top, _, bottom]) in
            boxes.iter().filter(|(text, _)| text.len() == 2 && text.as_str() < "20" && text != "10")
        {
            assert!(bottom - top >= 14, "{name}: `{text}` is {} pixels high", bottom - top);
        }
    }
}
