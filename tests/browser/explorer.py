"""The explorer page as a person meets it, in headless Chromium driven by WebDriver (selenium).

Run by tests/cli/serve_explorer.rs as `python explorer.py ADDRESS OUT_DIR`: the board inside the
viewport at a laptop's and a phone's size, the rules explained, take back against an engine, the
board at a round's end, the set-up refilled from its address, the line's arrows, the engine
moving while an analysis runs, a match played with the keyboard alone, the record's summary. It
asserts what the page alone can tell and prints one JSON object of what it read for the Rust
test to compare with the commands' own answers. Screenshots go to OUT_DIR.
"""

import json
import sys
import time
import urllib.parse
import urllib.request

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from page import SIZES, Page

ADDRESS, OUT = sys.argv[1], sys.argv[2]
# A board whose matches end (R14) within a newcomer's patience.
BOARD = "pits_per_row=5&seeds_per_pit=3"


page = Page(ADDRESS)
driver = page.driver
wait, body, ready, open_state, text, api, console_errors, viewport = (
    page.wait, page.body, page.ready, page.open_state, page.text, page.api, page.console_errors,
    page.viewport)


def rect(element):
    return driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom];", element)


def board_parts():
    """The rectangles of both rows (their pits) and both reserves, read at once."""
    return driver.execute_script(
        "const box = function (els) { const r = els.map(function (e) { return e.getBoundingClientRect(); });"
        " return [Math.min.apply(null, r.map(function (b) { return b.left; })), Math.min.apply(null, r.map(function (b) { return b.top; })),"
        " Math.max.apply(null, r.map(function (b) { return b.right; })), Math.max.apply(null, r.map(function (b) { return b.bottom; }))]; };"
        "const pits = Array.from(document.querySelectorAll('#board g[data-pit]:not(.line-arrow)')), half = pits.length / 2;"
        "return { south_row: box(pits.slice(0, half)), north_row: box(pits.slice(half)),"
        " south_reserve: box([document.querySelector('#board g[data-reserve=south]')]), north_reserve: box([document.querySelector('#board g[data-reserve=north]')]) };"
    )


def inside_viewport(what):
    """Asserts the board's rows and reserves are inside the viewport, unscrolled."""
    width, height = driver.execute_script("return [window.innerWidth, window.innerHeight];")
    assert driver.execute_script("return window.scrollY;") == 0
    parts = board_parts()
    for name, (left, top, right, bottom) in parts.items():
        assert left >= 0 and top >= 0 and right <= width and bottom <= height, "%s: %s at %s outside %dx%d" % (what, name, parts[name], width, height)
    return parts


def finished_match(fragment_rules):
    """A whole match between two random players, as its moves, played through the API."""
    moves = []
    rules = "&".join("rule=" + urllib.parse.quote(r) for r in fragment_rules.split("&"))
    for _ in range(5000):
        q = rules + "&first=south&moves=" + ",".join(map(str, moves))
        if api("/api/game?" + q)["over"]:
            return moves
        moves.append(api("/api/play?player=random&seed=3&" + q)["pit"])
    raise AssertionError("the random match did not end")


report = {"layout": {}}

