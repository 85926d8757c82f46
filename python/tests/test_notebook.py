"""The example notebook runs from top to bottom (its cells assert the quickstart's figures)."""

import pathlib

import nbformat
from nbclient import NotebookClient

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def test_the_quickstart_notebook_executes(tmp_path):
    nb = nbformat.read(EXAMPLES / "quickstart.ipynb", as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "first player" in outputs and "winner:" in outputs and "best moves" in outputs
    png = tmp_path / "first_player_win_rate.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
