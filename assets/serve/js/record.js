// --- Check a recorded game against every reading: what the record settles (a switch with one
// value in every consistent reading) and what it leaves open, then each reading.
function settles(readings) {
  const consistent = readings.filter(function (r) { return r.consistent; });
  const list = $("record-settles");
  list.innerHTML = "";
  if (!consistent.length) return;
  RULES.switches.forEach(function (s) {
    const values = [];
    readings.forEach(function (r) { const v = String(r.rules[s.name]); if (values.indexOf(v) < 0) values.push(v); });
    if (values.length < 2) return;
    const kept = [];
    consistent.forEach(function (r) { const v = String(r.rules[s.name]); if (kept.indexOf(v) < 0) kept.push(v); });
    const li = document.createElement("li");
    li.dataset.switch = s.name;
    li.dataset.settled = kept.length === 1 ? kept[0] : "";
    li.textContent = kept.length === 1
      ? "settled: " + s.title + " (" + s.name + ") = " + kept[0]
      : "open: " + s.title + " (" + s.name + "), " + kept.join(" or ");
    list.appendChild(li);
  });
}
$("record-check").addEventListener("click", async function () {
  const list = $("readings");
  list.innerHTML = "";
  $("record-settles").innerHTML = "";
  try {
    // A record without its own rules line is checked on the board the page shows.
    const text = $("record").value;
    const ownRules = /^\s*rules\s*:/m.test(text);
    const boardRules = ownRules ? [] : BOARD_SWITCHES.map(function (k) { return k + "=" + switchValue(k); });
    const v = await api("/api/check-record", new URLSearchParams(), { record: text, rules: boardRules });
    const on = ownRules ? "" : " on the page's board, " + BOARD_SWITCHES.map(switchValue).join(" x ");
    $("record-summary").textContent = v.consistent_readings + " of " + v.readings.length + " readings reproduce the record (" + v.moves + " moves" + on + ").";
    settles(v.readings);
    v.readings.forEach(function (r) {
      const li = document.createElement("li");
      const label = READING_SWITCHES.filter(function (k) { return r.rules[k] !== undefined && String(r.rules[k]) !== DEFAULTS[k]; })
        .map(function (k) { return k + "=" + r.rules[k]; }).join(" ") || "default";
      li.dataset.consistent = r.consistent;
      li.dataset.hash = r.rules_hash;
      li.textContent = label + ": " + (r.consistent ? "consistent" : "disagrees at move " + r.first_disagreement.ply + " (" + r.first_disagreement.what + ")");
      list.appendChild(li);
    });
  } catch (e) {
    $("record-summary").textContent = e.message;
  }
});
