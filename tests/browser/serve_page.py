"""The explorer page of `rajapasu serve` in headless Chromium, driven by WebDriver (selenium).

Run by tests/cli/serve_page.rs as `python serve_page.py ADDRESS OUT_DIR`: it plays, takes
back, reopens addresses, sets up positions and checks a record on the page, asserts what the
page alone can tell, and prints one JSON object of what it read for the Rust test to compare
with the commands' own answers. Screenshots go to OUT_DIR.
"""

import base64
import json
import os
import sys
import time

from selenium.webdriver.common.by import By

from page import Page

ADDRESS, OUT = sys.argv[1], sys.argv[2]
SMALL = "pits_per_row=3&seeds_per_pit=2"


page = Page(ADDRESS)
driver = page.driver
wait, body, ready, open_state, text = page.wait, page.body, page.ready, page.open_state, page.text


def value(element_id):
    return driver.find_element(By.ID, element_id).get_attribute("value")


def click_pit():
    """Clicks the first pit the human to move may play; False when there is none."""
    pits = driver.find_elements(By.CSS_SELECTOR, '#board g[data-playable="true"]')
    if not pits:
        return False
    driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", pits[0])
    return True


def play_to_the_end(fragment, limit=400):
    """Plays the match of `fragment` to its end, the human seats clicking their first legal pit."""
    open_state(fragment)
    for _ in range(limit):
        if body("over"):
            return body("over")
        ply = body("ply")
        click_pit()
        # Under a loaded machine an engine's move can queue behind the analysis' jobs; a stall
        # names what the page said.
        wait(lambda: ready() and (body("ply") != ply or body("over")),
             lambda: "the next move after ply %s (status %r, message %r, ready %r)" % (ply, text("status"), text("message"), body("ready")),
             seconds=120)
    raise AssertionError("the match did not end within %d moves" % limit)


def save_dataset(name):
    """Saves the download of the page's dataset link (shown once the match is over) as OUT/NAME."""
    link = driver.find_element(By.ID, "export-dataset")
    assert link.is_displayed(), "the dataset link is hidden at the match's end"
    data = driver.execute_async_script(
        "const done = arguments[arguments.length - 1]; fetch(arguments[0]).then(function (r) { return r.arrayBuffer(); })"
        ".then(function (b) { let s = ''; new Uint8Array(b).forEach(function (c) { s += String.fromCharCode(c); }); done(btoa(s)); });",
        link.get_attribute("href"),
    )
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(base64.b64decode(data))


def analysis_rows():
    """The analysis table: each move's pit, values and marks."""
    return [
        {
            "pit": int(r.find_element(By.CLASS_NAME, "pit").text),
            "round": int(r.find_element(By.CLASS_NAME, "round").text),
            "match": r.find_element(By.CLASS_NAME, "match").text,
            "best_round": "best-round" in r.get_attribute("class"),
            "best_match": "best-match" in r.get_attribute("class"),
        }
        for r in driver.find_elements(By.CSS_SELECTOR, "#analysis tbody tr")
    ]


report = {}
started = time.time()
open_state(SMALL + "&first=south&moves=&south=human&north=random")
report["page_ready_seconds"] = time.time() - started
assert "Round 1, ply 0: south to move (human)" in text("status"), text("status")

# A match against random, and one of perfect:match (South, who starts a won match) against random.
# Seed 2: with seed 1 this human (always the first legal pit) and random repeat one-move rounds
# until max_rounds (R14), a thousand rounds.
report["against_random"] = play_to_the_end(SMALL + "&first=south&moves=&south=human&north=random&seed=2&skip=1")
save_dataset("against_random.tar")
report["perfect_against_random"] = play_to_the_end(SMALL + "&first=south&moves=&south=perfect:match&north=random&skip=1")
save_dataset("perfect_against_random.tar")
assert report["perfect_against_random"] == "south", report
report["perfect_north"] = play_to_the_end("pits_per_row=4&seeds_per_pit=2&first=north&moves=&south=random&north=perfect:match&skip=1")
assert report["perfect_north"] == "north", report

