//! The lean level attractor ([`crate::exact::round::lean_level`]) against the in-memory solver's
//! ([`crate::exact::round::solver::level_values`]) on random in-level graphs.

use crate::engine::Rng;
use crate::exact::round::lean_level::{
    forcers_at_once, lean_values, solve_bytes, InDegrees, Preds, NO_EXIT,
};
use crate::exact::round::solver::level_values;

/// A random in-level game: exits in South's terms (None: no exit), degrees, successors.
struct Graph {
    n: u32,
    south_count: usize,
    exit: Vec<Option<i8>>,
    degree: Vec<u8>,
    succ: Vec<u32>,
}

fn random_graph(rng: &mut Rng) -> Graph {
    let m = 1 + rng.below(300) as usize;
    let n = [1, 2, 5, 40, 127][rng.below(5) as usize];
    let south_count = rng.below(m as u32 + 1) as usize;
    let max_degree = [1, 3, 8][rng.below(3) as usize];
    // A hub draws many moves (in-degrees of 255 and more); a few graphs have none.
    let hub = rng.below(m as u32);
    let hub_share = [0, 0, 30, 90][rng.below(4) as usize];
    let no_exit_share = [0, 20, 60][rng.below(3) as usize];
    let (mut exit, mut degree, mut succ) = (Vec::new(), Vec::new(), Vec::new());
    for x in 0..m {
        let d = rng.below(max_degree + 1) as u8;
        for _ in 0..d {
            succ.push(match rng.below(100) {
                r if r < hub_share => hub,
                r if r < hub_share + 5 => x as u32,
                _ => rng.below(m as u32),
            });
        }
        degree.push(d);
        // A position without in-level moves has an exit (a round end at least).
        let none = d > 0 && rng.below(100) < no_exit_share;
        exit.push((!none).then(|| rng.below(2 * n + 1) as i8 - n as i8));
    }
    Graph { n, south_count, exit, degree, succ }
}

/// The in-memory solver's values, with its i16 sentinels for no exit.
fn reference(g: &Graph) -> Vec<i16> {
    let exit: Vec<i16> = (0..g.degree.len())
        .map(|x| match g.exit[x] {
            Some(e) => e as i16,
            None if x < g.south_count => i16::MIN,
            None => i16::MAX,
        })
        .collect();
    level_values(g.n as usize, g.south_count, &exit, &g.degree, g.succ.clone(), false).0
}

fn lean(g: &Graph, stack: usize, both_at_once: bool) -> Vec<i8> {
    let m = g.degree.len();
    let mut degrees = InDegrees::new(m);
    for &t in &g.succ {
        degrees.add(t);
    }
    assert_eq!(degrees.edges(), g.succ.len() as u64);
    let bytes: Vec<u8> = g.succ.iter().flat_map(|t| t.to_le_bytes()).collect();
    let preds = Preds::build(degrees, &g.degree, &mut &bytes[..]).unwrap();
    let exit: Vec<i8> = g.exit.iter().map(|e| e.unwrap_or(NO_EXIT)).collect();
    let mut left = g.degree.clone();
    lean_values(g.n, g.south_count, &exit, &mut left, &preds, stack, both_at_once)
}

#[test]
fn the_lean_attractor_gives_the_in_memory_values_on_random_level_graphs() {
    let (mut big, mut attracted, mut zero) = (0, 0, 0);
    for seed in 0..3000 {
        let mut rng = Rng::from_seed(seed);
        let g = random_graph(&mut rng);
        let expected = reference(&g);
        for stack in [1, 3, 1 << 12] {
            for both_at_once in [false, true] {
                let got: Vec<i16> =
                    lean(&g, stack, both_at_once).iter().map(|&v| v as i16).collect();
                assert_eq!(got, expected, "seed {seed}, stack {stack}, at once {both_at_once}");
            }
        }
        let mut counts = vec![0u32; g.degree.len()];
        g.succ.iter().for_each(|&t| counts[t as usize] += 1);
        big += counts.iter().any(|&c| c >= 255) as u32;
        attracted += expected.iter().filter(|&&v| v != 0).count();
        zero += expected.iter().filter(|&&v| v == 0).count();
    }
    // The graphs reach what the attractor has to get right.
    assert!(big > 50, "{big} graphs with an in-degree of 255 or more");
    assert!(attracted > 10_000 && zero > 10_000, "{attracted} attracted, {zero} worth 0");
}

#[test]
fn the_predecessors_are_the_parents_in_order_and_a_wrong_move_count_is_refused() {
    let mut rng = Rng::from_seed(7);
    let g = loop {
        let g = random_graph(&mut rng);
        if g.succ.len() > 600 {
            break g;
        }
    };
    let m = g.degree.len();
    let build = |succ: &[u32]| {
        let mut degrees = InDegrees::new(m);
        succ.iter().for_each(|&t| degrees.add(t));
        let bytes: Vec<u8> = succ.iter().flat_map(|t| t.to_le_bytes()).collect();
        Preds::build(degrees, &g.degree, &mut &bytes[..])
    };
    let preds = build(&g.succ).unwrap();
    let mut expected = vec![Vec::new(); m];
    let mut at = 0;
    for (x, &d) in g.degree.iter().enumerate() {
        for &t in &g.succ[at..at + d as usize] {
            expected[t as usize].push(x as u32);
        }
        at += d as usize;
    }
    for (x, parents) in expected.iter().enumerate() {
        assert_eq!(preds.of(x), &parents[..], "position {x}");
    }
    let short = build(&g.succ[..g.succ.len() - 1]).err().expect("a missing move is refused");
    assert!(short.to_string().contains("fewer moves"), "{short}");
    let mut long = g.succ.clone();
    long.push(0);
    let long = build(&long).err().expect("an extra move is refused");
    assert!(long.to_string().contains("more moves"), "{long}");
}

/// The forcers run at once only where their second values and stack fit the bound; one after
/// the other the level needs a position's byte and the stack less, down to the predecessors'
/// build (the larger of the two steps) on a small level.
#[test]
fn the_forcers_run_at_once_only_within_the_memory_bound() {
    // The real board's `stays` level 26: 1.2 billion positions, as many in-level moves.
    let (m, edges, big) = (1_206_828_340usize, 1_237_686_870u64, 3);
    let (alone, both) = (solve_bytes(m, edges, big, false), solve_bytes(m, edges, big, true));
    assert_eq!(both - alone, m as u64 + (1 << 24) * 4, "a value byte and a stack more");
    assert!(forcers_at_once(m, edges, big, both));
    assert!(!forcers_at_once(m, edges, big, both - 1));
    assert!(alone < both, "one after the other fits where both do not");
    // A small level: the build's read buffer outweighs the solve either way.
    assert_eq!(solve_bytes(1000, 2000, 0, true), solve_bytes(1000, 2000, 0, false));
}
