// --- Set up a position: a round's start from the holdings, or a position inside a round.
document.querySelectorAll('input[name="setup-kind"]').forEach(function (r) {
  r.addEventListener("change", function () { $("setup-round").hidden = !$("setup-kind-round").checked; $("setup-board").hidden = $("setup-kind-round").checked; });
});
// The set-up is checked by the server (the game it starts); refused, its message says why.
$("setup-play").addEventListener("click", async function () {
  const wanted = $("setup-kind-round").checked
    ? { holdings: $("setup-holdings").value }
    : { position: $("setup-position").value, reserve: $("setup-reserve").value, to_move: $("setup-to-move").value };
  const q = query();
  q.delete("moves");
  START_KEYS.forEach(function (k) { q.delete(k); if (wanted[k] !== undefined) q.set(k, wanted[k]); });
  try {
    await api("/api/game", q);
    start = wanted; forget();
    $("setup-message").textContent = "Playing from the set-up position.";
    $("setup-message").dataset.ok = "true";
    refresh({ engine: true });
  } catch (e) {
    $("setup-message").textContent = e.message;
    $("setup-message").dataset.ok = "false";
  }
});
$("setup-clear").addEventListener("click", function () { start = null; forget(); $("setup-message").textContent = ""; refresh({ engine: true }); });
