//! A plain fixed-array engine for the default rules (no R9 check, no observers, modulo
//! stepping), the kind of implementation the speed target was set against: a check of the
//! engine's results (same random streams, same matches) and a speed reference.
//!
//! It imports nothing, so that both the simulation's tests and the benchmark example
//! `plain_engine_speed` include it by path; it is not part of the library.

/// A round in play: 2 x 7 pits, global order (R2).
struct Round {
    board: [u8; 14],
    open: [bool; 14],
    reserve: [u32; 2],
    turn: usize,
}

impl Round {
    fn fill(holdings: [u32; 2], starter: usize) -> Round {
        let mut m = Round { board: [0; 14], open: [false; 14], reserve: [0; 2], turn: starter };
        for (side, &held) in holdings.iter().enumerate() {
            let filled = (held / 7).min(7) as usize;
            for local in 7 - filled..7 {
                m.board[side * 7 + local] = 7;
                m.open[side * 7 + local] = true;
            }
            m.reserve[side] = held - 7 * filled as u32;
        }
        m
    }

    fn next(&self, mut at: usize) -> usize {
        loop {
            at = (at + 1) % 14;
            if self.open[at] {
                return at;
            }
        }
    }

    fn play(&mut self, local: usize) {
        let mover = self.turn;
        let mut start = mover * 7 + local;
        loop {
            let mut hand = self.board[start];
            self.board[start] = 0;
            let mut at = start;
            while hand > 0 {
                at = self.next(at);
                self.board[at] += 1;
                hand -= 1;
                if self.board[at] == 4 {
                    self.board[at] = 0;
                    self.reserve[at / 7] += 4;
                }
            }
            let next = self.next(at);
            if self.board[next] > 0 {
                start = next;
                continue;
            }
            let beyond = self.next(next);
            self.reserve[mover] += self.board[beyond] as u32;
            self.board[beyond] = 0;
            break;
        }
        self.turn = 1 - mover;
    }
}

/// Plays a random match, `first` (0 South, 1 North) starting; `draw(seat, n)` draws a number
/// below `n` from that seat's own stream. Returns the moves played.
pub fn random_match(first: usize, draw: &mut impl FnMut(usize, u32) -> u32) -> u64 {
    let mut holdings = [49u32, 49];
    let mut starter = first;
    let mut moves = 0;
    for _round in 0..1000 {
        let mut m = Round::fill(holdings, starter);
        loop {
            let mut legal = [0usize; 7];
            let mut n = 0;
            for local in 0..7 {
                if m.board[m.turn * 7 + local] > 0 {
                    legal[n] = local;
                    n += 1;
                }
            }
            if n == 0 {
                break;
            }
            m.play(legal[draw(m.turn, n as u32) as usize]);
            moves += 1;
        }
        let collector = 1 - m.turn;
        m.reserve[collector] += m.board.iter().map(|&c| c as u32).sum::<u32>();
        holdings = m.reserve;
        starter = collector;
        if holdings[0] < 7 || holdings[1] < 7 {
            break;
        }
    }
    moves
}
