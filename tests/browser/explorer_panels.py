"""The explorer's analysis panel and its reading, in headless Chromium driven by WebDriver.

Run by tests/cli/serve_explorer.rs as `python explorer_panels.py ADDRESS OUT_DIR`: a finished
round's last position kept in the panel (its values and perfect line), the contrast of every
text against its background at a laptop's and a phone's size, the wait said before a solve
with a search player's estimate shown meanwhile and replaced by the exact values, and the
streams the page holds while a person plays faster than the analysis. It prints one JSON
object of what it read for the Rust test to compare with the commands' own answers.
"""

import json
import sys
import time
import urllib.parse
import urllib.request

from selenium.webdriver.common.by import By

from page import SIZES, Page

ADDRESS, OUT = sys.argv[1], sys.argv[2]


page = Page(ADDRESS, patience=90)
driver = page.driver
wait, body, ready, open_state, text, api, console_errors = (
    page.wait, page.body, page.ready, page.open_state, page.text, page.api, page.console_errors)


def rows(table):
    return [
        {"pit": int(r.find_element(By.CLASS_NAME, "pit").text), "round": r.find_element(By.CLASS_NAME, "round").text,
         "match": r.find_element(By.CLASS_NAME, "match").text, "played": "played" in r.get_attribute("class")}
        for r in driver.find_elements(By.CSS_SELECTOR, "#%s tbody tr" % table)
    ]


def finished_match(rules):
    """A whole match between two random players, as its moves, played through the API."""
    moves = []
    q_rules = "&".join("rule=" + urllib.parse.quote(r) for r in rules.split("&"))
    for _ in range(5000):
        q = q_rules + "&first=south&moves=" + ",".join(map(str, moves))
        if api("/api/game?" + q)["over"]:
            return moves
        moves.append(api("/api/play?player=random&seed=3&" + q)["pit"])
    raise AssertionError("the random match did not end")


def finished_round():
    wait(lambda: body("analysed") == "true" and driver.find_element(By.ID, "finished-round").is_displayed(), "the finished round's values")
    return {"rows": rows("finished"), "summary": text("finished-summary"), "line": text("finished-line"), "event": text("event")}


report = {}

# A round's end: the panel keeps the finished round's last position (the values of its moves,
# the move played, the perfect line) while it analyses the next round's start.
open_state("pits_per_row=5&seeds_per_pit=3&final_four=sower&first=north&moves=4,0,4,2&south=human&north=human")
report["round_end"] = finished_round()
report["round_end"]["current"] = rows("analysis")
# The match's end: the last round's last position stays shown.
match = finished_match("pits_per_row=5&seeds_per_pit=3")
report["match_moves"] = match
open_state("pits_per_row=5&seeds_per_pit=3&first=south&moves=" + ",".join(map(str, match)) + "&south=human&north=human")
report["match_end"] = finished_round()

