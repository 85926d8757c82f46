//! The rounds loop of a match solve (R17) and what it reads: the open-pit configurations the
//! match states reach (R12), how a round's end labels the next state (R11, R13), and the
//! iterations that grow the sets of states each side wins within k rounds.

pub(crate) use super::request::{AttractorRequest, Openings, Step};
use super::*;

/// The open pits of each side when South holds `south` (R12).
pub fn open_pits(rules: &Ruleset, south: u32) -> BySide<u8> {
    let (p, s) = (rules.pits_per_row as u32, rules.seeds_per_pit as u32);
    let north = rules.total_counters() - south;
    BySide::new((south / s).min(p) as u8, (north / s).min(p) as u8)
}

/// The match states of a board (both sides able to open a pit, R14), by South's holdings.
pub fn state_holdings(rules: &Ruleset) -> std::ops::RangeInclusive<u32> {
    let s = rules.seeds_per_pit as u32;
    s..=rules.total_counters() - s
}

/// South's reserves possible in a round whose states keep `kept` off the board at its start
/// (R12) with `on_board` counters in play: from the least kept reserve to the largest plus
/// every capture, at most the board's `total`. None for no states.
pub(crate) fn reserve_span(
    kept: impl Iterator<Item = u32>,
    on_board: u32,
    total: u32,
) -> Option<std::ops::RangeInclusive<u32>> {
    let (lo, hi) = kept.fold(None, |span: Option<(u32, u32)>, k| {
        Some(span.map_or((k, k), |(lo, hi)| (lo.min(k), hi.max(k))))
    })?;
    Some(lo..=(hi + on_board).min(total))
}

/// How a round's end labels the next match state (R11, R13).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Ending {
    /// The collector starts next: the label depends on South's final holdings only.
    Collector,
    /// The round's winner starts next (the starter on a tie): the label depends on the round's
    /// captures, so on South's kept reserve and the starter too.
    RoundWinner { kept: u32, starter: Side },
}

/// The next match state after a round's end with `left` counters on the board, `mover` unable
/// to move and South holding `off` off the board: (South's holdings, next starter).
pub(crate) fn next_state(
    rules: &Ruleset,
    ending: Ending,
    round_counters: u32,
    left: u32,
    mover: Side,
    off: u32,
) -> Option<(u32, Side)> {
    let collector = mover.other();
    let south = off + if collector == Side::South { left } else { 0 };
    let next = match ending {
        Ending::Collector => collector,
        Ending::RoundWinner { kept, starter } => {
            let cap_s = south.checked_sub(kept)?;
            let cap_n = round_counters.checked_sub(cap_s)?;
            match cap_s.cmp(&cap_n) {
                std::cmp::Ordering::Greater => Side::South,
                std::cmp::Ordering::Less => Side::North,
                std::cmp::Ordering::Equal => starter,
            }
        }
    };
    debug_assert!(south <= rules.total_counters());
    Some((south, next))
}

/// The labels of one attractor: which round ends lead to a state in a target set.
pub(crate) fn end_masks(
    rules: &Ruleset,
    ending: Ending,
    round_counters: u32,
    target: &dyn Fn(u32, Side) -> bool,
) -> Vec<[Mask; 2]> {
    let total = rules.total_counters();
    (0..=round_counters)
        .map(|left| {
            let mut m = [0 as Mask; 2];
            for mover in Side::ALL {
                for off in 0..=total - left {
                    if let Some((h, next)) =
                        next_state(rules, ending, round_counters, left, mover, off)
                    {
                        if target(h, next) {
                            m[mover.index()] |= 1 << off;
                        }
                    }
                }
            }
            m
        })
        .collect()
}

/// One labelling of a graph: its ending and the match states (South's holdings, starter)
/// whose round is this graph under it.
pub(crate) struct Labelling {
    ending: Ending,
    states: Vec<(u32, Side)>,
}

impl Labelling {
    /// Whether `forcer` has won every state of this labelling in `cp`: no later iteration asks
    /// for its attractor then ([`label_request`]), since a state won stays won.
    pub(crate) fn all_won_by(&self, forcer: Side, cp: &MatchCheckpoint) -> bool {
        let wins = &cp.wins[forcer.index()];
        self.states.iter().all(|&(h, st)| wins[h as usize][st.index()] != NEVER)
    }
}

/// One open-pit configuration of the rounds loop: its open pits, the counters on the board at
/// its round's start and its labellings.
pub(crate) struct Config {
    pub open: BySide<u8>,
    pub on_board: u32,
    pub(crate) labels: Vec<Labelling>,
    /// South's holdings of its match states.
    holdings: Vec<u32>,
}

