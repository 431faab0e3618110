"""The TCP judge (burstlab.judge, burstlab.models.select, `burstlab fit --judge tcp`):
known answers of the error and its interval, what a rotation and a link-mode run are,
a ranking with a known order (Srinivasan et al. §6: at the same PRR a bursty link carries
more TCP than an independent one), the held-out split and the CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from burstlab import EmptyInputError, ParameterError, _core
from burstlab.cli import main
from burstlab.judge import TcpSample, TcpSetup, judge_tcp, model_tcp, relative_error, select, split, trace_tcp
from burstlab.models import BernoulliModel, GilbertElliottModel, make_model
from burstlab.sim import TcpConfig, run_trace
from burstlab.traces import Trace


def ge_trace(prr: float, mu: float, n: int, seed: int) -> Trace:
    return Trace(_core.LossModel.gilbert_elliott_prr_mu(prr, mu).sample(n, seed), interval=0.01, name="ge")


def test_relative_error_and_its_interval() -> None:
    model = TcpSample(np.array([108.0, 112.0]))  # mean 110, se 2
    ref = TcpSample(np.array([99.0, 101.0]))  # mean 100, se 1
    e, (lo, hi) = relative_error(model, ref)
    assert e == pytest.approx(0.10)
    half = 1.959963984540054 * math.sqrt((2 / 100) ** 2 + (110 * 1 / 100**2) ** 2)
    assert (lo, hi) == (pytest.approx(0.10 - half), pytest.approx(0.10 + half))
    # One run each: no spread to speak of, the interval is the point.
    e1, ci1 = relative_error(TcpSample(np.array([90.0])), TcpSample(np.array([100.0])))
    assert e1 == pytest.approx(-0.1) and ci1 == (pytest.approx(-0.1), pytest.approx(-0.1))
    assert math.isnan(relative_error(model, TcpSample(np.array([0.0])))[0])


def test_rotations_are_runs_over_the_rotated_trace() -> None:
    t = ge_trace(0.7, 0.5, 6000, 3)
    st = TcpSetup().resolved(t)
    assert st.tcp == TcpConfig.tossim() and st.slot == 0.01
    one = trace_tcp(t, st, rotations=1)
    assert one.values.tolist() == [run_trace(t, 0.01, TcpConfig.tossim()).goodput_pps]
    four = trace_tcp(t, st, rotations=4)
    bits = t.to_numpy()
    want = [run_trace(Trace(np.roll(bits, -k * 1500)), 0.01, TcpConfig.tossim()).goodput_pps for k in range(4)]
    assert four.values.tolist() == want


def test_tossim_timers_scale_with_the_slot() -> None:
    t = Trace(np.ones(100, np.uint8), interval=0.002)
    tcp = TcpSetup().resolved(t).tcp
    assert tcp is not None and (tcp.rto_min, tcp.rto_max, tcp.ack_timeout) == (pytest.approx(0.2), pytest.approx(12.0), pytest.approx(0.06))


def test_link_mode_reads_the_trace_once_at_one_segment_per_slot() -> None:
    t = Trace(np.ones(5000, np.uint8), interval=0.01)
    st = TcpSetup(mode="link").resolved(t)
    assert st.rate == pytest.approx((1000 + 40) * 8 / 0.01) and st.delay == 0.005 and st.segments == 5000
    # Lossless: 5000 segments at 100 segments/s, less the slow-start ramp (a few RTTs).
    g = st.goodput(t, 1)
    assert 95.0 < g <= 100.0
    slotted = TcpSetup().resolved(t).goodput(t, 1)
    assert 95.0 < slotted <= 100.0
    # A model runs inside the engine: the same transfer over a lossless Bernoulli.
    assert st.goodput(BernoulliModel(p=0.0).to_core(), 1) == pytest.approx(g)


def test_the_true_family_beats_independent_losses() -> None:
    """A Gilbert-Elliott trace at PRR 0.4, μ 0.7: the bistable fit is that process (its
    error's interval holds 0 within 3 standard errors), Bernoulli with the same PRR gives
    far less TCP goodput (Srinivasan et al. §6, Fig. 6), and is ranked below it, in both modes."""
    t = ge_trace(0.4, 0.7, 40_000, 11)
    fitted = {n: make_model(n).fit(t[:20_000]) for n in ("bernoulli-fer", "bistable")}
    for mode in ("slotted", "link"):
        j = judge_tcp(fitted, t[20_000:], TcpSetup(mode=mode), replicates=8, rotations=8, seed=5)
        by = {v.model: v for v in j.verdicts}
        assert [v.model for v in j.verdicts][0] == "bistable", mode
        ge, ind = by["bistable"], by["bernoulli-fer"]
        assert abs(ge.error) < 1.5 * (ge.ci[1] - ge.ci[0]) / 2, (mode, ge)  # 3 standard errors
        assert ind.ci[1] < 0, (mode, ind)  # independent losses: significantly less goodput
        assert ind.goodput.values.size == 8 and j.reference.values.size == 8


def test_model_replicates_are_independent_draws() -> None:
    m = GilbertElliottModel.from_prr_mu(0.6, 0.5)
    st = TcpSetup().resolved(ge_trace(0.6, 0.5, 3000, 1))
    s = model_tcp(m, 3000, st, replicates=3, seed=7)
    want = [run_trace(m.sample(3000, random_state=7 + r), 0.01, TcpConfig.tossim(), seed=7 + r).goodput_pps for r in range(3)]
    assert s.values.tolist() == want
    assert len(set(want)) == 3


def test_select_fits_on_the_first_part_and_refits_the_best() -> None:
    t = ge_trace(0.8, 0.3, 8000, 2)
    sel = select(t, "tcp", ["bernoulli-fer", "bistable"], holdout=0.25, modes=["slotted"], replicates=3, rotations=2)
    assert sel.fit_range == (0, 6000) and sel.judge_range == (6000, 8000)
    assert sel.models["bernoulli-fer"].p_ == pytest.approx(1 - t[:6000].bits.count_ones() / 6000)  # type: ignore[attr-defined]
    assert sel.best in ("bernoulli-fer", "bistable") and "slotted: TCP goodput" in sel.why
    assert sel.best_model is not None and sel.best_model is not sel.models[sel.best]
    # refitted on the whole trace
    want = make_model(sel.best).fit(t).to_dict()["fitted"]
    assert sel.best_model.to_dict()["fitted"] == want
    assert [r.model for r in sel.rows] == ["bernoulli-fer", "bistable"] and sel.reference.stats.length == 2000
    d = sel.to_dict()
    json.dumps(d)
    assert d["tcp"][0]["mode"] == "slotted" and len(d["tcp"][0]["models"]) == 2
    # judge="stats": no TCP, the smallest worst KS distance
    s2 = select(t, "stats", ["bernoulli-fer", "bistable"], holdout=0)
    assert s2.tcp == [] and s2.fit_range == s2.judge_range == (0, 8000) and s2.best_model is s2.models[s2.best or ""]


def test_select_skips_what_cannot_be_fitted() -> None:
    ones = Trace(np.ones(4000, np.uint8), interval=0.01, name="ones")
    skipped: list[tuple[str, str]] = []
    sel = select(ones, "tcp", ["bernoulli-fer", "bistable", "runlength"], modes=["slotted"], replicates=2, rotations=2, skipped=skipped)
    assert [n for n, _ in skipped] == ["bistable", "runlength"] and all("no loss" in r for _, r in skipped)
    assert sel.best == "bernoulli-fer" and sel.tcp[0].verdicts[0].error == 0.0
    with pytest.raises(ParameterError, match="no model could be fitted"):
        select(ones, "tcp", ["bistable"], modes=["slotted"])


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda t: select(t, "likelihood"), "judge"),
        (lambda t: select(t, "tcp", modes=["air"]), "modes"),
        (lambda t: select(t, "tcp", holdout=1.0), "holdout"),
        (lambda t: select(t, "tcp", holdout=0.9999), "holdout"),
        (lambda t: TcpSetup(mode="wire"), "mode"),  # type: ignore[arg-type]
        (lambda t: TcpSetup(slot=-1.0), "slot"),
        (lambda t: TcpSetup(segments=0), "segments"),
        (lambda t: trace_tcp(t, TcpSetup().resolved(t), rotations=0), "rotations"),
        (lambda t: model_tcp(BernoulliModel(p=0.1), 10, TcpSetup().resolved(t), replicates=0), "replicates"),
        (lambda t: select("0101", "tcp"), "trace"),  # type: ignore[arg-type]
    ],
)
def test_bad_parameters_are_named(call, needle: str) -> None:  # type: ignore[no-untyped-def]
    t = Trace(np.array([1, 0, 1, 1] * 10, np.uint8), interval=0.01)
    with pytest.raises(ParameterError, match=needle):
        call(t)
    with pytest.raises(EmptyInputError):
        select(Trace(np.zeros(0, np.uint8)), "tcp")


def test_split() -> None:
    assert split(10, 0.5) == ((0, 5), (5, 10))
    assert split(10, 0) == ((0, 10), (0, 10))


# ---------------------------------------------------------------- the command line
def _write(path: Path, t: Trace) -> Path:
    path.write_text("\n".join(str(int(b)) for b in t.to_numpy()) + "\n")
    return path


def test_cli_fit_judge_tcp(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _write(tmp_path / "ge.txt", ge_trace(0.75, 0.5, 8000, 4))
    args = ["fit", str(f), "--judge", "tcp", "--models", "bernoulli-fer,bistable,bootstrap", "--replicates", "3", "--rotations", "2"]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [j["mode"] for j in out["tcp"]] == ["slotted", "link"]
    for j in out["tcp"]:
        assert sorted(m["model"] for m in j["models"]) == ["bernoulli-fer", "bistable", "bootstrap"]
        errs = [abs(m["error"]) for m in j["models"]]
        assert j["trace"]["mean"] > 0 and len(j["trace"]["runs"]) == 2
        assert all(len(m["goodput"]["runs"]) == 3 and m["ci95"][0] <= m["error"] <= m["ci95"][1] for m in j["models"])
        assert errs == sorted(errs)
    assert out["best"]["model"] in ("bernoulli-fer", "bistable", "bootstrap") and out["fit_range"] == [0, 4000]
    assert main(args) == 0
    cap = capsys.readouterr()
    assert "TCP slotted" in cap.out and "TCP link" in cap.out and "best fit:" in cap.out and "95 % confidence interval" in cap.out
    assert "TCP over bistable (link" in cap.err  # progress


def test_cli_fit_tcp_options_need_the_tcp_judge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _write(tmp_path / "t.txt", ge_trace(0.75, 0.5, 500, 4))
    assert main(["fit", str(f), "--mode", "link"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: --mode: only --judge tcp runs TCP")
    assert main(["fit", str(f), "--judge", "tcp", "--mode", "wire"]) == 2
    assert "--mode" in capsys.readouterr().err
    assert main(["fit", str(f), "--judge", "tcp", "--holdout", "1"]) == 2
    assert "--holdout" in capsys.readouterr().err


def test_cli_fit_all_models_on_a_lossless_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 13's example: `fit ones.bits --models all` skips, with a note each, what a trace
    without loss cannot fit, and still ranks the rest (here by TCP too)."""
    f = _write(tmp_path / "ones.bits", Trace(np.ones(2000, np.uint8)))
    assert main(["fit", str(f), "--models", "all", "--judge", "tcp", "--replicates", "2", "--rotations", "1", "--mode", "slotted"]) == 0
    cap = capsys.readouterr()
    assert "note: skipped runlength: it cannot be fitted to this trace" in cap.err
    assert "best fit:" in cap.out and "+0.0%" in cap.out
