use crate::common::*;

#[test]
fn plot_writes_png_and_svg_charts() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d");
    ok(&[
        "simulate",
        "--matches",
        "200",
        "--seed",
        "3",
        "--detail",
        "round",
        "--out",
        s(&data),
        "--quiet",
    ]);
    let charts = dir.path().join("charts");
    let listed = ok(&["plot", s(&data), "--out", s(&charts)]);
    let f = files(&charts);
    for chart in [
        "first_player_win_rate",
        "lap_length",
        "laps_per_move",
        "capture_sources",
        "rounds_per_match",
        "closed_pits",
        "rounds_by_number",
    ] {
        for ext in ["png", "svg"] {
            let name = format!("{chart}.{ext}");
            assert!(f.contains(&name), "{name} missing from {f:?}");
            assert!(listed.contains(&name));
            let bytes = std::fs::read(charts.join(&name)).unwrap();
            assert!(bytes.len() > 1000, "{name} is too small");
            if ext == "png" {
                assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
            } else {
                let text = String::from_utf8(bytes).unwrap();
                assert!(text.contains("<svg") && text.contains("</svg>"));
            }
        }
    }
    assert!(f.iter().all(|p| !p.contains(".tmp")), "no temporaries: {f:?}");
    usage_error(&["plot", s(&dir.path().join("nothing"))], &["no such directory"]);
}

#[test]
fn charts_by_round_number_show_the_rounds_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d");
    ok(&[
        "simulate",
        "--matches",
        "300",
        "--seed",
        "4",
        "--detail",
        "round",
        "--out",
        s(&data),
        "--quiet",
    ]);
    let svg_texts = |out: &std::path::Path, chart: &str| -> String {
        let svg = std::fs::read_to_string(out.join(format!("{chart}.svg"))).unwrap();
        svg.split("<text")
            .skip(1)
            .map(|t| t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()].trim().to_string())
            .collect::<Vec<_>>()
            .join("|")
    };
    // Without --rounds: rounds 1 to 30 at most, although these matches go further.
    let default = dir.path().join("default");
    ok(&["plot", s(&data), "--out", s(&default)]);
    for chart in ["closed_pits", "rounds_by_number"] {
        let texts = svg_texts(&default, chart);
        assert!(texts.contains("rounds 1 to 30"), "{chart}: {texts}");
    }
    let texts = svg_texts(&default, "rounds_by_number");
    assert!(texts.contains("won by the round") && texts.contains("first player"), "{texts}");
    // --rounds 2..6: those rounds, ticks within them.
    let some = dir.path().join("some");
    ok(&["plot", s(&data), "--out", s(&some), "--rounds", "2..6"]);
    let texts = svg_texts(&some, "closed_pits");
    assert!(texts.contains("rounds 2 to 6"), "{texts}");
    let ticks: Vec<u32> = texts.split('|').filter_map(|t| t.parse().ok()).collect();
    assert!(ticks.contains(&2) && ticks.contains(&6), "{ticks:?}");
    for bad in ["6..2", "0..5", "x", "1-30"] {
        usage_error(&["plot", s(&data), "--out", s(&some), "--rounds", bad], &["FIRST..LAST"]);
    }
}
