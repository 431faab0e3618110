"""What produced a study's numbers: the exact command, burstlab's version and engine
fingerprint, the git commit of the code (if it runs from a git work tree), the platform,
the versions of every dependency, every input file with its size and SHA-256, the data
folder resolved, and the seeds. Written to ``provenance.json``, the results store's
``provenance`` table, ``summary.json`` and the report, whose "Reproduce" line gives the
command that reruns the study exactly, or says what it cannot pin.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shlex
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from burstlab import _core
from burstlab._core import __version__
from burstlab._util import json_safe

#: The environment variable that names an offline copy of the registered datasets
#: (``burstlab.datasets``): what the "Reproduce" line sets to read the same copy.
DATA_ENV = "BURSTLAB_DATA"


def dataset_record(name: str) -> dict[str, Any]:
    """A registered dataset as provenance records it: where its copy was found (the one
    place this is decided: :func:`burstlab.datasets.fetch.locate`), its origin, commit,
    licence and citation."""
    from burstlab.datasets.fetch import locate

    return locate(name).provenance()


def file_record(path: str | Path) -> dict[str, Any]:
    """A file as provenance records it: resolved path, size in bytes, SHA-256."""
    p = Path(path).resolve()
    h = hashlib.sha256()
    with p.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return {"path": str(p), "bytes": p.stat().st_size, "sha256": h.hexdigest()}


def inputs_digest(records: Sequence[Mapping[str, Any]]) -> str:
    """One SHA-256 over every input's (path, size, SHA-256): equal digests, equal inputs."""
    text = json.dumps([[r["path"], r["bytes"], r["sha256"]] for r in records], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def command_line() -> str | None:
    """The command this process runs, as typed (``burstlab …``), or None when burstlab was
    called from Python (a script, a notebook, the tests)."""
    name = Path(sys.argv[0]).name if sys.argv else ""
    if name in ("burstlab", "burstlab.exe") or (name == "__main__.py" and "burstlab" in sys.argv[0]):
        return shlex.join(["burstlab", *sys.argv[1:]])
    return None


def git_commit() -> dict[str, Any] | None:
    """The commit of the git work tree burstlab runs from, and whether it has uncommitted
    changes (None outside a work tree, or without git)."""
    here = Path(__file__).resolve().parent
    try:
        run = lambda *a: subprocess.run(["git", "-C", str(here), *a], capture_output=True, text=True, timeout=10)  # noqa: E731
        head = run("rev-parse", "HEAD")
        if head.returncode != 0:
            return None
        dirty = run("status", "--porcelain", "--untracked-files=normal", "--", str(here.parent))
        return {"commit": head.stdout.strip(), "dirty": bool(dirty.stdout.strip())}
    except (OSError, subprocess.SubprocessError):
        return None


def dependency_versions() -> dict[str, str]:
    """The installed version of every dependency burstlab declares (and Python's)."""
    out = {"python": platform.python_version()}
    try:
        reqs = metadata.requires("burstlab") or []
    except metadata.PackageNotFoundError:
        reqs = []
    for r in reqs:
        if "extra ==" in r:
            continue
        name = re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0]
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def collect(study: str, *, seeds: Mapping[str, Any], inputs: Iterable[str | Path] = (), dataset: str | None = None,
            settings: Mapping[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    """Everything that determines a study's numbers besides its configuration (recorded
    beside it): ``inputs`` are hashed; ``dataset``: the registered dataset the study read
    (:func:`dataset_record`), whose folder's parent is the data folder."""
    from burstlab.store import results_version

    recs = sorted((file_record(p) for p in inputs), key=lambda r: r["path"])
    ds = dataset_record(dataset) if dataset else None
    return {
        "study": study,
        "command": command_line(),
        "argv": list(sys.argv),
        "burstlab_version": __version__,
        "engine_fingerprint": _core.ENGINE_FINGERPRINT,
        "results_version": results_version(),
        "git": git_commit(),
        "platform": {"system": platform.system(), "release": platform.release(), "machine": platform.machine(), "python": sys.version.split()[0],
                     "implementation": platform.python_implementation()},  # fmt: skip
        "dependencies": dependency_versions(),
        "dataset": ds,
        "data_folder": str(Path(ds["folder"]).parent) if ds else None,
        "data_env": {DATA_ENV: os.environ.get(DATA_ENV), "BURSTLAB_SHARED": os.environ.get("BURSTLAB_SHARED")},
        "inputs": recs,
        "inputs_sha256": inputs_digest(recs) if recs else None,
        "seeds": dict(seeds),
        "settings": dict(settings or {}),
    }


def cell_study(study: str, cfg: Any, unit: str = "runs") -> dict[str, Any]:
    """Provenance of a study of keyed cells (error-models, tibet): no input file; its seeds
    (replicate k's seed derives from the study seed and k alone, the same in every cell)."""
    return collect(study, seeds={"study seed": cfg.seed, f"{unit} per cell": cfg.seeds, "per sensitivity point": cfg.sweep_seeds,
                                 "replicate k": f"task_seed(study seed, '{study}', 'replicate', k)"})  # fmt: skip


def reproduce(prov: Mapping[str, Any], args: Sequence[str], out: str | Path) -> tuple[str, list[str]]:
    """The command that reruns the study with the same configuration and inputs, and what
    it cannot pin (each a sentence)."""
    env = f"{DATA_ENV}={shlex.quote(prov['data_folder'])} " if prov.get("data_folder") else ""
    line = env + shlex.join(["burstlab", "study", prov["study"], *args, "--out", str(out)])
    cannot = [f"the code — burstlab {prov['burstlab_version']}, engine {prov['engine_fingerprint']}, results version {prov['results_version']} "
              "(another version recomputes every simulation)"]  # fmt: skip
    g = prov.get("git")
    if g:
        cannot[0] += f", git commit {g['commit'][:12]}" + (" with uncommitted changes, which no command restores" if g["dirty"] else "")
    else:
        cannot[0] += ", not run from a git work tree (no commit pins the source)"
    if prov.get("inputs"):
        cannot.append(f"the input files are re-read from their paths: compare them with the {len(prov['inputs'])} SHA-256 sums in `provenance.json` "
                      f"(all together: {prov['inputs_sha256'][:16]}…)")  # fmt: skip
    elif prov.get("data_folder"):
        cannot.append(f"the data folder {prov['data_folder']} is re-read")
    return line, cannot


def blocks(prov: Mapping[str, Any], args: Sequence[str], out: str | Path) -> list[tuple[str, Any]]:
    """The report's "Provenance" and "Reproduce" sections."""
    g = prov.get("git")
    rows = [
        ["command", f"`{prov['command']}`" if prov.get("command") else "called from Python (no command line)"],
        ["burstlab", f"{prov['burstlab_version']} (engine {prov['engine_fingerprint']}, results version {prov['results_version']})"],
        ["git", "–" if not g else g["commit"] + (" (uncommitted changes)" if g["dirty"] else "")],
        ["platform", f"{prov['platform']['system']} {prov['platform']['release']} {prov['platform']['machine']}, {prov['platform']['implementation']} {prov['platform']['python']}"],
        ["dependencies", ", ".join(f"{k} {v}" for k, v in prov["dependencies"].items())],
        ["data folder", prov["data_folder"] or "none read"],
        ["inputs", f"{len(prov['inputs'])} files, {sum(r['bytes'] for r in prov['inputs']):,} bytes, SHA-256 of all: {prov['inputs_sha256']}" if prov["inputs"] else "none"],
        ["seeds", ", ".join(f"{k} {v}" for k, v in prov["seeds"].items())],
    ]  # fmt: skip
    line, cannot = reproduce(prov, args, out)
    return [("h2", "Provenance"), ("table", (["what", "value"], rows)),
            ("p", "Every input file with its size and SHA-256: [`provenance.json`](provenance.json) (also the store's `provenance` table)."),
            ("h2", "Reproduce"), ("p", f"`{line}`"),
            ("p", "Re-running skips every finished simulation. What this line cannot pin: " + "; ".join(cannot) + ".")]  # fmt: skip


def write(out: Path, prov: Mapping[str, Any], store: Any | None = None) -> None:
    """``provenance.json`` (atomically) and, with a results store, its ``provenance`` table
    (one row: the JSON)."""
    from burstlab.io import atomic_write_text

    text = json.dumps(json_safe(dict(prov)), indent=2, allow_nan=False, default=str)
    atomic_write_text(Path(out) / "provenance.json", text)
    if store is not None:
        con = store.connection
        con.execute("BEGIN TRANSACTION")
        con.execute('CREATE OR REPLACE TABLE "provenance" (json VARCHAR)')
        con.execute('INSERT INTO "provenance" VALUES (?)', [text])
        con.execute("COMMIT")
