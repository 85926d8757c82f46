#!/usr/bin/env python3
"""What a match under perfect round play can come to, from the rounds' values alone.

    scripts/chain_bounds.py ROUNDS_CSV                     # the real board (7 pits, 7 counters)
    scripts/chain_bounds.py ROUNDS_CSV --pits 3 --seeds 3 --first north --json
    scripts/chain_bounds.py ROUNDS_CSV --next-starter round_winner

`rajapasu solve --perfect-match` plays every round with best moves (R15) and needs every level
of every round it reaches. Its rounds' values say much of the match without them: a round
played perfectly ends with the starter `value` counters ahead, so the holdings after it follow
(R10-R12). What the values do not say is who collects the round's remainder, and so who starts
the next round (R13, `next_starter = collector`): that depends on the moves played. This script
follows every round start the match can reach, with either player starting each round after
the first, and reports the match outcomes some sequence of starters leads to: `first` or
`second` (the player who wins the match, relative to round 1's starter, R14) and `cycle` (a
round start that can recur: the match need not end). Under perfect round play the match
(`solve --perfect-match`, either tie-break) follows one of these paths, provided each of its
rounds ends (a round whose play recurs forever ends the chain as an endless round).

With --next-starter round_winner (R13) the round's winner starts the next round (R11: the
starter when the value is positive, the other player when it is negative, the same starter
after a tied round), so the values decide every round's starter: the script follows the one
path the match takes and its single outcome is the match's under perfect round play. A round's
value does not depend on `next_starter` (R15 values one round), so the same CSV serves both.

ROUNDS_CSV is the rounds.csv of scripts/spill_answers.py, or any CSV with the columns
open_south, open_north, starter (south or north) and value (for the starter). Prints a
Markdown table of the round starts reached, or with --json the same as one JSON object. Exits 2
naming the line and field of a bad row, or the configuration a needed row is missing for.
"""
import argparse
import csv
import json
import sys

SIDES = ("south", "north")


class Bad(Exception):
    pass


