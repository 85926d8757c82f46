// --- The API: JSON requests, and jobs as server-sent streams with their progress.
// `signal` (an AbortController's) drops a request whose answer is no longer wanted, which frees
// its connection and cancels its work on the server.
async function api(path, params, body, signal) {
  const init = body ? { method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json" } } : {};
  if (signal) init.signal = signal;
  const r = await fetch(path + "?" + params.toString(), init);
  const v = await r.json();
  if (!r.ok) throw new Error((v.field ? v.field + ": " : "") + v.error);
  return v;
}
function outlook(o) { return o ? o.value + (o.rounds ? " in " + o.rounds : "") : "-"; }
// A job as a server-sent stream (the analysis, the statistics), read by fetch: one request,
// closed by aborting it. Its progress is shown in the `name`-progress row, its Cancel button
// aborts it (which cancels the work on the server). `on` takes the result, a refusal (a JSON
// error, also a request refused before streaming) and a cancellation. At most one stream a
// name is open: a new one closes the one it supersedes, so the page holds at most two.
const streams = {};
let openStreams = 0;
function countStreams(by) {
  openStreams += by;
  document.body.dataset.streams = openStreams;
  document.body.dataset.streamsMax = Math.max(openStreams, parseInt(document.body.dataset.streamsMax || "0", 10));
}
function showProgress(name, p) {
  const g = p.progress, bar = $(name + "-bar");
  $(name + "-progress").hidden = false;
  if (g.total) { bar.max = g.total; bar.value = g.done; } else { bar.removeAttribute("value"); }
  const amount = g.total ? " " + g.done.toLocaleString() + " of " + g.total.toLocaleString() + " (" + Math.round(100 * g.done / g.total) + "%)" : g.done ? " " + g.done.toLocaleString() : "";
  // The time left at the rate measured so far, once a tenth is done.
  const left = g.total && g.done >= g.total / 10 && g.done < g.total ? ", about " + Math.ceil(p.seconds * (g.total - g.done) / g.done) + " s left in this stage" : "";
  $(name + "-progress-text").textContent = g.stage + amount + ", " + p.seconds.toFixed(1) + " s" + left;
}
// The events of a text/event-stream body, each given to `each(kind, data)`.
async function readEvents(response, each) {
  const reader = response.body.getReader(), decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) return;
    buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let kind = "message";
      const data = [];
      block.split("\n").forEach(function (line) {
        if (line.startsWith("event:")) kind = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      });
      if (data.length && each(kind, data.join("\n")) === false) return;
    }
  }
}
function streamJob(name, url, on) {
  if (streams[name]) streams[name].close();
  const control = new AbortController();
  let done = false;
  const job = {
    close: function () { if (done) return; done = true; control.abort(); countStreams(-1); if (streams[name] === job) delete streams[name]; $(name + "-progress").hidden = true; },
    cancel: function () { if (done) return; job.close(); on.cancelled(); },
  };
  streams[name] = job;
  countStreams(1);
  const finish = function (answer) { if (done) return; job.close(); answer(); };
  fetch(url, { headers: { Accept: "text/event-stream" }, signal: control.signal }).then(async function (r) {
    if (!/text\/event-stream/.test(r.headers.get("Content-Type") || "")) {
      const v = await r.json();
      return finish(function () { if (v.error) on.refused(v); else on.result(v); });
    }
    await readEvents(r, function (kind, data) {
      if (done) return false;
      const v = JSON.parse(data);
      if (kind === "progress") { showProgress(name, v); if (on.progress) on.progress(v); return true; }
      if (kind === "result") finish(function () { on.result(v); });
      if (kind === "error") finish(function () { on.refused(v); });
      return false;
    });
    finish(function () { on.refused({ error: "the connection to the server was lost" }); });
  }).catch(function () {
    finish(function () { on.refused({ error: "the server did not answer" }); });
  });
  return job;
}
["analysis", "stats"].forEach(function (name) {
  $(name + "-cancel").addEventListener("click", function () { if (streams[name]) streams[name].cancel(); });
});
// A page left closes its streams, which cancels their work on the server.
window.addEventListener("pagehide", function () { Object.keys(streams).forEach(function (name) { streams[name].close(); }); });
