"""Every command quoted in README.md and docs/*.md exists as written: each ``burstlab``
subcommand and option is one the CLI defines, each ``cargo test`` filter matches a Rust
test, each ``cargo bench`` names a declared benchmark, and each ``python benchmarks/X.py``
script exists with the flags the docs give it. (Running the long ones is the docs' job;
this keeps the text from drifting away from the code.)"""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path

import click
import pytest

from burstlab.cli import cli
from conftest import REPO

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), REPO / "benchmarks" / "README.md"]
STARTS = ("burstlab ", "cargo ", "python ")


def _commands(text: str) -> list[str]:
    """Command lines in fenced blocks (with ``\\`` continuations joined, ``$`` prompts and
    trailing comments removed) and in inline code spans, split at ``&&``."""
    found: list[str] = []
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.S | re.M)
    for block in blocks:
        for line in block.replace("\\\n", " ").splitlines():
            found.append(line)
    prose = re.sub(r"^```[^\n]*\n.*?^```", "", text, flags=re.S | re.M)
    found += re.findall(r"`([^`\n]+)`", prose)
    out = []
    for cmd in found:
        for part in cmd.split("&&"):
            part = part.strip()
            part = part[2:] if part.startswith("$ ") else part
            part = re.sub(r"\s+#.*$", "", part)
            if part.startswith(STARTS):
                out.append(part)
    return out


def _all_commands() -> list[tuple[str, str]]:
    return [(p.relative_to(REPO).as_posix(), c) for p in DOCS if p.exists() for c in _commands(p.read_text())]


COMMANDS = _all_commands()


def _flags(cmd: str) -> list[str]:
    return re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-z])(?![\w-])", cmd)


def _check_burstlab(cmd: str) -> None:
    words = shlex.split(cmd.replace("|", " ").replace("[", " ").replace("]", " "))[1:]
    node: click.Command = cli
    path = ["burstlab"]
    for w in words:
        if isinstance(node, click.Group) and w in node.commands:
            node = node.commands[w]
            path.append(w)
        elif w.startswith("-") or not isinstance(node, click.Group):
            break
        else:
            raise AssertionError(f"{' '.join(path)} has no subcommand {w!r}")
    assert not isinstance(node, click.Group), f"{cmd!r} stops at the group {' '.join(path)}"
    known = {"-h", "--help"}
    for p in node.params:
        known.update(getattr(p, "opts", []))
        known.update(getattr(p, "secondary_opts", []))
    for f in _flags(cmd):
        assert f in known, f"{' '.join(path)} has no option {f} (it has {sorted(known)})"


def _rust_test_names() -> set[str]:
    """Every test as cargo's filter sees it: its module path and name (``network::
    dumbbell_rtt_bias``; a file's inline ``mod tests`` adds ``tests::``)."""
    names = set()
    src = REPO / "crates" / "burstlab-core" / "src"
    system = REPO / "crates" / "burstlab-core" / "tests"  # test binaries: tests/NAME/main.rs and its modules
    for f in [*src.rglob("*.rs"), *system.rglob("*.rs")]:
        base = src if f.is_relative_to(src) else f.parents[len(f.relative_to(system).parts) - 2]
        parts = list(f.relative_to(base).with_suffix("").parts)
        if parts[-1] in ("mod", "lib", "main"):
            parts.pop()
        text = f.read_text()
        inner = ["tests"] if re.search(r"^mod tests \{", text, flags=re.M) else []
        for name in re.findall(r"#\[test\]\s*(?:#\[[^\]]*\]\s*)*fn\s+(\w+)", text):
            names.add("::".join([*parts, *inner, name]))
    return names


def _check_cargo(cmd: str) -> None:
    words = shlex.split(cmd.replace("[", " ").replace("]", " "))
    if words[1] == "test":
        head = words[: words.index("--")] if "--" in words else words
        tests = [head[i + 1] for i, w in enumerate(head) if w == "--test"]
        for t in tests:
            assert (REPO / "crates" / "burstlab-core" / "tests" / t / "main.rs").exists(), f"no test binary {t}"
        filters = [w for w in head[2:] if not w.startswith("-") and w not in ("burstlab-core", *tests)]
        assert "-p" in head and head[head.index("-p") + 1] == "burstlab-core", cmd
        names = _rust_test_names()
        for flt in filters:
            assert any(flt in n for n in names), f"no Rust test matches the filter {flt!r}"
    elif words[1] == "bench":
        name = words[words.index("--bench") + 1]
        if name.isupper():  # a placeholder (benchmarks/README.md: --bench NAME)
            return
        toml = (REPO / "benchmarks" / "rust" / "Cargo.toml").read_text()
        assert f'name = "{name}"' in toml, f"no [[bench]] {name} in benchmarks/rust/Cargo.toml"
        assert (REPO / "benchmarks" / "rust" / "benches" / f"{name}.rs").exists()
    else:
        raise AssertionError(f"unexpected cargo command {cmd!r}")


