"""`burstlab report TRACE` (burstlab.link_report): the profile's known answers, the closed
forms as burstlab.analytic gives them, the page opened in a real headless Chromium (copied
alone, every figure loaded; a broken one is seen), and bad input as one error line."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from burstlab import _core
from burstlab.analytic import mathis, padhye
from burstlab.cli import main
from burstlab.link_report import UserLink, build_report, closed_forms, geometric_comparison, mu_settles, write_report
from burstlab.stats import RunDistribution
from burstlab.traces import Trace

REPO = Path(__file__).resolve().parents[1]


def ge_trace(prr: float, mu: float, n: int, seed: int) -> Trace:
    return Trace(_core.LossModel.gilbert_elliott_prr_mu(prr, mu).sample(n, seed), interval=0.01, name="ge")


def test_mu_settles_on_a_known_curve() -> None:
    class S:
        mu = 0.5
        prefix_lengths = np.array([100, 200, 300, 400, 500], dtype=np.uint64)
        prefix_mu = np.array([0.9, 0.56, 0.52, 0.44, 0.49])

    assert mu_settles(S()) == 500  # 0.44 is out of the band, so only the full length is inside
    S.prefix_mu = np.array([0.9, np.nan, 0.52, 0.47, 0.49])
    assert mu_settles(S()) == 300
    S.prefix_mu = np.array([0.5, 0.5, 0.5, 0.5, 0.5])
    assert mu_settles(S()) == 100
    S.mu = None  # type: ignore[assignment]
    assert mu_settles(S()) is None


def test_geometric_comparison_known_answers() -> None:
    # runs 1, 1, 2, 4 (mean 2): geometric q = 1/2, CDF 0.5, 0.75, 0.9375 at 1, 2, 4
    d = RunDistribution(np.array([1, 2, 4], dtype=np.uint64), np.array([2, 1, 1], dtype=np.uint64))
    g = geometric_comparison(d)
    assert g["mean"] == 2.0 and g["max"] == 4
    assert g["ks"] == pytest.approx(max(abs(0.5 - 0.5), abs(0.75 - 0.75), abs(1.0 - 0.9375)))
    assert g["p_10x_mean"] == 0.0 and g["p_10x_mean_geometric"] == pytest.approx(0.5**19)
    assert geometric_comparison(RunDistribution(np.zeros(0, np.uint64), np.zeros(0, np.uint64)))["ks"] is None


def test_closed_forms_are_the_analytic_ones_capped_at_capacity() -> None:
    t = ge_trace(0.9, 0.5, 20_000, 1)
    st = t.stats(warn=False)
    link = UserLink(rate=2e6, delay=0.03, buffer=20)
    rtt = 0.06 + 1040 * 8 / 2e6 + 40 * 8 / 2e6
    cfs = {(c["model"], c["p_is"]): c for c in closed_forms(st, link)}
    p = st.lost / st.length
    assert cfs[("mathis", "packet loss rate")]["formula_pps"] == pytest.approx(mathis(p, rtt).pps)
    assert cfs[("padhye", "packet loss rate")]["formula_pps"] == pytest.approx(padhye(p, rtt).pps)
    pe = st.loss_bursts.n_runs / st.length
    assert cfs[("padhye", "loss-event rate")]["p"] == pytest.approx(pe)
    cap = 2e6 / (1040 * 8)
    assert all(c["pps"] <= cap + 1e-9 for c in cfs.values())
    assert "capacity" in cfs[("mathis", "loss-event rate")]["note"] or cfs[("mathis", "loss-event rate")]["formula_pps"] <= cap


def test_build_report_and_its_numbers(tmp_path: Path) -> None:
    t = ge_trace(0.7, 0.6, 20_000, 4)
    link = UserLink(rate=1e6, delay=0.02, buffer=20, duration=30.0)
    rep = build_report(t, link, models=["bernoulli-fer", "bistable"], variants=["newreno", "cubic"], replicates=3, rotations=2, seeds=3)
    assert rep.selection.best in ("bernoulli-fer", "bistable") and rep.selection.best_model is not None
    assert [p.variant for p in rep.predictions] == ["newreno", "cubic"]
    for p in rep.predictions:
        assert len(p.runs) == 3 and p.ci[0] <= p.mean <= p.ci[1] and p.mean == pytest.approx(np.mean(p.runs))
        assert 0 <= p.mean <= 1e6 / (1040 * 8)
    assert rep.stats.length == 20_000
    md, page, figs = write_report(rep, tmp_path)
    assert sorted(figs) == ["judge", "mu", "runs", "variants"] and all(f.stat().st_size > 1000 for f in figs.values())
    text = md.read_text()
    for needle in ("Burstiness profile", "The model TCP agrees with", "Predicted goodput of every TCP variant", "mathis", "padhye"):
        assert needle in text
    # A "|" inside a cell is escaped, so each table row keeps its three cells (issue 32).
    row = next(ln for ln in text.splitlines() if ln.startswith("| g = P(success"))
    assert row.startswith("| g = P(success \\| loss) |") and len(re.findall(r"(?<!\\)\|", row)) == 4
    d = json.loads((tmp_path / "report.json").read_text())
    assert d["selection"]["best"]["model"] == rep.selection.best and len(d["predictions"]) == 2


# ---------------------------------------------------------------- the page in a real browser
def _chromium() -> str:
    """A Chromium binary, installed from the system packages by .ci/install-chromium when
    none is on PATH; skips only if the package does not exist for this system."""
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return str(shutil.which(name))
    r = subprocess.run(["bash", str(REPO / ".ci" / "install-chromium")], capture_output=True, text=True, timeout=1800)
    if r.returncode == 3:
        pytest.skip(f"Chromium is not available from this system's packages: {r.stdout.strip()}")
    assert r.returncode == 0, f".ci/install-chromium failed ({r.returncode}): {r.stdout}{r.stderr}"
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, ".ci/install-chromium succeeded but no chromium is on PATH"
    return found


def _figures_in_browser(chromium: str, page: Path) -> tuple[int, int, str]:
    """(figures loaded, figures broken, the DOM) after Chromium has loaded the page and
    run its script (virtual time lets the load event fire before the DOM is dumped)."""
    r = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--allow-file-access-from-files",
         "--virtual-time-budget=10000", "--dump-dom", page.resolve().as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr[-2000:]
    m = re.search(r'<body[^>]*data-figures="(\d+)"[^>]*data-figures-broken="(\d+)"', r.stdout)
    assert m, f"the page's script did not run in Chromium: {r.stdout[:500]}"
    return int(m.group(1)), int(m.group(2)), r.stdout


def test_cli_report_page_opens_in_chromium_with_every_figure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "link.txt"
    f.write_text("\n".join(str(b) for b in ge_trace(0.75, 0.5, 12_000, 9).to_numpy()) + "\n")
    out = tmp_path / "rep"
    args = ["report", str(f), "--out", str(out), "--rate", "2Mbit", "--delay", "15ms", "--buffer", "30", "--duration", "20s", "--link-layer", "arq:retry_limit=3",
            "--tcp", "newreno,sack", "--models", "bernoulli-fer,bistable,run-chain", "--replicates", "2", "--rotations", "2", "--seeds", "2"]  # fmt: skip
    assert main(args) == 0
    cap = capsys.readouterr()
    assert "best model by TCP:" in cap.out and "newreno" in cap.out and "sack" in cap.out
    assert "wrote" in cap.err and "report.html" in cap.err
    chromium = _chromium()
    # The page is self-contained (issue 32): copied alone into another folder, it shows every figure.
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(out / "report.html", alone / "report.html")
    ok, broken, dom = _figures_in_browser(chromium, alone / "report.html")
    assert (ok, broken) == (4, 0)
    assert "Burstiness profile" in dom and "Predicted goodput of every TCP variant" in dom and "link layer arq:retry_limit=3" in dom
    # Prose reads from the left, numbers from the right.
    assert re.search(r"<td>link class \w+</td>", dom) and re.search(r"<td class=\"n\">0\.\d+</td>", dom)
    # The check sees a broken figure.
    page = (alone / "report.html").read_text()
    (alone / "report.html").write_text(page.replace("data:image/png;base64,iVBOR", "data:image/png;base64,XXXXX", 1))
    ok, broken, _ = _figures_in_browser(chromium, alone / "report.html")
    assert (ok, broken) == (3, 1)


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--rate", "fast"], "rate"),
        (["--delay", "-1s"], "delay"),
        (["--tcp", "quic"], "--tcp"),
        (["--models", "nope"], "nope"),
        (["--buffer", "0"], "--buffer"),
        (["--link-layer", "arq:retries=3"], "link layer"),
    ],
)
def test_cli_report_bad_input_is_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], needle: str) -> None:
    f = tmp_path / "t.txt"
    f.write_text("1\n0\n1\n1\n")
    out = tmp_path / "rep"
    assert main(["report", str(f), "--out", str(out), *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error:") and needle in err, err
    assert not out.exists()


def test_cli_report_empty_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "e.txt"
    f.write_text("")
    assert main(["report", str(f), "--out", str(tmp_path / "rep")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "e.txt" in err and not (tmp_path / "rep").exists()


def test_error_bars_clip_at_the_floor_and_stay_finite_on_log_axes() -> None:
    from burstlab.plot import error_bars

    e = error_bars([2.0, 5.0, 1.0], [-1.0, 4.0, float("nan")], [3.0, float("inf"), 2.0], floor=0.0)
    assert e.tolist() == [[2.0, 1.0, 0.0], [1.0, 0.0, 1.0]]  # below 0 → to 0; no end → no bar
    lg = error_bars([2.0, 5.0], [0.0, -3.0], [3.0, 6.0], log=True)
    lows = np.array([2.0, 5.0]) - lg[0]
    assert np.all(lows > 0) and np.all(np.isfinite(lg)) and lows.min() == pytest.approx(0.2)  # a tenth of the least positive value
