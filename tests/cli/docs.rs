//! The documents keep up with the code: every rule the code and the documents cite is specified
//! in docs/rules.md (and no file the repository lacks is cited), every rule switch of the engine
//! and every metric is specified, docs/rules.md's golden figures are the golden files' own, and
//! every relative link and anchor of the README and the guide resolves, every page in the book.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rajapasu::analysis::metrics::{declared_metrics, EXACT};
use rajapasu::engine::{Ruleset, SWITCHES};

use crate::common::ok;

pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn read(relative: &str) -> String {
    std::fs::read_to_string(repo().join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// Extensions of the files people and code read as text: sources, documents, scripts, configs.
const TEXT: &[&str] = &[
    "rs", "md", "py", "pyi", "toml", "sh", "ipynb", "js", "css", "html", "txt", "cff", "yml",
    "yaml",
];

/// The repository's code and documents, relative paths with their text. Not scanned: build
/// output (`target`, the book's `book/`), hidden directories but `.ci`, and `data/` (samples the
/// commands write: they change only when they are regenerated).
pub fn code_and_docs() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                let skipped = name == "target"
                    || name == "node_modules"
                    || (name.starts_with('.') && name != ".ci");
                if !skipped && !(dir == repo() && (name == "data" || name == "book")) {
                    walk(&path, out);
                }
            } else if TEXT.iter().any(|ext| name.ends_with(&format!(".{ext}")))
                || (dir == repo().join(".ci") && name == "run")
            {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    walk(repo(), &mut paths);
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            Some((p.strip_prefix(repo()).unwrap().to_string_lossy().into_owned(), text))
        })
        .collect()
}

/// The rule numbers cited in `text` (`R5`, `R1-R14`: each `R` followed by digits as a word),
/// with their line numbers.
fn rule_citations(text: &str) -> Vec<(usize, u32)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let bytes = line.as_bytes();
        for (at, _) in line.match_indices('R') {
            let word_start =
                at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
            let digits = bytes[at + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
            let end = at + 1 + digits;
            let word_end =
                end == bytes.len() || !(bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_');
            if word_start && digits > 0 && word_end {
                out.push((i + 1, line[at + 1..end].parse().unwrap()));
            }
        }
    }
    out
}

/// The rules docs/rules.md specifies: its `### R<n>. Title` headings, in order.
fn specified_rules() -> Vec<u32> {
    read("docs/rules.md")
        .lines()
        .filter_map(|l| l.strip_prefix("### R")?.split_once(". ")?.0.parse().ok())
        .collect()
}

#[test]
fn docs_rules_md_specifies_r1_to_r17_in_order() {
    assert_eq!(specified_rules(), (1..=17).collect::<Vec<_>>());
}

#[test]
fn no_file_cites_a_rules_file_the_repository_lacks() {
    let missing = concat!("RULES", ".md");
    assert!(!repo().join(missing).exists(), "the project's rules are docs/rules.md");
    let citing: Vec<String> = code_and_docs()
        .iter()
        .flat_map(|(path, text)| {
            text.lines()
                .enumerate()
                .filter(|(_, l)| l.contains(missing))
                .map(move |(i, _)| format!("{path}:{}", i + 1))
        })
        .collect();
    assert!(
        citing.is_empty(),
        "{missing} does not exist: cite `docs/rules.md R<n>` or `R<n>` instead, at {citing:?}"
    );
}

#[test]
fn every_rule_citation_resolves_to_a_rule_of_docs_rules_md() {
    let specified: BTreeSet<u32> = specified_rules().into_iter().collect();
    let files = code_and_docs();
    assert!(
        files.iter().any(|(p, _)| p == "crates/rajapasu-core/src/engine/position.rs"),
        "the scan reaches the core crate"
    );
    let mut cited = BTreeSet::new();
    let mut unresolved = Vec::new();
    for (path, text) in &files {
        for (line, rule) in rule_citations(text) {
            cited.insert(rule);
            if !specified.contains(&rule) {
                unresolved.push(format!("{path}:{line}: R{rule}"));
            }
        }
    }
    assert!(unresolved.is_empty(), "rules docs/rules.md does not specify: {unresolved:?}");
    assert!(cited.len() >= 17, "every rule is cited somewhere: {cited:?}");
}

