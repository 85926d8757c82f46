// The replay page of rajapasu (`rajapasu show`, src/show) around the board of board.js: where
// the replay is, the round timeline, the captures' tally, the controls and the keys. Every
// state has an address (#ply=K, #ply=K&lap=L, #ply=K&lap=L&counter=C, #round=R, #round=R&end).
(function () {
  "use strict";
  const started = performance.now();
  const D = JSON.parse(document.getElementById("match-data").textContent);
  const svg = document.querySelector("svg.board");
  let B;
  try {
    B = rajapasuBoard(svg, D);
  } catch (e) {
    const event = document.getElementById("event");
    if (event) event.textContent = "This page cannot show the match: " + e.message;
    throw e;
  }
  const P = B.P, NP = B.NP, TOTAL = B.TOTAL, SIDE = B.SIDE, SIDE_KEY = B.SIDE_KEY, rounds = B.rounds, moves = B.moves, N = B.N, LAST = B.LAST;
  const STOP_LAP = B.STOP_LAP, STOP_MOVE = B.STOP_MOVE, STOP_ROUND = B.STOP_ROUND, describeFrame = B.describeFrame;
  const fStop = B.fStop, fPly = B.fPly, fLap = B.fLap, fRound = B.fRound, roundStartFrame = B.roundStartFrame, address = B.address, parseAddress = B.parseAddress;
  const plural = B.plural, frameCount = B.frameCount;

  const root = document.documentElement;
  const $ = function (id) { return document.getElementById(id); };
  const ui = {
    round: $("round"), ply: $("ply"), mover: $("mover"), toMove: $("to-move"), lap: $("lap"), hand: $("hand"), event: $("event"), endless: $("endless"),
    play: $("play"), unit: $("unit"), speed: $("speed"), speedValue: $("speed-value"), goto: $("goto"), gotoButton: $("goto-button"),
    timeline: $("timeline"),
  };
  const stepButtons = Array.prototype.slice.call(document.querySelectorAll("button[data-step]"));
  const tallyRows = [0, 1].map(function (side) { return document.querySelectorAll('#tally tr[data-side="' + SIDE_KEY[side] + '"] td'); });

  let current = -1;
  let addressTimer = 0;

  function render(f) {
    const shown = B.draw(f);
    const st = shown.st, kind = shown.kind, r = shown.round, m = shown.move, mover = shown.mover, next = shown.next;

    ui.round.textContent = r.number + " of " + rounds.length;
    ui.ply.textContent = fPly[f] + " of " + N;
    ui.mover.textContent = mover >= 0 ? SIDE[mover] : "\u2013";
    ui.toMove.textContent = (next.side >= 0 ? SIDE[next.side] : "\u2013") + (next.note ? " (" + next.note + ")" : "");
    ui.toMove.setAttribute("data-side", next.side >= 0 ? SIDE_KEY[next.side] : "");
    ui.lap.textContent = m ? fLap[f] + " of " + m.laps.length : "\u2013";
    ui.hand.textContent = st.hand;
    ui.hand.setAttribute("data-hand", st.hand);
    ui.event.textContent = describeFrame(f, st);
    ui.endless.hidden = !(m && m.endless);
    for (let side = 0; side < 2; side++) {
      let total = 0;
      for (let s = 0; s < 4; s++) { tallyRows[side][s].textContent = st.tally[side * 4 + s]; total += st.tally[side * 4 + s]; }
      tallyRows[side][4].textContent = total;
    }
    stepButtons.forEach(function (b) { b.disabled = b.getAttribute("data-dir") === "-1" ? f === 0 : f === LAST; });
    drawTimelineCursor(r.number);
    ui.goto.value = fPly[f];
    current = f;
    const addr = "#" + address(f);
    root.setAttribute("data-address", addr);
    root.setAttribute("data-frame", f);
    // The address follows at most a few times a second (browsers limit history updates).
    if (!addressTimer) {
      addressTimer = setTimeout(function () {
        addressTimer = 0;
        const now = root.getAttribute("data-address");
        if (location.hash !== now) history.replaceState(null, "", now);
      }, 120);
    }
  }

  function go(f, note) {
    render(Math.max(0, Math.min(LAST, f)));
    if (note) ui.event.textContent = "Address corrected (" + note + "). " + ui.event.textContent;
  }

  function step(unit, dir) {
    let f = current;
    if (unit === "counter") return go(f + dir);
    const want = unit === "lap" ? STOP_LAP : unit === "move" ? STOP_MOVE : STOP_ROUND;
    do { f += dir; } while (f > 0 && f < LAST && !(fStop[f] & want));
    go(f);
  }

  // --- Round timeline -----------------------------------------------------------------------
  const SVGNS = "http://www.w3.org/2000/svg";
  let timelineCursor = null;
  // What each side keeps off the board and the counters on its row: a round set up inside
  // itself (`serve`) does not have seeds_per_pit counters in every open pit.
  function holdingsAtStart(r) {
    const h = [r.kept[0], r.kept[1]];
    for (let g = 0; g < NP; g++) h[g < P ? 0 : 1] += r.board[g];
    return h;
  }
  // A round's result (R11): "south", "north" or "tie", and a sentence; "" while it has not ended.
  function roundResult(r) {
    if (!r.ended) return { key: "", text: "not finished" };
    const [s, n] = r.captured;
    if (s === n) return { key: "tie", text: "tied " + s + " to " + n };
    return { key: s > n ? "south" : "north", text: SIDE[s > n ? 0 : 1] + " won it, " + Math.max(s, n) + " to " + Math.min(s, n) };
  }
  (function drawTimeline() {
    const t = ui.timeline, R = rounds.length;
    // Holdings in 0..100, then a strip with each round's winner.
    t.setAttribute("viewBox", "0 0 " + R + " 114");
    t.setAttribute("aria-valuemax", R);
    function add(name, attrs) {
      const el = document.createElementNS(SVGNS, name);
      for (const a in attrs) el.setAttribute(a, attrs[a]);
      t.appendChild(el);
      return el;
    }
    add("rect", { class: "north", x: 0, y: 0, width: R, height: 100 });
    let d = "";
    rounds.forEach(function (r, i) {
      const h = 100 * holdingsAtStart(r)[0] / TOTAL;
      d += "M" + i + " 100V" + (100 - h).toFixed(2) + "H" + (i + 1) + "V100Z";
    });
    add("path", { class: "south", d: d });
    add("line", { class: "half", x1: 0, x2: R, y1: 50, y2: 50 });
    rounds.forEach(function (r, i) {
      let endless = false;
      for (let k = r.before; k < r.before + r.moves; k++) endless = endless || moves[k].endless;
      if (endless) add("rect", { class: "endless-mark", x: i + 0.2, y: 0, width: 0.6, height: 8 });
    });
    rounds.forEach(function (r, i) {
      const result = roundResult(r);
      const cell = add("rect", { class: "result result-" + (result.key || "none"), x: i, y: 102, width: 1, height: 12, "data-round": r.number, "data-winner": result.key });
      const tip = document.createElementNS(SVGNS, "title");
      tip.textContent = "Round " + r.number + ": " + result.text;
      cell.appendChild(tip);
    });
    const title = document.createElementNS(SVGNS, "title");
    title.textContent = "Holdings at each round's start: South shaded from the bottom, North from the top; below, each round's winner";
    t.insertBefore(title, t.firstChild);
    timelineCursor = add("rect", { class: "cursor", x: 0, y: 1, width: 1, height: 112 });
    // Round numbers under the timeline: round 1, every `step`-th and the last, at their centres.
    const axis = document.getElementById("timeline-axis");
    const step = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000].find(function (s) { return R / s <= 12; }) || 1000;
    const labelled = [1];
    for (let n = step; n <= R; n += step) if (n > 1) labelled.push(n);
    if (labelled[labelled.length - 1] !== R && (R - labelled[labelled.length - 1]) / step > 0.5) labelled.push(R);
    labelled.forEach(function (n) {
      const label = document.createElement("span");
      label.textContent = n;
      label.setAttribute("data-round", n);
      label.style.left = (100 * (n - 0.5) / R) + "%";
      axis.appendChild(label);
    });
  })();
  function drawTimelineCursor(round) {
    const r = rounds[round - 1];
    timelineCursor.setAttribute("x", round - 1);
    const h = holdingsAtStart(r);
    ui.timeline.setAttribute("aria-valuenow", round);
    ui.timeline.setAttribute("aria-valuetext", "Round " + round + " of " + rounds.length + ": at its start South holds " + h[0] + " and North " + h[1] + "; " + roundResult(r).text);
  }
  function goRound(round) {
    go(roundStartFrame[Math.max(1, Math.min(rounds.length, round))]);
  }
  ui.timeline.addEventListener("click", function (e) {
    const box = ui.timeline.getBoundingClientRect();
    goRound(Math.floor((e.clientX - box.left) / box.width * rounds.length) + 1);
  });
  ui.timeline.addEventListener("keydown", function (e) {
    const round = fRound[current];
    const jumps = { ArrowLeft: -1, ArrowDown: -1, ArrowRight: 1, ArrowUp: 1, PageUp: -10, PageDown: 10 };
    if (e.key in jumps) goRound(round + jumps[e.key]);
    else if (e.key === "Home") goRound(1);
    else if (e.key === "End") goRound(rounds.length);
    else return;
    e.preventDefault();
    e.stopPropagation();
  });

  // --- Controls -----------------------------------------------------------------------------
  let playing = 0;
  function speed() { return parseInt(ui.speed.value, 10); }
  function showSpeed() { ui.speedValue.textContent = plural(speed(), "step") + " a second"; }
  function setPlaying(on) {
    if (playing) { clearInterval(playing); playing = 0; }
    if (on) {
      if (current === LAST) go(0);
      playing = setInterval(function () {
        step(ui.unit.value, 1);
        if (current === LAST) setPlaying(false);
      }, 1000 / speed());
    }
    // While playing, the event line changes several times a second: screen readers are not
    // made to read each one.
    ui.event.setAttribute("aria-live", on ? "off" : "polite");
    ui.play.textContent = on ? "\u275A\u275A Pause" : "\u25B6 Play";
    ui.play.setAttribute("aria-pressed", on ? "true" : "false");
  }
  function changeSpeed(delta) {
    ui.speed.value = Math.max(1, Math.min(30, speed() + delta));
    showSpeed();
    if (playing) setPlaying(true);
  }
  stepButtons.forEach(function (b) {
    b.addEventListener("click", function () { step(b.getAttribute("data-step"), parseInt(b.getAttribute("data-dir"), 10)); });
  });
  ui.play.addEventListener("click", function () { setPlaying(!playing); });
  ui.speed.addEventListener("input", function () { showSpeed(); if (playing) setPlaying(true); });
  ui.unit.addEventListener("change", function () { if (playing) setPlaying(true); });
  ui.goto.max = N;
  function gotoPly() {
    const parsed = parseAddress("#ply=" + ui.goto.value.trim());
    go(parsed.frame, parsed.note);
  }
  ui.gotoButton.addEventListener("click", gotoPly);
  ui.goto.addEventListener("keydown", function (e) { if (e.key === "Enter") gotoPly(); });
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const tag = e.target && e.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    if ((e.key === " " || e.key === "Enter") && tag === "BUTTON") return;
    switch (e.key) {
      case ",": step("counter", -1); break;
      case ".": step("counter", 1); break;
      case "ArrowLeft": step(e.shiftKey ? "lap" : "move", -1); break;
      case "ArrowRight": step(e.shiftKey ? "lap" : "move", 1); break;
      case "PageUp": step("round", -1); break;
      case "PageDown": step("round", 1); break;
      case "Home": go(0); break;
      case "End": go(LAST); break;
      case " ": setPlaying(!playing); break;
      case "+": case "=": changeSpeed(1); break;
      case "-": changeSpeed(-1); break;
      default: return;
    }
    e.preventDefault();
  });
  window.addEventListener("hashchange", function (e) {
    const hash = new URL(e.newURL).hash;
    if (hash === root.getAttribute("data-address")) return;
    const parsed = parseAddress(hash);
    go(parsed.frame, parsed.note);
  });

  showSpeed();
  const first = location.hash.length > 1 ? parseAddress(location.hash) : parseAddress("#ply=" + D.initial_ply);
  go(first.frame, first.note);
  root.setAttribute("data-plies", N);
  root.setAttribute("data-frames", frameCount);
  root.setAttribute("data-init-ms", (performance.now() - started).toFixed(1));
  root.setAttribute("data-ready", "true");
})();
