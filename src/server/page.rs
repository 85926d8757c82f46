//! The explorer page, put together once from `assets/serve/` (its HTML, its stylesheet and its
//! script in sections by job) and the replay page's board (`board.js`, `board.css`), and what it
//! reads of the engine's own declarations: the switches, their values and explanations, the
//! players and the named readings (`/api/rules`), so that a new switch needs no edit of the page.

use std::sync::OnceLock;

use serde_json::{json, Value};

use super::players::OFFERED;
use super::readings::{FINDINGS_PATH, READINGS};
use crate::engine::{Ruleset, SwitchPart, SwitchValues, SWITCH_DOCS};
use crate::show::{board_svg, page_data, palette_css, PageInfo, BOARD_CSS, BOARD_SCRIPT};

const TEMPLATE: &str = include_str!("../../assets/serve/index.html");
const STYLE: &str = include_str!("../../assets/serve/explorer.css");
/// The page's script in sections by job, run in this order inside one function (they share its
/// state): the state and its address, the API, the board, the analysis, the set-up, the
/// statistics and the record, then the start.
const SECTIONS: [&str; 8] = [
    include_str!("../../assets/serve/js/state.js"),
    include_str!("../../assets/serve/js/api.js"),
    include_str!("../../assets/serve/js/board.js"),
    include_str!("../../assets/serve/js/analysis.js"),
    include_str!("../../assets/serve/js/setup.js"),
    include_str!("../../assets/serve/js/stats.js"),
    include_str!("../../assets/serve/js/record.js"),
    include_str!("../../assets/serve/js/main.js"),
];

/// The page, built on first use.
pub fn page() -> &'static str {
    static PAGE: OnceLock<String> = OnceLock::new();
    PAGE.get_or_init(|| {
        let style = format!("{}\n{BOARD_CSS}\n{STYLE}", palette_css());
        let script = format!(
            "{BOARD_SCRIPT}\n(function () {{\n\"use strict\";\n{}}})();\n",
            SECTIONS.concat()
        );
        assert_eq!(
            TEMPLATE.matches("{{STYLE}}").count() + TEMPLATE.matches("{{SCRIPT}}").count(),
            2
        );
        TEMPLATE.replace("{{STYLE}}", &style).replace("{{SCRIPT}}", &script)
    })
}

/// The switches with their names, values, defaults and explanations; the players; the readings.
pub fn rules_answer() -> Value {
    let defaults = Ruleset::default().as_pairs();
    let switches: Vec<Value> = SWITCH_DOCS
        .iter()
        .zip(defaults)
        .map(|(doc, (_, default))| {
            let values = match doc.values {
                SwitchValues::Choice(values) => json!({ "choice": values }),
                SwitchValues::Range(lo, hi) => json!({ "range": [lo, hi] }),
            };
            json!({
                "name": doc.name,
                "title": doc.title,
                "rules": doc.rules,
                "explains": doc.explains,
                "default": default,
                "part": match doc.part {
                    SwitchPart::Reading => "reading",
                    SwitchPart::Board => "board",
                    SwitchPart::Limit => "limit",
                },
                "values": values,
            })
        })
        .collect();
    let readings: Vec<Value> = READINGS
        .iter()
        .map(|r| {
            let rules: serde_json::Map<String, Value> =
                r.rules.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
            json!({ "name": r.name, "rules": rules })
        })
        .collect();
    json!({
        "switches": switches,
        "players": OFFERED,
        "readings": readings,
        "findings": FINDINGS_PATH,
    })
}

/// The board of a game for the page's board component: the match as the replay page's data
/// (every move's laps and captures), and the board drawn at the game's start.
pub fn board_answer(
    spec: &crate::app::explore::game::GameSpec,
) -> Result<Value, crate::app::FieldError> {
    let film = spec.film()?;
    let info = PageInfo { title: String::new(), about: Vec::new(), initial_ply: film.plies() };
    let start = film.state_after(0).expect("a film has its start");
    Ok(json!({ "data": page_data(&film, &info), "svg": board_svg(&start, None) }))
}
