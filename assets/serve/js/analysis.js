// --- The analysis of the side to move: the round values (R15) as soon as they are solved, the
// match values (R17) when they follow (unless "round values only"); asked again after a cancel.
let analysis = null;
function render(a, final) {
  const tbody = $("analysis").tBodies[0];
  tbody.innerHTML = "";
  a.moves.forEach(function (m) {
    const tr = tbody.insertRow();
    tr.dataset.pit = m.pit;
    if (a.best_round.indexOf(m.pit) >= 0) tr.classList.add("best-round");
    if (a.best_match.indexOf(m.pit) >= 0) tr.classList.add("best-match");
    [["pit", m.pit], ["round", m.round_value], ["match", final || m.match ? outlook(m.match) : "..."]].forEach(function (c) {
      const td = tr.insertCell(); td.className = c[0]; td.textContent = c[1];
    });
  });
  $("analysis-summary").textContent = a.match_end ? "The match is over." : a.to_move + " to move: round value " + a.value + ", match " + (final || a.match_value ? outlook(a.match_value) : "being solved");
  $("analysis-line").textContent = a.line.length ? "Perfect round play from here (arrows on the board): " + a.line.join(" ") : "";
  $("analysis-note").textContent = a.match_note || "";
}
function refused(v) {
  $("analysis").tBodies[0].innerHTML = "";
  $("analysis-summary").textContent = "";
  $("analysis-line").textContent = "";
  $("analysis-note").textContent = "No analysis: " + (v.field ? v.field + ": " : "") + v.error;
  $("evaluate-offer").hidden = v.kind !== "budget";
}
// One stage of the analysis (`match`: with the match values), as a stream.
function analyseStage(at, withMatch) {
  return new Promise(function (resolve) {
    const q = new URLSearchParams(at);
    q.set("match", withMatch ? "true" : "false");
    streamJob("analysis", "/api/analyse?" + q.toString(), {
      result: function (v) { resolve({ result: v }); },
      refused: function (v) { resolve({ refused: v }); },
      cancelled: function () { resolve({ refused: { error: "cancelled" }, cancelled: true }); },
      // While a solve runs, the search players' evaluations are offered meanwhile.
      progress: function () { $("evaluate-offer").hidden = false; },
    });
  });
}
async function analyse() {
  analysis = null;
  const mine = generation;
  $("evaluate-offer").hidden = true;
  $("evaluation").hidden = true;
  $("analysis-again").hidden = true;
  document.body.dataset.analysed = "false";
  document.body.dataset.analysedRound = "false";
  const at = query().toString();
  const roundOnly = $("round-only").checked;
  const stop = function (answer) {
    refused(answer.refused);
    $("analysis-again").hidden = !answer.cancelled;
    document.body.dataset.analysed = "true";
  };
  const first = await analyseStage(at, false);
  if (mine !== generation) return;
  if (first.refused) return stop(first);
  analysis = first.result;
  analysis.at = at;
  $("evaluate-offer").hidden = true;
  render(analysis, roundOnly || analysis.match_end);
  drawLine();
  document.body.dataset.analysedRound = "true";
  if (roundOnly || analysis.match_end) { document.body.dataset.analysed = "true"; return; }
  const second = await analyseStage(at, true);
  if (mine !== generation) return;
  if (second.refused) {
    $("analysis-note").textContent = "No match values: " + (second.refused.field ? second.refused.field + ": " : "") + second.refused.error;
    $("analysis-again").hidden = !second.cancelled;
    $("evaluate-offer").hidden = second.refused.kind !== "budget";
    document.body.dataset.analysed = "true";
    return;
  }
  analysis = second.result;
  analysis.at = at;
  $("evaluate-offer").hidden = true;
  render(analysis, true);
  warnUnreached(analysis);
  drawLine();
  document.body.dataset.analysed = "true";
}
$("analysis-again").addEventListener("click", function () { analyse(); });
$("round-only").addEventListener("change", function () { saveAddress(); analyse(); });
document.querySelectorAll(".evaluate").forEach(function (b) {
  b.addEventListener("click", async function () {
    const tbody = $("evaluation").tBodies[0];
    tbody.innerHTML = "";
    try {
      const e = await api("/api/evaluate", query({ player: b.dataset.player }));
      e.moves.forEach(function (m) {
        const tr = tbody.insertRow();
        if (e.best.indexOf(m.pit) >= 0) tr.classList.add("best");
        [m.pit, m.visits === null ? m.value : m.value.toFixed(3), m.visits === null ? "-" : m.visits].forEach(function (c) { tr.insertCell().textContent = c; });
      });
      $("evaluation").hidden = false;
      $("evaluation").dataset.player = e.player;
    } catch (err) {
      tbody.insertRow().insertCell().textContent = err.message;
      $("evaluation").hidden = false;
    }
  });
});
// A set-up position no game reaches from its round's start: a perfect:match seat cannot play
// there, said before it is asked to.
function warnUnreached(a) {
  if (!/not reachable/.test(a.match_note || "")) return;
  const seats = ["south", "north"].filter(function (side) { return seatOf(side) === "perfect:match"; });
  if (!seats.length) return;
  $("message").textContent = seats.map(function (side) { return side === "south" ? "South" : "North"; }).join(" and ") +
    " (perfect:match) cannot play from here: no game reaches this set-up position from its round's start (R12), and match values (R17) are known only for positions a round's start reaches. perfect:round plays it (it solves the round from the position itself), or choose another player.";
}
