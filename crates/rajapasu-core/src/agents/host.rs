//! Players written in the host language of an embedding (the Python package's callables,
//! `python:NAME`): the host registers a chooser under a name for the length of a run, and each
//! seat looks it up once per match. The chooser gets the seat's own random stream, so rows stay
//! a function of (master seed, match index, seat).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::external::PlayerError;
use crate::engine::{Pit, Position, Rng};

/// The name of a registered host player, as its spec `python:NAME` says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HostParams {
    /// Leaked like [`super::ExternalParams::command`]: specs are parsed a handful of times.
    pub name: &'static str,
}

/// Chooses a local pit among the legal ones of `pos` (never asked without one). An `Err` is
/// the host's own message (e.g. the exception a Python callable raised).
pub trait HostPlayer: Send + Sync {
    fn choose(&self, pos: &Position, round: Option<u32>, ply: Option<u32>, rng: &mut Rng) -> Result<i64, String>;
}

type Registry = BTreeMap<&'static str, Arc<dyn HostPlayer>>;

/// Looked up once per match and seat, never per move: no lock in the hot path.
static PLAYERS: Mutex<Registry> = Mutex::new(BTreeMap::new());

fn players() -> std::sync::MutexGuard<'static, Registry> {
    PLAYERS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Keeps a host player registered; dropping it unregisters the name.
#[derive(Debug)]
pub struct Registration {
    name: &'static str,
}

impl Drop for Registration {
    fn drop(&mut self) {
        players().remove(self.name);
    }
}

/// Registers `player` as `python:NAME` until the returned guard is dropped. A name that is
/// registered already (another run in progress) is an error.
pub fn register(name: &str, player: Arc<dyn HostPlayer>) -> Result<Registration, String> {
    let name = check_name(name)?;
    let mut all = players();
    if all.contains_key(name) {
        return Err(format!("a Python player named '{name}' is already playing in another run; give this one another name"));
    }
    let name: &'static str = Box::leak(name.to_string().into_boxed_str());
    all.insert(name, player);
    Ok(Registration { name })
}

/// A name is a word of letters, digits and `_ . - < >` (a lambda's `<lambda>`), 1..=64 long.
pub fn check_name(name: &str) -> Result<&str, String> {
    let ok = |c: char| c.is_ascii_alphanumeric() || "_.-<>".contains(c);
    if name.is_empty() || name.len() > 64 || !name.chars().all(ok) {
        return Err(format!("'{name}' is not a player name: use 1 to 64 letters, digits and _ . - < >"));
    }
    Ok(name)
}

/// A host player in one seat of one match.
pub(crate) struct Host {
    name: &'static str,
    player: Option<Arc<dyn HostPlayer>>,
}

impl Host {
    pub(crate) fn new(params: HostParams) -> Host {
        Host { name: params.name, player: players().get(params.name).cloned() }
    }

    pub(crate) fn choose(&self, pos: &Position, round: Option<u32>, ply: Option<u32>, rng: &mut Rng) -> Result<Option<Pit>, PlayerError> {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            return Ok(None);
        }
        let error = |reason: String| PlayerError::Host { name: self.name.to_string(), reason };
        let Some(player) = &self.player else {
            return Err(error(
                "no such player is registered: python:NAME players play only in a run started from the rajapasu Python package".into(),
            ));
        };
        let pit = player.choose(pos, round, ply, rng).map_err(error)?;
        match usize::try_from(pit).ok().and_then(|i| Pit::new(i, pos.rules().pits_per_row)).filter(|&p| legal.contains(p)) {
            Some(p) => Ok(Some(p)),
            None => Err(error(format!("played pit {pit}, which is not legal; legal pits: {legal}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::{seat_rng, Agent, AgentSpec};
    use crate::engine::{Ruleset, Side};

    /// Plays the highest legal pit and counts its decisions.
    struct Highest(std::sync::atomic::AtomicU32);

    impl HostPlayer for Highest {
        fn choose(&self, pos: &Position, _round: Option<u32>, _ply: Option<u32>, _rng: &mut Rng) -> Result<i64, String> {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Ok(pos.legal_moves().iter().last().unwrap().index() as i64)
        }
    }

    #[test]
    fn a_python_spec_parses_prints_and_rejects_bad_names() {
        let spec: AgentSpec = "python:my_player".parse().unwrap();
        assert_eq!(spec, AgentSpec::Host(HostParams { name: "my_player" }));
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
        let e = Agent::new(spec, seat_rng(1, 0, Side::South)).choose(&pos).unwrap_err().to_string();
        assert!(e.contains("python:host_test_highest") && e.contains("no such player is registered"), "{e}");
        let player = Arc::new(Highest(Default::default()));
        let guard = register("host_test_highest", player.clone()).unwrap();
        assert!(register("host_test_highest", player.clone()).unwrap_err().contains("already playing"));
        let mut agent = Agent::new(spec, seat_rng(1, 0, Side::South));
        assert_eq!(agent.choose(&pos).unwrap().map(|p| p.index()), Some(6));
        assert_eq!(player.0.load(std::sync::atomic::Ordering::Relaxed), 1);
        drop(guard);
        assert!(Agent::new(spec, seat_rng(1, 0, Side::South)).choose(&pos).is_err());
    }

    struct Fixed(i64);

    impl HostPlayer for Fixed {
        fn choose(&self, _pos: &Position, _round: Option<u32>, _ply: Option<u32>, _rng: &mut Rng) -> Result<i64, String> {
            Ok(self.0)
        }
    }

    #[test]
    fn an_illegal_answer_names_the_pit_and_the_legal_ones() {
        let mut pos = Position::opening(Ruleset::from_assignments(["pits_per_row=3", "seeds_per_pit=2"]).unwrap(), Side::South);
        pos.play(0).unwrap();
        let _guard = register("host_test_fixed", Arc::new(Fixed(-1))).unwrap();
        let spec: AgentSpec = "python:host_test_fixed".parse().unwrap();
        let e = Agent::new(spec, seat_rng(1, 0, Side::North)).choose(&pos).unwrap_err().to_string();
        assert!(e.contains(&format!("played pit -1, which is not legal; legal pits: {}", pos.legal_moves())), "{e}");
        assert!(!pos.legal_moves().is_empty());
    }
}
