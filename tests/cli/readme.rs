//! The README's and the user guide's command lines work as written: every `rajapasu ...` line of
//! their `sh` code blocks is run in order, each document in a scratch directory of its own (with
//! the repository's `experiments/` and `scripts/`), except the few in SKIPPED, which take minutes
//! or need what another document made; every option of the guide's command table is one the
//! subcommand accepts, and every subcommand is in that table.

use std::path::Path;

use crate::cli::docs::{markdown_documents, read, repo};
use crate::common::*;

/// Lines not run, with why.
const SKIPPED: &[(&str, &str)] = &[
    ("rajapasu serve --open", "a server runs until stopped: tests/cli/serve.rs drives it"),
    ("rajapasu run experiments/quickstart.toml", "a million matches: about a minute on two cores"),
    ("rajapasu show data/quickstart/random --match 671280 --out match.html", "needs the quickstart's dataset (the line above)"),
    (
        "rajapasu simulate --matches 100 --south \"external:timeout=2.5,cmd=./my_player --level 3\" --north minimax:3 --out data/try2",
        "./my_player stands for the reader's own program",
    ),
    (
        "rajapasu show data/try --match 3 --out m.html --run-external 'python3 scripts/example_player.py'",
        "needs the dataset data/try that docs/external-players.md makes",
    ),
];

fn readme() -> String {
    read("README.md")
}

/// The command lines of the `sh` code blocks (continuations joined), `cargo run --release --`
/// written as `rajapasu`. A synopsis (a line with `[` or `...`, such as `--rule name=value ...`)
/// is not a command line.
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
        let command = command
            .split(" #")
            .next()
            .unwrap()
            .trim()
            .replace("cargo run --release -- ", "rajapasu ");
        if command.starts_with("rajapasu ") && !command.contains('[') && !command.contains("...") {
            out.push(command);
        }
    }
    out
}

/// The words of a command line as a shell splits them: blanks separate, single and double
/// quotes group (no escapes or expansions: the lines are plain).
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in command.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => out.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    assert!(quote.is_none(), "an unclosed quote: {command}");
    out.extend(word);
    out
}

#[test]
fn command_lines_split_as_a_shell_splits_them() {
    assert_eq!(
        words("rajapasu simulate --south \"external:python3 a.py\"  --out 'my dir'"),
        ["rajapasu", "simulate", "--south", "external:python3 a.py", "--out", "my dir"]
    );
}

/// Runs the command lines of one document in a scratch directory; returns how many ran.
fn run_command_lines(document: &str) -> usize {
    let commands = sh_commands(&read(document));
    let dir = tempfile::tempdir().unwrap();
    #[cfg(unix)]
    for shared in ["experiments", "scripts"] {
        std::os::unix::fs::symlink(repo().join(shared), dir.path().join(shared)).unwrap();
    }
    let mut ran = 0;
    for command in &commands {
        if SKIPPED.iter().any(|(skip, _)| command == skip) {
            continue;
        }
        let args = words(command);
        assert!(
            !args.iter().any(|w| w.contains(['|', '>', '<', '&', ';', '$'])),
            "{document}: plain command lines only: {command}"
        );
        let out = bin().args(&args[1..]).current_dir(dir.path()).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{document}: `{command}` fails: {err}");
        // A command prints its result, or writes the file or dataset its `--out` names.
        let written = args
            .iter()
            .position(|a| a == "--out")
            .is_some_and(|i| dir.path().join(&args[i + 1]).exists());
        assert!(
            !out.stdout.is_empty() || written,
            "{document}: `{command}` prints and writes nothing"
        );
        ran += 1;
    }
    ran
}

#[test]
fn every_readme_command_line_runs_as_written() {
    assert!(sh_commands(&readme()).len() >= 4, "the README shows its commands");
    assert!(run_command_lines("README.md") >= 3);
}

#[test]
fn every_command_line_of_the_guide_runs_as_written() {
    let documents = markdown_documents();
    assert!(documents.iter().any(|d| d == "docs/guide/commands.md"), "{documents:?}");
    let mut ran = 0;
    for document in documents.iter().filter(|d| d.as_str() != "README.md") {
        ran += run_command_lines(document);
    }
    assert!(ran >= 12, "{ran} command lines of the guide ran");
    let all: Vec<String> = documents.iter().flat_map(|d| sh_commands(&read(d))).collect();
    assert!(
        SKIPPED.iter().all(|(skip, _)| all.iter().any(|c| c == skip)),
        "every skipped line is still in a document"
    );
}