impl Config {
    /// South's reserves possible in this configuration's rounds: how many.
    pub(super) fn reserves(&self, rules: &Ruleset) -> u64 {
        let kept = self
            .holdings
            .iter()
            .map(|&h| h - self.open[Side::South] as u32 * rules.seeds_per_pit as u32);
        reserve_span(kept, self.on_board, rules.total_counters())
            .expect("a configuration has states")
            .count() as u64
    }
}

/// The open-pit configurations the match states reach (R12), ascending, each with its labellings
/// (R11, R13).
pub(crate) fn configurations(rules: &Ruleset) -> Vec<Config> {
    let s = rules.seeds_per_pit as u32;
    let mut by_open: BTreeMap<(u8, u8), Vec<u32>> = BTreeMap::new();
    for h in state_holdings(rules) {
        let open = open_pits(rules, h);
        by_open.entry((open[Side::South], open[Side::North])).or_default().push(h);
    }
    by_open
        .into_iter()
        .map(|((south, north), holdings)| {
            let labels = match rules.next_starter {
                NextStarter::Collector => {
                    vec![Labelling {
                        ending: Ending::Collector,
                        states: holdings
                            .iter()
                            .flat_map(|&h| Side::ALL.map(|st| (h, st)))
                            .collect(),
                    }]
                }
                NextStarter::RoundWinner => holdings
                    .iter()
                    .flat_map(|&h| {
                        Side::ALL.map(|st| Labelling {
                            ending: Ending::RoundWinner { kept: h - south as u32 * s, starter: st },
                            states: vec![(h, st)],
                        })
                    })
                    .collect(),
            };
            Config {
                open: BySide::new(south, north),
                on_board: (south as u32 + north as u32) * s,
                labels,
                holdings,
            }
        })
        .collect()
}

/// Where the rounds loop starts: `resume` once checked, else no iteration done (A_0: the states
/// whose opponent cannot open a pit, R14).
pub(crate) fn starting_point(
    rules: Ruleset,
    resume: Option<MatchCheckpoint>,
) -> Result<MatchCheckpoint, MatchError> {
    if let Some(cp) = resume {
        cp.check(&rules)?;
        return Ok(cp);
    }
    let total = rules.total_counters();
    let s = rules.seeds_per_pit as u32;
    let mut wins = [vec![[NEVER; 2]; total as usize + 1], vec![[NEVER; 2]; total as usize + 1]];
    for h in 0..=total {
        if h < s {
            wins[Side::North.index()][h as usize] = [0; 2];
        } else if total - h < s {
            wins[Side::South.index()][h as usize] = [0; 2];
        }
    }
    let child =
        [vec![[[NEVER; 9]; 2]; total as usize + 1], vec![[[NEVER; 9]; 2]; total as usize + 1]];
    Ok(MatchCheckpoint { rules, iterations: 0, wins, child, complete: false, stats: None })
}

/// The rounds loop (R17) over `configs`, from `cp`: iteration k asks `attract` for the attractors
/// of the targets "won within k - 1" (a [`Step`] names the configuration and labelling, whose
/// targets only grow from one iteration to the next) and records the states and opening moves they
/// win, until an iteration adds no state. `checkpoint` hears every finished iteration;
/// `max_iterations` stops the loop ([`MatchError::Interrupted`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn rounds_loop<E: From<MatchError>>(
    rules: &Ruleset,
    configs: &[Config],
    cp: &mut MatchCheckpoint,
    stats: &mut MatchStats,
    max_iterations: Option<u32>,
    progress: &mut MatchWatch,
    checkpoint: &mut dyn FnMut(&MatchCheckpoint),
    attract: &mut dyn FnMut(Step, AttractorRequest) -> Result<[Option<Openings>; 2], E>,
) -> Result<(), E> {
    let total = rules.total_counters();
    // Which holdings got a new value in the last iteration, by side (all, at the start).
    let mut changed = [vec![true; total as usize + 1], vec![true; total as usize + 1]];
    loop {
        let k = cp.iterations + 1;
        let updates = iteration(rules, configs, cp, &changed, k, stats, progress, attract)?;
        let done = apply_updates(cp, &updates, k);
        changed = changed_by(cp);
        if done {
            stats.iterations = k;
            return Ok(());
        }
        checkpoint(cp);
        if max_iterations.is_some_and(|m| k >= m) {
            return Err(MatchError::Interrupted { iterations: k }.into());
        }
    }
}