# Take back, forward, and an address that reopens the same state.
open_state("pits_per_row=4&seeds_per_pit=3&first=south&moves=&south=human&north=human")
for _ in range(4):
    ply = body("ply")
    assert click_pit()
    wait(lambda: ready() and body("ply") != ply, "a human move")
moves = value("moves")
assert len(moves.split(",")) == 4, moves
driver.find_element(By.ID, "take-back").click()
wait(lambda: ready() and body("ply") == "3", "the take-back")
assert value("moves") == ",".join(moves.split(",")[:3]), value("moves")
driver.find_element(By.ID, "forward").click()
wait(lambda: ready() and body("ply") == "4", "the move forward again")
assert value("moves") == moves
address = driver.current_url
status = text("status")
driver.save_screenshot(OUT + "/serve.png")
driver.get("about:blank")
driver.get(address)
wait(ready, "the reopened address")
assert value("moves") == moves and text("status") == status, (value("moves"), text("status"))
report["reopened"] = {"moves": moves, "status": status}

# The analysis on the page, to compare with `analyse --json`, and its line as arrows.
open_state("pits_per_row=3&seeds_per_pit=3&first=north&moves=0,1&south=human&north=human")
wait(lambda: body("analysed") == "true", "the analysis")
wait(lambda: driver.find_elements(By.CSS_SELECTOR, "#board g.line-arrow"), "the line's arrows")
arrows = driver.find_elements(By.CSS_SELECTOR, "#board g.line-arrow")
report["arrows"] = [a.get_attribute("data-pit") for a in sorted(arrows, key=lambda a: int(a.get_attribute("data-step")))]
report["line"] = text("analysis-line")
report["analysis"] = analysis_rows()
assert report["analysis"], "no analysis rows"

# The real board's first solve shows its progress and is cancelled from the page.
open_state("first=south&moves=&south=human&north=human")
wait(lambda: driver.find_element(By.ID, "analysis-progress").is_displayed(), "the solve's progress")
report["progress"] = text("analysis-progress-text")
driver.save_screenshot(OUT + "/serve-progress.png")
driver.find_element(By.ID, "analysis-cancel").click()
wait(lambda: "cancelled" in text("analysis-note"), "the cancelled analysis")
report["cancelled_note"] = text("analysis-note")

# A set-up position with the wrong total is refused, naming what is wrong.
open_state(SMALL + "&first=south&moves=&south=human&north=human")
driver.find_element(By.ID, "setup-kind-board").click()
driver.find_element(By.ID, "setup-position").send_keys("2,2,2,2,2,3")
driver.find_element(By.ID, "setup-reserve").send_keys("0,0")
driver.find_element(By.ID, "setup-play").click()
wait(lambda: driver.find_element(By.ID, "setup-message").get_attribute("data-ok"), "the set-up's answer")
assert driver.find_element(By.ID, "setup-message").get_attribute("data-ok") == "false"
report["setup_refused"] = text("setup-message")
assert body("ply") == "0" and value("moves") == "", "a refused set-up leaves the game as it was"

# A round's start set up from the holdings (North starting), analysed, played, and reopened
# from its address.
open_state(SMALL + "&first=north&moves=&south=human&north=human")
driver.find_element(By.ID, "setup-holdings").send_keys("7,5")
driver.find_element(By.ID, "setup-play").click()
wait(lambda: ready() and "set-up" in text("status") and body("analysed") == "true", "the set-up round's start")
assert driver.find_element(By.ID, "setup-message").get_attribute("data-ok") == "true"
report["setup_round"] = {"status": text("status"), "analysis": analysis_rows(), "summary": text("analysis-summary")}
assert click_pit()
wait(lambda: ready() and body("ply") == "1" and body("analysed") == "true", "a move from the set-up")
report["setup_round"]["moves"] = value("moves")
address, status = driver.current_url, text("status")
assert "holdings=7%2C5" in address or "holdings=7,5" in address, address
driver.get("about:blank")
driver.get(address)
wait(ready, "the reopened set-up address")
assert value("moves") == report["setup_round"]["moves"] and text("status") == status, (value("moves"), text("status"), status)

