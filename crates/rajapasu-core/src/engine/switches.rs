//! What each rule switch means to a reader: a human name, the rule it changes, the values it
//! takes and one line in the words of docs/rules.md's table of variant switches (a test holds
//! the two together), for pages that offer the switches without naming them by hand.

/// The values a switch takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwitchValues {
    /// One of these names, the default first.
    Choice(&'static [&'static str]),
    /// An integer in `lo..=hi`.
    Range(u32, u32),
}

/// What a switch is part of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwitchPart {
    /// A reading of the rules: an open point that records and studies compare.
    Reading,
    /// The board's size (R1), chosen for the analysis it allows.
    Board,
    /// A bound of the match (R14), not a reading.
    Limit,
}

/// A switch as a reader meets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwitchDoc {
    /// The switch's name in `--rule name=value`.
    pub name: &'static str,
    /// Its name in words.
    pub title: &'static str,
    /// The rules of docs/rules.md it changes.
    pub rules: &'static str,
    pub values: SwitchValues,
    pub part: SwitchPart,
    /// One line: what it changes (docs/rules.md's table says it in these words).
    pub explains: &'static str,
}

/// Every switch of [`SWITCHES`](super::SWITCHES), in its order.
pub const SWITCH_DOCS: [SwitchDoc; 8] = [
    SwitchDoc {
        name: "final_four",
        title: "Four made by a lap's last counter",
        rules: "R6",
        values: SwitchValues::Choice(&["owner", "stays", "sower"]),
        part: SwitchPart::Reading,
        explains: "Who takes a four made by a lap's last counter: the row's owner, like any other four (owner), nobody (stays) or the mover (sower).",
    },
    SwitchDoc {
        name: "skip_origin",
        title: "Skip the pit a lap was lifted from",
        rules: "R5",
        values: SwitchValues::Choice(&["false", "true"]),
        part: SwitchPart::Reading,
        explains: "A lap that comes back round skips the pit it was lifted from.",
    },
    SwitchDoc {
        name: "pussa_chain",
        title: "Chained pussa captures",
        rules: "R8",
        values: SwitchValues::Choice(&["false", "true"]),
        part: SwitchPart::Reading,
        explains: "After a pussa capture, if the open pit after the captured one is empty and the next open pit holds counters, those are captured too, and so on.",
    },
    SwitchDoc {
        name: "endless",
        title: "Endless moves",
        rules: "R9",
        values: SwitchValues::Choice(&["forbid", "stop"]),
        part: SwitchPart::Reading,
        explains: "Endless moves are illegal, or they stop at the repeat.",
    },
    SwitchDoc {
        name: "next_starter",
        title: "Who starts the next round",
        rules: "R13",
        values: SwitchValues::Choice(&["collector", "round_winner"]),
        part: SwitchPart::Reading,
        explains: "The next round is started by the player who collected the remainder, or by the round's winner (after a tie, the previous starter).",
    },
    SwitchDoc {
        name: "pits_per_row",
        title: "Pits a row",
        rules: "R1",
        values: SwitchValues::Range(2, 9),
        part: SwitchPart::Board,
        explains: "Board size (small boards allow exact analysis).",
    },
    SwitchDoc {
        name: "seeds_per_pit",
        title: "Counters a pit",
        rules: "R1, R12, R14",
        values: SwitchValues::Range(1, 12),
        part: SwitchPart::Board,
        explains: "Counters per pit at the start, per refilled pit, and the holdings needed to go on.",
    },
    SwitchDoc {
        name: "max_rounds",
        title: "Round limit",
        rules: "R14",
        values: SwitchValues::Range(1, super::rules::MAX_ROUNDS_LIMIT),
        part: SwitchPart::Limit,
        explains: "Round limit, after which the match is unfinished.",
    },
];

/// The doc of switch `name`.
pub fn switch_doc(name: &str) -> Option<&'static SwitchDoc> {
    SWITCH_DOCS.iter().find(|d| d.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Ruleset, SWITCHES};

    #[test]
    fn every_switch_has_its_doc_in_order_with_the_values_it_parses() {
        let names: Vec<&str> = SWITCH_DOCS.iter().map(|d| d.name).collect();
        assert_eq!(names, SWITCHES.iter().map(|s| s.0).collect::<Vec<_>>());
        let defaults = Ruleset::default().as_pairs();
        for (doc, (name, default)) in SWITCH_DOCS.iter().zip(defaults) {
            assert_eq!(doc.name, name);
            match doc.values {
                SwitchValues::Choice(values) => {
                    assert_eq!(values[0], default, "{name}: the default first");
                    for v in values {
                        Ruleset::from_assignments([format!("{name}={v}").as_str()]).unwrap();
                    }
                    assert!(
                        Ruleset::from_assignments([format!("{name}=nonsense").as_str()]).is_err()
                    );
                }
                SwitchValues::Range(lo, hi) => {
                    let set = |v: u64| Ruleset::from_assignments([format!("{name}={v}").as_str()]);
                    assert!(set(lo as u64).is_ok() && set(hi as u64).is_ok(), "{name}");
                    assert!(set(lo as u64 - 1).is_err() && set(hi as u64 + 1).is_err(), "{name}");
                }
            }
        }
    }

    /// The page's line for each switch is the one docs/rules.md's table gives it.
    #[test]
    fn each_explanation_is_in_the_rules_table_row_of_its_switch() {
        let rules = include_str!("../../../../docs/rules.md");
        for doc in SWITCH_DOCS {
            let row = rules
                .lines()
                .find(|l| l.starts_with(&format!("| `{}` |", doc.name)))
                .unwrap_or_else(|| panic!("{}", doc.name));
            let plain = row.replace('`', "").to_lowercase();
            assert!(
                plain.contains(&doc.explains.to_lowercase()),
                "{}: '{}' is not in its row: {row}",
                doc.name,
                doc.explains
            );
            assert!(plain.contains(&doc.rules.to_lowercase()), "{}: {row}", doc.name);
        }
    }
}
