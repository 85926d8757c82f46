//! The README's command lines work as written: every `rajapasu ...` line of its `sh` code blocks
//! is run in order (in a scratch directory with the repository's `experiments/`), except the
//! few in SKIPPED, which take minutes; every option of its command table is one the subcommand
//! accepts.

use std::path::Path;

use crate::common::*;

/// Lines not run, with why.
const SKIPPED: &[(&str, &str)] = &[
    ("rajapasu run experiments/quickstart.toml", "a million matches: about a minute on two cores"),
    ("rajapasu show data/quickstart/random --match 671280 --out match.html", "needs the quickstart's dataset (the line above)"),
];

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap()
}

/// The command lines of the `sh` code blocks (continuations joined), `cargo run --release --`
/// written as `rajapasu`.
fn sh_commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("```") {
            in_sh = t == "```sh" || t == "```bash" || t == "```shell";
            continue;
        }
        if !in_sh {
            continue;
        }
        pending.push_str(t.trim_end_matches('\\'));
        pending.push(' ');
        if t.ends_with('\\') {
            continue;
        }
        let command = std::mem::take(&mut pending);
        let command = command.split('#').next().unwrap().trim().replace("cargo run --release -- ", "rajapasu ");
        if command.starts_with("rajapasu ") {
            out.push(command);
        }
    }
    out
}

#[test]
fn every_readme_command_line_runs_as_written() {
    let commands = sh_commands(&readme());
    assert!(commands.len() >= 8, "the README shows its commands: {commands:?}");
    let dir = tempfile::tempdir().unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments"), dir.path().join("experiments")).unwrap();
    let mut ran = 0;
    for command in &commands {
        if SKIPPED.iter().any(|(skip, _)| command == skip) {
            continue;
        }
        assert!(!command.contains(['|', '>', '<', '&', ';', '$', '"', '\'']), "plain command lines only: {command}");
        let args: Vec<&str> = command.split_whitespace().skip(1).collect();
        let out = bin().args(&args).current_dir(dir.path()).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "README: `{command}` fails: {err}");
        assert!(!out.stdout.is_empty() || args[0] == "simulate", "README: `{command}` prints nothing");
        ran += 1;
    }
    assert!(ran >= 8, "{ran} README commands ran");
    assert!(SKIPPED.iter().all(|(skip, _)| commands.iter().any(|c| c == skip)), "every skipped line is still in the README");
}

#[test]
fn every_option_of_the_readme_command_table_exists() {
    let text = readme();
    let mut rows = 0;
    for line in text.lines().filter(|l| l.starts_with("| `rajapasu ")) {
        let synopsis = line.split('`').nth(1).unwrap();
        let subcommand = synopsis.split_whitespace().nth(1).unwrap();
        let help = ok(&[subcommand, "--help"]);
        for option in synopsis.split(|c: char| c.is_whitespace() || "[]|".contains(c)).filter(|w| w.starts_with("--")) {
            let option = option.split('=').next().unwrap();
            assert!(
                help.contains(&format!("{option} ")) || help.contains(&format!("{option}\n")),
                "`rajapasu {subcommand}` has no {option}"
            );
        }
        rows += 1;
    }
    assert!(rows >= 9, "the command table lists the subcommands ({rows} rows)");
}

#[test]
fn the_citation_file_and_the_readme_say_how_to_cite() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cff = std::fs::read_to_string(root.join("CITATION.cff")).expect("a CITATION.cff");
    let field = |name: &str| cff.lines().find_map(|l| l.strip_prefix(&format!("{name}: "))).map(|v| v.trim_matches('"').to_string());
    assert_eq!(field("cff-version").as_deref(), Some("1.2.0"));
    assert_eq!(field("version").as_deref(), Some(env!("CARGO_PKG_VERSION")), "CITATION.cff gives the crate's version");
    assert!(field("title").is_some_and(|t| t.starts_with("rajapasu")) && cff.contains("authors:") && field("message").is_some());
    let text = readme();
    let citing = text.split("\n## Citing\n").nth(1).expect("a Citing section").split("\n## ").next().unwrap();
    for needed in ["CITATION.cff", "rules_hash", "seed", "version", "command"] {
        assert!(citing.contains(needed), "the Citing section names {needed}");
    }
    // Its example is the quickstart's: rules hash and seed as the experiment file gives them.
    let quickstart = std::fs::read_to_string(root.join("experiments/quickstart.toml")).unwrap();
    let seed = quickstart.lines().find_map(|l| l.strip_prefix("seed = ")).unwrap().trim();
    assert!(citing.contains(&format!("seed {seed}")), "{citing}");
    assert!(citing.contains(&rajapasu::engine::Ruleset::default().hash()), "{citing}");
}

#[test]
fn the_readme_says_how_to_get_rajapasu_on_the_path() {
    let text = readme();
    // The first sh block that calls `rajapasu` by name starts by installing it.
    let block = text.split("```sh\n").skip(1).map(|b| b.split("```").next().unwrap()).find(|b| b.contains("\nrajapasu ")).unwrap();
    assert_eq!(block.lines().next(), Some("cargo install --locked --path ."), "{block}");
}
