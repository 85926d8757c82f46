"""A dataset's datapackage.json (Frictionless Data Package v2) passes frictionless-py's
validation, row by row against its table schemas, at every detail level, in CSV and in
Parquet; a changed or removed part file makes both `frictionless validate` and
`rajapasu verify` fail; the committed samples' descriptors validate."""

import json
import shutil

import pytest
from frictionless import validate

import rajapasu
from conftest import ROOT, cli

DETAILS = ["match", "round", "move", "lap"]


def errors(report):
    return report.flatten(["type", "note"])


def small(out, detail, fmt, matches=6, batch_size=None):
    rajapasu.simulate_to(out, matches=matches, seed=3, south="random", north="greedy", detail=detail, format=fmt,
                         rules={"pits_per_row": 4, "seeds_per_pit": 3}, threads=1, batch_size=batch_size)  # fmt: skip
    return out / "datapackage.json"


@pytest.mark.parametrize("detail", DETAILS)
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_the_descriptor_validates_row_by_row(tmp_path, detail, fmt):
    descriptor = small(tmp_path / "d", detail, fmt)
    report = validate(str(descriptor))
    assert report.valid, errors(report)
    package = json.loads(descriptor.read_text())
    tables = [r["name"] for r in package["resources"]]
    assert tables[:2] == ["matches", "histograms"] and ("laps" in tables) == (detail == "lap")
    # Every row was read and checked: the matches resource has the manifest's row count.
    task = next(t for t in report.tasks if t.name == "matches")
    assert task.stats["rows"] == 6


def test_part_files_of_a_table_are_one_resource_each_file_with_its_size_and_hash(tmp_path):
    descriptor = small(tmp_path / "d", "move", "both", matches=7, batch_size=3)
    package = json.loads(descriptor.read_text())
    by_name = {r["name"]: r for r in package["resources"]}
    assert set(by_name) >= {"moves", "moves-csv", "matches", "matches-csv"}
    moves = by_name["moves-csv"]
    assert len(moves["path"]) == 3 and moves["path"] == [p["path"] for p in moves["parts"]]
    for part in moves["parts"]:
        data = (tmp_path / "d" / part["path"]).read_bytes()
        import hashlib

        assert part["bytes"] == len(data) and part["hash"] == "sha256:" + hashlib.sha256(data).hexdigest()
    assert moves["schema"]["primaryKey"] == ["match_id", "ply"]
    assert moves["schema"]["foreignKeys"] == [{"fields": ["match_id"], "reference": {"resource": "matches-csv", "fields": ["match_id"]}}]
    assert package["rajapasu"]["seed"] == 3 and package["rajapasu"]["rules"]["pits_per_row"] == 4
    assert package["licenses"][0]["name"] == "CC-BY-4.0" and "rules hash" in package["citation"]
    # The CSV resources of several files are read and checked whole (the row counts add up).
    report = validate(str(descriptor))
    assert report.valid, errors(report)
    rows = json.loads((tmp_path / "d" / "manifest.json").read_text())["rows"]
    task = next(t for t in report.tasks if t.name == "moves-csv")
    assert task.stats["rows"] == rows["moves"]


def test_a_freshly_written_dataset_of_the_command_line_validates(tmp_path):
    out = tmp_path / "cli"
    cli("simulate", "--matches", "20", "--seed", "7", "--north", "greedy", "--detail", "round", "--out", out, "--quiet")
    report = validate(str(out / "datapackage.json"))
    assert report.valid, errors(report)
    cli("verify", out)


def damage(path, how):
    if how == "removed":
        path.unlink()
    elif how == "changed":
        data = bytearray(path.read_bytes())
        # A digit of the last row: the file stays well-formed, only its bytes differ.
        i = max(i for i, b in enumerate(data[:-1]) if chr(b).isdigit())
        data[i] = ord("1") if data[i] != ord("1") else ord("2")
        path.write_bytes(bytes(data))
    else:
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


@pytest.mark.parametrize(
    "fmt,how", [("csv", "changed"), ("csv", "removed"), ("csv", "truncated"), ("parquet", "removed"), ("parquet", "truncated")]
)
def test_a_damaged_part_file_fails_both_validations(tmp_path, fmt, how):
    out = tmp_path / "d"
    small(out, "round", fmt)
    part = next((out / "rounds").glob(f"part-*.{fmt}"))
    damage(part, how)
    report = validate(str(out / "datapackage.json"))
    assert not report.valid
    types = {e[0] for e in errors(report)}
    if fmt == "csv" and how == "changed":
        assert "hash-count" in types, types
    done = cli("verify", out, check=False)
    assert done.returncode == 2 and part.name in done.stdout, done.stdout


def test_verify_reports_a_descriptor_that_disagrees_with_the_files(tmp_path):
    out = tmp_path / "d"
    descriptor = small(out, "match", "csv")
    package = json.loads(descriptor.read_text())
    package["resources"][0]["parts"][0]["hash"] = "sha256:" + "0" * 64
    descriptor.write_text(json.dumps(package))
    done = cli("verify", out, check=False)
    assert done.returncode == 2
    assert "datapackage.json" in done.stdout and "resources[0].hash" not in done.stdout
    assert "resources[0].parts[0].hash" in done.stdout, done.stdout


def committed_datasets():
    return sorted(p.parent for p in (ROOT / "data").rglob("manifest.json"))


@pytest.mark.parametrize("dataset", committed_datasets(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_descriptor_of_every_committed_sample_validates(tmp_path, dataset):
    if not (dataset / "datapackage.json").exists():
        pytest.skip(f"{dataset.relative_to(ROOT)} has no datapackage.json yet (written when the sample is regenerated)")
    copy = tmp_path / dataset.name
    shutil.copytree(dataset, copy)
    report = validate(str(copy / "datapackage.json"))
    assert report.valid, errors(report)
    cli("verify", copy)


def test_a_study_descriptor_validates_every_arm_row_by_row(tmp_path):
    experiment = tmp_path / "small.toml"
    experiment.write_text(
        'name = "small"\n[defaults]\nmatches = 5\nseed = 4\ndetail = "round"\nformat = "both"\n'
        'rules = { pits_per_row = 3, seeds_per_pit = 2 }\n'
        '[[arms]]\nname = "random"\nsouth = "random"\nnorth = "random"\n'
        '[[arms]]\nname = "greedy"\nsouth = "greedy"\nnorth = "random"\n'
    )
    cli("run", experiment, "--out-root", tmp_path, "--quiet")
    descriptor = tmp_path / "small" / "datapackage.json"
    package = json.loads(descriptor.read_text())
    names = [r["name"] for r in package["resources"]]
    assert "random-matches" in names and "greedy-rounds-csv" in names
    report = validate(str(descriptor))
    assert report.valid, errors(report)