# A position inside a round, set up on the form and played to the match's end against random.
open_state(SMALL + "&first=south&moves=&south=human&north=random&skip=1")
driver.find_element(By.ID, "setup-kind-board").click()
driver.find_element(By.ID, "setup-position").send_keys("0,3,2,1,0,2")
driver.find_element(By.ID, "setup-reserve").send_keys("2,2")
driver.find_element(By.ID, "setup-play").click()
wait(lambda: ready() and "set-up" in text("status"), "the set-up position")
report["setup_board_played"] = play_to_the_end(driver.current_url.split("#", 1)[1])

# The exports of a game: what the page's links download.
open_state("pits_per_row=4&seeds_per_pit=3&first=north&moves=2,0,3&south=human&north=human")
report["exports"] = {}
for name in ["export-moves", "export-trace", "export-show"]:
    href = driver.find_element(By.ID, name).get_attribute("href")
    report["exports"][name] = driver.execute_async_script(
        "const done = arguments[arguments.length - 1]; fetch(arguments[0]).then(function (r) { return r.text(); }).then(done);", href
    )

# Statistics of play: a small run to its end, and a long one cancelled from its progress.
open_state(SMALL + "&first=south&moves=&south=human&north=human")
matches = driver.find_element(By.ID, "stats-matches")
matches.clear()
matches.send_keys("40")
driver.find_element(By.ID, "stats-run").click()
wait(lambda: body("statistics") == "done", "the statistics")
report["statistics_rows"] = len(driver.find_elements(By.CSS_SELECTOR, "#stats tbody tr"))
# North's continuations by mcts:400 keep the long run going well past the Cancel (random alone
# can finish 2,000 matches a move before the click on a fast machine).
open_state("first=south&moves=&south=human&north=mcts:400&skip=1")
wait(lambda: driver.find_element(By.ID, "analysis-progress").is_displayed(), "the solve's progress")
driver.find_element(By.ID, "analysis-cancel").click()
matches = driver.find_element(By.ID, "stats-matches")
matches.clear()
matches.send_keys("2000")
driver.find_element(By.ID, "stats-run").click()
wait(lambda: driver.find_element(By.ID, "stats-progress").is_displayed(), "the statistics' progress")
report["statistics_progress"] = text("stats-progress-text")
driver.find_element(By.ID, "stats-cancel").click()
wait(lambda: body("statistics") == "cancelled", "the cancelled statistics")
report["statistics_note"] = text("stats-note")

# A recorded game marked against the readings.
record = "first: south\nrules: pits_per_row=3 seeds_per_pit=2\n1. 2 board=3,3,0,0,3,0 reserve=3,0\n2. 1 captures=8,0\n"
driver.find_element(By.ID, "record").send_keys(record)
driver.find_element(By.ID, "record-check").click()
wait(lambda: len(driver.find_elements(By.CSS_SELECTOR, "#readings li")) == 48, "the readings")
items = driver.find_elements(By.CSS_SELECTOR, "#readings li")
report["record"] = {
    "consistent": [li.get_attribute("data-hash") for li in items if li.get_attribute("data-consistent") == "true"],
    "summary": text("record-summary"),
}
driver.save_screenshot(OUT + "/serve-record.png")

# A bare move list (no rules line) is checked on the board the page shows, here 4 x 4.
open_state("pits_per_row=4&seeds_per_pit=4")
driver.find_element(By.ID, "record").send_keys("1 1 2 3 0")
driver.find_element(By.ID, "record-check").click()
wait(lambda: len(driver.find_elements(By.CSS_SELECTOR, "#readings li")) == 48, "the readings of the bare move list")
items = driver.find_elements(By.CSS_SELECTOR, "#readings li")
report["bare_record"] = {
    "consistent": [li.get_attribute("data-hash") for li in items if li.get_attribute("data-consistent") == "true"],
    "summary": text("record-summary"),
}
driver.quit()
print(json.dumps(report))
