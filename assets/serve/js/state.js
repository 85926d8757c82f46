// --- State: the rules (made from the engine's declarations, /api/rules), the start, the moves
// and who made them, the seats; the address that reopens them.
const $ = function (id) { return document.getElementById(id); };
// The /api/rules answer: switches (name, title, rules, explains, default, values), players,
// readings and the findings' address.
let RULES = null;
let SWITCHES = [];
const DEFAULTS = {};
let PLAYERS = [];
// The switches of the board (R1) and of a reading, as the engine declares them.
let BOARD_SWITCHES = [], READING_SWITCHES = [];
let moves = [], redo = [], game = null, generation = 0;
// Who made each move ({side, player}: "human" or the engine's player), null for a move this
// page did not see made (one opened from an address); redoBy keeps those taken back.
let by = [], redoBy = [];
// The engine's seed (the address's `seed`, default 1): each move's random stream is (seed,
// ply, seat), as /api/play draws it and a dataset of the match records it.
let seed = "1";
// A set-up start: null (the match's start), {holdings} or {position, reserve, to_move}.
let start = null;
const START_KEYS = ["holdings", "position", "reserve", "to_move"];

// A control for each switch: its human name, its values, and its one line from docs/rules.md.
function buildControls(rules) {
  RULES = rules;
  SWITCHES = rules.switches.map(function (s) { return s.name; });
  PLAYERS = rules.players;
  const part = function (p) { return rules.switches.filter(function (s) { return s.part === p; }).map(function (s) { return s.name; }); };
  BOARD_SWITCHES = part("board");
  READING_SWITCHES = part("reading");
  const box = $("rules");
  rules.switches.forEach(function (s) {
    DEFAULTS[s.name] = String(s.default);
    const div = document.createElement("div");
    div.className = "switch";
    const label = document.createElement("label");
    label.htmlFor = s.name;
    label.textContent = s.title + " ";
    let input;
    const choice = s.values.choice || [];
    const range = s.values.range;
    if (range && range[1] - range[0] > 20) {
      input = document.createElement("input");
      input.type = "number";
      input.min = range[0];
      input.max = range[1];
    } else {
      input = document.createElement("select");
      const values = range ? Array.from({ length: range[1] - range[0] + 1 }, function (_, i) { return String(range[0] + i); }) : choice;
      values.forEach(function (v) { input.add(new Option(v)); });
    }
    input.id = s.name;
    input.value = String(s.default);
    input.setAttribute("aria-describedby", s.name + "-explains");
    const code = document.createElement("code");
    code.textContent = s.name;
    const explains = document.createElement("p");
    explains.className = "explains";
    explains.id = s.name + "-explains";
    explains.textContent = s.explains + " (" + s.rules + ")";
    label.appendChild(code);
    div.append(label, " ", input, explains);
    box.appendChild(div);
  });
  ["south-player", "north-player"].forEach(function (id) { PLAYERS.forEach(function (p) { $(id).add(new Option(p)); }); });
}
function switchValue(k) {
  const v = $(k).value;
  return v === "" ? DEFAULTS[k] : v;
}
// The reading the guide names, when the switches (the board aside) make one.
function showReading() {
  const named = RULES.readings.find(function (r) {
    return READING_SWITCHES.every(function (k) { return switchValue(k) === (r.rules[k] !== undefined ? String(r.rules[k]) : DEFAULTS[k]); });
  });
  const p = $("reading");
  p.textContent = "";
  if (named) {
    const a = document.createElement("a");
    a.href = RULES.findings;
    a.id = "reading-name";
    a.textContent = named.name;
    a.target = "_blank";
    p.append("Reading: ", a, " (the guide's findings on how it plays).");
  } else {
    p.textContent = "Reading: not one the guide names.";
  }
}

function query(extra) {
  const q = new URLSearchParams();
  SWITCHES.forEach(function (k) { if (switchValue(k) !== DEFAULTS[k]) q.append("rule", k + "=" + switchValue(k)); });
  q.set("first", $("first").value);
  if (start) START_KEYS.forEach(function (k) { if (start[k] !== undefined) q.set(k, start[k]); });
  if (moves.length) q.set("moves", moves.join(","));
  Object.keys(extra || {}).forEach(function (k) { q.set(k, extra[k]); });
  return q;
}
// The address reopens this state: rules, first player, start, moves and seats.
function saveAddress() {
  const q = new URLSearchParams();
  SWITCHES.forEach(function (k) { if (switchValue(k) !== DEFAULTS[k]) q.set(k, switchValue(k)); });
  q.set("first", $("first").value);
  if (start) START_KEYS.forEach(function (k) { if (start[k] !== undefined) q.set(k, start[k]); });
  q.set("moves", moves.join(","));
  if (seed !== "1") q.set("seed", seed);
  q.set("south", $("south-player").value);
  q.set("north", $("north-player").value);
  if ($("skip").checked) q.set("skip", "1");
  if ($("round-only").checked) q.set("round_only", "1");
  history.replaceState(null, "", "#" + q.toString());
}
function loadAddress() {
  const q = new URLSearchParams(location.hash.replace(/^#/, ""));
  SWITCHES.forEach(function (k) { $(k).value = q.get(k) || DEFAULTS[k]; if (!$(k).value) $(k).value = DEFAULTS[k]; });
  $("first").value = q.get("first") === "north" ? "north" : "south";
  start = null;
  if (q.get("holdings") !== null) start = { holdings: q.get("holdings") };
  else if (q.get("position") !== null) start = { position: q.get("position"), reserve: q.get("reserve") || "", to_move: q.get("to_move") || "" };
  fillSetUp(start);
  moves = (q.get("moves") || "").split(",").filter(function (m) { return m !== ""; }).map(Number);
  by = moves.map(function () { return null; });
  seed = /^[0-9]{1,19}$/.test(q.get("seed") || "") ? q.get("seed") : "1";
  redoBy = [];
  $("south-player").value = PLAYERS.indexOf(q.get("south")) >= 0 ? q.get("south") : "human";
  $("north-player").value = PLAYERS.indexOf(q.get("north")) >= 0 ? q.get("north") : "random";
  $("skip").checked = q.get("skip") === "1";
  $("round-only").checked = q.get("round_only") === "1";
}
// The set-up form shows the set-up the address reopened.
function fillSetUp(s) {
  if (!s) return;
  const round = s.holdings !== undefined;
  $("setup-kind-round").checked = round;
  $("setup-kind-board").checked = !round;
  $("setup-round").hidden = !round;
  $("setup-board").hidden = round;
  if (round) $("setup-holdings").value = s.holdings;
  else {
    $("setup-position").value = s.position;
    $("setup-reserve").value = s.reserve;
    if (s.to_move === "south" || s.to_move === "north") $("setup-to-move").value = s.to_move;
  }
}
function seatOf(side) { return $(side + "-player").value; }
// A seat as played, for a dataset's manifest: the engine's player if this page saw it make
// every move of the seat, else human (a person's moves, or moves not seen made here).
function playedBy(side) {
  const mine = by.filter(function (b) { return b === null || b.side === side; });
  if (!mine.length) return seatOf(side);
  const player = mine[0] && mine[0].player;
  return mine.every(function (b) { return b !== null && b.player === player; }) ? player : "human";
}
function forget() { moves = []; redo = []; by = []; redoBy = []; }
