"""The API tour notebook (docs/notebooks/api_tour.ipynb) runs top to bottom, and is committed without outputs.

It runs with nbclient in a ``python3`` kernel (ipykernel; jupyter_client starts it with this interpreter), from a
temporary copy, so the tracked notebook is never rewritten.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "docs" / "notebooks" / "api_tour.ipynb"
CELL_TIMEOUT_S = 120
"""Per cell [s]: the slowest cell (the export, with a 500-draw stress run) takes a few seconds."""


def _text(cell: nbformat.NotebookNode) -> str:
    """Everything a code cell printed or showed as text."""
    parts = []
    for out in cell.get("outputs", []):
        parts.append(out.get("text", ""))
        parts.append(out.get("data", {}).get("text/plain", ""))
    return "".join(parts)


def test_the_committed_notebook_is_clean() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code, "the tour has code cells"
    assert all(cell.outputs == [] and cell.execution_count is None for cell in code), "clear the outputs"
    assert nb.metadata["kernelspec"]["name"] == "python3"


@pytest.mark.timeout(300)
def test_the_notebook_runs_top_to_bottom(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = NOTEBOOK.read_bytes()
    copy = tmp_path / NOTEBOOK.name
    shutil.copy(NOTEBOOK, copy)
    nb = nbformat.read(copy, as_version=4)
    # the kernel imports this checkout's neoplan, and keeps IPython's and Jupyter's files out of home and the repo
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    client = NotebookClient(
        nb, timeout=CELL_TIMEOUT_S, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # a cell that raises fails the test with its traceback (CellExecutionError)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert all(cell.execution_count for cell in code)
    shown = "\n".join(_text(cell) for cell in code)
    assert "256400.0" in shown  # the optimized node, as the README says
    assert ".xlsx" in shown and "_report.html" in shown  # the export wrote its files
    charts = [out for cell in code for out in cell.outputs if "application/vnd.plotly.v1+json" in out.get("data", {})]
    assert len(charts) == 4  # the IRR curve, the tornado, the grid and the Sankey, as plotly figures
    assert NOTEBOOK.read_bytes() == before
    nbformat.write(nb, tmp_path / "executed.ipynb")  # the executed copy stays a valid notebook
    nbformat.validate(nbformat.read(tmp_path / "executed.ipynb", as_version=4))