def _check_python(cmd: str) -> None:
    words = shlex.split(cmd.replace("[", " ").replace("]", " "))
    if words[1] == "-m":
        mod = words[2]
        if mod == "pytest":
            return
        assert importlib.util.find_spec(mod) is not None, f"no module {mod}"
        return
    if Path(words[1]).stem.isupper():  # a placeholder (benchmarks/NAME.py)
        return
    script = REPO / words[1]
    assert script.exists(), f"{words[1]} does not exist"
    src = script.read_text()
    for f in _flags(cmd):
        assert f'"{f}"' in src, f"{words[1]} defines no option {f}"


def test_docs_quote_commands() -> None:
    kinds = {c.split()[0] for _, c in COMMANDS}
    assert {"burstlab", "cargo", "python"} <= kinds, kinds
    assert ("README.md", "burstlab study prr-mu") in COMMANDS


@pytest.mark.parametrize(("doc", "cmd"), COMMANDS, ids=[f"{d}:{c[:60]}" for d, c in COMMANDS])
def test_quoted_command_exists(doc: str, cmd: str) -> None:
    if cmd.startswith("burstlab "):
        _check_burstlab(cmd)
    elif cmd.startswith("cargo "):
        _check_cargo(cmd)
    else:
        _check_python(cmd)


def test_checker_catches_drift() -> None:
    """The checks above can fail: a misspelt option, subcommand, filter or script is caught."""
    for bad, check in (
        ("burstlab sim --tcp reno --bogus-flag", _check_burstlab),
        ("burstlab simulate --tcp reno", _check_burstlab),
        ("burstlab study", _check_burstlab),
        ("cargo test -p burstlab-core --release no_such_test_name", _check_cargo),
        ("cargo bench -p burstlab-bench --bench nope", _check_cargo),
        ("python benchmarks/nope.py", _check_python),
        ("python benchmarks/sim_speed.py --warp", _check_python),
    ):
        with pytest.raises(AssertionError):
            check(bad)


def test_readme_opens_with_the_two_commands_and_ci_runs_the_second_verbatim() -> None:
    """Issue 2: the README's first lines give exactly two commands (install + main job,
    install + every test); ``.ci/run`` runs the test command verbatim."""
    first_block = re.search(r"^```[^\n]*\n(.*?)^```", (REPO / "README.md").read_text(), flags=re.S | re.M)
    assert first_block is not None
    lines = [ln for ln in first_block.group(1).splitlines() if ln.strip()]
    assert lines == ["pip install . && burstlab study prr-mu", 'pip install ".[test]" && cargo test -p burstlab-core --profile checked && python -m pytest -q']
    ci = [ln.strip() for ln in (REPO / ".ci" / "run").read_text().splitlines()]
    assert lines[1] in ci


# ----------------------------------------------------------------------------------------
# Docs that run (issue 32): every Python and TOML block is executed, and every shell line
# marked runnable — a ``$ `` prompt — is run, its output compared with the lines the doc
# shows under it. Blocks of one page share one scratch folder, in page order, so a page can
# build on its earlier steps (docs/first-ten-minutes.md). A shown output matches when each
# shown line equals the printed one up to runs of spaces; a line ``...`` stands for any
# number of printed lines, and a shown line ending in ``...`` for any line it begins.
# ----------------------------------------------------------------------------------------
ELLIPSIS = "..."


def _blocks(text: str) -> list[tuple[str, str]]:
    return [(m.group(1).strip(), m.group(2)) for m in re.finditer(r"^```([^\n]*)\n(.*?)^```", text, flags=re.S | re.M)]


def _runnable(block: str) -> list[tuple[str, list[str]]]:
    """``$ `` lines of a block, each with the output lines shown under it (comments after
    ``  # `` on the command line dropped)."""
    out: list[tuple[str, list[str]]] = []
    for line in block.replace("\\\n", " ").splitlines():
        if line.startswith("$ "):
            out.append((re.sub(r"\s+#.*$", "", line[2:]).strip(), []))
        elif out:
            out[-1][1].append(line)
    return out


def _norm(line: str) -> str:
    return " ".join(line.split())


