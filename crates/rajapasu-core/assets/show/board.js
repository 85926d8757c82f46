// The board of a match (the replay page of `rajapasu show`, src/show, and the explorer of
// `rajapasu serve`): it reads the match from the page's data (per move: laps as start pit and
// counters sown, captures as lap, source, pit and counters), sows it counter by counter, and
// draws each state (a frame) into the board SVG made by src/show/svg.rs, changing only counts,
// dots, classes and texts. `rajapasuBoard(svg, data)` returns the frames and their drawing.
function rajapasuBoard(svg, D) {
  "use strict";
  const P = D.pits_per_row;
  const NP = 2 * P;
  const S = D.seeds_per_pit;
  const TOTAL = NP * S;
  const SIDE = ["South", "North"];
  const SIDE_KEY = ["south", "north"];
  const PUSSA = 0, OWN = 1, GIFTED = 2, REMAINDER = 3;
  const SRC = D.sources; // pussa, own fours, gifted fours, remainder: key, name, colour

  function fail(message) {
    throw new Error(message);
  }

  // --- The match ------------------------------------------------------------------------------
  const rounds = D.rounds.map(function (r, i) {
    return {
      number: i + 1, starter: r[0], open: [r[1], r[2]], kept: [r[3], r[4]], before: r[5], moves: r[6],
      collector: r[7], remainder: r[8], captured: [r[9], r[10]], holdings: [r[11], r[12]], board: r[13], ended: r[7] >= 0,
    };
  });
  rounds.forEach(function (r) {
    if (!Array.isArray(r.board) || r.board.length !== NP) fail("round " + r.number + " has no start board of " + NP + " pits");
  });
  const moves = [];
  (function parseMoves() {
    const F = D.moves;
    let i = 0;
    while (i < F.length) {
      const flags = F[i++], pit = F[i++], lapCount = F[i++];
      const laps = [];
      for (let l = 0; l < lapCount; l++) laps.push({ start: F[i++], sown: F[i++] });
      const captureCount = F[i++];
      const caps = [];
      for (let c = 0; c < captureCount; c++) caps.push({ lap: F[i++], source: F[i++], pit: F[i++], n: F[i++] });
      const mover = flags & 1;
      caps.forEach(function (c) { c.by = c.source === GIFTED ? 1 - mover : mover; });
      moves.push({ mover: mover, endless: (flags & 2) !== 0, pit: pit, laps: laps, caps: caps, round: 0,
        pussa: caps.some(function (c) { return c.source === PUSSA; }) });
    }
  })();
  if (moves.length !== D.plies) fail("the data has " + moves.length + " moves, not " + D.plies);
  const N = moves.length;
  rounds.forEach(function (r) {
    for (let k = r.before; k < r.before + r.moves; k++) moves[k].round = r.number;
  });

  function openPits(r) {
    const open = new Uint8Array(NP);
    for (let side = 0; side < 2; side++) for (let l = P - r.open[side]; l < P; l++) open[side * P + l] = 1;
    return open;
  }
  // next[g]: the first open pit after g, counter-clockwise (R2, R5, R12).
  function nextTable(open) {
    const next = new Int16Array(NP);
    for (let g = 0; g < NP; g++) {
      let q = (g + 1) % NP;
      while (!open[q]) q = (q + 1) % NP;
      next[g] = q;
    }
    return next;
  }
  rounds.forEach(function (r) { r.openPits = openPits(r); r.next = nextTable(r.openPits); });

  // A state: board, reserves, counters in hand, and what to mark.
  function roundStartState(r) {
    return { board: Uint8Array.from(r.board), reserve: [r.kept[0], r.kept[1]], hand: 0, marks: [] };
  }

  // Board and reserves after each ply, sown once at load (and checked): index 0 is the start.
  const afterBoard = new Uint8Array((N + 1) * NP);
  const afterReserve = new Uint32Array((N + 1) * 2);
  // Captures of the round so far after each ply, by side and source (8 numbers a ply).
  const tallyAfter = new Uint32Array((N + 1) * 8);

  function stateAfter(k) {
    return { board: afterBoard.slice(k * NP, (k + 1) * NP), reserve: [afterReserve[2 * k], afterReserve[2 * k + 1]], hand: 0, marks: [] };
  }
  function stateBefore(k) {
    const m = moves[k - 1];
    const r = rounds[m.round - 1];
    return k === r.before + 1 ? roundStartState(r) : stateAfter(k - 1);
  }

  // Plays move k on `st` up to counter `upto` of lap `lap` (counter 0: just lifted), and its
  // pussa if `finish`. Fours are taken as they happen (R6): the data lists them in order.
  function sow(k, st, lap, upto, finish, tally) {
    const m = moves[k - 1];
    const r = rounds[m.round - 1];
    const b = st.board, res = st.reserve;
    let ci = 0;
    for (let l = 1; l <= lap; l++) {
      const L = m.laps[l - 1];
      if (b[L.start] !== L.sown || !r.openPits[L.start]) {
        fail("ply " + k + " lap " + l + ": pit " + L.start + " holds " + b[L.start] + " counters, the data says " + L.sown);
      }
      b[L.start] = 0;
      let hand = L.sown, at = L.start;
      const last = l === lap ? upto : L.sown;
      if (l === lap && upto === 0) st.marks.push([L.start, "lifted"]);
      for (let c = 1; c <= last; c++) {
        at = r.next[at];
        if (D.skip_origin && at === L.start) at = r.next[at];
        b[at]++;
        hand--;
        const cap = m.caps[ci];
        let taken = null;
        if (cap && cap.lap === l && cap.source !== PUSSA && cap.pit === at && b[at] === cap.n) {
          b[at] = 0;
          res[cap.by] += cap.n;
          if (tally) tally[cap.by * 4 + cap.source] += cap.n;
          taken = cap;
          ci++;
        }
        if (l === lap && c === last) {
          st.marks.push([at, "drop"]);
          if (taken) { st.marks.push([at, "src-" + SRC[taken.source].key]); st.marks.push(["reserve", taken.by, "src-" + SRC[taken.source].key]); st.taken = taken; }
        }
      }
      if (last === L.sown && m.caps[ci] && m.caps[ci].lap === l && m.caps[ci].source !== PUSSA) {
        fail("ply " + k + " lap " + l + ": the four at pit " + m.caps[ci].pit + " did not happen");
      }
      st.hand = hand;
    }
    if (finish) {
      // The move's end shows its pussa alone.
      st.marks = [];
      st.taken = null;
      st.pussa = [];
      for (; ci < m.caps.length; ci++) {
        const cap = m.caps[ci];
        if (cap.source !== PUSSA || b[cap.pit] !== cap.n) fail("ply " + k + ": the pussa at pit " + cap.pit + " does not match the board");
        b[cap.pit] = 0;
        res[cap.by] += cap.n;
        if (tally) tally[cap.by * 4 + PUSSA] += cap.n;
        st.marks.push([cap.pit, "src-pussa"]);
        st.marks.push(["reserve", cap.by, "src-pussa"]);
        st.pussa.push(cap);
      }
    }
    return st;
  }

  function onBoard(board) {
    let n = 0;
    for (let g = 0; g < NP; g++) n += board[g];
    return n;
  }

  (function sowAll() {
    let st = roundStartState(rounds[0]);
    afterBoard.set(st.board, 0);
    afterReserve[0] = st.reserve[0];
    afterReserve[1] = st.reserve[1];
    for (let k = 1; k <= N; k++) {
      const m = moves[k - 1];
      const r = rounds[m.round - 1];
      const tally = k === r.before + 1 ? new Uint32Array(8) : tallyAfter.slice((k - 1) * 8, k * 8);
      st = sow(k, stateBefore(k), m.laps.length, m.laps[m.laps.length - 1].sown, true, tally);
      if (onBoard(st.board) + st.reserve[0] + st.reserve[1] !== TOTAL) fail("ply " + k + ": counters are not conserved");
      afterBoard.set(st.board, k * NP);
      afterReserve[2 * k] = st.reserve[0];
      afterReserve[2 * k + 1] = st.reserve[1];
      tallyAfter.set(tally, k * 8);
    }
    rounds.forEach(function (r) {
      if (!r.ended) return;
      const last = r.before + r.moves;
      const board = r.moves > 0 ? afterBoard.subarray(last * NP, (last + 1) * NP) : roundStartState(r).board;
      if (onBoard(board) !== r.remainder) fail("round " + r.number + ": the remainder is " + onBoard(board) + ", the data says " + r.remainder);
      for (let side = 0; side < 2; side++) {
        let captured = side === r.collector ? r.remainder : 0;
        if (r.moves > 0) for (let s = 0; s < 3; s++) captured += tallyAfter[last * 8 + side * 4 + s];
        if (captured !== r.captured[side]) fail("round " + r.number + ": " + SIDE[side] + " captured " + captured + ", the data says " + r.captured[side]);
      }
    });
  })();

  // --- Frames: every state the page can show, in order ---------------------------------------
  const START = 0, LAP = 1, DONE = 2, END = 3;
  const STOP_LAP = 1, STOP_MOVE = 2, STOP_ROUND = 4;
  let frameCount = 0;
  rounds.forEach(function (r) {
    frameCount += 1 + (r.ended ? 1 : 0);
    for (let k = r.before + 1; k <= r.before + r.moves; k++) {
      const m = moves[k - 1];
      m.laps.forEach(function (L) { frameCount += L.sown + 1; });
      if (m.pussa) frameCount++;
    }
  });
  const fKind = new Uint8Array(frameCount), fStop = new Uint8Array(frameCount);
  const fPly = new Int32Array(frameCount), fLap = new Int32Array(frameCount), fCounter = new Int32Array(frameCount), fRound = new Int32Array(frameCount);
  const moveFirstFrame = new Int32Array(N + 2), moveDoneFrame = new Int32Array(N + 1);
  const roundStartFrame = [], roundEndFrame = [];
  (function buildFrames() {
    let f = 0;
    function push(kind, ply, lap, counter, round, stop) {
      fKind[f] = kind; fPly[f] = ply; fLap[f] = lap; fCounter[f] = counter; fRound[f] = round; fStop[f] = stop;
      return f++;
    }
    rounds.forEach(function (r) {
      roundStartFrame[r.number] = push(START, r.before, 0, 0, r.number, STOP_LAP | STOP_MOVE | STOP_ROUND);
      for (let k = r.before + 1; k <= r.before + r.moves; k++) {
        const m = moves[k - 1];
        moveFirstFrame[k] = f;
        m.laps.forEach(function (L, li) {
          for (let c = 0; c <= L.sown; c++) {
            const lastOfMove = li === m.laps.length - 1 && c === L.sown && !m.pussa;
            push(LAP, k, li + 1, c, r.number, (c === L.sown ? STOP_LAP : 0) | (lastOfMove ? STOP_MOVE : 0));
          }
        });
        if (m.pussa) push(DONE, k, m.laps.length, m.laps[m.laps.length - 1].sown, r.number, STOP_LAP | STOP_MOVE);
        moveDoneFrame[k] = f - 1;
      }
      roundEndFrame[r.number] = r.ended ? push(END, r.before + r.moves, 0, 0, r.number, STOP_LAP | STOP_MOVE) : -1;
    });
    moveFirstFrame[N + 1] = f;
  })();
  const LAST = frameCount - 1;

  // The state of frame f, with its marks.
  function frameState(f) {
    const kind = fKind[f], k = fPly[f], r = rounds[fRound[f] - 1];
    let st;
    if (kind === START) {
      st = roundStartState(r);
      st.tally = new Uint32Array(8);
    } else if (kind === END) {
      const before = r.moves > 0 ? stateAfter(k) : roundStartState(r);
      st = { board: new Uint8Array(NP), reserve: [r.holdings[0], r.holdings[1]], hand: 0, marks: [] };
      for (let g = 0; g < NP; g++) if (before.board[g] > 0) st.marks.push([g, "src-remainder"]);
      st.marks.push(["reserve", r.collector, "src-remainder"]);
      st.tally = r.moves > 0 ? tallyAfter.slice(k * 8, k * 8 + 8) : new Uint32Array(8);
      st.tally[r.collector * 4 + REMAINDER] += r.remainder;
    } else {
      const first = k === r.before + 1;
      const tally = first ? new Uint32Array(8) : tallyAfter.slice((k - 1) * 8, k * 8);
      st = sow(k, stateBefore(k), fLap[f], fCounter[f], kind === DONE, tally);
      st.tally = tally;
    }
    return st;
  }

  function address(f) {
    const kind = fKind[f], k = fPly[f], round = fRound[f];
    if (kind === START) return round === 1 ? "ply=0" : "round=" + round;
    if (kind === END) return "round=" + round + "&end";
    if (kind === DONE) return "ply=" + k;
    const m = moves[k - 1], l = fLap[f], c = fCounter[f];
    if (c === m.laps[l - 1].sown) return l === m.laps.length && !m.pussa ? "ply=" + k : "ply=" + k + "&lap=" + l;
    return "ply=" + k + "&lap=" + l + "&counter=" + c;
  }

  function whole(text) {
    return text !== null && /^\d+$/.test(text) ? parseInt(text, 10) : NaN;
  }

  // The frame an address names, and a note when it had to be corrected.
  function parseAddress(hash) {
    const q = new URLSearchParams(hash.replace(/^#/, ""));
    if (q.has("round")) {
      let R = whole(q.get("round"));
      if (!(R >= 1 && R <= rounds.length)) return { frame: R > rounds.length ? roundStartFrame[rounds.length] : 0, note: "there is no round " + q.get("round") + " (rounds 1 to " + rounds.length + ")" };
      if (q.has("end")) {
        return roundEndFrame[R] >= 0 ? { frame: roundEndFrame[R] } : { frame: LAST, note: "round " + R + " does not end within the moves given" };
      }
      return { frame: roundStartFrame[R] };
    }
    if (!q.has("ply")) return { frame: 0, note: hash.length > 1 ? "the address names no state (use #ply=K)" : null };
    const K = whole(q.get("ply"));
    if (!(K >= 0 && K <= N)) return { frame: K > N ? (N > 0 ? moveDoneFrame[N] : 0) : 0, note: "there is no ply " + q.get("ply") + " (plies 0 to " + N + ")" };
    if (!q.has("lap")) return { frame: K === 0 ? 0 : moveDoneFrame[K] };
    if (K === 0) return { frame: 0 };
    const m = moves[K - 1];
    const L = whole(q.get("lap"));
    if (!(L >= 0 && L <= m.laps.length)) return { frame: moveDoneFrame[K], note: "move " + K + " has laps 1 to " + m.laps.length };
    if (L === 0) return { frame: moveFirstFrame[K] - 1 };
    let f = moveFirstFrame[K];
    for (let l = 1; l < L; l++) f += m.laps[l - 1].sown + 1;
    const sown = m.laps[L - 1].sown;
    if (!q.has("counter")) return { frame: f + sown };
    const C = whole(q.get("counter"));
    if (!(C >= 0 && C <= sown)) return { frame: f + sown, note: "lap " + L + " of move " + K + " sows counters 1 to " + sown };
    return { frame: f + C };
  }

  // --- Drawing ------------------------------------------------------------------------------
  const pits = [];
  for (let g = 0; g < NP; g++) {
    const el = svg.querySelector('[data-pit="' + g + '"]');
    pits.push({ el: el, count: el.querySelector(".count"), dots: Array.prototype.slice.call(el.querySelectorAll(".dot")), shown: -1, cls: "" });
  }
  const reserves = [0, 1].map(function (side) {
    const el = svg.querySelector('[data-reserve="' + SIDE_KEY[side] + '"]');
    return { el: el, count: el.querySelector(".reserve-count") };
  });
  const bands = [0, 1].map(function (side) { return svg.querySelector(".side-" + SIDE_KEY[side]); });
  const caption = svg.querySelector(".caption");

  function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }
  function globalPit(side, local) { return side * P + local; }
  function pitName(g) { return "pit " + g + " (" + SIDE[Math.floor(g / P)] + "'s local " + (g % P) + ")"; }

  function describeFrame(f, st) {
    const kind = fKind[f], k = fPly[f], r = rounds[fRound[f] - 1];
    if (kind === START) {
      if (r.number === 1) {
        // A round set up inside itself may have fewer open pits on one side.
        const open = r.open[0] === r.open[1] ? "each side has " + plural(r.open[0], "open pit") : "South has " + plural(r.open[0], "open pit") + " and North " + plural(r.open[1], "open pit");
        return "Round 1 starts: " + SIDE[r.starter] + " moves first; " + open + ".";
      }
      return "Round " + r.number + " starts: " + SIDE[r.starter] + " to move. South opens " + plural(r.open[0], "pit") + " and keeps " + r.kept[0] +
        " in reserve; North opens " + plural(r.open[1], "pit") + " and keeps " + r.kept[1] + " (R12).";
    }
    if (kind === END) {
      let text = "Round " + r.number + " ends: " + SIDE[r.collector] + " collects the remainder, " + plural(r.remainder, "counter") + " (R10). Captured this round: South " +
        r.captured[0] + ", North " + r.captured[1] + "; " + (r.captured[0] === r.captured[1] ? "a tied round." : SIDE[r.captured[0] > r.captured[1] ? 0 : 1] + " wins the round.");
      if (r.number === rounds.length && D.over) {
        text += D.over.winner ? " The match is over: " + D.over.winner.replace(/^./, function (c) { return c.toUpperCase(); }) + " wins, holding " + Math.max(D.over.holdings[0], D.over.holdings[1]) + " of " + TOTAL + " (R14)."
          : " The match is unfinished after " + plural(D.over.rounds, "round") + " (R14).";
      }
      return text;
    }
    const m = moves[k - 1], l = fLap[f], c = fCounter[f], L = m.laps[l - 1];
    const head = "Ply " + k + ": " + SIDE[m.mover] + " plays local pit " + m.pit + " (pit " + globalPit(m.mover, m.pit) + "). ";
    if (kind === DONE) {
      return head + st.pussa.map(function (cap) { return "Pussa (R8): " + SIDE[cap.by] + " takes " + plural(cap.n, "counter") + " from " + pitName(cap.pit) + "."; }).join(" ");
    }
    let text = head + "Lap " + l + " of " + m.laps.length + (l > 1 ? " (relay, R7)" : "") + ": ";
    if (c === 0) return text + "lifts " + plural(L.sown, "counter") + " from " + pitName(L.start) + ".";
    text += "counter " + c + " of " + L.sown + " falls into " + pitName(st.marks.filter(function (x) { return x[1] === "drop"; })[0][0]) + ".";
    if (st.taken) text += " Four (R6): " + SIDE[st.taken.by] + " takes them (" + SRC[st.taken.source].name.replace(/s$/, "") + ").";
    if (c === L.sown) {
      if (l < m.laps.length) text += " The next pit holds counters: they are lifted next.";
      else if (m.endless) text += " The move is endless (R9): it stops here, without a pussa.";
      else if (m.pussa) text += " The next pit is empty: pussa next.";
      else text += " The next pit is empty and so is the one beyond: the move ends.";
    }
    return text;
  }

  function captionOf(f) {
    const kind = fKind[f], k = fPly[f], round = fRound[f];
    if (kind === START) return round === 1 ? "Round 1, ply 0: the start of the match, " + SIDE_KEY[rounds[0].starter] + " to move" : "Round " + round + ", its start, after ply " + k;
    if (kind === END) return "Round " + round + ", its end: the remainder collected";
    const m = moves[k - 1];
    if (kind === DONE || (fStop[f] & STOP_MOVE)) {
      return "Round " + round + ", after ply " + k + ": " + SIDE_KEY[m.mover] + " played local pit " + m.pit + " (pit " + globalPit(m.mover, m.pit) + "), " +
        plural(m.laps.length, "lap") + (m.endless ? ", endless (R9)" : "");
    }
    return "Round " + round + ", ply " + k + ", lap " + fLap[f] + " of " + m.laps.length + ", " + fCounter[f] + " of " + m.laps[fLap[f] - 1].sown + " counters sown";
  }

  function describeBoard(st, open, text) {
    function row(side) {
      const out = [];
      for (let l = 0; l < P; l++) { const g = side * P + l; out.push(open[g] ? String(st.board[g]) : "closed"); }
      return out.join(", ");
    }
    return text + ". South's row, pits 0 to " + (P - 1) + ": " + row(0) + ". North's row, pits " + P + " to " + (NP - 1) + ": " + row(1) +
      ". Reserves: South " + st.reserve[0] + ", North " + st.reserve[1] + ".";
  }

  // Who plays the next ply from frame f: at a round's start its starter; during and after
  // move k the mover of move k + 1, or, when move k ended the round, the side whose turn it is,
  // which has no legal move (R10); after a round's end the next round's starter (R13).
  function nextToMove(f) {
    const kind = fKind[f], k = fPly[f], r = rounds[fRound[f] - 1];
    if (kind === START) return { side: r.starter, note: "" };
    if (kind === END) {
      return r.number < rounds.length ? { side: rounds[r.number].starter, note: "starts round " + (r.number + 1) } : { side: -1, note: "the match is over" };
    }
    const m = moves[k - 1];
    if (k < N && moves[k].round === m.round) return { side: moves[k].mover, note: "" };
    // A move list may stop before its round ends: then the opponent is to move, as after any move.
    if (!rounds[m.round - 1].ended) return { side: 1 - m.mover, note: "" };
    return { side: 1 - m.mover, note: "no legal move: the round ends, R10" };
  }

  // Draws frame f on the board; returns what the page around it shows of the frame.
  function draw(f) {
    const st = frameState(f);
    const kind = fKind[f], r = rounds[fRound[f] - 1];
    const open = r.openPits;
    const pitMarks = {};
    const reserveMarks = ["", ""];
    st.marks.forEach(function (x) {
      if (x[0] === "reserve") reserveMarks[x[1]] += " " + x[2];
      else pitMarks[x[0]] = (pitMarks[x[0]] || "") + " " + x[1];
    });
    for (let g = 0; g < NP; g++) {
      const p = pits[g], n = st.board[g];
      if (p.shown !== n) {
        p.el.setAttribute("data-count", n);
        p.count.textContent = n;
        const dots = Math.min(n, D.max_dots);
        for (let d = 0; d < p.dots.length; d++) p.dots[d].classList.toggle("off", d >= dots);
        p.shown = n;
      }
      const cls = "pit" + (open[g] ? "" : " closed") + (pitMarks[g] || "");
      if (p.cls !== cls) { p.el.setAttribute("class", cls); p.cls = cls; }
    }
    for (let side = 0; side < 2; side++) {
      reserves[side].el.setAttribute("data-count", st.reserve[side]);
      reserves[side].count.textContent = st.reserve[side];
      reserves[side].el.setAttribute("class", "reserve" + reserveMarks[side]);
    }
    const m = kind === LAP || kind === DONE ? moves[fPly[f] - 1] : null;
    // The mover plays the ply shown; the side to move plays the next one (docs/show.md).
    const mover = m ? m.mover : -1;
    const next = nextToMove(f);
    for (let side = 0; side < 2; side++) {
      bands[side].setAttribute("class", "side side-" + SIDE_KEY[side] + (side === mover ? " mover" : "") + (side === next.side ? " next" : ""));
    }
    const cap = captionOf(f);
    caption.textContent = cap;
    svg.setAttribute("aria-label", describeBoard(st, open, cap));
    return { st: st, kind: kind, round: r, move: m, mover: mover, next: next, caption: cap };
  }

  return {
    P: P, NP: NP, TOTAL: TOTAL, SIDE: SIDE, SIDE_KEY: SIDE_KEY, REMAINDER: REMAINDER, rounds: rounds,
    moves: moves, N: N, LAST: LAST, frameCount: frameCount, START: START, LAP: LAP, DONE: DONE, END: END,
    STOP_LAP: STOP_LAP, STOP_MOVE: STOP_MOVE, STOP_ROUND: STOP_ROUND, fKind: fKind, fStop: fStop, fPly: fPly,
    fLap: fLap, fCounter: fCounter, fRound: fRound, moveFirstFrame: moveFirstFrame,
    moveDoneFrame: moveDoneFrame, roundStartFrame: roundStartFrame, roundEndFrame: roundEndFrame,
    frameState: frameState, address: address, parseAddress: parseAddress, describeFrame: describeFrame,
    captionOf: captionOf, nextToMove: nextToMove, plural: plural, draw: draw
  };
}
