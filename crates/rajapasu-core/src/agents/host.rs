//! Players written in the host language of an embedding (the Python package's callables,
//! `python:NAME`): the host gives the run its choosers by name ([`HostPlayers`]), and each
//! seat looks its own up once per match. The chooser gets the seat's own random stream, so rows stay
//! a function of (master seed, match index, seat).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::engine::{Pit, Position, Rng};

/// The name of a registered host player, as its spec `python:NAME` says it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HostParams {
    /// Shared like [`super::ExternalParams::command`]: cheap to clone, freed with its specs.
    pub name: Arc<str>,
}

/// Chooses a local pit among the legal ones of `pos` (never asked without one). An `Err` is
/// the host's own message (e.g. the exception a Python callable raised).
pub trait HostPlayer: Send + Sync {
    fn choose(
        &self,
        pos: &Position,
        round: Option<u32>,
        ply: Option<u32>,
        rng: &mut Rng,
    ) -> Result<i64, String>;
}

/// The host players of a run, by name: given by whoever starts the run (the Python module),
/// in the run's [`super::Resources`], and looked up once per match and seat, never per move.
#[derive(Clone, Default)]
pub struct HostPlayers {
    players: BTreeMap<String, Arc<dyn HostPlayer>>,
}

impl HostPlayers {
    /// Adds `player` as `python:NAME`; a name that is not a player name, or given twice, is an
    /// error.
    pub fn add(&mut self, name: &str, player: Arc<dyn HostPlayer>) -> Result<(), String> {
        let name = check_name(name)?;
        if self.players.contains_key(name) {
            return Err(format!("two Python players are named '{name}'; give each its own name"));
        }
        self.players.insert(name.to_string(), player);
        Ok(())
    }

    fn get(&self, name: &str) -> Option<Arc<dyn HostPlayer>> {
        self.players.get(name).cloned()
    }
}

/// A name is a word of letters, digits and `_ . - < >` (a lambda's `<lambda>`), 1..=64 long.
pub fn check_name(name: &str) -> Result<&str, String> {
    let ok = |c: char| c.is_ascii_alphanumeric() || "_.-<>".contains(c);
    if name.is_empty() || name.len() > 64 || !name.chars().all(ok) {
        return Err(format!(
            "'{name}' is not a player name: use 1 to 64 letters, digits and _ . - < >"
        ));
    }
    Ok(name)
}

/// Why a host player could not decide: the host's own message, or an illegal pit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Python player 'python:{name}': {reason}")]
pub struct HostError {
    pub name: String,
    pub reason: String,
}

/// A host player in one seat of one match.
pub(crate) struct Host {
    name: Arc<str>,
    player: Option<Arc<dyn HostPlayer>>,
}

impl Host {
    pub(crate) fn new(params: HostParams, players: &HostPlayers) -> Host {
        let player = players.get(&params.name);
        Host { name: params.name, player }
    }

    pub(crate) fn choose(
        &self,
        pos: &Position,
        round: Option<u32>,
        ply: Option<u32>,
        rng: &mut Rng,
    ) -> Result<Option<Pit>, HostError> {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            return Ok(None);
        }
        let error = |reason: String| HostError { name: self.name.to_string(), reason };
        let Some(player) = &self.player else {
            return Err(error(
                "no such player is registered: python:NAME players play only in a run started from the rajapasu Python package".into(),
            ));
        };
        let pit = player.choose(pos, round, ply, rng).map_err(error)?;
        match usize::try_from(pit)
            .ok()
            .and_then(|i| Pit::new(i, pos.rules().pits_per_row))
            .filter(|&p| legal.contains(p))
        {
            Some(p) => Ok(Some(p)),
            None => {
                Err(error(format!("played pit {pit}, which is not legal; legal pits: {legal}")))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::{seat_rng, Agent, AgentSpec, Resources};
    use crate::engine::{Ruleset, Side};

    /// Plays the highest legal pit and counts its decisions.
    struct Highest(std::sync::atomic::AtomicU32);

    impl HostPlayer for Highest {
        fn choose(
            &self,
            pos: &Position,
            _round: Option<u32>,
            _ply: Option<u32>,
            _rng: &mut Rng,
        ) -> Result<i64, String> {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Ok(pos.legal_moves().iter().last().unwrap().index() as i64)
        }
    }

    #[test]
    fn a_python_spec_parses_prints_and_rejects_bad_names() {
        let spec: AgentSpec = "python:my_player".parse().unwrap();
        assert_eq!(spec, AgentSpec::Host(HostParams { name: "my_player".into() }));
        assert_eq!(spec.to_string(), "python:my_player");
        assert_eq!("python:<lambda>".parse::<AgentSpec>().unwrap().to_string(), "python:<lambda>");
        let e = "python:two words".parse::<AgentSpec>().unwrap_err().to_string();
        assert!(e.contains("'two words' is not a player name"), "{e}");
        assert!("python:".parse::<AgentSpec>().is_err());
    }

    #[test]
    fn a_registered_player_is_asked_and_an_unregistered_one_is_an_error() {
        let pos = Position::opening(Ruleset::default(), Side::South);
        let spec: AgentSpec = "python:host_test_highest".parse().unwrap();
        let e = Agent::new(spec.clone(), seat_rng(1, 0, Side::South))
            .choose(&pos)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("python:host_test_highest") && e.contains("no such player is registered"),
            "{e}"
        );
        let player = Arc::new(Highest(Default::default()));
        let mut players = Resources::default();
        players.hosts.add("host_test_highest", player.clone()).unwrap();
        assert!(players
            .hosts
            .add("host_test_highest", player.clone())
            .unwrap_err()
            .contains("two Python players are named"));
        let mut agent = Agent::seated(spec.clone(), seat_rng(1, 0, Side::South), &players);
        assert_eq!(agent.choose(&pos).unwrap().map(|p| p.index()), Some(6));
        assert_eq!(player.0.load(std::sync::atomic::Ordering::Relaxed), 1);
        // Another run's resources do not have it.
        assert!(Agent::seated(spec, seat_rng(1, 0, Side::South), &Resources::default())
            .choose(&pos)
            .is_err());
    }

    struct Fixed(i64);

    impl HostPlayer for Fixed {
        fn choose(
            &self,
            _pos: &Position,
            _round: Option<u32>,
            _ply: Option<u32>,
            _rng: &mut Rng,
        ) -> Result<i64, String> {
            Ok(self.0)
        }
    }

    #[test]
    fn an_illegal_answer_names_the_pit_and_the_legal_ones() {
        let mut pos = Position::opening(
            Ruleset::from_assignments(["pits_per_row=3", "seeds_per_pit=2"]).unwrap(),
            Side::South,
        );
        pos.play(0).unwrap();
        let mut players = Resources::default();
        players.hosts.add("host_test_fixed", Arc::new(Fixed(-1))).unwrap();
        let spec: AgentSpec = "python:host_test_fixed".parse().unwrap();
        let e = Agent::seated(spec, seat_rng(1, 0, Side::North), &players)
            .choose(&pos)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!(
                "played pit -1, which is not legal; legal pits: {}",
                pos.legal_moves()
            )),
            "{e}"
        );
        assert!(!pos.legal_moves().is_empty());
    }
}
