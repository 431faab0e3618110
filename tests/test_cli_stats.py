"""``burstlab stats`` and ``burstlab convert``: output modes, plots, and bad input as a
one-line error with a non-zero exit."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from burstlab import Trace
from burstlab.cli import main
from burstlab.io import read_trace, write_trace
from burstlab.stats import trace_stats


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def traces_dir(tmp_path: Path) -> Path:
    d = tmp_path / "traces"
    d.mkdir()
    (d / "a.txt").write_text("1\n1\n0\n0\n1\n0\n1\n1\n1\n0\n")
    (d / "b.txt").write_text("1\n1\n1\n")
    return d


def test_stats_json_values_and_directory_walk(traces_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(["stats", str(traces_dir), "--json", "--chunk", "5"], capsys)
    assert rc == 0
    rows = json.loads(out)
    assert [Path(r["name"]).name for r in rows] == ["a.txt", "b.txt"]
    a, b = rows
    assert (a["n00"], a["n01"], a["n10"], a["n11"]) == (1, 2, 3, 3)
    assert a["mu"] == pytest.approx(-1 / 6) and a["prr"] == 0.6
    assert a["loss_bursts"]["lengths"] == [1, 2] and a["success_runs"]["max"] == 3
    assert b["mu"] is None and "no loss" in b["mu_undefined"]
    assert "warning: μ is undefined" in err and "b.txt" in err


def test_stats_csv_and_table(traces_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(["stats", str(traces_dir / "a.txt"), "--csv"], capsys)
    assert rc == 0
    (row,) = list(csv.DictReader(io.StringIO(out)))
    assert float(row["mu"]) == pytest.approx(-1 / 6) and row["link_class"] == "intermediate"
    rc, out, _ = run(["stats", str(traces_dir)], capsys)
    assert rc == 0 and "a.txt" in out and "-0.1667" in out and "undefined" in out


def test_stats_plots(traces_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = run(["stats", str(traces_dir), "--json", "--plot", str(tmp_path / "figs")], capsys)
    assert rc == 0
    names = sorted(p.name for p in (tmp_path / "figs").iterdir())
    assert names == ["mu_convergence.pdf", "mu_convergence.png", "run_ccdf.pdf", "run_ccdf.png"]
    assert (tmp_path / "figs" / "run_ccdf.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_demo_uses_the_rust_ge_model(capsys: pytest.CaptureFixture[str]) -> None:
    from burstlab._core import LossModel
    from burstlab.cli.stats import demo_trace

    t = demo_trace(n=5000, seed=3)
    assert t.bits == LossModel.gilbert_elliott(0.02, 0.3).sample(5000, 3)
    rc, out, _ = run(["stats", "--demo", "--json"], capsys)
    assert rc == 0
    (row,) = json.loads(out)
    assert row["length"] == 100_000
    # μ̂ = 1 − ĝ − b̂: binomial proportions over the ≈ n·π_B losses and n(1 − π_B) successes
    # (b = 0.02, g = 0.3, π_B = b/(b+g)); 5 standard errors.
    n, b, g = 100_000, 0.02, 0.3
    pb = b / (b + g)
    se = (g * (1 - g) / (n * pb) + b * (1 - b) / (n * (1 - pb))) ** 0.5
    assert abs(row["mu"] - (1 - b - g)) < 5 * se


@pytest.mark.parametrize(
    "content,args,match",
    [
        ("1\n0\n1\n1\nq\n", [], ":5: expected a single 0 or 1"),
        ("", [], "empty file"),
        ("0 1\n400 2\n", ["--expected", "301"], ":2: sequence number 400 is beyond"),
        ("1\n0\n", ["--interval", "-0.5"], "interval"),
        ("1\n0\n", ["--chunk", "0"], "chunk"),
    ],
)
def test_bad_input_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, args: list[str], match: str) -> None:
    p = tmp_path / "t.txt"
    p.write_text(content)
    rc, out, err = run(["stats", str(p), *args], capsys)
    assert rc == 2
    assert err.startswith("error: ") and match in err and "Traceback" not in err
    assert out == ""


def test_bad_input_from_a_real_process(tmp_path: Path) -> None:
    p = tmp_path / "t.txt"
    p.write_text("1\n0\n1\n7\n")
    r = subprocess.run([sys.executable, "-c", "import sys; from burstlab.cli import main; sys.exit(main())", "stats", str(p)], capture_output=True, text=True)
    assert r.returncode == 2
    assert f"{p}:4:" in r.stderr and "Traceback" not in r.stderr


def test_convert_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "s.seq"
    src.write_text("0 1\n2 1\n3 1\n")
    rc, _, _ = run(["convert", str(src), str(tmp_path / "o.parquet"), "--expected", "6", "--interval", "0.01"], capsys)
    assert rc == 0
    t = read_trace(tmp_path / "o.parquet")
    assert t.to_numpy().tolist() == [1, 0, 1, 1, 0, 0] and t.interval == 0.01
    rc, _, _ = run(["convert", str(tmp_path / "o.parquet"), str(tmp_path / "o.txt"), "--to", "ttem"], capsys)
    assert rc == 0
    assert (tmp_path / "o.txt").read_text().split() == ["0", "1", "0", "0", "1", "1"]
    # A seq beyond --expected: a one-line error, and no output file.
    rc, _, err = run(["convert", str(src), str(tmp_path / "x.txt"), "--expected", "3"], capsys)
    assert rc == 2 and f"{src}:3: sequence number 3 is beyond the 3 packets" in err
    assert not (tmp_path / "x.txt").exists()


def test_stats_matches_api(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(0)
    t = Trace(rng.integers(0, 2, 20_000, dtype=np.uint8))
    write_trace(t, tmp_path / "t.csv")
    rc, out, _ = run(["stats", str(tmp_path / "t.csv"), "--json"], capsys)
    assert rc == 0
    (row,) = json.loads(out)
    s = trace_stats(t)
    assert row["mu"] == pytest.approx(s.mu) and row["chunk_rms_mu"] == pytest.approx(s.chunk_rms)


def test_cli_default_chunk_is_the_library_default() -> None:
    """burstlab.cli.stats keeps its own copy of the chunk default (to avoid importing numpy
    when it only parses options): it must stay Srinivasan et al.'s 6000 of burstlab.stats."""
    import burstlab.cli.stats as cs
    import burstlab.stats as bs

    assert cs.DEFAULT_CHUNK == bs.DEFAULT_CHUNK == 6000


def test_interval_takes_units_like_every_time(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--interval is a time like sim's and validate's (issue 13: one set of units): 5ms is 0.005."""
    src = tmp_path / "t.txt"
    src.write_text("1\n0\n1\n1\n0\n1\n")
    outs = []
    for iv in ("5ms", "0.005", "5000us"):
        rc, _, _ = run(["convert", str(src), str(tmp_path / f"o{len(outs)}.csv"), "--interval", iv], capsys)
        assert rc == 0
        outs.append((tmp_path / f"o{len(outs)}.csv").read_text())
    assert outs[0] == outs[1] == outs[2] and "0.005" in outs[0]