/// Iteration k of the rounds loop: the states won within k that were not within k - 1 (side,
/// South's holdings, starter); the opening moves' rounds are recorded in `cp` directly.
#[allow(clippy::too_many_arguments)]
fn iteration<E: From<MatchError>>(
    rules: &Ruleset,
    configs: &[Config],
    cp: &mut MatchCheckpoint,
    changed: &[Vec<bool>; 2],
    k: u32,
    stats: &mut MatchStats,
    progress: &mut MatchWatch,
    attract: &mut dyn FnMut(Step, AttractorRequest) -> Result<[Option<Openings>; 2], E>,
) -> Result<Vec<(usize, u32, Side)>, E> {
    let mut updates = Vec::new();
    for (gi, config) in configs.iter().enumerate() {
        let open = (config.open[Side::South], config.open[Side::North]);
        let at = MatchProgress {
            phase: "solving",
            round: k,
            done: gi as u64,
            total: configs.len() as u64,
            open,
            level: None,
        };
        for (li, label) in config.labels.iter().enumerate() {
            // Heard before each attractor: a labelling's attractors on a large graph take a while.
            heard(progress, at)?;
            let request = label_request(rules, config, label, cp, changed, k);
            let found = attract(Step { config: gi, labelling: li }, request)?;
            for f in Side::ALL {
                if let Some(openings) = &found[f.index()] {
                    stats.attractors += 1;
                    record_label(rules, cp, config, li, f, openings, k, &mut updates);
                }
            }
        }
    }
    Ok(updates)
}

/// Applies iteration k's `updates` (see [`iteration`]) to `cp`: whether the loop is done (the
/// iteration added no state).
pub(crate) fn apply_updates(
    cp: &mut MatchCheckpoint,
    updates: &[(usize, u32, Side)],
    k: u32,
) -> bool {
    for &(fi, h, st) in updates {
        cp.wins[fi][h as usize][st.index()] = k;
    }
    cp.iterations = k;
    cp.complete = updates.is_empty();
    cp.complete
}

/// Which holdings got a new value in `cp`'s last iteration, by side (all before the first):
/// what the next iteration's attractors depend on.
pub(crate) fn changed_by(cp: &MatchCheckpoint) -> [Vec<bool>; 2] {
    let k = cp.iterations;
    cp.wins.clone().map(|side| side.iter().map(|w| k == 0 || w.contains(&k)).collect())
}

/// The attractors iteration k asks of one labelling of `config`, from the loop's state `cp`
/// and the holdings `changed` in the last iteration: for each forcer, the end labels, when
/// its result may differ from the last iteration's and a state of the labelling is still open.
pub(crate) fn label_request(
    rules: &Ruleset,
    config: &Config,
    label: &Labelling,
    cp: &MatchCheckpoint,
    changed: &[Vec<bool>; 2],
    k: u32,
) -> AttractorRequest {
    let (total, n0) = (rules.total_counters(), config.on_board);
    let kept_of = |h: u32| h - config.open[Side::South] as u32 * rules.seeds_per_pit as u32;
    let (lo, hi) = reserve_span(label.states.iter().map(|&(h, _)| kept_of(h)), n0, total)
        .expect("a labelling has states")
        .into_inner();
    Side::ALL.map(|f| {
        let fi = f.index();
        let need =
            changed[fi][lo as usize..=hi as usize].iter().any(|&c| c) && !label.all_won_by(f, cp);
        let wins = &cp.wins[fi];
        need.then(|| end_masks(rules, label.ending, n0, &|h, st| wins[h as usize][st.index()] < k))
    })
}

/// Records what the attractor of `forcer` over labelling `li` of `config` wins in iteration k
/// ([`record`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn record_label(
    rules: &Ruleset,
    cp: &mut MatchCheckpoint,
    config: &Config,
    li: usize,
    forcer: Side,
    openings: &Openings,
    k: u32,
    updates: &mut Vec<(usize, u32, Side)>,
) {
    let kept_of = |h: u32| h - config.open[Side::South] as u32 * rules.seeds_per_pit as u32;
    record(cp, forcer, &config.labels[li], openings, k, &kept_of, updates);
}

/// Records what one attractor of `forcer` wins for a labelling's states in iteration k: the
/// states (pushed to `updates`) and the opening moves (in `cp.child`).
fn record(
    cp: &mut MatchCheckpoint,
    forcer: Side,
    label: &Labelling,
    openings: &Openings,
    k: u32,
    kept_of: &dyn Fn(u32) -> u32,
    updates: &mut Vec<(usize, u32, Side)>,
) {
    let fi = forcer.index();
    for &(h, st) in &label.states {
        let kept = kept_of(h);
        let (root, moves) = &openings[st.index()];
        if cp.wins[fi][h as usize][st.index()] == NEVER && root >> kept & 1 == 1 {
            updates.push((fi, h, st));
        }
        for &(pit, child, gain) in moves {
            let d = &mut cp.child[fi][h as usize][st.index()][pit.index()];
            if *d == NEVER && child >> (kept + gain) & 1 == 1 {
                *d = k;
            }
        }
    }
}
