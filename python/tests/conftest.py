"""Shared helpers: the command-line binary the Python rows are compared with."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "crates" / "rajapasu-core" / "tests" / "data" / "golden"


def binary() -> str:
    path = os.environ.get("RAJAPASU_BIN", str(ROOT / "target" / "release" / "rajapasu"))
    if not os.path.exists(path):
        pytest.fail(f"the rajapasu binary is not at {path}: run `cargo build --release` (or set RAJAPASU_BIN)")
    return path


def cli(*args, check=True):
    """Runs `rajapasu ARGS`; returns the completed process (stdout and stderr as text)."""
    done = subprocess.run([binary(), *map(str, args)], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"rajapasu {' '.join(map(str, args))} failed ({done.returncode}): {done.stderr}")
    return done
