//! What a match table read from a file must be before anyone plays by it (R17): its digest (a
//! SHA-256 of its values, so that damage is found) and the invariants every table the rounds
//! loop writes keeps, so that an impossible value is refused by the state that holds it:
//!
//! - the rows where a side cannot open a pit (R14) say "won in 0 rounds" for the other side and
//!   nothing else; a live state is never won in 0 rounds, never won by both sides;
//! - each iteration of the loop added a state: the rounds values of live states are exactly
//!   1..=iterations (one fewer for a complete table, whose last iteration added nothing);
//! - a state's opening moves agree with it: the starter forces a win within k rounds exactly
//!   when its best opening move does (the least over its legal moves is k), the opponent does
//!   exactly when every opening move lets it (the largest is k); a drawn state has a move that
//!   keeps the draw; moves that are not legal have no value;
//! - the seats are symmetric (every rule treats South and North alike): South holding h with
//!   South starting is North holding h with North starting.

use sha2::{Digest, Sha256};

use crate::engine::{PitSet, Side};
use crate::exact::matches::match_solver::{open_pits, state_holdings, MatchCheckpoint, NEVER};

impl MatchCheckpoint {
    /// The SHA-256 (hex) of the table's values: rules, iterations, completeness, `wins` and
    /// `child` (not the solve's figures, which vary from run to run).
    pub fn digest(&self) -> String {
        let mut h = Sha256::new();
        h.update(b"rajapasu match table 1\n");
        h.update(self.rules.to_json().as_bytes());
        h.update(self.iterations.to_le_bytes());
        h.update([self.complete as u8]);
        for side in &self.wins {
            h.update((side.len() as u64).to_le_bytes());
            side.iter().flatten().for_each(|w| h.update(w.to_le_bytes()));
        }
        for side in &self.child {
            h.update((side.len() as u64).to_le_bytes());
            side.iter().flatten().flatten().for_each(|w| h.update(w.to_le_bytes()));
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Checks the invariants of the module's documentation; the error names the first state
    /// that breaks one. The sizes are checked first ([`MatchCheckpoint::check`]).
    pub fn check_invariants(&self) -> Result<(), String> {
        self.check(&self.rules).map_err(|e| e.to_string())?;
        let rules = &self.rules;
        let total = rules.total_counters();
        let seeds = rules.seeds_per_pit as u32;
        // Each iteration but the last adds a state of one side: at most 2 x 2 x (total + 1).
        let most = 4 * (total + 1) + 1;
        if self.iterations > most {
            return Err(format!(
                "{} iterations, more than the {most} a board of {total} counters can take",
                self.iterations
            ));
        }
        let mut seen = vec![false; self.iterations as usize + 1];
        for h in 0..=total {
            for starter in Side::ALL {
                let st = starter.index();
                let at = |what: String| {
                    format!("the state where South holds {h} and {starter} starts: {what}")
                };
                let wins = Side::ALL.map(|f| self.wins[f.index()][h as usize][st]);
                let child = Side::ALL.map(|f| self.child[f.index()][h as usize][st]);
                if !state_holdings(rules).contains(&h) {
                    let winner = if h < seeds { Side::North } else { Side::South };
                    let mut want = [NEVER; 2];
                    want[winner.index()] = 0;
                    if wins != want || child.iter().flatten().any(|&c| c != NEVER) {
                        return Err(at(format!("the match is over (R14), won by {winner} in 0 rounds, but the table says otherwise")));
                    }
                } else {
                    self.check_live(h, starter, wins, child).map_err(at)?;
                }
                let mirror = Side::ALL.map(|f| {
                    self.wins[f.other().index()][(total - h) as usize][starter.other().index()]
                });
                let mirror_child = Side::ALL.map(|f| {
                    self.child[f.other().index()][(total - h) as usize][starter.other().index()]
                });
                if wins != mirror || child != mirror_child {
                    return Err(at(format!(
                        "its values differ from the mirrored state's (North holding {h}, {} starting), though the rules treat both seats alike",
                        starter.other()
                    )));
                }
                for w in wins.into_iter().filter(|&w| w != NEVER) {
                    seen[w as usize] = true;
                }
            }
        }
        let last = if self.complete { self.iterations.saturating_sub(1) } else { self.iterations };
        if let Some(k) = (1..=last).find(|&k| !seen[k as usize]) {
            return Err(format!(
                "no state is won within exactly {k} rounds, yet every iteration of the {} the table records adds one (it says {} iterations, {})",
                last,
                self.iterations,
                if self.complete { "complete" } else { "not complete" }
            ));
        }
        Ok(())
    }
}

impl MatchCheckpoint {
    /// The invariants of a live state (both sides can open a pit).
    fn check_live(
        &self,
        h: u32,
        starter: Side,
        wins: [u32; 2],
        child: [[u32; 9]; 2],
    ) -> Result<(), String> {
        if wins.iter().all(|&w| w != NEVER) {
            return Err(format!(
                "both sides win (South within {}, North within {})",
                wins[0], wins[1]
            ));
        }
        if let Some(f) = Side::ALL.into_iter().find(|f| wins[f.index()] == 0) {
            return Err(format!("{f} wins in 0 rounds, but both sides can open a pit (R14)"));
        }
        let legal =
            crate::exact::round_start(self.rules, open_pits(&self.rules, h), starter).legal_moves();
        if let Some(pit) = (0..9)
            .find(|&i| !legal.iter().any(|p| p.index() == i) && child.iter().any(|c| c[i] != NEVER))
        {
            return Err(format!("local pit {pit}, not a legal opening move, has a value"));
        }
        check_moves(&wins, &child, starter, legal)
    }
}

/// The opening moves' values against the state's (see the module's documentation).
fn check_moves(
    wins: &[u32; 2],
    child: &[[u32; 9]; 2],
    starter: Side,
    legal: PitSet,
) -> Result<(), String> {
    let shown =
        |v: u32| if v == NEVER { "never".to_string() } else { format!("within {v} rounds") };
    for f in Side::ALL {
        let (fi, w) = (f.index(), wins[f.index()]);
        let values = legal.iter().map(|p| child[fi][p.index()]);
        let (got, how) = if f == starter {
            (values.min(), "its best opening move")
        } else {
            (values.max(), "the starter's most stubborn move")
        };
        if let Some(got) = got.filter(|&g| g != w) {
            return Err(format!("{f} wins {}, but after {how} {f} wins {}", shown(w), shown(got)));
        }
    }
    if wins.iter().all(|&w| w == NEVER)
        && !legal.iter().any(|p| child.iter().all(|c| c[p.index()] == NEVER))
    {
        return Err("a draw, but every opening move lets a side force the win".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Ruleset;
    use crate::exact::matches::match_solver::MatchTable;
    use crate::exact::matches::tables::{
        read_checkpoint, stamp_checkpoint, write_checkpoint, Stamped,
    };
    use crate::exact::round::solver::SolveOptions;

    fn solved(extra: &[&str]) -> MatchCheckpoint {
        let r = Ruleset::from_assignments(
            ["pits_per_row=4", "seeds_per_pit=4"].iter().chain(extra).copied(),
        )
        .unwrap();
        MatchTable::solve(r, SolveOptions::default(), None, None, &mut |_| {}, &mut |_| {})
            .unwrap()
            .to_checkpoint()
    }

    #[test]
    fn solved_tables_keep_every_invariant_and_their_digest() {
        for extra in [
            &[][..],
            &["next_starter=round_winner"],
            &["pussa_chain=true"],
            &["final_four=sower"],
            &["skip_origin=true"],
        ] {
            let cp = solved(extra);
            assert_eq!(cp.check_invariants(), Ok(()), "{extra:?}");
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("match.json");
            write_checkpoint(&path, &cp).unwrap();
            assert_eq!(read_checkpoint(&path).unwrap().unwrap(), cp);
        }
    }

    #[test]
    fn impossible_tables_are_refused_naming_the_state() {
        let good = solved(&[]);
        let (s, n) = (Side::South.index(), Side::North.index());
        let edit = |f: &dyn Fn(&mut MatchCheckpoint)| {
            let mut cp = good.clone();
            f(&mut cp);
            cp.check_invariants().unwrap_err()
        };
        // The match's start, South starting: a win for South within 3 rounds (its golden value).
        assert_eq!(good.wins[s][16][s], 3);
        let e = edit(&|cp| cp.wins[n][16][s] = 2);
        assert!(e.contains("South holds 16 and south starts: both sides win"), "{e}");
        let e = edit(&|cp| cp.wins[s][16][s] = 2);
        assert!(
            e.contains("South holds 16 and south starts")
                && e.contains("south wins within 2 rounds, but after its best"),
            "{e}"
        );
        let e = edit(&|cp| cp.wins[s][16][s] = 4294967294);
        assert!(e.contains("rounds value above its"), "{e}");
        let e = edit(&|cp| {
            cp.wins[n][16][s] = 0;
            cp.wins[s][16][s] = NEVER;
        });
        assert!(
            e.contains("South holds 16 and south starts") && e.contains("north wins in 0 rounds"),
            "{e}"
        );
        let e = edit(&|cp| cp.wins[s][2][s] = 1);
        assert!(e.contains("South holds 2") && e.contains("the match is over (R14)"), "{e}");
        let e = edit(&|cp| cp.child[s][16][s] = [NEVER; 9]);
        assert!(
            e.contains("South holds 16")
                && e.contains("after its best opening move south wins never"),
            "{e}"
        );
        let e = edit(&|cp| cp.iterations = 1 << 30);
        assert!(e.contains("iterations, more than"), "{e}");
        // A state's values changed consistently, its mirror's not: the seats differ.
        let asymmetric = (4..=28usize).filter(|&h| good.wins[n][h][s] != NEVER).find_map(|h| {
            let mut cp = good.clone();
            cp.wins[n][h][s] = NEVER;
            cp.child[n][h][s] = [NEVER; 9];
            cp.check_invariants().err().filter(|e| e.contains("mirrored state"))
        });
        assert!(
            asymmetric.is_some(),
            "a state North wins, made a draw for it alone, is refused by its mirror"
        );
    }

    #[test]
    fn an_edited_table_file_is_refused_by_its_digest_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("match.json");
        // A checkpoint of the rounds loop stopped after 2 iterations.
        let r = Ruleset::from_assignments(["pits_per_row=4", "seeds_per_pit=4"]).unwrap();
        let mut partial = None;
        let stopped =
            MatchTable::solve(r, SolveOptions::default(), None, Some(2), &mut |_| {}, &mut |cp| {
                partial = Some(cp.clone())
            });
        assert!(stopped.is_err());
        let cp = partial.unwrap();
        assert!(!cp.complete && cp.iterations == 2);
        write_checkpoint(&path, &cp).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.ends_with(&format!(",\"sha256\":\"{}\"}}\n", cp.digest())), "{text}");
        // Edited into a possible complete table (of 1 iteration, less than the truth): only the
        // digest tells.
        let changed = text.replacen("\"complete\":false", "\"complete\":true", 1);
        std::fs::write(&path, &changed).unwrap();
        let e = read_checkpoint(&path).unwrap_err().to_string();
        assert!(
            e.starts_with(&path.display().to_string()) && e.contains("do not match its sha256"),
            "{e}"
        );
        // Without a digest (a table written before digests, or one whose digest was dropped)
        // it is refused, naming the way to check and stamp it.
        let undigested = text.replace(&format!(",\"sha256\":\"{}\"", cp.digest()), "");
        std::fs::write(&path, &undigested).unwrap();
        let e = read_checkpoint(&path).unwrap_err().to_string();
        assert!(
            e.starts_with(&path.display().to_string())
                && e.contains("no sha256")
                && e.contains("--stamp-digests"),
            "{e}"
        );
        // Stamping checks its invariants: an edit that breaks one is refused and left as it was.
        let mut json: serde_json::Value = serde_json::from_str(&undigested).unwrap();
        json["wins"][0][16][0] = 1.into();
        std::fs::write(&path, json.to_string()).unwrap();
        let e = stamp_checkpoint(&path).unwrap_err().to_string();
        assert!(
            e.starts_with(&path.display().to_string()) && e.contains("not a possible match table"),
            "{e}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), json.to_string());
        // A table whose invariants hold is stamped, then read; stamping again only checks it.
        std::fs::write(&path, &undigested).unwrap();
        assert_eq!(stamp_checkpoint(&path).unwrap(), Stamped::Stamped);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        assert_eq!(read_checkpoint(&path).unwrap().unwrap(), cp);
        assert_eq!(stamp_checkpoint(&path).unwrap(), Stamped::Checked);
        std::fs::write(&path, &changed).unwrap();
        assert!(stamp_checkpoint(&path)
            .unwrap_err()
            .to_string()
            .contains("do not match its sha256"));
    }
}
