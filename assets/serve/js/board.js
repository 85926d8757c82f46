// --- The board: the replay page's board component (rajapasuBoard, board.js of `show`), drawn
// here from /api/board and animated counter by counter; its pits playable and labelled.
let board = null;
const SVGNS = "http://www.w3.org/2000/svg";

// Draws the game's board at its last state (the state the status names: after a round's end,
// the next round's start), animating the last move unless `animate` is false.
async function drawBoard(animate, mine) {
  const answer = await api("/api/board", query());
  if (mine !== generation) return;
  const host = $("board");
  host.innerHTML = answer.svg;
  const svg = host.querySelector("svg.board");
  svg.setAttribute("aria-label", "The board");
  board = rajapasuBoard(svg, answer.data);
  const B = board;
  if (!animate || B.N === 0) { B.draw(B.LAST); return; }
  const speed = Math.max(1, parseInt($("speed").value, 10));
  let f = B.moveFirstFrame[B.N] - 1;
  B.draw(f);
  await new Promise(function (resolve) {
    const timer = setInterval(function () {
      if (mine !== generation) { clearInterval(timer); return resolve(); }
      f++;
      B.draw(f);
      if (f >= B.LAST) { clearInterval(timer); resolve(); }
    }, 1000 / speed);
  });
}
// Every pit focusable and labelled (side, pit, count); the human's legal ones playable by a
// click, Enter or Space.
function attachPits() {
  const P = board.P;
  $("board").querySelectorAll("g[data-pit]:not(.line-arrow)").forEach(function (g) {
    const pit = parseInt(g.getAttribute("data-pit"), 10);
    const side = pit < P ? "south" : "north", local = pit % P;
    const playable = game && !game.over && side === game.to_move && seatOf(side) === "human" && game.legal.indexOf(local) >= 0;
    const closed = /\bclosed\b/.test(g.getAttribute("class"));
    const n = g.getAttribute("data-count");
    g.setAttribute("tabindex", "0");
    g.setAttribute("role", "button");
    g.setAttribute("aria-disabled", playable ? "false" : "true");
    g.setAttribute("aria-label", (side === "south" ? "South" : "North") + " pit " + local + ", " + (closed ? "closed" : n + (n === "1" ? " counter" : " counters")) + (playable ? ", playable" : ""));
    g.setAttribute("data-playable", playable ? "true" : "false");
    if (!playable) return;
    g.addEventListener("click", function () { play(local, "human"); });
    g.addEventListener("keydown", function (e) {
      if (e.key !== "Enter" && e.key !== " ") return;
      e.preventDefault();
      play(local, "human");
    });
  });
}
// The line of perfect play as numbered arrows into the pits it sows, each from outside its row
// (between the reserve band and the row), several into one pit side by side; the first is
// playable.
function drawLine() {
  const svg = $("board").querySelector("svg.board");
  if (!analysis || !game || !svg || !board || analysis.at !== query().toString()) return;
  const P = board.P;
  svg.querySelectorAll(".line-arrow").forEach(function (a) { a.remove(); });
  let side = analysis.to_move;
  const into = {};
  analysis.line.slice(0, 4).forEach(function (local, i) {
    const global = side === "south" ? local : P + local;
    const g = svg.querySelector('g[data-pit="' + global + '"]');
    const sign = side === "south" ? 1 : -1;
    side = side === "south" ? "north" : "south";
    if (!g) return;
    const t = g.transform.baseVal.consolidate().matrix, cx = t.e, cy = t.f;
    const j = into[global] = (into[global] || 0) + 1;
    // The bowl's radius is 46: the head stops at its rim, the tail 40 beyond, clear of the band.
    const x = cx + (j - 1) * 30 - 20, head = cy + sign * 40, tail = cy + sign * 84;
    const a = document.createElementNS(SVGNS, "g");
    a.setAttribute("class", "line-arrow");
    a.setAttribute("data-step", String(i + 1));
    a.setAttribute("data-pit", "line-" + local);
    a.style.pointerEvents = i === 0 ? "auto" : "none";
    a.style.cursor = "pointer";
    const opacity = String(1 - i * 0.15);
    a.innerHTML = '<path d="M' + (x - 16) + " " + tail + " L" + x + " " + (head - sign * 12) + '" stroke="#d2691e" stroke-width="6" opacity="' + opacity + '"/>' +
      '<path d="M' + (x - 8) + " " + (head - sign * 16) + " L" + (x + 9) + " " + (head - sign * 10) + " L" + (x + 2) + " " + head + 'Z" fill="#d2691e" opacity="' + opacity + '"/>' +
      '<text x="' + (x - 22) + '" y="' + (tail + sign * 4) + '" text-anchor="end" dominant-baseline="middle" font-size="24">' + (i + 1) + "</text>";
    if (i === 0) a.addEventListener("click", function (ev) { ev.stopPropagation(); if (seatOf(game.to_move) === "human") play(local, "human"); });
    svg.appendChild(a);
  });
}
// The end of a round and of the match in words (R10 to R14), from the board's data: who
// collected the remainder, the round's captures, the holdings carried over, the pits that close;
// at the match's end who won, in how many rounds, with what holdings.
function endWords() {
  const B = board;
  if (!B || B.N === 0) return "";
  const last = B.moves[B.N - 1], r = B.rounds[last.round - 1];
  if (!r.ended || B.N !== r.before + r.moves) return "";
  const side = function (i) { return i === 0 ? "South" : "North"; };
  let text = "Round " + r.number + " is over: " + side(r.collector) + " collected the remainder, " + B.plural(r.remainder, "counter") + " (R10). It captured South " +
    r.captured[0] + ", North " + r.captured[1] + ": " + (r.captured[0] === r.captured[1] ? "a tie (R11)." : side(r.captured[0] > r.captured[1] ? 0 : 1) + " won the round (R11).");
  const next = B.rounds[r.number];
  if (next) {
    const P = B.P;
    text += " Holdings carried over: South " + r.holdings[0] + ", North " + r.holdings[1] + ". Round " + next.number + " (R12): South opens " + B.plural(next.open[0], "pit") +
      (next.open[0] < P ? " (" + B.plural(P - next.open[0], "pit") + " closed)" : "") + " and keeps " + next.kept[0] + " in reserve; North opens " + B.plural(next.open[1], "pit") +
      (next.open[1] < P ? " (" + B.plural(P - next.open[1], "pit") + " closed)" : "") + " and keeps " + next.kept[1] + "; " + side(next.starter) + " starts (R13).";
  } else if (game && game.over) {
    const over = game.over;
    text += over.winner
      ? " The match is over (R14): " + side(over.winner === "south" ? 0 : 1) + " won in " + B.plural(B.rounds.length, "round") + ", holding South " + r.holdings[0] + ", North " + r.holdings[1] + "."
      : " The match is unfinished after " + B.plural(B.rounds.length, "round") + " (R14), holdings South " + r.holdings[0] + ", North " + r.holdings[1] + ".";
  }
  return text;
}
