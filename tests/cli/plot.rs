use crate::common::*;

#[test]
fn plot_writes_png_and_svg_charts() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d");
    ok(&["simulate", "--matches", "200", "--seed", "3", "--detail", "round", "--out", s(&data), "--quiet"]);
    let charts = dir.path().join("charts");
    let listed = ok(&["plot", s(&data), "--out", s(&charts)]);
    let f = files(&charts);
    for chart in ["first_player_win_rate", "lap_length", "laps_per_move", "capture_sources", "rounds_per_match", "closed_pits"] {
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
