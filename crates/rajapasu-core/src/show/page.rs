//! The self-contained replay page: the HTML, CSS and JavaScript of `assets/show/` (included at
//! build time), the board drawing of [`super::svg`] and the match as compact data.
//!
//! The data carries, per move, its laps (start pit, counters sown) and its captures (lap,
//! source, pit, counters), not the states: the page sows counter by counter itself. A
//! 7,000-move match is about half a megabyte.

use serde_json::{json, Value};

use super::film::{BoardState, Film, Source};
use super::svg::{board_svg, escape, MAX_DOTS};
use crate::engine::Side;

const TEMPLATE: &str = include_str!("../../assets/show/page.html");
const PAGE_CSS: &str = include_str!("../../assets/show/page.css");
pub const BOARD_CSS: &str = include_str!("../../assets/show/board.css");
const SCRIPT: &str = include_str!("../../assets/show/show.js");
/// The board of a match as a script of its own (`rajapasuBoard(svg, data)`): the replay page's
/// drawing and animation, which the explorer of `serve` uses too.
pub const BOARD_SCRIPT: &str = include_str!("../../assets/show/board.js");

/// Version of the page's data layout (`v` in the data).
pub const DATA_VERSION: u32 = 2;

/// What the page says about the match besides the moves.
#[derive(Clone, Debug, Default)]
pub struct PageInfo {
    /// The page's title.
    pub title: String,
    /// Lines describing where the match comes from (players, seed, rules).
    pub about: Vec<String>,
    /// The ply the page opens at when its address names no state.
    pub initial_ply: u32,
}

/// The CSS custom properties of the capture sources' colours (the charts' palette).
pub fn palette_css() -> String {
    let mut css = String::from(":root{");
    for source in Source::ALL {
        let [r, g, b] = source.colour();
        css.push_str(&format!("--src-{}:#{r:02x}{g:02x}{b:02x};", source.key()));
    }
    css.push('}');
    css
}

/// The stylesheet of a standalone board SVG: the palette and the board's rules of the page.
pub fn board_style() -> String {
    format!("{}\n{BOARD_CSS}", palette_css())
}

/// The match as the page's data (see `assets/show/show.js`, which reads it).
pub fn page_data(film: &Film, info: &PageInfo) -> Value {
    let side = |s: Side| s.index() as i64;
    let rounds: Vec<Value> = film
        .rounds
        .iter()
        .map(|r| {
            let (collector, remainder, captured, holdings) = match r.over {
                Some(o) => (side(o.collector), o.remainder, o.captured.0, o.holdings.0),
                None => (-1, 0, [0, 0], [0, 0]),
            };
            json!([
                side(r.starter),
                r.open[Side::South],
                r.open[Side::North],
                r.kept[Side::South],
                r.kept[Side::North],
                r.plies_before,
                r.moves,
                collector,
                remainder,
                captured[0],
                captured[1],
                holdings[0],
                holdings[1],
                r.board
            ])
        })
        .collect();
    // Per move: flags (1: North moved, 2: endless), local pit, laps, (start, sown) per lap,
    // captures, (lap, source, pit, counters) per capture.
    let mut moves: Vec<u32> = Vec::with_capacity(film.moves.len() * 16);
    for m in &film.moves {
        moves.push(m.mover.index() as u32 | (m.endless as u32) << 1);
        moves.push(m.pit as u32);
        moves.push(m.laps.len() as u32);
        for lap in &m.laps {
            moves.extend([lap.start as u32, lap.sown as u32]);
        }
        moves.push(m.captures.len() as u32);
        for c in &m.captures {
            let source = Source::ALL.iter().position(|s| *s == c.source).expect("a source") as u32;
            moves.extend([c.lap, source, c.pit as u32, c.n as u32]);
        }
    }
    let sources: Vec<Value> = Source::ALL
        .iter()
        .map(|s| {
            let [r, g, b] = s.colour();
            json!({"key": s.key(), "name": s.name(), "colour": format!("#{r:02x}{g:02x}{b:02x}")})
        })
        .collect();
    json!({
        "v": DATA_VERSION,
        "title": info.title,
        "pits_per_row": film.rules.pits_per_row,
        "seeds_per_pit": film.rules.seeds_per_pit,
        "skip_origin": film.rules.skip_origin,
        "rules": film.rules,
        "rules_hash": film.rules.hash(),
        "first": film.first.name(),
        "plies": film.plies(),
        "initial_ply": info.initial_ply,
        "max_dots": MAX_DOTS,
        "sources": sources,
        "rounds": rounds,
        "moves": moves,
        "over": film.over.map(|o| json!({"winner": o.winner.map(Side::name), "rounds": o.rounds, "holdings": o.holdings})),
    })
}

