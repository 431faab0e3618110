"""Loss models: sampled statistics vs analytic values, fits recovering known parameters,
JSON round trips, spec strings, errors that name the parameter, the fit/gen CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from burstlab import EmptyInputError, ParameterError, _core
from burstlab.cli import main
from burstlab.fidelity import fidelity, ks_distance
from burstlab.lossspec import parse_loss_spec
from burstlab.models import (
    ALL_MODELS,
    BernoulliModel,
    DeterministicListModel,
    GilbertElliottModel,
    HMMModel,
    LossModelBase,
    MarkovCTModel,
    NotFittedError,
    ReplayModel,
    RunLengthModel,
    SemiMarkovModel,
    VDDPModel,
    load_model,
    make_model,
)
from burstlab.traces import Trace


def ge_trace(b: float, g: float, h: float = 1.0, k: float = 0.0, n: int = 200_000, seed: int = 1) -> Trace:
    return Trace(_core.LossModel.gilbert_elliott(b, g, h, k).sample(n, seed), name="ge")


def binom_tol(p: float, n: int, z: float = 5.0) -> float:
    return z * math.sqrt(p * (1 - p) / n)


# ---------------------------------------------------------------- sampled vs analytic
def test_bernoulli_sample_matches_p() -> None:
    n = 500_000
    for p in (0.01, 0.2, 0.7):
        t = BernoulliModel(p=p).sample(n, random_state=3)
        loss = 1 - t.bits.count_ones() / n
        assert abs(loss - p) < binom_tol(p, n)
        # Geometric runs: mean burst 1/(1-p), mean gap 1/p (seed 001 §III).
        s = t.stats(warn=False)
        assert abs(s.loss_bursts.mean - 1 / (1 - p)) < 0.03 / (1 - p)
        assert abs(s.success_runs.mean - 1 / p) < 0.03 / p


def test_gilbert_elliott_sample_matches_stationary_law_and_run_means() -> None:
    b, g = 0.03, 0.25
    n = 400_000
    t = GilbertElliottModel(b=b, g=g).sample(n, random_state=7)
    s = t.stats(warn=False)
    pb = b / (b + g)
    mu = 1 - b - g
    # Variance of a two-state chain's mean: pb(1-pb)/n · (1+μ)/(1-μ).
    se = math.sqrt(pb * (1 - pb) / n * (1 + mu) / (1 - mu))
    assert abs(s.lost / n - pb) < 5 * se
    assert abs(s.loss_bursts.mean - 1 / g) < 5 * math.sqrt(1 - g) / g / math.sqrt(s.loss_bursts.n_runs)
    assert abs(s.success_runs.mean - 1 / b) < 5 * math.sqrt(1 - b) / b / math.sqrt(s.success_runs.n_runs)
    assert s.mu is not None and abs(s.mu - mu) < 0.02


def test_prr_mu_constructor_matches_seed_000() -> None:
    m = GilbertElliottModel.from_prr_mu(0.8, 0.5)
    assert m.g == pytest.approx(0.4) and m.b == pytest.approx(0.1)
    assert m.mean_loss() == pytest.approx(0.2)
    with pytest.raises(ParameterError, match="mu ="):
        GilbertElliottModel.from_prr_mu(0.8, -2.0)


def test_time_models_mean_loss_in_packet_mode() -> None:
    # TIBET (seed 004 §IV.B): good 8 s, bad 4 s, 1 % / 20 % drop, packets every 10 ms.
    m = MarkovCTModel(8.0, 4.0, 0.01, 0.2, packet_interval=0.01)
    want = m.mean_loss()
    assert want == pytest.approx(8 / 12 * 0.01 + 4 / 12 * 0.2)
    t = m.sample(3_000_000, random_state=1)  # 30000 s ≈ 2500 cycles
    assert t.interval == 0.01
    assert abs((len(t) - t.bits.count_ones()) / len(t) - want) < 0.05 * want


def test_run_length_model_mean_loss() -> None:
    m = RunLengthModel(
        success={"kind": "geometric", "mean": 20.0},
        burst={"kind": "empirical", "values": [1, 3, 10], "weights": [5, 3, 2]},
    )
    want = m.mean_loss()
    mb = (1 * 5 + 3 * 3 + 10 * 2) / 10
    assert want == pytest.approx(mb / (mb + 20))
    t = m.sample(500_000, random_state=2)
    assert abs((len(t) - t.bits.count_ones()) / len(t) - want) < 0.01


def test_on_off_time_mode_from_python() -> None:
    core = _core.LossModel.on_off(0.09, 0.01)
    starts = np.arange(200_000) * 0.005  # probes every 5 ms, zero length
    lost = core.lost_in_transit_many(starts, starts, 4)
    assert core.time_loss_fraction() == pytest.approx(0.1)
    assert abs(lost.mean() - 0.1) < 0.01
    with pytest.raises(ParameterError, match="starts"):
        core.lost_in_transit_many(np.array([1.0, 0.5]), np.array([1.0, 0.5]), 0)


def test_vddp_time_fraction_from_python() -> None:
    m = VDDPModel(mean_a=10.0, mean_b=10.0, drop_a=0.0, drop_b=0.1, cycle_a=1.0, cycle_b=1.0)
    core = m.to_core()
    assert core.time_loss_fraction() == pytest.approx(0.05)
    assert core.mean_loss() is None


# ---------------------------------------------------------------- fits recover parameters
def test_table_i_bernoulli_fits() -> None:
    t = BernoulliModel(p=0.1).sample(300_000, random_state=5)
    for target in ("fer", "burst", "gap"):
        m = BernoulliModel(target=target).fit(t)
        assert abs(m.p_ - 0.1) < 0.01, (target, m.p_)
    # On a bursty trace the three targets disagree (seed 001 §IV): burst → high p, gap → low p.
    bursty = ge_trace(0.01, 0.2)
    ps = {tg: BernoulliModel(target=tg).fit(bursty).p_ for tg in ("fer", "burst", "gap")}
    assert ps["gap"] < ps["fer"] < ps["burst"]


def test_bistable_and_counts_recover_b_g() -> None:
    t = ge_trace(0.02, 0.3)
    for method in ("bistable", "counts"):
        m = GilbertElliottModel(method=method).fit(t)
        assert abs(m.b_ - 0.02) < 0.002 and abs(m.g_ - 0.3) < 0.02, (method, m.b_, m.g_)
        assert (m.h_loss_, m.k_loss_) == (1.0, 0.0)


def test_em_recovers_all_four_parameters() -> None:
    t = ge_trace(0.02, 0.2, h=0.9, k=0.01, n=60_000, seed=3)
    m = GilbertElliottModel(method="em").fit(t)
    assert abs(m.b_ - 0.02) < 0.005
    assert abs(m.g_ - 0.2) < 0.04
    assert abs(m.h_loss_ - 0.9) < 0.03
    assert abs(m.k_loss_ - 0.01) < 0.005
    # The fitted model explains the data better than an independent one.
    assert m.score(t) > BernoulliModel().fit(t).score(t)


def test_markov_ct_fit_recovers_sojourn_means() -> None:
    truth = MarkovCTModel(0.2, 0.05, packet_interval=0.01)
    t = truth.sample(400_000, random_state=9)
    m = MarkovCTModel().fit(t)
    assert m.interval_ == 0.01
    assert abs(m.mean_good_ - 0.2) < 0.02 and abs(m.mean_bad_ - 0.05) < 0.005, (m.mean_good_, m.mean_bad_)


def test_on_off_fit_recovers_sojourn_means() -> None:
    # Moment fit (a bad period of length x touches ≈ x/T + 1 packets); short good periods
    # (< T) merge bursts, a bias of order 1 − e^(−T/m_G) ≈ 2.5 % here.
    truth = MarkovCTModel(0.2, 0.05, temporal=True, packet_interval=0.005)
    t = truth.sample(400_000, random_state=9)
    m = MarkovCTModel(temporal=True).fit(t)
    assert abs(m.mean_good_ - 0.2) < 0.06 * 0.2 and abs(m.mean_bad_ - 0.05) < 0.06 * 0.05, m.fitted_params()


def test_hmm_bic_chooses_k() -> None:
    t2 = ge_trace(0.02, 0.2, h=0.9, k=0.01, n=30_000, seed=4)
    m2 = HMMModel(max_states=3).fit(t2)
    assert m2.n_states_ == 2, m2.bic_
    three = _core.LossModel.hmm(
        [[0.99, 0.008, 0.002], [0.05, 0.94, 0.01], [0.02, 0.0, 0.98]],
        [1.0, 0.0, 0.0],
        [0.0, 0.5, 1.0],
    )
    t3 = Trace(three.sample(60_000, 5))
    m3 = HMMModel(max_states=4).fit(t3)
    assert m3.n_states_ == 3, m3.bic_
    assert np.allclose(m3.loss_, [0.0, 0.5, 1.0], atol=0.06), m3.loss_
    assert m3.mean_loss() == pytest.approx(three.mean_loss(), abs=0.02)


def test_runlength_fit_recovers_pareto_tail() -> None:
    truth = RunLengthModel(success={"kind": "pareto", "scale": 10.0, "shape": 1.5}, burst={"kind": "geometric", "mean": 3.0})
    t = truth.sample(2_000_000, random_state=11)
    m = RunLengthModel(tail="pareto", tail_quantile=0.5).fit(t)
    assert m.success_["tail_scale"] >= 10
    assert abs(m.success_["tail_shape"] - 1.5) < 0.1, m.success_
    # Samples from the fit reproduce the run-length distributions closely.
    s = m.sample(len(t), random_state=12).stats(warn=False)
    ref = t.stats(warn=False)
    ks = ks_distance(ref.success_runs, s.success_runs)
    assert ks is not None and ks < 0.02
    assert m.score(t) > GilbertElliottModel(method="bistable").fit(t).score(t)


def test_semi_markov_fit_lognormal() -> None:
    truth = SemiMarkovModel(
        good={"kind": "lognormal", "mu": math.log(0.05), "sigma": 0.3},
        bad={"kind": "lognormal", "mu": math.log(0.02), "sigma": 0.3},
        packet_interval=0.001,
    )
    t = truth.sample(400_000, random_state=2)
    m = SemiMarkovModel(family="lognormal").fit(t)
    # Discretisation to whole packets shifts the median by < half a packet.
    assert abs(math.exp(m.good_["mu"]) - 0.05) < 0.002
    assert abs(math.exp(m.bad_["mu"]) - 0.02) < 0.002


def test_vddp_fit_reproduces_packet_loss_rate() -> None:
    # A heuristic fit (docs/loss-models.md): it must at least keep the loss rate.
    t = ge_trace(0.02, 0.25, n=40_000, seed=6)
    m = VDDPModel().fit(t)
    want = 1 - t.bits.count_ones() / len(t)
    got = 1 - np.mean([m.sample(len(t), random_state=i).bits.count_ones() / len(t) for i in range(5)])
    assert abs(got - want) < 0.1 * want, (got, want, m.fitted_params())


# ---------------------------------------------------------------- JSON, specs, errors
@pytest.mark.parametrize("name", sorted(ALL_MODELS) + ["list", "replay", "ge-counts"])
def test_json_round_trip_gives_identical_samples(name: str, tmp_path: Path) -> None:
    t = ge_trace(0.05, 0.3, n=3000, seed=2)
    m = make_model(name).fit(t)
    path = tmp_path / f"{name}.json"
    m.save(path)
    back = load_model(path)
    assert type(back) is type(m)
    assert back.sample(2000, random_state=4) == m.sample(2000, random_state=4)
    # And through a spec string, as the CLI and the simulator take it.
    core = parse_loss_spec(f"@{path}")
    assert core is not None and core.sample(2000, 4) == m.to_core().sample(2000, 4)
    json.dumps(m.to_dict())


def test_every_spec_string_parses(tmp_path: Path) -> None:
    f = tmp_path / "t.txt"
    f.write_text("1\n1\n0\n1\n")
    specs = {
        "bernoulli:p=0.1": "bernoulli",
        "ge:prr=0.9,mu=0.6": "gilbert-elliott",
        "ge:b=0.01,g=0.3,h=0.9,k=0.01": "gilbert-elliott",
        "list:drops=4/13/17,period=20": "list",
        "ctmc:good=8,bad=4,pg=0.01,pb=0.3": "markov-ct",
        "onoff:good=1.8,bad=0.2,interval=0.01": "on-off",
        "semi:good=pareto/0.1/1.5,bad=exp/0.05": "semi-markov",
        "semi:good=lognormal/-3/1,bad=det/0.01,temporal=1": "semi-markov-on-off",
        "vddp:a=10,b=10,da=0,db=0.1,ca=1,cb=1": "vddp",
        "runlength:success=pareto/1/1.5,burst=geom/2": "runlength",
        f"replay:file={f},end=drop": "replay",
        f"replay:file={f},slot=0.005": "replay-time",
    }
    for spec, name in specs.items():
        m = parse_loss_spec(spec)
        assert m is not None and m.name == name, spec
        assert len(m.sample(100, 1)) == 100
    assert parse_loss_spec("none") is None
    drops = parse_loss_spec("list:drops=4/13/17")
    assert drops is not None
    lost = np.flatnonzero(drops.sample(20, 0).to_numpy() == 0) + 1
    assert lost.tolist() == [4, 13, 17]


@pytest.mark.parametrize(
    "spec, name",
    [
        ("bernoulli:p=1.5", "p ="),
        ("ge:b=-0.1,g=0.3", "b ="),
        ("ctmc:good=-8,bad=4", "mean_good ="),
        ("onoff:good=1,bad=0", "mean_bad ="),
        ("semi:good=pareto/0.1/-1,bad=exp/1", "good.shape ="),
        ("vddp:a=10,b=10,da=0,db=2,ca=1,cb=1", "drop_b ="),
        ("runlength:success=geom/0.5,burst=geom/2", "success.mean ="),
        ("ctmc:good=8,bad=4,interval=0", "packet_interval ="),
        ("list:drops=0/3", "drops ="),
        ("bernoulli:p=abc", "p ="),
        ("wibble:x=1", "unknown model"),
    ],
)
def test_invalid_parameters_name_themselves(spec: str, name: str) -> None:
    with pytest.raises(ParameterError, match=name):
        parse_loss_spec(spec)


def test_python_constructors_and_fit_errors() -> None:
    with pytest.raises(ParameterError, match="p = 1.2"):
        BernoulliModel(p=1.2)
    with pytest.raises(ParameterError, match="mean_bad = -1"):
        MarkovCTModel(1.0, -1.0)
    with pytest.raises(ParameterError, match="target"):
        BernoulliModel(target="median")
    with pytest.raises(ParameterError, match="end"):
        ReplayModel(end="loop")
    for name in list(ALL_MODELS) + ["list", "replay"]:
        with pytest.raises(EmptyInputError, match="trace"):
            make_model(name).fit(Trace([]))
    with pytest.raises(ParameterError, match="no loss"):
        GilbertElliottModel().fit(Trace([1, 1, 1]))
    with pytest.raises(NotFittedError):
        HMMModel().sample(10)
    with pytest.raises(ParameterError, match="drops = -1"):
        DeterministicListModel(drops=[3, -1])
    with pytest.raises(ParameterError, match="random_state"):
        BernoulliModel(p=0.1).sample(10, random_state=-1)
    with pytest.raises(ParameterError, match="fitted.bogus_"):
        LossModelBase.from_dict({"model": "bernoulli", "settings": {}, "fitted": {"bogus_": 1}})
    with pytest.raises(ParameterError, match="p ="):
        LossModelBase.from_dict({"model": "bernoulli", "settings": {}, "fitted": {"p_": 3.0}})


@settings(max_examples=50, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_bernoulli_spec_accepts_exactly_probabilities(p: float) -> None:
    spec = f"bernoulli:p={p!r}"
    if math.isfinite(p) and 0 <= p <= 1:
        m = parse_loss_spec(spec)
        assert m is not None and m.mean_loss() == pytest.approx(p)
    else:
        with pytest.raises(ParameterError, match="p ="):
            parse_loss_spec(spec)


def test_deterministic_list_fit_replays_pattern() -> None:
    t = Trace.from_string("1110111011")
    m = DeterministicListModel().fit(t)
    assert m.drops_ == [4, 8] and m.period_ == 10
    assert m.sample(20, 0).to_numpy().tolist() == [1, 1, 1, 0, 1, 1, 1, 0, 1, 1] * 2
    assert m.score(t) == 0.0
    assert m.score(Trace.from_string("1111111111")) == -math.inf


# ---------------------------------------------------------------- fidelity + CLI
def test_fidelity_shows_where_gilbert_elliott_fails() -> None:
    # Heavy-tailed success runs (seed 001 Fig. 2, seed 000 §9).
    truth = RunLengthModel(success={"kind": "pareto", "scale": 5.0, "shape": 1.2}, burst={"kind": "geometric", "mean": 4.0})
    t = truth.sample(60_000, random_state=1)
    ref, rows, _ = fidelity(t, ["bistable", "runlength", "bernoulli-fer"], seed=3)
    by = {r.model: r for r in rows}
    assert by["runlength"].ks_success is not None and by["bistable"].ks_success is not None
    assert by["runlength"].ks_success < by["bistable"].ks_success
    assert by["runlength"].stats.success_runs.max > by["bistable"].stats.success_runs.max
    # Bernoulli with the FER loses the bursts entirely.
    assert by["bernoulli-fer"].ks_burst is not None and by["bernoulli-fer"].ks_burst > 0.3
    assert ref.stats.length == len(t) == by["bistable"].stats.length


def test_cli_fit_json_plot_and_gen(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "t.txt"
    assert main(["gen", "ge:prr=0.8,mu=0.7", "-n", "5000", "-o", str(trace), "--seed", "3"]) == 0
    assert len(trace.read_text().split()) == 5000
    capsys.readouterr()
    rc = main(["fit", str(trace), "--models", "bernoulli-fer,bistable,runlength", "--json", "--plot", str(tmp_path / "p"), "--save", str(tmp_path / "m")])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["model"] for r in out["models"]] == ["bernoulli-fer", "bistable", "runlength"]
    assert out["reference"]["prr"] == pytest.approx(0.8, abs=0.05)
    assert all(Path(p).stat().st_size > 0 for p in out["plots"])
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == ["bernoulli-fer.json", "bistable.json", "runlength.json"]
    # gen from a saved model: same length, trace readable.
    g = tmp_path / "g.txt"
    assert main(["gen", str(tmp_path / "m" / "bistable.json"), "-n", "1000", "-o", str(g)]) == 0
    assert len(g.read_text().split()) == 1000
    # Text table.
    assert main(["fit", str(trace), "--models", "bistable"]) == 0
    assert "bistable" in capsys.readouterr().out


def test_cli_errors_exit_2_without_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.txt"
    assert main(["gen", "bernoulli:p=2", "-n", "5", "-o", str(out)]) == 2
    assert "p = 2" in capsys.readouterr().err
    assert not out.exists() and not list(tmp_path.iterdir())
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["gen", str(bad), "-n", "5", "-o", str(out)]) == 2
    assert "bad.json:1" in capsys.readouterr().err
    empty = tmp_path / "e.txt"
    empty.write_text("")
    assert main(["fit", str(empty)]) == 2
    assert main(["fit", str(empty.with_name("missing.txt"))]) != 0
    t = tmp_path / "t.txt"
    t.write_text("1\n0\n1\n")
    assert main(["fit", str(t), "--models", "nope"]) == 2
    assert "nope" in capsys.readouterr().err


# ---------------------------------------------------------------- real data
def rutgers_trace(shared: Path) -> Trace:
    """A Rutgers/ORBIT link (seed 000's kind of data): frames 0..300, missing seq = lost."""
    f = shared / "data/rutgers-noise/data/dbm-10/Results_node1-2_DailyTest_Sat-Oct-15-03_06_34-2005/sdec6-1"
    seqs = {int(line.split()[0]) for line in f.read_text().splitlines() if line.strip()}
    bits = np.array([1 if i in seqs else 0 for i in range(301)], dtype=np.uint8)
    return Trace(bits, name=f.name)


def test_all_models_fit_a_real_trace(shared: Path) -> None:
    t = rutgers_trace(shared)
    assert 0 < t.bits.count_ones() < len(t)
    ref, rows, fitted = fidelity(t, ["all"], seed=1)
    assert [r.model for r in rows] == list(ALL_MODELS)
    for r in rows:
        assert r.stats.length == len(t)
        assert r.ks_burst is not None and 0 <= r.ks_burst <= 1
    assert fitted["bernoulli-fer"].p_ == pytest.approx(1 - t.bits.count_ones() / len(t))  # type: ignore[attr-defined]
