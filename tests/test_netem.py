"""``burstlab netem``: the netem options for a loss model — known answers where netem has the
same process, the transition-count chain (with what it loses) where it does not, and bad
input as one error line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from burstlab.cli import main
from burstlab.models import GilbertElliottModel, HMMModel
from burstlab.netem import RunTail, _geometric_p99, to_netem


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_bernoulli_is_loss_random() -> None:
    n = to_netem("bernoulli:p=0.025")
    assert n.exact
    assert n.args == ("loss", "random", "2.5%")
    assert n.command("eth1") == "tc qdisc add dev eth1 root netem loss random 2.5%"


def test_gilbert_elliott_maps_p_r_1h_1k() -> None:
    # docs/loss-models.md: p = b, r = g, 1-h = h_loss, 1-k = k_loss
    n = to_netem("ge:b=0.01,g=0.3,h=0.9,k=0.001")
    assert n.exact
    assert n.args == ("loss", "gemodel", "1%", "30%", "90%", "0.1%")


def test_prr_mu_constructor_maps_through_srinivasan_formulas() -> None:
    # Srinivasan et al. §6.2: g = PRR(1-μ), b = (1-PRR)(1-μ) → PRR 0.9, μ 0.5: b = 0.05, g = 0.45
    n = to_netem("ge:prr=0.9,mu=0.5")
    assert n.args == ("loss", "gemodel", "5%", "45%", "100%", "0%")


def test_fitted_two_state_hmm_is_exact_with_the_lossier_state_as_bad() -> None:
    m = HMMModel(n_states=2)
    m.n_states_ = 2
    m.transmat_ = np.array([[0.7, 0.3], [0.02, 0.98]])  # state 0 is the lossy one here
    m.startprob_ = np.array([0.5, 0.5])
    m.loss_ = np.array([0.8, 0.01])
    n = to_netem(m)
    assert n.exact
    assert n.args == ("loss", "gemodel", "2%", "30%", "80%", "1%")


def test_saved_model_file(tmp_path: Path) -> None:
    path = tmp_path / "ge.json"
    GilbertElliottModel(b=0.02, g=0.25).save(path)
    assert to_netem(f"@{path}").args == ("loss", "gemodel", "2%", "25%", "100%", "0%")


def test_runlength_model_approximated_by_its_transition_counts() -> None:
    # geometric runs: the run-length model *is* Gilbert-Elliott with b = 1/50, g = 1/3, so the
    # chain from its transition counts recovers them (400 000 packets: about 7 600 bursts,
    # standard error of g about 1.3 %)
    n = to_netem("runlength:success=geom/50,burst=geom/3", samples=400_000, seed=7)
    assert not n.exact
    p, r = (float(a.rstrip("%")) / 100 for a in n.args[2:4])
    assert p == pytest.approx(1 / 50, rel=0.05)
    assert r == pytest.approx(1 / 3, rel=0.05)
    assert n.args[4:] == ("100%", "0%")
    assert any("geometric" in x for x in n.lost)


def test_heavy_tailed_gaps_are_reported_longer_than_netems() -> None:
    # Pareto gaps (shape 1.2): the model's 99th percentile gap is far beyond the geometric one
    n = to_netem("runlength:success=pareto/2/1.2,burst=geom/2", samples=300_000)
    gaps = next(t for t in n.tails if t.what.startswith("gaps"))
    assert gaps.model_p99 > 1.5 * gaps.netem_p99
    assert "longer in the model" in gaps.sentence()


def test_time_model_names_the_packet_rate_it_assumed() -> None:
    n = to_netem("onoff:good=0.5,bad=0.05,interval=0.002", samples=200_000)
    assert any("one packet every 0.002 s" in x for x in n.lost)


def test_deterministic_list_says_its_sequence_is_lost() -> None:
    n = to_netem("list:drops=4/13/17,period=20", samples=20_000)
    assert any("own sequence" in x for x in n.lost)
    # three drops in 20 packets
    st_rate = float(n.kept[0].split("(")[1].rstrip(")"))
    assert st_rate == pytest.approx(0.15, abs=1e-3)


def test_sentence_follows_the_numbers() -> None:
    longer = RunTail("gaps", 10.0, 80.0, 300, 44.0).sentence()
    shorter = RunTail("gaps", 10.0, 20.0, 30, 44.0).sentence()
    same = RunTail("gaps", 10.0, 44.0, 60, 44.0).sentence()
    assert "longer in the model" in longer and "shorter in the model" in shorter
    assert "in both" in same and "longer" not in same and "shorter" not in same


def test_geometric_percentile_known_answer() -> None:
    # mean 2: P(L > k) = 0.5^k; the smallest k with 0.5^k <= 0.01 is 7
    assert _geometric_p99(2.0) == 7
    assert _geometric_p99(1.0) == 1


def test_too_few_bursts_warns() -> None:
    with pytest.warns(UserWarning, match="only .* loss bursts"):
        to_netem("runlength:success=geom/5000,burst=geom/2", samples=50_000)


def test_cli_prints_a_shell_script(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(["netem", "ge:b=0.01,g=0.3", "--dev", "veth0"], capsys)
    assert rc == 0
    lines = out.splitlines()
    assert lines[0] == "tc qdisc add dev veth0 root netem loss gemodel 1% 30% 100% 0%"
    assert all(line.startswith("# ") for line in lines[1:])
    assert any(line.startswith("# exact") for line in lines)


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(["netem", "runlength:success=geom/20,burst=geom/2", "--samples", "100000", "--json"], capsys)
    assert rc == 0
    d = json.loads(out)
    assert d["exact"] is False and d["netem"][:2] == ["loss", "gemodel"]
    assert d["command"].startswith("tc qdisc add dev DEV root netem loss gemodel ")
    assert {t["what"] for t in d["tails"]} == {"loss bursts", "gaps between losses"}


@pytest.mark.parametrize("argv", [["netem", "foo:x=1"], ["netem", "bernoulli:p=2"], ["netem", "none"], ["netem", "ge:b=0.1", "--samples", "1"]])
def test_cli_bad_input_is_one_error_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(argv, capsys)
    assert rc == 2
    assert out == ""
    assert err.startswith("error: ") and err.count("\n") == 1