#[test]
fn the_citation_scan_reads_rule_numbers_as_words() {
    let found: Vec<u32> = rule_citations("R5, R1-R14 (R17); not R2D2, PR12, R_1 or RR3")
        .into_iter()
        .map(|c| c.1)
        .collect();
    assert_eq!(found, [5, 1, 14, 17]);
}

/// The rows of docs/rules.md's switch table: name, values, default.
fn switch_table() -> Vec<(String, String, String)> {
    let text = read("docs/rules.md");
    let section = text
        .split("\n## Variant switches\n")
        .nth(1)
        .expect("a Variant switches section")
        .split("\n## ")
        .next()
        .unwrap();
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (
                cells[1].trim_matches('`').to_string(),
                cells[2].to_string(),
                cells[3].trim_matches('`').to_string(),
            )
        })
        .collect()
}

#[test]
fn every_rule_switch_of_the_engine_is_specified_in_docs_rules_md() {
    let table = switch_table();
    let defaults = serde_json::to_value(Ruleset::default()).unwrap();
    let fields: BTreeSet<&String> = defaults.as_object().unwrap().keys().collect();
    let parsed: Vec<&str> = SWITCHES.iter().map(|s| s.0).collect();
    let documented: Vec<&str> = table.iter().map(|row| row.0.as_str()).collect();
    assert_eq!(documented, parsed, "docs/rules.md lists the switches in their canonical order");
    assert_eq!(
        fields,
        table.iter().map(|row| &row.0).collect(),
        "every field of Ruleset is a documented switch"
    );
    for (name, values, default) in &table {
        let value = &defaults[name.as_str()];
        let default_text = value.as_str().map(str::to_string).unwrap_or_else(|| value.to_string());
        assert_eq!(default, &default_text, "the default of {name}");
        let allowed = SWITCHES.iter().find(|s| s.0 == name).expect("a switch the engine parses").1;
        for word in allowed
            .split([',', ' '])
            .filter(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '_') && !w.is_empty())
        {
            if !["an", "integer", "in"].contains(&word) {
                assert!(
                    values.contains(&format!("`{word}`")),
                    "docs/rules.md gives {name} the value {word}: {values}"
                );
            }
        }
    }
}

#[test]
fn the_golden_figures_of_docs_rules_md_are_the_golden_files() {
    let text = read("docs/rules.md");
    let golden = |name: &str| -> serde_json::Value {
        serde_json::from_str(&read(&format!("crates/rajapasu-core/tests/data/golden/{name}")))
            .unwrap()
    };
    let list = |v: &serde_json::Value| {
        v.as_array().unwrap().iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
    };
    for case in golden("perft.json")["cases"].as_array().unwrap() {
        let row = format!(" | {} |", list(&case["perft"]));
        assert!(text.lines().any(|l| l.ends_with(&row)), "docs/rules.md lacks the perft row{row}");
    }
    for case in golden("solve.json").as_array().unwrap() {
        let board = format!("| {}x{} |", case["pits_per_row"], case["seeds_per_pit"]);
        let starter = if case["starter"] == "south" { "South" } else { "North" };
        let row = format!(
            " | {starter} | {} | {} | {} |",
            case["value"],
            list(&case["best_moves"]),
            case["positions"]
        );
        assert!(
            text.lines().any(|l| l.starts_with(&board) && l.ends_with(&row)),
            "docs/rules.md lacks the solved round {board}{row}"
        );
    }
    for case in golden("solve_match.json").as_array().unwrap() {
        let board = format!("| {}x{} |", case["pits_per_row"], case["seeds_per_pit"]);
        let starter = if case["starter"] == "south" { "South" } else { "North" };
        let rounds =
            if case["rounds"].is_null() { "-".to_string() } else { case["rounds"].to_string() };
        let row = format!(
            " | {} | {starter} | {} | {rounds} | {} |",
            list(&case["holdings"]),
            case["value"].as_str().unwrap(),
            list(&case["best_moves"])
        );
        assert!(
            text.lines().any(|l| l.starts_with(&board) && l.ends_with(&row)),
            "docs/rules.md lacks the solved match state {board}{row}"
        );
    }
}

