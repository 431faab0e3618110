"""The example notebook (docs/first-ten-minutes.ipynb) runs, cell by cell, and what each
cell ends with displays itself in HTML (``_repr_html_``: tables, figures embedded as PNG).
The cells run in this process, as a kernel would run them in order in one namespace;
what Jupyter would show of a cell is its last expression's ``_repr_html_``."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from conftest import REPO

NOTEBOOK = REPO / "docs" / "first-ten-minutes.ipynb"


def _run_cell(source: str, ns: dict[str, object], name: str) -> object:
    """Execute a cell; return the value of its last expression (None if it ends otherwise)."""
    tree = ast.parse(source, name)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, name, "exec"), ns)
    return None if last is None else eval(compile(ast.Expression(last.value), name, "eval"), ns)


def test_the_notebook_runs_and_every_result_displays_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    nb = json.loads(NOTEBOOK.read_text())
    assert nb["nbformat"] == 4
    ns: dict[str, object] = {"__name__": "__notebook__"}
    shown: list[str] = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        assert not cell["outputs"], "the notebook is kept without outputs (they are PNG-heavy)"
        value = _run_cell("".join(cell["source"]), ns, f"{NOTEBOOK.name}, cell {i}")
        assert value is not None and hasattr(value, "_repr_html_"), f"cell {i} ends with {type(value).__name__}, which has no HTML display"
        html = value._repr_html_()  # type: ignore[attr-defined]
        assert html.startswith("<") and "<table" in html
        shown.append(type(value).__name__ + ":" + str(html.count("<img")))
    # a trace (run-length CCDFs), a model (tables), two TCP runs (cwnd), the report (its 4 figures)
    assert shown == ["Trace:1", "GilbertElliottModel:0", "SimResult:1", "SimResult:1", "LinkReport:4"], shown


def test_displays_escape_what_they_show() -> None:
    from burstlab.notebook import table

    h = table(["name <x>", "value"], [["<script>", 1.5]])
    assert "<script>" not in h and "&lt;script&gt;" in h and "name &lt;x&gt;" in h
