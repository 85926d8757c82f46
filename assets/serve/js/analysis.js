// --- The analysis of the side to move: the round values (R15) as soon as they are solved, the
// match values (R17) when they follow (unless "round values only"); asked again after a cancel.
// Before a solve the page says how long it will take (the server's estimate from its measured
// rate) and, for a long one, shows a search player's evaluation meanwhile, labelled an
// estimate and replaced by the exact values. After a move that ended a round, the values and
// the perfect line of that round's last position stay shown.
let analysis = null;
// A search player quick on every board, whose evaluation stands in while a solve runs.
const STAND_IN = "minimax:4";
// Solves estimated to take longer than this (seconds) get the stand-in's evaluation meanwhile.
const LONG_SOLVE = 2;
const MANY_COUNTERS = 48;
// Requests of the analysis (the estimate, the stand-in's evaluation) dropped when superseded.
let analysisRequests = null;
function fillRows(tbody, a, final) {
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
}
function render(a, final) {
  fillRows($("analysis").tBodies[0], a, final);
  $("analysis").dataset.source = "exact";
  $("analysis-caption").textContent = "";
  document.body.dataset.analysisSource = "exact";
  $("analysis-summary").textContent = a.match_end ? "The match is over." : a.to_move + " to move: round value " + a.value + ", match " + (final || a.match_value ? outlook(a.match_value) : "being solved");
  $("analysis-line").textContent = a.line.length ? "Perfect round play from here (arrows on the board): " + a.line.join(" ") : "";
  $("analysis-note").textContent = a.match_note || "";
}
// The stand-in's evaluation in the analysis table, until the exact values come.
function renderEstimate(e) {
  const tbody = $("analysis").tBodies[0];
  tbody.innerHTML = "";
  e.moves.forEach(function (m) {
    const tr = tbody.insertRow();
    tr.dataset.pit = m.pit;
    tr.classList.add("estimate");
    if (e.best.indexOf(m.pit) >= 0) tr.classList.add("best-round");
    [["pit", m.pit], ["round", "~" + (m.visits === null ? m.value : m.value.toFixed(3))], ["match", "..."]].forEach(function (c) {
      const td = tr.insertCell(); td.className = c[0]; td.textContent = c[1];
    });
  });
  $("analysis").dataset.source = "estimate";
  $("analysis-caption").textContent = "Estimates by " + STAND_IN + " (a search's evaluation in its own units, not exact values), until the solve ends";
  document.body.dataset.analysisSource = "estimate";
  document.body.dataset.estimated = JSON.stringify({ player: e.player, moves: e.moves.map(function (m) { return [m.pit, m.value]; }) });
}
function refused(v) {
  $("analysis").tBodies[0].innerHTML = "";
  $("analysis-caption").textContent = "";
  $("analysis-summary").textContent = "";
  $("analysis-line").textContent = "";
  $("analysis-note").textContent = "No analysis: " + (v.field ? v.field + ": " : "") + v.error;
  $("evaluate-offer").hidden = v.kind !== "budget";
}
// One stage of the analysis of `at` (`match`: with the match values), as a stream.
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
function seconds(s) {
  return s < 90 ? "about " + Math.max(1, Math.round(s)) + " s" : "about " + Math.round(s / 60) + " min";
}
// The words on the wait before it starts, from the server's estimate (GET /api/estimate).
function waitWords(est, roundOnly) {
  const r = est.round, m = est.match, parts = [];
  if (!r.at_hand) {
    parts.push(r.seconds !== null
      ? "Solving this round's values (R15) takes " + seconds(r.seconds) + ": " + r.positions.toLocaleString() + " positions (" + r.basis + ") at " + Math.round(r.rate).toLocaleString() + " positions a second (" + est.rate_basis + ")."
      : "This round's size is not known before it is solved; this server solves about " + Math.round(r.rate).toLocaleString() + " positions a second (" + est.rate_basis + ").");
  }
  if (!roundOnly && m && !m.at_hand) {
    parts.push(m.seconds !== null
      ? "Its match values (R17) then take " + seconds(m.seconds) + " more (" + m.basis + "); \"round values only\" skips them."
      : "Its match values (R17) follow, for a time not known before; \"round values only\" skips them.");
  }
  return parts.join(" ");
}
// The estimate of the wait, the words on it, and for a long solve the stand-in's evaluation.
async function announceWait(at, roundOnly, mine, requests) {
  let est;
  try {
    const q = new URLSearchParams(at);
    q.set("match", roundOnly ? "false" : "true");
    est = await api("/api/estimate", q, null, requests.signal);
  } catch (e) {
    return;
  }
  if (mine !== generation) return;
  const words = waitWords(est, roundOnly);
  $("analysis-wait").textContent = words;
  $("analysis-wait").hidden = !words;
  document.body.dataset.waitSeconds = est.round.at_hand ? "0" : String(est.round.seconds);
  // A round of unknown size: long on a board of many counters (6x4's takes seconds).
  const many = game && game.rules.pits_per_row * game.rules.seeds_per_pit * 2 >= MANY_COUNTERS;
  if (est.round.at_hand || (est.round.seconds === null ? !many : est.round.seconds < LONG_SOLVE)) return;
  try {
    const e = await api("/api/evaluate", query({ player: STAND_IN }), null, requests.signal);
    // Exact values that came first are not replaced.
    if (mine === generation && !analysis) renderEstimate(e);
  } catch (e) {
    // The exact values come regardless; the stand-in was only meanwhile.
  }
}
// The position before the last move when that move ended a round (its trace has the round's
// end after it), else null.
function finishedRoundAt() {
  if (!game || !moves.length) return null;
  const kinds = game.trace.map(function (e) { return e.kind; });
  if (kinds.indexOf("round_end", kinds.lastIndexOf("move")) < 0) return null;
  const q = query();
  if (moves.length > 1) q.set("moves", moves.slice(0, -1).join(",")); else q.delete("moves");
  return q.toString();
}
// The finished round's last position: its values, the move played there, its perfect line.
async function showFinishedRound(roundOnly, mine) {
  const at = finishedRoundAt();
  $("finished-round").hidden = true;
  if (!at) return null;
  const answer = await analyseStage(at, !roundOnly);
  if (mine !== generation || answer.refused) return answer;
  const a = answer.result, played = moves[moves.length - 1];
  fillRows($("finished").tBodies[0], a, true);
  const row = $("finished").querySelector('tr[data-pit="' + played + '"]');
  if (row) row.classList.add("played");
  $("finished-summary").textContent = "Round " + a.round + "'s last position (ply " + a.ply + "), " + a.to_move + " to move: round value " + a.value +
    (roundOnly ? "" : ", match " + outlook(a.match_value)) + "; " + a.to_move + " played pit " + played + ", which ended the round.";
  $("finished-line").textContent = a.line.length ? "Perfect round play from there: " + a.line.join(" ") : "";
  $("finished-round").hidden = false;
  $("finished-round").dataset.at = at;
  return answer;
}
function clearAnalysis() {
  analysis = null;
  $("evaluate-offer").hidden = true;
  $("evaluation").hidden = true;
  $("analysis-again").hidden = true;
  $("analysis-wait").hidden = true;
  $("analysis-caption").textContent = "";
  document.body.dataset.analysed = "false";
  document.body.dataset.analysedRound = "false";
  document.body.dataset.analysisSource = "";
  document.body.dataset.estimated = "";
  if (analysisRequests) analysisRequests.abort();
  analysisRequests = new AbortController();
}
async function analyse() {
  clearAnalysis();
  const mine = generation, requests = analysisRequests;
  const at = query().toString();
  const roundOnly = $("round-only").checked;
  const stop = function (answer) {
    refused(answer.refused);
    $("analysis-wait").hidden = true;
    $("analysis-again").hidden = !answer.cancelled;
    document.body.dataset.analysed = "true";
  };
  const finished = await showFinishedRound(roundOnly, mine);
  if (mine !== generation) return;
  // A Cancel while the finished round was analysed stops the analysis there.
  if (finished && finished.cancelled) return stop(finished);
  announceWait(at, roundOnly, mine, requests);
  const first = await analyseStage(at, false);
  if (mine !== generation) return;
  if (first.refused) return stop(first);
  analysis = first.result;
  analysis.at = at;
  $("evaluate-offer").hidden = true;
  render(analysis, roundOnly || analysis.match_end);
  drawLine();
  document.body.dataset.analysedRound = "true";
  if (roundOnly || analysis.match_end) { $("analysis-wait").hidden = true; document.body.dataset.analysed = "true"; return; }
  const second = await analyseStage(at, true);
  if (mine !== generation) return;
  $("analysis-wait").hidden = true;
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
      const e = await api("/api/evaluate", query({ player: b.dataset.player }), null, analysisRequests.signal);
      e.moves.forEach(function (m) {
        const tr = tbody.insertRow();
        if (e.best.indexOf(m.pit) >= 0) tr.classList.add("best");
        [m.pit, m.visits === null ? m.value : m.value.toFixed(3), m.visits === null ? "-" : m.visits].forEach(function (c) { tr.insertCell().textContent = c; });
      });
      $("evaluation").hidden = false;
      $("evaluation").dataset.player = e.player;
    } catch (err) {
      if (err.name === "AbortError") return;
      tbody.insertRow().insertCell().textContent = err.message;
      $("evaluation").hidden = false;
    }
  });
});
// A set-up position no game reaches from its round's start: a perfect:match seat cannot play
// there, said before it is asked to.
function warnUnreached(a) {
  // The engine's own refusal, said first, is the more precise word.
  if (!/not reachable/.test(a.match_note || "") || $("message").textContent) return;
  const seats = ["south", "north"].filter(function (side) { return seatOf(side) === "perfect:match"; });
  if (!seats.length) return;
  $("message").textContent = seats.map(function (side) { return side === "south" ? "South" : "North"; }).join(" and ") +
    " (perfect:match) cannot play from here: no game reaches this set-up position from its round's start (R12), and match values (R17) are known only for positions a round's start reaches. perfect:round plays it (it solves the round from the position itself), or choose another player.";
}
