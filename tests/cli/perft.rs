use serde_json::Value;

use crate::common::*;

#[test]
fn perft_prints_the_golden_counts() {
    let data: Value =
        serde_json::from_str(&std::fs::read_to_string(golden("perft.json")).unwrap()).unwrap();
    for case in data["cases"].as_array().unwrap() {
        let mut args = vec!["perft".to_string(), "--depth".into(), "5".into(), "--json".into()];
        for (k, v) in case["rules"].as_object().unwrap() {
            args.push(format!("--rule={k}={}", v.as_str().map_or(v.to_string(), str::to_owned)));
        }
        let out = ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
        let got: Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(got["perft"].as_array().unwrap()[..], case["perft"].as_array().unwrap()[..5]);
    }
    let text = ok(&["perft", "--depth", "3"]);
    assert_eq!(text, "perft(1) = 7\nperft(2) = 34\nperft(3) = 133\n");
    usage_error(&["perft", "--depth", "0"], &["depth"]);
}

#[test]
fn the_data_docs_describe_every_table_and_column() {
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/data.md"),
    )
    .unwrap();
    let generated = ok(&["schema", "--markdown"]);
    assert!(
        docs.contains(&generated),
        "docs/data.md is out of date: paste `rajapasu schema --markdown` into it"
    );
    for t in rajapasu::sim::schema::ALL_TABLES {
        for c in t.columns {
            assert!(
                generated.contains(&format!("| `{}` |", c.name)) && generated.contains(c.meaning)
            );
        }
    }
}

/// The invariants listed in docs/data.md are those the readers check, in the same order: a
/// line `- `table.name`: rule` each, written once in the code (`rajapasu::io::rows::INVARIANTS`).
#[test]
fn the_data_docs_list_every_invariant_the_readers_check() {
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/data.md"),
    )
    .unwrap();
    let listed: Vec<&str> = docs
        .lines()
        .filter(|l| l.starts_with("- `") && l.split('`').nth(1).is_some_and(|n| n.contains('.')))
        .collect();
    let tables = rajapasu::sim::schema::ALL_TABLES;
    let mut code = Vec::new();
    for (table, list) in rajapasu::io::rows::INVARIANTS {
        assert!(
            tables.iter().any(|t| t.name == table),
            "invariants of {table}, not a table of the schema"
        );
        assert!(!list.is_empty());
    }
    for t in tables {
        code.extend(
            rajapasu::io::rows::invariants(t.name)
                .iter()
                .map(|inv| format!("- `{}.{}`: {}", t.name, inv.name, inv.rule)),
        );
    }
    assert_eq!(listed, code, "docs/data.md lists other invariants than the readers check: paste `rajapasu schema --markdown` into it");
}
