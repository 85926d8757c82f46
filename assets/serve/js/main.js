// --- The game: the status, the board, the analysis; the engine's seats; the controls.
// `how.animate`: animate the last move; `how.engine`: an engine to move moves (after a forward
// move or a change of seats, not after a take back: then it waits for "Let the engine move").
// The engine's move being asked for, dropped when the game changes before it comes.
let engineRequest = null;
async function refresh(how) {
  const opts = how || {};
  const mine = ++generation;
  if (engineRequest) { engineRequest.abort(); engineRequest = null; }
  document.body.dataset.ready = "false";
  saveAddress();
  showReading();
  $("moves").value = moves.join(",");
  $("export-moves").href = "/api/export/moves?" + query().toString();
  $("export-trace").href = "/api/export/trace?" + query().toString();
  $("export-show").href = "/api/export/show?" + query().toString();
  $("engine-move").hidden = true;
  try {
    game = await api("/api/game", query());
    $("message").textContent = "";
  } catch (e) {
    $("message").textContent = e.message;
    return;
  }
  if (mine !== generation) return;
  // A dataset holds whole matches from their start.
  $("export-dataset").hidden = !game.over || game.set_up;
  $("export-dataset").href = "/api/export/dataset?" + query({ south: playedBy("south"), north: playedBy("north"), seed: seed }).toString();
  $("status").textContent = game.over
    ? "The match is over: " + (game.over.winner ? game.over.winner + " wins" : "unfinished") + " after " + game.ply + " moves."
    : (game.set_up ? "From the set-up position: round " : "Round ") + game.round + ", ply " + game.ply + ": " + game.to_move + " to move (" + seatOf(game.to_move) + ").";
  document.body.dataset.ply = game.ply;
  document.body.dataset.over = game.over ? (game.over.winner || "unfinished") : "";
  const engineToMove = !game.over && seatOf(game.to_move) !== "human";
  // The engine's move is a job of its own: it never waits behind the analysis.
  if (engineToMove && opts.engine) engineMove(mine);
  analyse();
  try {
    await drawBoard(opts.animate && !$("skip").checked, mine);
  } catch (e) {
    $("message").textContent = e.message;
    return;
  }
  if (mine !== generation) return;
  attachPits();
  drawLine();
  $("event").textContent = endWords();
  $("engine-move").hidden = !(engineToMove && !opts.engine);
  $("engine-move").textContent = "Let " + (game.to_move === "south" ? "South" : "North") + " (" + seatOf(game.to_move) + ") move";
  document.body.dataset.ready = "true";
}
async function engineMove(mine) {
  try {
    const who = seatOf(game.to_move);
    engineRequest = new AbortController();
    const r = await api("/api/play", query({ player: who, seed: seed }), null, engineRequest.signal);
    if (mine !== generation || r.pit === null) return;
    // The board of this state is drawn first, then the move.
    while (document.body.dataset.ready !== "true") {
      await new Promise(function (resolve) { setTimeout(resolve, 20); });
      if (mine !== generation) return;
    }
    play(r.pit, who);
  } catch (e) {
    if (mine === generation && e.name !== "AbortError") $("message").textContent = e.message;
  }
}
function play(local, who) {
  moves.push(local);
  by.push({ side: game.to_move, player: who });
  redo = [];
  redoBy = [];
  refresh({ animate: true, engine: true });
}

$("take-back").addEventListener("click", function () { if (moves.length) { redo.push(moves.pop()); redoBy.push(by.pop()); refresh({ engine: false }); } });
$("forward").addEventListener("click", function () { if (redo.length) { moves.push(redo.pop()); by.push(redoBy.pop()); refresh({ animate: true, engine: false }); } });
$("engine-move").addEventListener("click", function () { $("engine-move").hidden = true; engineMove(generation); });
$("new-game").addEventListener("click", function () { start = null; forget(); refresh({ engine: true }); });
$("first").addEventListener("change", function () { forget(); refresh({ engine: true }); });
document.querySelectorAll(".seat").forEach(function (s) { s.addEventListener("change", function () { refresh({ engine: true }); }); });
$("skip").addEventListener("change", saveAddress);
$("copy-moves").addEventListener("click", function () { $("moves").select(); if (navigator.clipboard) navigator.clipboard.writeText($("moves").value); });
api("/api/rules", new URLSearchParams()).then(function (rules) {
  buildControls(rules);
  // A set-up belongs to its rules; the first player starts a set-up round's start.
  SWITCHES.forEach(function (k) { $(k).addEventListener("change", function () { start = null; forget(); refresh({ engine: true }); }); });
  loadAddress();
  refresh({ engine: true });
}).catch(function (e) { $("message").textContent = "The page could not read the rules: " + e.message; });
