"""Imports without hidden cycles (issue 28): burstlab's modules import at module top, except
where deferring an import saves a command something it does not use; and no two modules import
each other, at the top or inside a function.

The rule is ruff's ``PLC0415`` (import-outside-toplevel) with an allow-list, checked here on the
syntax tree so that CI needs no linter. A function-level import is allowed when it defers:

1. a library in :data:`DEFERRED` (numpy, matplotlib, duckdb, ... and three standard modules
   used only by parallel runs, worker processes or many replicates), anywhere;
2. a burstlab module that brings such a library which the importing module does not already
   load (e.g. ``burstlab.linklayer``, numpy, from ``burstlab.sim.links``);
3. in a command module (``burstlab.cli.*``, all of which ``burstlab --help`` loads to list the
   commands), a burstlab module that ``burstlab --help`` does not load: the command's own work,
   imported when the command runs;
4. ``burstlab.notebook`` inside a ``_repr_html_`` method: a notebook's display only;
5. a module of the same cycle, for the cycles listed in :data:`KNOWN_CYCLES` (to be solved:
   listed, not hidden).

Anything else is a defect this test names (module, line, statement): move it to the top. A
cycle that the top would turn into an import error is a design problem to solve (shared code
into its own module), not a reason to hide the import in a function. ``benchmarks/startup.py``
measures what the commands pay.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

PKG = REPO / "python" / "burstlab"

#: Libraries that may be imported inside a function (deferred on purpose), with why.
DEFERRED = {
    **dict.fromkeys(("numpy", "scipy", "matplotlib", "duckdb", "pyarrow", "sklearn", "dask", "distributed", "hmmlearn",
                     "rich", "pandas"), "heavy: tens of ms to import (tests/test_startup.py keeps them out of plain commands)"),  # fmt: skip
    **dict.fromkeys(("pooch", "requests", "platformdirs"), "only for fetching a dataset"),
    "click": "the command line only: the library (burstlab.sim, ...) does not need it",
    "multiprocessing": "process pools: only a parallel run",
    "concurrent": "thread pools: only a parallel fetch",
    "ctypes": "the parent-death signal of a worker process (burstlab._lifetime)",
    "hashlib": "OpenSSL's bindings (2 ms): only a run hashes its configuration",
    "statistics": "the normal quantile for many replicates only (2 ms: fractions, decimal)",
}

#: Import cycles that exist and are not solved yet, each with where it is tied. The test fails
#: on any other cycle, and when one of these is gone (then remove it here).
KNOWN_CYCLES: dict[frozenset[str], str] = {}


def _modname(f: Path) -> str:
    parts = list(f.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


FILES = {_modname(f): f for f in sorted(PKG.rglob("*.py"))}
PACKAGES = {m for m, f in FILES.items() if f.name == "__init__.py"}


class Imp:
    """One import statement: where, what it loads (burstlab modules, other roots), in which function."""

    def __init__(self, module: str, node: ast.Import | ast.ImportFrom, func: str | None) -> None:
        self.module, self.line, self.func, self.text = module, node.lineno, func, ast.unparse(node)
        self.internal: list[str] = []
        self.external: list[str] = []
        if isinstance(node, ast.Import):
            for a in node.names:
                root = a.name.split(".")[0]
                if root == "burstlab":
                    self.internal.append(a.name)
                else:
                    self.external.append(root)
            return
        if node.level:
            base = module if module in PACKAGES else module.rsplit(".", 1)[0]
            for _ in range(node.level - 1):
                base = base.rsplit(".", 1)[0]
            mod = base + ("." + node.module if node.module else "")
        else:
            mod = node.module or ""
        if mod.split(".")[0] != "burstlab":
            self.external.append(mod.split(".")[0])
            return
        for a in node.names:  # `from burstlab.sim import presets` loads the submodule
            sub = f"{mod}.{a.name}"
            self.internal.append(sub if sub in FILES or sub == "burstlab._core" else mod)


def _imports(module: str) -> list[Imp]:
    out: list[Imp] = []

    def visit(node: ast.AST, func: str | None) -> None:
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(ch, ch.name)
            elif isinstance(ch, ast.Lambda):
                visit(ch, "<lambda>")
            elif isinstance(ch, ast.If) and "TYPE_CHECKING" in ast.unparse(ch.test):
                continue  # for the type checker only: never run
            elif isinstance(ch, (ast.Import, ast.ImportFrom)):
                out.append(Imp(module, ch, func))
            else:
                visit(ch, func)

    visit(ast.parse(FILES[module].read_text(encoding="utf-8")), None)
    return out


IMPORTS = {m: _imports(m) for m in FILES}


def _loaded_at_top(module: str) -> set[str]:
    """The burstlab modules importing ``module`` loads (its top-level imports, transitively,
    with the packages above each)."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        m = todo.pop()
        if m in seen or m not in FILES:
            continue
        seen.add(m)
        parts = m.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]
        todo += [t for i in IMPORTS[m] if i.func is None for t in i.internal]
    return seen


