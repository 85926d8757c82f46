#!/usr/bin/env python3
"""The answers of scripts/spill_rounds.sh, a row per configuration and starter, as CSV and Markdown.

    scripts/spill_answers.py DIR                  # DIR: the tables directory of spill_rounds.sh
    scripts/spill_answers.py DIR --out OUT        # also OUT/rounds.csv and OUT/rounds.md

Reads DIR/answers/open-S-N.json (each `rajapasu solve --spill --json`): for every open-pit
configuration and starter, the round's value for the starter (R15, captures ahead at the round's
end under perfect play), its outcome and best moves (local pits, 0 the leftmost), and the round's
positions, moves, disk and solving seconds (the levels' own, summed). With --out, the rows
already in OUT/rounds.csv of configurations DIR has no answer for are kept (answered by an earlier
run or on another machine), and each answer is copied to OUT/answers/, so that OUT keeps the
answers whatever becomes of DIR. Prints the Markdown table; exits 2 naming the file and field when an answer is not what spill_rounds.sh writes, when the
answers are of different rules (their `rules_hash`), when there are none, or when OUT cannot be
written.
"""
import csv
import io
import json
import re
import sys
from pathlib import Path

COLUMNS = [
    "open_south", "open_north", "starter", "value", "outcome", "best_moves", "positions",
    "quiet_moves", "exits", "levels", "disk_bytes", "enumerate_seconds", "solve_seconds",
    "rules_hash",
]


class Bad(Exception):
    pass


def field(answer: dict, name: str, kind, path: Path):
    value = answer.get(name)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise Bad(f"{path}: field '{name}' is {json.dumps(value)}, not {kind.__name__}")
    return value


def rows_of(path: Path):
    """The rows of one answer file."""
    match = re.fullmatch(r"open-(\d+)-(\d+)\.json", path.name)
    if not match:
        raise Bad(f"{path}: not an answer's name (open-S-N.json)")
    try:
        answer = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise Bad(f"{path}: not an answer's JSON: {e}")
    if not isinstance(answer, dict):
        raise Bad(f"{path}: not a JSON object")
    open_ = field(answer, "open", list, path)
    if open_ != [int(match.group(1)), int(match.group(2))]:
        raise Bad(f"{path}: field 'open' is {open_}, not the name's")
    levels = field(answer, "levels", list, path)
    seconds = {"enumerate_seconds": 0.0, "solve_seconds": 0.0}
    for n, level in enumerate(levels):
        if not isinstance(level, dict):
            raise Bad(f"{path}: field 'levels' holds {json.dumps(level)} at {n}, not an object")
        for name in seconds:
            value = level.get(name, 0)
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise Bad(f"{path}: field 'levels[{n}].{name}' is {json.dumps(value)}, not a number")
            seconds[name] += value
    starts = field(answer, "starts", list, path)
    if not starts:
        raise Bad(f"{path}: field 'starts' is empty: the round is not solved")
    for start in starts:
        if not isinstance(start, dict):
            raise Bad(f"{path}: field 'starts' holds {json.dumps(start)}, not an object")
        yield {
            "open_south": open_[0],
            "open_north": open_[1],
            "starter": field(start, "starter", str, path),
            "value": field(start, "value", int, path),
            "outcome": field(start, "outcome", str, path),
            "best_moves": " ".join(str(p) for p in field(start, "best_moves", list, path)),
            "positions": field(answer, "positions", int, path),
            "quiet_moves": field(answer, "quiet_moves", int, path),
            "exits": field(answer, "exits", int, path),
            "levels": len(levels),
            "disk_bytes": field(answer, "disk_bytes", int, path),
            "enumerate_seconds": round(seconds["enumerate_seconds"], 1),
            "solve_seconds": round(seconds["solve_seconds"], 1),
            "rules_hash": field(answer, "rules_hash", str, path),
        }


INTEGERS = {"open_south", "open_north", "value", "positions", "quiet_moves", "exits", "levels",
            "disk_bytes"}
DECIMALS = {"enumerate_seconds", "solve_seconds"}


def kept_rows(csv_path: Path, answered):
    """The rows of an earlier OUT/rounds.csv whose configuration has no answer in DIR."""
    if not csv_path.exists():
        return []
    try:
        reader = csv.DictReader(io.StringIO(csv_path.read_text()))
        if reader.fieldnames != COLUMNS:
            raise Bad(f"{csv_path}: its header is {reader.fieldnames}, not {COLUMNS}")
        rows = []
        for n, row in enumerate(reader, start=2):
            for name in INTEGERS | DECIMALS:
                kind = int if name in INTEGERS else float
                try:
                    row[name] = kind(row[name])
                except (TypeError, ValueError):
                    raise Bad(f"{csv_path}: line {n}, field '{name}' is {row[name]!r}, not {kind.__name__}")
            if (row["open_south"], row["open_north"]) not in answered:
                row["source"] = csv_path
                rows.append(row)
        return rows
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise Bad(f"{csv_path}: not a table of answers: {e}")


def same_rules(rows, answers: Path):
    """Refuses answers of different rules: their rows do not belong in one table."""
    first = {}
    for row in rows:
        name = row.get("source") or answers / f"open-{row['open_south']}-{row['open_north']}.json"
        first.setdefault(row["rules_hash"], name)
    if len(first) > 1:
        (a, file_a), (b, file_b) = list(first.items())[:2]
        raise Bad(f"{file_a} has field 'rules_hash' {a} but {file_b} has {b}:"
                  " answers of different rules")


def markdown(rows) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for row in rows:
        lines.append("| " + " | ".join(str(row[c]) for c in COLUMNS) + " |")
    return "\n".join(lines) + "\n"


def main(argv) -> int:
    if len(argv) not in (2, 4) or len(argv) == 4 and argv[2] != "--out":
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    answers = Path(argv[1]) / "answers"
    if not answers.is_dir():
        print(f"{answers}: no answers directory (scripts/spill_rounds.sh writes it)", file=sys.stderr)
        return 2
    out = Path(argv[3]) if len(argv) == 4 else None
    try:
        files = sorted(answers.glob("open-*.json"))
        rows = [r for p in files for r in rows_of(p)]
        if out is not None and rows:
            answered = {(r["open_south"], r["open_north"]) for r in rows}
            rows += kept_rows(out / "rounds.csv", answered)
        same_rules(rows, answers)
    except Bad as e:
        print(e, file=sys.stderr)
        return 2
    if not rows:
        print(f"no answers in {answers}", file=sys.stderr)
        return 2
    rows.sort(key=lambda r: (-(r["open_south"] + r["open_north"]), -r["open_south"], r["starter"] != "south"))
    table = markdown(rows)
    print(table, end="")
    if out is not None:
        try:
            write_out(out, rows, table, files)
        except OSError as e:
            print(f"{argv[3]}: cannot write the tables there: {e}", file=sys.stderr)
            return 2
    return 0


def write_out(out: Path, rows, table: str, files):
    """OUT/rounds.csv, OUT/rounds.md and OUT/answers/, each written to a temporary name and renamed."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "answers").mkdir(exist_ok=True)
    for path in files:
        copy = out / "answers" / path.name
        if path.resolve() != copy.resolve():
            temporary = copy.with_name(f".{path.name}.tmp")
            temporary.write_bytes(path.read_bytes())
            temporary.replace(copy)
    text = io.StringIO()
    writer = csv.DictWriter(text, COLUMNS, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    for name, content in (("rounds.csv", text.getvalue()), ("rounds.md", table)):
        temporary = out / f".{name}.tmp"
        temporary.write_text(content)
        temporary.replace(out / name)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