def _output_matches(shown: list[str], printed: list[str]) -> bool:
    want = [_norm(x) for x in shown]
    while want and not want[-1]:
        want.pop()
    got = [_norm(x) for x in printed]
    while got and not got[-1]:
        got.pop()

    def match(i: int, j: int) -> bool:
        if i == len(want):
            return j == len(got)
        if want[i] == ELLIPSIS:
            return any(match(i + 1, k) for k in range(j, len(got) + 1))
        if j == len(got):
            return False
        w = want[i]
        ok = got[j].startswith(w[: -len(ELLIPSIS)].rstrip()) if w.endswith(ELLIPSIS) else got[j] == w
        return ok and match(i + 1, j + 1)

    return match(0, 0)


def test_output_comparison_can_fail() -> None:
    assert _output_matches(["a  b", "...", "z"], ["a b", "x", "y", "z", ""])
    assert _output_matches(["p = 0.6 ..."], ["p = 0.6 (PRR = 0.4)"])
    assert not _output_matches(["a", "z"], ["a", "x", "z"])
    assert not _output_matches(["a"], ["b"])
    assert not _output_matches(["a", "b"], ["a"])
    assert _runnable("$ burstlab stats --demo   # the demo\nout 1\n\n$ burstlab x\n") == [("burstlab stats --demo", ["out 1", ""]), ("burstlab x", [])]


def _run_shell(cmd: str, cwd: Path, capsys: pytest.CaptureFixture[str], refused: bool = False) -> list[str]:
    """Run one documented command: ``burstlab ...`` in this process (click's ``main``, as
    the installed script), ``python X.py`` with this interpreter; its stdout's lines. A
    ``burstlab`` command the page shows refused (its output an ``error:`` line) must exit 2,
    and its stderr is what is compared."""
    from burstlab.cli import main

    words = shlex.split(cmd)
    if words[0] == "burstlab":
        capsys.readouterr()
        rc = main(words[1:])
        cap = capsys.readouterr()
        if refused:
            assert rc == 2, f"{cmd!r} exited {rc}, the page shows it refused: {cap.err[-2000:]}"
            return cap.err.splitlines()
        assert rc == 0, f"{cmd!r} exited {rc}: {cap.err[-2000:]}"
        return cap.out.splitlines()
    assert words[0] == "python", f"a runnable doc line must be a burstlab or python command: {cmd!r}"
    import subprocess
    import sys

    r = subprocess.run([sys.executable, *words[1:]], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"{cmd!r} exited {r.returncode}: {r.stderr[-2000:]}"
    return r.stdout.splitlines()


def _run_toml(text: str, where: str, cwd: Path) -> None:
    """A TOML block is a scenario file: loaded (every key checked, lines named) and run for
    two seconds of simulated time. Trace files it names come from the shared data
    (``BURSTLAB_SHARED``) when the page does not make them."""
    import dataclasses
    import os
    import tomllib

    from burstlab.sim import load_scenario, run_network

    doc = tomllib.loads(text)
    for hop in doc.get("hop", []):
        for link in (hop, hop.get("reverse", {})):
            cap = link.get("capacity")
            if cap and not (cwd / cap).exists():
                shared = Path(os.environ.get("BURSTLAB_SHARED", "/nonexistent")) / "data" / "mahimahi-cellular" / cap
                if not shared.exists():
                    pytest.skip(f"{where}: {cap} is in the shared data (BURSTLAB_SHARED)")
                (cwd / cap).symlink_to(shared)
    f = cwd / "block.toml"
    f.write_text(text)
    net = load_scenario(str(f))
    r = run_network(dataclasses.replace(net, duration=2.0))
    assert len(r.flows) == len(net.flows) >= 1 and r.aggregate_goodput_bps > 0, where  # (was test_network's check of simulator.md)


def _pages_with_examples() -> list[Path]:
    return [p for p in DOCS if p.exists() and any(lang in ("python", "toml") or _runnable(b) for lang, b in _blocks(p.read_text()))]


@pytest.mark.parametrize("page", _pages_with_examples(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_doc_page_runs(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Every Python block runs, every TOML block loads and runs as a scenario file, every
    ``$`` line runs and prints what the page shows under it — in page order, in one scratch
    folder per page."""
    import warnings

    monkeypatch.chdir(tmp_path)
    doc = page.relative_to(REPO).as_posix()
    for n, (lang, block) in enumerate(_blocks(page.read_text()), 1):
        where = f"{doc}, code block {n}"
        if lang == "python":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # a page may show a warning on purpose
                exec(compile(block, where, "exec"), {"__name__": "__docs__"})
        elif lang == "toml":
            _run_toml(block, where, tmp_path)
        for cmd, shown in _runnable(block):
            printed = _run_shell(cmd, tmp_path, capsys, refused=bool(shown) and shown[0].startswith("error: "))
            if any(s.strip() for s in shown):
                assert _output_matches(shown, printed), f"{where}: `{cmd}` printed\n" + "\n".join(printed) + "\n\nthe page shows\n" + "\n".join(shown)