def _deferred_libraries(module: str) -> set[str]:
    """The :data:`DEFERRED` libraries that importing ``module`` loads."""
    return {r for m in _loaded_at_top(module) for i in IMPORTS[m] if i.func is None for r in i.external if r in DEFERRED}


@pytest.fixture(scope="module")
def help_modules() -> set[str]:
    """The burstlab modules ``burstlab --help`` loads (measured, in a fresh interpreter)."""
    code = ("import contextlib, io, sys\nfrom burstlab.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n    main(['--help'])\n"
            "print(' '.join(m for m in sys.modules if m.startswith('burstlab')))")  # fmt: skip
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert r.returncode == 0, r.stderr
    return set(r.stdout.split())


def why_deferred(imp: Imp, help_modules: set[str]) -> str | None:
    """Why this function-level import may stay in its function (rules 1-4), or None."""
    if imp.external:
        return DEFERRED.get(imp.external[0])
    own = _deferred_libraries(imp.module)
    for target in imp.internal:
        if any({imp.module, target} <= cycle for cycle in KNOWN_CYCLES):
            return f"the known cycle of {imp.module} and {target}"
        if target == "burstlab.notebook" and imp.func == "_repr_html_":
            return "a notebook's display only"
        if target in FILES and (more := _deferred_libraries(target) - own):
            return f"{target} loads {', '.join(sorted(more))}"
        if imp.module.startswith("burstlab.cli") and target in FILES and target not in help_modules:
            return f"{target}: the command's own work (burstlab --help does not load it)"
    return None


def test_function_level_imports_only_defer_what_costs(help_modules: set[str]) -> None:
    bad = [f"{i.module}:{i.line} (in {i.func}): {i.text}" for m in IMPORTS for i in IMPORTS[m]
           if i.func is not None and why_deferred(i, help_modules) is None]  # fmt: skip
    assert not bad, "imports to move to the module's top:\n" + "\n".join(bad)


def _import_graph() -> dict[str, set[str]]:
    """Every burstlab module -> the burstlab modules it imports, top or function-level."""
    return {m: {t for i in IMPORTS[m] for t in i.internal if t in FILES and t != m} for m in FILES}


def _cycles(graph: dict[str, set[str]] | None = None) -> list[frozenset[str]]:
    """The strongly connected components (more than one module) of ``graph`` (default: the
    package's :func:`_import_graph`), by Tarjan's algorithm."""
    graph = _import_graph() if graph is None else graph
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(frozenset(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles_but_the_known_ones() -> None:
    found = _cycles()
    new = [sorted(c) for c in found if c not in KNOWN_CYCLES]
    assert not new, f"import cycles (through top-level or function-level imports): {new}"
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in found]
    assert not gone, f"cycles solved: remove them from KNOWN_CYCLES: {gone}"


def test_the_checks_see_what_they_should() -> None:
    """The analysis itself: a deferred heavy import is recognised, a plain one is not, and a
    cycle hidden in a function is found."""
    plain = next(i for i in IMPORTS["burstlab.sim.links"] if i.func is None and "burstlab.sim.config" in i.internal)
    assert plain.func is None
    assert "numpy" in _deferred_libraries("burstlab.linklayer")
    assert "numpy" not in _deferred_libraries("burstlab.sim")  # a simulation does not load numpy
    fake = Imp("burstlab.sim.links", ast.parse("from burstlab.sim.config import TcpConfig").body[0], "f")  # type: ignore[arg-type]
    assert why_deferred(fake, set()) is None
    heavy = Imp("burstlab.sim.links", ast.parse("from burstlab.linklayer import Arq").body[0], "f")  # type: ignore[arg-type]
    assert why_deferred(heavy, set()) == "burstlab.linklayer loads numpy"
    # a cycle through a function-level import is an edge like any other
    hidden = _import_graph()
    hidden["burstlab.models"] = hidden["burstlab.models"] | {"burstlab.judge"}  # models -> judge -> models
    assert any({"burstlab.models", "burstlab.judge"} <= c for c in _cycles(hidden))
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}) == [frozenset("abc")]
