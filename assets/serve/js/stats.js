// --- Statistics of play: each legal move's results over seeded continuations.
$("stats-run").addEventListener("click", function () {
  const tbody = $("stats").tBodies[0];
  tbody.innerHTML = "";
  $("stats-note").textContent = "";
  const seat = function (side) { return seatOf(side) === "human" ? "random" : seatOf(side); };
  document.body.dataset.statistics = "running";
  streamJob("stats", "/api/statistics?" + query({ matches: $("stats-matches").value, south: seat("south"), north: seat("north") }).toString(), {
    result: function (v) {
      v.moves.forEach(function (m) {
        const tr = tbody.insertRow();
        tr.dataset.pit = m.pit;
        [m.pit, (100 * m.mover.rate).toFixed(1) + "%", (100 * m.mover.interval[0]).toFixed(1) + "-" + (100 * m.mover.interval[1]).toFixed(1) + "%"].forEach(function (c) { tr.insertCell().textContent = c; });
      });
      document.body.dataset.statistics = "done";
    },
    refused: function (v) { $("stats-note").textContent = (v.field ? v.field + ": " : "") + v.error; document.body.dataset.statistics = "refused"; },
    cancelled: function () { $("stats-note").textContent = "Simulation cancelled."; document.body.dataset.statistics = "cancelled"; },
  });
});
