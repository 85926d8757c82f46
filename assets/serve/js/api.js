// --- The API: JSON requests, and jobs as server-sent streams with their progress.
async function api(path, params, body) {
  const r = await fetch(path + "?" + params.toString(), body ? { method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json" } } : {});
  const v = await r.json();
  if (!r.ok) throw new Error((v.field ? v.field + ": " : "") + v.error);
  return v;
}
function outlook(o) { return o ? o.value + (o.rounds ? " in " + o.rounds : "") : "-"; }
// A job as a server-sent stream (the analysis, the statistics): its progress shown in the
// `name`-progress row, its Cancel button closing it (which cancels the work on the server).
// `on` takes the result, a refusal (a JSON error) and a cancellation; a request refused before
// streaming gets its plain JSON answer, which says why.
const streams = {};
function streamJob(name, url, on) {
  if (streams[name]) streams[name].close();
  const es = new EventSource(url);
  streams[name] = es;
  const finish = function () { es.close(); if (streams[name] === es) delete streams[name]; $(name + "-progress").hidden = true; };
  es.addEventListener("progress", function (ev) {
    const p = JSON.parse(ev.data), g = p.progress, bar = $(name + "-bar");
    $(name + "-progress").hidden = false;
    if (g.total) { bar.max = g.total; bar.value = g.done; } else { bar.removeAttribute("value"); }
    const amount = g.total ? " " + g.done.toLocaleString() + " of " + g.total.toLocaleString() + " (" + Math.round(100 * g.done / g.total) + "%)" : g.done ? " " + g.done.toLocaleString() : "";
    // The time left at the rate measured so far, once a tenth is done.
    const left = g.total && g.done >= g.total / 10 && g.done < g.total ? ", about " + Math.ceil(p.seconds * (g.total - g.done) / g.done) + " s left in this stage" : "";
    $(name + "-progress-text").textContent = g.stage + amount + ", " + p.seconds.toFixed(1) + " s" + left;
    if (on.progress) on.progress(p);
  });
  es.addEventListener("result", function (ev) { finish(); on.result(JSON.parse(ev.data)); });
  // Once the stream has opened, an error without data is a lost connection: asking again
  // would start the work again (and a page being left would leave it running).
  let opened = false;
  es.addEventListener("open", function () { opened = true; });
  es.addEventListener("error", function (ev) {
    finish();
    if (ev.data) return on.refused(JSON.parse(ev.data));
    if (opened) return on.refused({ error: "the connection to the server was lost" });
    fetch(url).then(function (r) { return r.json(); })
      .then(function (v) { if (v.error) on.refused(v); else on.result(v); })
      .catch(function () { on.refused({ error: "the server did not answer" }); });
  });
  es.cancel = function () { finish(); on.cancelled(); };
}
["analysis", "stats"].forEach(function (name) {
  $(name + "-cancel").addEventListener("click", function () { if (streams[name]) streams[name].cancel(); });
});
// A page left closes its streams, which cancels their work on the server.
window.addEventListener("pagehide", function () { Object.keys(streams).forEach(function (name) { streams[name].close(); }); });