def read_values(path, pits):
    """The value of each (open south, open north, starter) of the CSV."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise Bad(f"{path}: cannot be read as CSV: {e}")
    values = {}
    for line, row in enumerate(rows, start=2):
        def number(name, low, high):
            text = row.get(name)
            try:
                n = int(text)
            except (TypeError, ValueError):
                raise Bad(f"{path} line {line}: field '{name}' is {text!r}, not a whole number")
            if not low <= n <= high:
                raise Bad(f"{path} line {line}: field '{name}' is {n}; allowed {low} to {high}")
            return n
        open_ = (number("open_south", 1, pits), number("open_north", 1, pits))
        starter = row.get("starter")
        if starter not in SIDES:
            raise Bad(f"{path} line {line}: field 'starter' is {starter!r}; allowed south, north")
        value = number("value", -10**6, 10**6)
        key = open_ + (starter,)
        if values.get(key, value) != value:
            raise Bad(f"{path} line {line}: open {open_[0]},{open_[1]} {starter} starting "
                      f"has two values, {values[key]} and {value}")
        values[key] = value
    return values


def opened(holdings, pits, seeds):
    """R12: the pits a side fills and the reserve it keeps."""
    filled = min(holdings // seeds, pits)
    return filled, holdings - filled * seeds


class Chain:
    def __init__(self, values, pits, seeds, path, next_starter):
        self.values, self.pits, self.seeds, self.path = values, pits, seeds, path
        self.next_starter = next_starter
        self.total = 2 * pits * seeds

    def winner(self, south):
        """R14: the match's winner at a round start, or None while both can open a pit."""
        if south < self.seeds:
            return "north"
        if self.total - south < self.seeds:
            return "south"
        return None

    def round(self, south, starter):
        """The round from holdings (south, total - south) with `starter` to move first."""
        (open_s, reserve_s), (open_n, reserve_n) = (
            opened(south, self.pits, self.seeds), opened(self.total - south, self.pits, self.seeds))
        value = self.values.get((open_s, open_n, starter))
        if value is None:
            raise Bad(f"{self.path}: no row for open {open_s},{open_n} with {starter} starting "
                      f"(reached from holdings {south},{self.total - south})")
        on_board = (open_s + open_n) * self.seeds
        if abs(value) > on_board or (on_board + value) % 2:
            raise Bad(f"{self.path}: open {open_s},{open_n} {starter} starting: value {value} "
                      f"cannot split the {on_board} counters on the board")
        ahead = value if starter == "south" else -value
        captured = ((on_board + ahead) // 2, (on_board - ahead) // 2)
        return {
            "holdings": [south, self.total - south], "starter": starter,
            "open": [open_s, open_n], "value": value, "captured": list(captured),
            "next_holdings": [reserve_s + captured[0], reserve_n + captured[1]],
        }


def next_starters(chain, played):
    """Who may start the round after `played` (R13): either player when the collector starts
    (who collects is not in the values), the round's winner (R11) otherwise."""
    if chain.next_starter == "collector":
        return list(SIDES)
    starter, value = played["starter"], played["value"]
    return [starter if value >= 0 else SIDES[1 - SIDES.index(starter)]]


def successors(chain, played):
    """The round starts after a round, unless the match is over."""
    if "winner" in played:
        return []
    south = played["next_holdings"][0]
    return [(south, "")] if chain.winner(south) else [(south, s) for s in next_starters(chain, played)]


def explore(chain, first):
    """Every round start reached from round 1, and the outcomes some starters lead to."""
    start = (chain.pits * chain.seeds, first)
    states, order, stack = {}, [], [start]
    while stack:
        state = stack.pop()
        if state in states:
            continue
        south, starter = state
        won = chain.winner(south)
        if won:
            states[state] = {"holdings": [south, chain.total - south], "winner": won}
        else:
            states[state] = chain.round(south, starter)
            stack.extend(reversed(successors(chain, states[state])))
        order.append(state)
    following = {s: successors(chain, r) for s, r in states.items()}

    def reach(s):
        seen, todo = set(), list(following[s])
        while todo:
            t = todo.pop()
            if t not in seen:
                seen.add(t)
                todo.extend(following[t])
        return seen

    on_cycle = {s for s in states if s in reach(s)}
    outcomes = set()
    for s, r in states.items():
        if "winner" in r:
            outcomes.add("first" if r["winner"] == first else "second")
    if on_cycle:
        outcomes.add("cycle")
    for s in on_cycle:
        states[s]["on_cycle"] = True
    return [states[s] for s in sorted(order, key=lambda s: (-s[0], s[1]))], sorted(outcomes)


def verdict(outcomes, next_starter):
    if next_starter == "round_winner":
        return {"first": "the first player wins the match", "second":
                "the second player wins the match",
                "cycle": "the match cycles, a draw (R17)"}[outcomes[0]]
    if outcomes == ["second"]:
        return "the second player wins, whoever collects each round's remainder"
    if outcomes == ["first"]:
        return "the first player wins, whoever collects each round's remainder"
    never = [who for who in ("first", "second") if who not in outcomes]
    said = ", ".join(outcomes)
    if never:
        return f"the {never[0]} player never wins; by who collects each remainder: {said}"
    return f"by who collects each remainder: {said}"


def markdown(rows, outcomes, first, next_starter):
    later = ("either player" if next_starter == "collector"
             else "the round's winner (next_starter = round_winner)")
    out = [f"round 1: {first} starts; each later round started by {later} (R13)", "",
           "| holdings S,N | starter | open S,N | value | captured S,N | holdings after | "
           "can recur |", "|---|---|---|---:|---|---|---|"]
    for r in rows:
        h = "{},{}".format(*r["holdings"])
        if "winner" in r:
            out.append(f"| {h} | | | | | {r['winner']} wins the match (R14) | |")
            continue
        out.append("| {} | {} | {},{} | {:+d} | {},{} | {},{} | {} |".format(
            h, r["starter"], *r["open"], r["value"], *r["captured"], *r["next_holdings"],
            "yes" if r.get("on_cycle") else ""))
    out += ["", f"outcomes: {', '.join(outcomes)}: {verdict(outcomes, next_starter)}, "
            "if every round ends"]
    return "\n".join(out)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("rounds_csv")
    p.add_argument("--pits", type=int, default=7, help="pits a row (2 to 9)")
    p.add_argument("--seeds", type=int, default=7, help="counters a pit (1 to 12)")
    p.add_argument("--first", default="south", help="round 1's starter: south or north")
    p.add_argument("--next-starter", default="collector",
                   help="R13: collector (either player may start) or round_winner")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    try:
        if not 2 <= args.pits <= 9:
            raise Bad(f"--pits is {args.pits}; allowed 2 to 9")
        if not 1 <= args.seeds <= 12:
            raise Bad(f"--seeds is {args.seeds}; allowed 1 to 12")
        if args.first not in SIDES:
            raise Bad(f"--first is {args.first!r}; allowed south, north")
        if args.next_starter not in ("collector", "round_winner"):
            raise Bad(f"--next-starter is {args.next_starter!r}; allowed collector, round_winner")
        chain = Chain(read_values(args.rounds_csv, args.pits), args.pits, args.seeds,
                      args.rounds_csv, args.next_starter)
        rows, outcomes = explore(chain, args.first)
    except Bad as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"first": args.first, "next_starter": args.next_starter,
                          "outcomes": outcomes, "verdict": verdict(outcomes, args.next_starter),
                          "round_starts": rows}, sort_keys=True))
    else:
        print(markdown(rows, outcomes, args.first, args.next_starter))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