# The board inside the viewport at both sizes: at the start, mid-match and after the match.
match = finished_match(BOARD)
report["match_moves"] = match
states = {
    "start": BOARD + "&first=south&moves=&south=human&north=human",
    "mid": BOARD + "&first=south&moves=" + ",".join(map(str, match[: len(match) // 2])) + "&south=human&north=human",
    "end": BOARD + "&first=south&moves=" + ",".join(map(str, match)) + "&south=human&north=human",
    "real-board": "first=south&moves=&south=human&north=human&round_only=1",
}
for size in SIZES:
    viewport(size)
    for state, fragment in states.items():
        open_state(fragment)
        report["layout"][size + "-" + state] = inside_viewport(size + " " + state)
        if state == "end":
            report["end_words"] = text("event")
            report["end_status"] = text("status")
    # The screenshot: a few moves into the match, with the analysis and its line of play.
    games = [(k, api("/api/game?rule=pits_per_row=5&rule=seeds_per_pit=3&moves=" + ",".join(map(str, match[:k])))) for k in range(2, 40)]
    opening = next(k for k, g in games if g["to_move"] == "south" and len(g["legal"]) >= 3 and not g["over"])
    open_state(BOARD + "&first=south&moves=" + ",".join(map(str, match[:opening])) + "&south=human&north=perfect:match")
    wait(lambda: body("analysed") == "true", "the analysis")
    report["layout"][size + "-analysed"] = inside_viewport(size + " analysed")
    driver.save_screenshot(OUT + "/explorer-" + size + ".png")
    # On a phone the panels are below the board, not beside it.
    panels = rect(driver.find_element(By.CSS_SELECTOR, ".panels"))
    board = rect(driver.find_element(By.ID, "board"))
    report["layout"][size + "-panels-below"] = panels[1] >= board[3]
assert "The match is over" in report["end_words"], report["end_words"]
viewport("laptop")

# The rules explained, from the engine's declarations; the reading named, with its findings.
open_state(BOARD + "&first=south&moves=&south=human&north=human")
rules = api("/api/rules")
report["explains"] = {s["name"]: text(s["name"] + "-explains") for s in rules["switches"]}
report["reading_default"] = driver.find_element(By.ID, "reading-name").text
open_state(BOARD + "&final_four=stays&first=south&moves=&south=human&north=human")
report["reading_stays"] = driver.find_element(By.ID, "reading-name").text
findings = driver.find_element(By.ID, "reading-name").get_attribute("href")
report["findings_head"] = urllib.request.urlopen(findings).read().decode()[:80]
open_state(BOARD + "&skip_origin=true&pussa_chain=true&first=south&moves=&south=human&north=human")
report["reading_unnamed"] = text("reading")

# D2: take back against an engine stays taken back until the person lets the engine move.
open_state(BOARD + "&first=north&moves=&south=human&north=random&skip=1")
wait(lambda: ready() and body("ply") == "1", "the engine's first move")
driver.find_element(By.ID, "take-back").click()
wait(lambda: ready() and body("ply") == "0", "the take-back")
# Long enough for the engine's move to have come back, had it been asked for.
time.sleep(2)
report["taken_back_ply"] = body("ply")
assert driver.find_element(By.ID, "engine-move").is_displayed()
driver.find_element(By.ID, "engine-move").click()
wait(lambda: ready() and body("ply") == "1", "the engine's move when asked")

# D3: at a round's end the board shows the next round's start, the state the status names.
open_state("pits_per_row=5&seeds_per_pit=3&final_four=sower&first=north&moves=4,0,4,2&south=human&north=perfect:round")
pits = driver.find_elements(By.CSS_SELECTOR, "#board g[data-pit]:not(.line-arrow)")
report["round_end"] = {
    "status": text("status"),
    "words": text("event"),
    "board": [int(p.get_attribute("data-count")) for p in pits],
    "closed": ["closed" in p.get_attribute("class") for p in pits],
    "reserve": [int(driver.find_element(By.CSS_SELECTOR, '#board g[data-reserve="%s"]' % s).get_attribute("data-count")) for s in ["south", "north"]],
    "playable": [int(p.get_attribute("data-pit")) for p in pits if p.get_attribute("data-playable") == "true"],
}

# D6: a set-up reopened from its address refills the set-up fields.
open_state("pits_per_row=3&seeds_per_pit=2&position=0,3,2,1,0,2&reserve=2,2&to_move=north&moves=&south=human&north=human")
report["setup_refilled"] = {
    "board": driver.find_element(By.ID, "setup-kind-board").is_selected(),
    "position": driver.find_element(By.ID, "setup-position").get_attribute("value"),
    "reserve": driver.find_element(By.ID, "setup-reserve").get_attribute("value"),
    "to_move": driver.find_element(By.ID, "setup-to-move").get_attribute("value"),
}
open_state("pits_per_row=3&seeds_per_pit=2&holdings=7,5&first=north&moves=&south=human&north=human")
report["setup_refilled"]["holdings"] = driver.find_element(By.ID, "setup-holdings").get_attribute("value")

# D6: the perfect line's arrows on both sides: step numbers inside the board's drawing, clear
# of the reserves, no two arrows from one place.
open_state("pits_per_row=3&seeds_per_pit=3&first=north&moves=0,1&south=human&north=human")
wait(lambda: driver.find_elements(By.CSS_SELECTOR, "#board g.line-arrow"), "the line's arrows")
svg = rect(driver.find_element(By.CSS_SELECTOR, "#board svg"))
boxes = [rect(driver.find_element(By.CSS_SELECTOR, '#board g[data-reserve="%s"] rect' % s)) for s in ["south", "north"]]
arrows = []
for a in driver.find_elements(By.CSS_SELECTOR, "#board g.line-arrow"):
    number = rect(a.find_element(By.TAG_NAME, "text"))
    whole = rect(a)
    clear = all(whole[2] <= b[0] or whole[0] >= b[2] or whole[3] <= b[1] or whole[1] >= b[3] for b in boxes)
    shown = number[0] >= svg[0] and number[1] >= svg[1] and number[2] <= svg[2] and number[3] <= svg[3]
    arrows.append({"step": a.get_attribute("data-step"), "clear": clear, "number_shown": shown, "at": [round(whole[0]), round(whole[1])]})
report["arrows"] = arrows

# D1: an engine seat moves while the real board's first analysis is still being solved; the
# cancelled analysis can be asked for again.
open_state("first=south&moves=&south=random&north=human&skip=1")
wait(lambda: body("ply") == "1", "the engine's first move on the real board", 30)
report["engine_moved_while_analysing"] = body("analysed") != "true"
wait(lambda: driver.find_element(By.ID, "analysis-progress").is_displayed(), "the solve's progress")
# Meanwhile, the search players' evaluations.
wait(lambda: driver.find_element(By.ID, "evaluate-offer").is_displayed(), "the search players offered while the solve runs")
driver.find_element(By.CSS_SELECTOR, '.evaluate[data-player="minimax:6"]').click()
wait(lambda: driver.find_elements(By.CSS_SELECTOR, "#evaluation tbody tr"), "minimax's evaluation")
legal = api("/api/game?moves=" + driver.find_element(By.ID, "moves").get_attribute("value"))["legal"]
report["evaluation_meanwhile"] = {"rows": len(driver.find_elements(By.CSS_SELECTOR, "#evaluation tbody tr")), "legal": len(legal), "analysed": body("analysed")}
driver.find_element(By.ID, "analysis-cancel").click()
wait(lambda: driver.find_element(By.ID, "analysis-again").is_displayed(), "the offer to analyse again")
driver.find_element(By.ID, "analysis-again").click()
wait(lambda: driver.find_element(By.ID, "analysis-progress").is_displayed(), "the analysis asked again")
driver.find_element(By.ID, "analysis-cancel").click()
cancelled = time.time()
wait(lambda: not api("/api/status")["running"], "the server's work to stop after the cancel", 30)
report["stopped_after_cancel_seconds"] = time.time() - cancelled
# A page closed while its analysis runs stops the server's work too.
open_state("first=south&moves=&south=human&north=human")
wait(lambda: driver.find_element(By.ID, "analysis-progress").is_displayed(), "the solve's progress")
before = api("/api/status")
driver.get("about:blank")
closed = time.time()
wait(lambda: not api("/api/status")["running"], "the server's work to stop after the page closed", 30)
report["stopped_after_close_seconds"] = time.time() - closed
after = api("/api/status")
# The jobs that ended are those that ran: none was started again as the page went.
report["jobs_after_close"] = {
    "ran": len(before["running"]) + before["waiting"],
    "ended": after["finished"] + after["cancelled"] - before["finished"] - before["cancelled"],
}

# D1: the round values asked first (match=false), then the match values; "round values only"
# asks for the round values alone.
def analyse_requests():
    names = driver.execute_script("return performance.getEntriesByType('resource').map(function (e) { return e.name; });")
    return [n.split("&match=")[1] for n in names if "/api/analyse?" in n]


open_state("pits_per_row=3&seeds_per_pit=3&first=north&moves=0,1&south=human&north=human")
wait(lambda: body("analysed") == "true", "the analysis")
report["stages"] = {"asked": analyse_requests(), "match": [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#analysis td.match")]}
open_state("pits_per_row=3&seeds_per_pit=3&first=north&moves=0,1&south=human&north=human&round_only=1")
wait(lambda: body("analysed") == "true", "the round values only")
report["round_only"] = {"asked": analyse_requests(), "match": [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#analysis td.match")]}

# The console so far; the refusal below is a 400 the browser logs as an error, by design.
report["console_errors"] = console_errors()

# D5: from a set-up position its round's start does not reach, perfect:round plays (its round
# solved from the position) and perfect:match says plainly why it cannot.
SET_UP = "pits_per_row=4&seeds_per_pit=4&position=x,5,3,0,2,6,4,1&reserve=7,4&to_move=south&moves=&south=human&skip=1"
open_state(SET_UP + "&north=perfect:round")
driver.find_element(By.CSS_SELECTOR, '#board g[data-pit="1"]').click()
wait(lambda: ready() and body("ply") == "2" or text("message"), "perfect:round's move from the set-up", 120)
report["set_up_round"] = {"ply": body("ply"), "message": text("message"), "moves": driver.find_element(By.ID, "moves").get_attribute("value")}
open_state(SET_UP + "&north=perfect:match")
wait(lambda: text("message"), "the page's word on perfect:match before the game starts", 120)
report["set_up_match_before"] = {"message": text("message"), "ply": body("ply")}
driver.find_element(By.CSS_SELECTOR, '#board g[data-pit="1"]').click()
wait(lambda: text("message").startswith("player:"), "perfect:match's answer from the set-up", 120)
report["set_up_match"] = text("message")
console_errors()

# Keyboard and reading: every pit focusable and labelled, every control labelled, and a whole
# match played with the keyboard alone (Tab to a playable pit, Enter).
open_state("pits_per_row=3&seeds_per_pit=2&first=south&moves=&south=human&north=random&seed=2&skip=1")
pits = driver.execute_script(
    "return Array.from(document.querySelectorAll('#board g[data-pit]:not(.line-arrow)')).map(function (g) { return [g.getAttribute('aria-label'), g.tabIndex]; });"
)
report["pit_labels"] = [p[0] for p in pits]
report["focusable_pits"] = all(p[1] == 0 for p in pits)
report["unlabelled_controls"] = driver.execute_script(
    "return Array.from(document.querySelectorAll('button, select, input, textarea')).filter(function (e) {"
    " return !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.getAttribute('aria-labelledby') && !(e.tagName === 'BUTTON' && e.textContent.trim()); })"
    ".map(function (e) { return e.id || e.outerHTML.slice(0, 60); });"
)
keys = 0
for _ in range(400):
    if body("over"):
        break
    ply = body("ply")
    for _ in range(80):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        keys += 1
        if driver.execute_script("return document.activeElement.getAttribute('data-playable') === 'true';"):
            break
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    wait(lambda: ready() and (body("ply") != ply or body("over")), "the keyboard's move after ply " + ply)
report["keyboard_match"] = {"over": body("over"), "moves": driver.find_element(By.ID, "moves").get_attribute("value"), "keys": keys}

# The record checker's summary: what the record settles and what it leaves open.
open_state("pits_per_row=3&seeds_per_pit=2&first=south&moves=&south=human&north=human")
record = "first: south\nrules: pits_per_row=3 seeds_per_pit=2\n1. 2 board=3,3,0,0,3,0 reserve=3,0\n2. 1 captures=8,0\n"
driver.find_element(By.ID, "record").send_keys(record)
driver.find_element(By.ID, "record-check").click()
wait(lambda: len(driver.find_elements(By.CSS_SELECTOR, "#readings li")) == 48, "the readings")
report["settles"] = {li.get_attribute("data-switch"): li.get_attribute("data-settled") for li in driver.find_elements(By.CSS_SELECTOR, "#record-settles li")}
report["console_errors"] += console_errors()
driver.quit()
print(json.dumps(report))