/// The page: one HTML file with everything inline. The board is drawn in the state after
/// `info.initial_ply`, so that it shows something before the script runs.
pub fn page_html(film: &Film, info: &PageInfo) -> String {
    let state: BoardState =
        film.state_after(info.initial_ply.min(film.plies())).expect("ply within the match");
    // `<` escaped: the data cannot close its script element.
    let data = page_data(film, info).to_string().replace('<', "\\u003c");
    let about: String = info.about.iter().map(|line| format!("<p>{}</p>", escape(line))).collect();
    let style = format!("{}\n{BOARD_CSS}\n{PAGE_CSS}", palette_css());
    fill(
        TEMPLATE,
        &[
            ("{{TITLE}}", &escape(&info.title)),
            ("{{STYLE}}", &style),
            ("{{ABOUT}}", &about),
            ("{{BOARD}}", &board_svg(&state, None)),
            ("{{DATA}}", &data),
            ("{{SCRIPT}}", &format!("{BOARD_SCRIPT}\n{SCRIPT}")),
        ],
    )
}

/// A standalone SVG of the state after `ply`, in the page's drawing.
pub fn state_svg(film: &Film, ply: u32) -> Option<String> {
    let state = film.state_after(ply)?;
    Some(format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}\n",
        board_svg(&state, Some(&board_style()))
    ))
}

/// Replaces each placeholder, which must occur exactly once, in one pass (a value is never
/// searched for placeholders).
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|v| v.1.len()).sum::<usize>());
    let mut rest = template;
    loop {
        let next = values
            .iter()
            .filter_map(|(key, value)| rest.find(key).map(|at| (at, *key, *value)))
            .min_by_key(|x| x.0);
        let Some((at, key, value)) = next else { break };
        out.push_str(&rest[..at]);
        out.push_str(value);
        rest = &rest[at + key.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::show::SOURCE_COLOURS;

    #[test]
    fn every_placeholder_is_in_the_template() {
        for key in ["{{STYLE}}", "{{ABOUT}}", "{{BOARD}}", "{{DATA}}", "{{SCRIPT}}"] {
            assert_eq!(TEMPLATE.matches(key).count(), 1, "{key}");
        }
        // In the head's title and the heading.
        assert_eq!(TEMPLATE.matches("{{TITLE}}").count(), 2);
    }

    #[test]
    fn fill_does_not_search_values_for_placeholders() {
        assert_eq!(fill("a{{X}}b{{Y}}c", &[("{{X}}", "{{Y}}"), ("{{Y}}", "2")]), "a{{Y}}b2c");
    }

    #[test]
    fn the_page_has_no_external_reference() {
        let film = Film::replay(Default::default(), Side::South, &[0, 3]).unwrap();
        let html = page_html(
            &film,
            &PageInfo {
                title: "t </script> & <b>".into(),
                about: vec!["x < y".into()],
                initial_ply: 1,
            },
        );
        for needle in ["http://", "https://", " src=", "<link", "@import", "url(http"] {
            let allowed = needle == "http://"
                && html.matches(needle).count()
                    == html.matches("http://www.w3.org/2000/svg").count();
            assert!(!html.contains(needle) || allowed, "{needle}");
        }
        assert_eq!(
            html.matches("</script>").count(),
            2,
            "the data must not close its script element"
        );
        assert!(html.contains("t &lt;/script&gt; &amp; &lt;b&gt;"));
    }

    #[test]
    fn palette_is_the_charts_palette_as_css() {
        let css = palette_css();
        assert!(css.contains("--src-pussa:#0072b2;"), "{css}");
        assert!(css.contains("--src-remainder:#bebebe;"), "{css}");
        assert_eq!(SOURCE_COLOURS.len(), Source::ALL.len());
    }
}