/// The guide's command table: the synopsis of each row (`rajapasu SUBCOMMAND ...`).
fn command_table() -> Vec<String> {
    let text = read("docs/guide/commands.md");
    text.lines()
        .filter(|l| l.starts_with("| `rajapasu "))
        .map(|l| l.split('`').nth(1).unwrap().to_string())
        .collect()
}

#[test]
fn every_option_of_the_guide_command_table_exists() {
    let rows = command_table();
    for synopsis in &rows {
        let subcommand = synopsis.split_whitespace().nth(1).unwrap();
        let help = ok(&[subcommand, "--help"]);
        for option in synopsis
            .split(|c: char| c.is_whitespace() || "[]|".contains(c))
            .filter(|w| w.starts_with("--"))
        {
            let option = option.split('=').next().unwrap();
            assert!(
                help.contains(&format!("{option} ")) || help.contains(&format!("{option}\n")),
                "`rajapasu {subcommand}` has no {option}"
            );
        }
    }
    assert!(rows.len() >= 9, "the command table lists the subcommands ({} rows)", rows.len());
}

#[test]
fn every_subcommand_is_in_the_guide_command_table() {
    let help = ok(&["--help"]);
    let listed = help
        .split("Commands:\n")
        .nth(1)
        .expect("a list of subcommands")
        .split("\n\n")
        .next()
        .unwrap();
    let subcommands: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|s| *s != "help")
        .collect();
    assert!(subcommands.len() >= 13, "{subcommands:?}");
    // Each says in a line what it does (its doc comment in src/cli/mod.rs).
    for line in listed.lines() {
        assert!(
            line.split_whitespace().count() >= 4,
            "`rajapasu --help` lists a subcommand without its description: {line:?}"
        );
    }
    let rows = command_table();
    for subcommand in subcommands {
        assert!(
            rows.iter().any(|r| r.split_whitespace().nth(1) == Some(subcommand)),
            "`rajapasu {subcommand}` is not in the command table of docs/guide/commands.md: add its row (docs/architecture.md, \"Add a subcommand\")"
        );
    }
}

#[test]
fn the_citation_file_and_the_readme_say_how_to_cite() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cff = std::fs::read_to_string(root.join("CITATION.cff")).expect("a CITATION.cff");
    let field = |name: &str| {
        cff.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}: ")))
            .map(|v| v.trim_matches('"').to_string())
    };
    assert_eq!(field("cff-version").as_deref(), Some("1.2.0"));
    assert_eq!(
        field("version").as_deref(),
        Some(env!("CARGO_PKG_VERSION")),
        "CITATION.cff gives the crate's version"
    );
    assert!(
        field("title").is_some_and(|t| t.starts_with("rajapasu"))
            && cff.contains("authors:")
            && field("message").is_some()
    );
    let text = readme();
    let citing = text
        .split("\n## Citing\n")
        .nth(1)
        .expect("a Citing section")
        .split("\n## ")
        .next()
        .unwrap();
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
    let block = text
        .split("```sh\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .find(|b| b.contains("\nrajapasu "))
        .unwrap();
    assert_eq!(block.lines().next(), Some("cargo install --locked --path ."), "{block}");
}

#[test]
fn the_readme_is_a_front_page_with_the_test_command_ci_runs() {
    let text = readme();
    let lines = text.lines().count();
    assert!(
        lines <= 250,
        "the README has {lines} lines: move the details into the guide (docs/guide/)"
    );
    let sections: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("## ")).collect();
    for needed in [
        "The main job",
        "The tests",
        "Does the first player have an advantage?",
        "Loading the data",
        "Citing",
        "Documentation",
    ] {
        assert!(sections.contains(&needed), "the README has a section `{needed}`: {sections:?}");
    }
    // The test command it gives is the one CI runs.
    let tests = text.split("\n## The tests\n").nth(1).unwrap();
    let command = tests.split("```sh\n").nth(1).unwrap().lines().next().unwrap();
    assert_eq!(command, "cargo test --release");
    let ci = read(".ci/run");
    assert!(ci.lines().any(|l| l == command), ".ci/run runs `{command}`");
    // The answer's chart is the quickstart's first-player chart.
    assert!(text.contains("](data/quickstart/charts/first_player_win_rate.png)"));
}