/// The README and every page under docs/, relative paths, sorted.
pub fn markdown_documents() -> Vec<String> {
    let mut out = vec!["README.md".to_string()];
    out.extend(
        code_and_docs()
            .into_iter()
            .map(|(path, _)| path)
            .filter(|p| p.starts_with("docs/") && p.ends_with(".md")),
    );
    out.sort();
    out
}

/// The lines of `text` outside its fenced code blocks, with their numbers.
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// A heading's anchor as GitHub and mdBook make it: lower case, blanks to `-`, punctuation but
/// `-` and `_` dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a document's headings (a repeated heading gets `-1`, `-2`, ... as on GitHub).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (_, line) in prose(text) {
        let Some(heading) = line
            .strip_prefix('#')
            .map(|h| h.trim_start_matches('#'))
            .filter(|h| h.starts_with(' '))
        else {
            continue;
        };
        let base = slug(heading);
        let mut anchor = base.clone();
        let mut n = 0;
        while !out.insert(anchor.clone()) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
    }
    out
}

/// The targets of a document's Markdown links and images, `[text](target)`, outside code.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (number, line) in prose(text) {
        // Code spans hold examples, not links: drop them (the text of `[`x`](y)` stays a link).
        let plain: String = line
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
            .join("");
        for (at, _) in plain.match_indices("](") {
            let rest = &plain[at + 2..];
            let target = rest.split([')', ' ']).next().unwrap();
            out.push((number, target.to_string()));
        }
    }
    out
}

#[test]
fn the_link_check_reads_links_and_anchors() {
    let text = "# A `b` (c), d_e\n## Twice\n## Twice\n[x](y.md#z) ![i](p.png) `[no](code)` [`k`](m/)\n```\n[no](fenced)\n```";
    assert_eq!(anchors(text), ["a-b-c-d_e", "twice", "twice-1"].map(String::from).into());
    assert_eq!(links(text).into_iter().map(|l| l.1).collect::<Vec<_>>(), ["y.md#z", "p.png", "m/"]);
}

#[test]
fn every_relative_link_and_anchor_of_the_readme_and_the_guide_resolves() {
    // The guide, and the READMEs of the samples and of the Python package beside it.
    let mut documents = markdown_documents();
    assert!(documents.len() >= 15, "{documents:?}");
    documents.extend(["data/README.md", "python/README.md"].map(String::from));
    let mut broken = Vec::new();
    let mut checked = 0;
    for document in &documents {
        let text = read(document);
        let dir = Path::new(document).parent().unwrap();
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let file =
                if path.is_empty() { PathBuf::from(document) } else { normalize(&dir.join(path)) };
            let full = repo().join(&file);
            if file.starts_with("..") || !full.exists() {
                broken.push(format!("{document}:{line}: {target} (no {})", file.display()));
            } else if !anchor.is_empty()
                && file.extension().is_some_and(|e| e == "md")
                && !anchors(&read(file.to_str().unwrap())).contains(anchor)
            {
                broken.push(format!(
                    "{document}:{line}: {target} (no heading #{anchor} in {})",
                    file.display()
                ));
            }
            checked += 1;
        }
    }
    assert!(broken.is_empty(), "broken links: {broken:#?}");
    assert!(checked >= 100, "{checked} links checked");
}

