"""BBR v1 and v3 through the public interfaces (Rust known-answer tests of each transition sit
beside the code: ``tcp/cc/bbr/tests.rs``, ``tcp/cc/bbr3/tests.rs``, ``tcp/rate_sample.rs``)."""

from __future__ import annotations

import json
import statistics

import pytest

from burstlab import _core
from burstlab.cli import main
from burstlab.sim import VARIANTS, Link, Scenario, TcpConfig, Workload, run

RATE, DELAY = 10e6, 0.020  # 10 Mb/s, 40 ms RTT


def goodput(cc: str, p: float, seed: int, duration: float = 20.0) -> float:
    tcp = TcpConfig.profile("linux", cc=cc)
    loss = _core.LossModel.bernoulli(p) if p > 0 else None
    r = run(Scenario(tcp=tcp, forward=Link(rate=RATE, delay=DELAY, buffer=100, loss=loss), workload=Workload(duration=duration), seed=seed))
    return r.goodput_bps


@pytest.mark.parametrize("cc", ["bbr", "bbr3"])
def test_bbr_fills_a_clean_link(cc: str) -> None:
    # payload share of the wire (1000 of 1052 bytes with timestamps) less Startup: above 90 %
    assert goodput(cc, 0.0, 1) > 0.9 * RATE


@pytest.mark.parametrize("p", [0.05, 0.10])
def test_bbr_v1_keeps_its_goodput_under_random_loss_where_cubic_collapses(p: float) -> None:
    """The literature's result (Cardwell et al. 2016, Fig. 8): BBR v1 keeps most of the link at
    random loss rates where a loss-based control collapses. Three seeds each; the smallest BBR
    run against the largest CUBIC one."""
    bbr = [goodput("bbr", p, s) for s in (1, 2, 3)]
    cubic = [goodput("cubic", p, s) for s in (1, 2, 3)]
    assert min(bbr) > 0.6 * RATE
    assert min(bbr) > 5 * max(cubic)


def test_bbr3_bounds_its_response_to_loss() -> None:
    """BBR v3 backs off at loss (inflight_lo, bw_lo) but far less than CUBIC: between them at 5 %."""
    v3 = statistics.fmean(goodput("bbr3", 0.05, s) for s in (1, 2, 3))
    v1 = statistics.fmean(goodput("bbr", 0.05, s) for s in (1, 2, 3))
    cubic = statistics.fmean(goodput("cubic", 0.05, s) for s in (1, 2, 3))
    assert cubic < v3 <= v1 * 1.05


def test_tcp_bbr_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["sim", "--tcp", "bbr,bbr3", "--duration", "5s", "--loss", "bernoulli:p=0.01", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert rc == 0 and [x["tcp"] for x in d["summary"]] == ["bbr", "bbr3"]
    g = [x["figures"]["goodput_bps"]["mean"] for x in d["summary"]]
    assert all(v > 5e6 for v in g), g
    assert VARIANTS["bbr3"] == ("bbr3", "sack") and TcpConfig(variant="bbr").cc == "bbr"


def test_prr_mu_study_runs_any_variant_over_its_profile() -> None:
    from burstlab._core import ParameterError
    from burstlab.experiments.prr_mu import StudyConfig

    base = StudyConfig().tcp()
    bbr = StudyConfig(tcp_variant="bbr").tcp()
    assert (base["cc"], base["recovery"]) == ("reno", "newreno")  # Srinivasan et al.'s NewReno, unchanged
    assert (bbr["cc"], bbr["recovery"]) == ("bbr", "sack")
    # everything else is the profile's (timers, receiver, window cap)
    assert {k: v for k, v in bbr.items() if k not in ("cc", "recovery")} == {k: v for k, v in base.items() if k not in ("cc", "recovery")}
    with pytest.raises(ParameterError, match="tcp = 'bbr9'"):
        StudyConfig(tcp_variant="bbr9")