# Every text's colour against its background, WCAG's contrast ratio: 4.5 at least, 3 for large
# text (24 px, or 18.66 px bold). The background: the nearest ancestor's that is not
# transparent, the page's white at the root; a drawing's text, the shape painted under it.
CONTRAST = r"""
const rgba = function (c) { const m = (c || '').match(/rgba?\(([^)]+)\)/); if (!m) return null;
  const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(parseFloat); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
const over = function (top, under) { const a = top[3]; return [0, 1, 2].map(function (i) { return top[i] * a + under[i] * (1 - a); }).concat([1]); };
const lum = function (c) { const f = function (v) { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
const ratio = function (a, b) { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
const htmlBackground = function (el) {
  const layers = [];
  for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
    const c = rgba(getComputedStyle(e).backgroundColor);
    if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
  }
  let bg = [255, 255, 255, 1];
  for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
  return bg;
};
const svgBackground = function (el) {
  const r = el.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
  const under = document.elementsFromPoint(x, y).filter(function (e) { return e !== el && !(e.tagName === 'text' || e.tagName === 'tspan'); });
  for (const e of under) {
    if (e instanceof SVGElement && !(e instanceof SVGSVGElement) && !(e instanceof SVGGElement)) {
      const f = rgba(getComputedStyle(e).fill);
      if (f && f[3] > 0 && parseFloat(getComputedStyle(e).fillOpacity) > 0) return over(f, htmlBackground(el.ownerSVGElement));
    } else if (!(e instanceof SVGElement)) { return htmlBackground(e); }
  }
  return htmlBackground(el.ownerSVGElement);
};
const shown = function (el) {
  const s = getComputedStyle(el), r = el.getBoundingClientRect();
  return s.visibility === 'visible' && s.display !== 'none' && r.width > 0 && r.height > 0 && !el.closest('[hidden]') && parseFloat(s.opacity) > 0;
};
const out = [];
let checked = 0;
document.querySelectorAll('body *').forEach(function (el) {
  const own = Array.from(el.childNodes).some(function (n) { return n.nodeType === 3 && n.textContent.trim(); });
  // Fields that show their value as text (a range or a check box shows none).
  const field = (/^(SELECT|TEXTAREA|BUTTON)$/.test(el.tagName) || (el.tagName === 'INPUT' && /^(text|number|search)$/.test(el.type)))
    && !el.disabled && (el.value || el.textContent).trim();
  if (!(own || field) || !shown(el) || /^(SCRIPT|STYLE|OPTION)$/.test(el.tagName)) return;
  const s = getComputedStyle(el), svg = el instanceof SVGElement;
  let fg = rgba(svg ? s.fill : s.color);
  if (!fg) return;
  const bg = svg ? svgBackground(el) : htmlBackground(el);
  fg = over(fg, bg);
  const scale = svg && el.getScreenCTM() ? Math.hypot(el.getScreenCTM().a, el.getScreenCTM().b) : 1;
  const px = parseFloat(s.fontSize) * scale, bold = parseInt(s.fontWeight, 10) >= 700;
  const large = px >= 24 || (bold && px >= 18.66);
  const need = large ? 3 : 4.5, got = ratio(fg, bg);
  checked++;
  if (got < need) out.push({ element: el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.getAttribute('class') ? '.' + el.getAttribute('class') : ''),
    text: (el.value || el.textContent).trim().slice(0, 40), colour: s.color, fill: s.fill, background: 'rgb(' + bg.slice(0, 3).map(Math.round).join(',') + ')', ratio: Math.round(got * 100) / 100, needs: need });
});
return { checked: checked, failing: out };
"""
report["contrast"] = {}
for size, (width, height, mobile) in SIZES.items():
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
    for name, fragment in [
        ("round-end", "pits_per_row=5&seeds_per_pit=3&final_four=sower&first=north&moves=4,0,4,2&south=human&north=human"),
        ("analysed", "pits_per_row=3&seeds_per_pit=3&first=north&moves=0,1&south=human&north=human"),
    ]:
        open_state(fragment)
        wait(lambda: body("analysed") == "true", "the analysis")
        wait(lambda: driver.find_elements(By.CSS_SELECTOR, "#board g.line-arrow") or name == "round-end", "the line's arrows")
        report["contrast"][size + "-" + name] = driver.execute_script(CONTRAST)
driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
report["console_errors"] = console_errors()

# A board whose round takes seconds to solve: the page says how long before it starts, shows a
# search player's evaluation meanwhile (labelled an estimate), then the exact values.
BIG = "pits_per_row=6&seeds_per_pit=4"
open_state(BIG + "&first=south&moves=&south=human&north=human&round_only=1")
wait(lambda: driver.find_element(By.ID, "analysis-wait").is_displayed() and text("analysis-wait"), "the words on the wait")
report["wait_words"] = text("analysis-wait")
seen = wait(lambda: body("estimated") and {"caption": text("analysis-caption"), "source": body("analysis-source"), "rows": rows("analysis")}, "the estimate meanwhile", 60)
report["estimate_shown"] = seen
report["estimated"] = json.loads(body("estimated"))
wait(lambda: body("analysed") == "true", "the exact values", 300)
report["exact"] = {"source": body("analysis-source"), "rows": rows("analysis"), "caption": text("analysis-caption"), "wait_shown": driver.find_element(By.ID, "analysis-wait").is_displayed()}
report["evaluate"] = api("/api/evaluate?rule=pits_per_row=6&rule=seeds_per_pit=4&first=south&player=minimax:4")
report["estimate_after"] = api("/api/estimate?rule=pits_per_row=6&rule=seeds_per_pit=4&first=south&match=false")

# A person playing faster than the analysis (the match values of 6x4 take a minute): each move
# supersedes the streams of the last, which are closed; the page and the server hold at most a
# few at once.
open_state(BIG + "&first=south&moves=&south=human&north=human")
samples = []
for _ in range(16):
    ply = body("ply")
    wait(lambda: driver.find_elements(By.CSS_SELECTOR, '#board g[data-playable="true"]') or body("over"), "a playable pit")
    if body("over"):
        break
    # The match values' stream open, or the round values' being solved, when the move is made.
    wait(lambda: body("analysed-round") == "true" or int(body("streams") or 0) > 0, "the analysis under way")
    pit = driver.find_elements(By.CSS_SELECTOR, '#board g[data-playable="true"]')[0]
    driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", pit)
    wait(lambda: ready() and body("ply") != ply, "the move after ply " + ply)
    samples.append({"ply": body("ply"), "page": int(body("streams") or 0), "server": api("/api/status")["streams"]})
page_max = int(body("streams-max") or 0)
driver.find_element(By.ID, "analysis-cancel").click() if driver.find_element(By.ID, "analysis-progress").is_displayed() else None
wait(lambda: api("/api/status")["streams"] == 0 and not api("/api/status")["running"], "the streams closed and their work stopped", 30)
report["streams"] = {"samples": samples, "page_max": page_max, "after": api("/api/status")}
report["console_errors"] += console_errors()
driver.quit()
print(json.dumps(report))