/// `a/b/../c` as `a/c`: the path a link names, relative to the repository.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir
                if out
                    .components()
                    .next_back()
                    .is_some_and(|c| c != std::path::Component::ParentDir) =>
            {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn every_page_of_the_guide_is_in_the_book() {
    let summary = read("docs/SUMMARY.md");
    let listed: BTreeSet<String> =
        links(&summary).into_iter().map(|(_, target)| format!("docs/{target}")).collect();
    let pages: BTreeSet<String> = markdown_documents()
        .into_iter()
        .filter(|d| d.starts_with("docs/") && d != "docs/SUMMARY.md")
        .collect();
    let unlisted: Vec<&String> = pages.difference(&listed).collect();
    let missing: Vec<&String> = listed.difference(&pages).collect();
    assert!(
        unlisted.is_empty(),
        "pages the book does not list: add them to docs/SUMMARY.md: {unlisted:?}"
    );
    assert!(missing.is_empty(), "docs/SUMMARY.md lists pages that do not exist: {missing:?}");
    let book = read("book.toml");
    assert!(book.contains("src = \"docs\"") && book.contains("create-missing = false"), "{book}");
}

#[test]
fn every_metric_is_defined_in_docs_metrics_md() {
    let declared: Vec<(&str, Option<&str>)> = declared_metrics().collect();
    assert!(declared.len() >= 40, "{declared:?}");
    let doc = read("docs/metrics.md");
    // A row defines the metrics its first cell names (a family may share a row).
    let defined: BTreeSet<&str> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("| ")?.split(" |").next())
        .flat_map(|cell| cell.split(", "))
        .collect();
    for (name, _) in &declared {
        assert!(
            defined.contains(name),
            "metric {name} has no row in docs/metrics.md: add its definition there (docs/architecture.md, \"Add a metric\")"
        );
    }
    // What `metrics` reports is the table's metrics in the table's order, those of the exact
    // evaluation only when asked for.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d");
    ok(&["simulate", "--matches", "20", "--seed", "3", "--out", out.to_str().unwrap(), "--quiet"]);
    let report: serde_json::Value = serde_json::from_str(&ok(&[
        "metrics",
        out.to_str().unwrap(),
        "--json",
        "--resamples",
        "10",
    ]))
    .unwrap();
    let reported: Vec<(&str, Option<&str>)> = report["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["name"].as_str().unwrap(), m["evaluation"].as_str()))
        .collect();
    let expected: Vec<(&str, Option<&str>)> =
        declared.iter().copied().filter(|m| m.1 != Some(EXACT)).collect();
    assert_eq!(reported, expected);
}

/// The kinds of player the specification grammar accepts (`random`, `minimax`, `perfect:match`,
/// ...), from the list every bad specification's error gives.
fn player_kinds() -> Vec<String> {
    let mut items = Vec::new();
    let (mut depth, mut item) = (0, String::new());
    for c in rajapasu::agents::ALLOWED.chars() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut item));
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    items.push(item);
    items
        .iter()
        .map(|item| {
            let item = item.trim();
            let end = if item.starts_with("perfect:") {
                item.len()
            } else {
                item.find(['[', ' ', ':']).unwrap_or(item.len())
            };
            item[..end].to_string()
        })
        .collect()
}

#[test]
fn every_player_is_in_the_guide() {
    let kinds = player_kinds();
    for known in ["random", "minimax", "external", "perfect:match"] {
        assert!(
            kinds.iter().any(|k| k == known),
            "{known} read from the grammar's list: {kinds:?}"
        );
    }
    let players = read("docs/players.md");
    let commands = read("docs/guide/commands.md");
    let table: Vec<&str> = commands
        .lines()
        .filter(|l| l.starts_with("| `") && !l.starts_with("| `rajapasu"))
        .collect();
    for kind in kinds {
        assert!(
            players.contains(&format!("`{kind}")),
            "docs/players.md does not describe `{kind}` (docs/architecture.md, \"Add a player\")"
        );
        assert!(
            table.iter().any(|row| row.contains(&format!("`{kind}"))),
            "the players table of docs/guide/commands.md has no row for `{kind}` (docs/architecture.md, \"Add a player\")"
        );
    }
}
