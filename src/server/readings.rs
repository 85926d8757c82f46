//! The readings the guide names (docs/guide/readings.md, the arms of experiments/readings.toml):
//! the page names the reading its switches make, with a link to the findings.

/// A named reading: its name in the guide and study, and the switches that differ from the
/// default rules.
pub struct Reading {
    pub name: &'static str,
    pub rules: &'static [(&'static str, &'static str)],
}

/// Every reading the `readings` study compares (experiments/readings.toml), in its order.
pub const READINGS: [Reading; 7] = [
    Reading { name: "default", rules: &[] },
    Reading { name: "final_four-stays", rules: &[("final_four", "stays")] },
    Reading { name: "final_four-sower", rules: &[("final_four", "sower")] },
    Reading { name: "skip_origin", rules: &[("skip_origin", "true")] },
    Reading { name: "pussa_chain", rules: &[("pussa_chain", "true")] },
    Reading { name: "endless-stop", rules: &[("endless", "stop"), ("final_four", "stays")] },
    Reading { name: "next_starter-round_winner", rules: &[("next_starter", "round_winner")] },
];

/// The guide's findings, served at [`FINDINGS_PATH`] so that the page's link works offline.
pub const FINDINGS: &str = include_str!("../../docs/guide/readings.md");
pub const FINDINGS_PATH: &str = "/guide/readings";

#[cfg(test)]
mod tests {
    use super::*;

    /// The readings are the `readings` study's (its arms are named READING--PLAYER), with its
    /// switches, in its order.
    #[test]
    fn the_readings_are_the_studys() {
        let study: toml::Value =
            toml::from_str(include_str!("../../experiments/readings.toml")).unwrap();
        let mut found: Vec<(String, Vec<(String, String)>)> = Vec::new();
        for arm in study["arms"].as_array().unwrap() {
            let reading = arm["name"].as_str().unwrap().split("--").next().unwrap().to_string();
            let mut rules: Vec<(String, String)> = arm
                .get("rules")
                .and_then(|r| r.as_table())
                .map(|t| {
                    t.iter()
                        .map(|(k, v)| {
                            (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_string))
                        })
                        .collect()
                })
                .unwrap_or_default();
            rules.sort();
            if !found.iter().any(|f| f.0 == reading) {
                found.push((reading, rules));
            }
        }
        let declared: Vec<(String, Vec<(String, String)>)> = READINGS
            .iter()
            .map(|r| {
                let mut rules: Vec<(String, String)> =
                    r.rules.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
                rules.sort();
                (r.name.to_string(), rules)
            })
            .collect();
        assert_eq!(declared, found);
        assert!(FINDINGS.starts_with("# Findings"));
    }
}
