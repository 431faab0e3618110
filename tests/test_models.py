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
    BlockBootstrapModel,
    DeterministicListModel,
    GilbertElliottModel,
    HMMModel,
    HSMMModel,
    LossModelBase,
    MarkovCTModel,
    NotFittedError,
    ReplayModel,
    RunChainModel,
    RunLengthModel,
    SemiMarkovModel,
    VDDPModel,
    load_model,
    make_model,
)
from burstlab.models._base import _segments
from burstlab.traces import Trace


def ge_trace(b: float, g: float, h: float = 1.0, k: float = 0.0, n: int = 200_000, seed: int = 1) -> Trace:
    return Trace(_core.LossModel.gilbert_elliott(b, g, h, k).sample(n, seed), name="ge")


def binom_tol(p: float, n: int, z: float = 5.0) -> float:
    return z * math.sqrt(p * (1 - p) / n)


def batch_tol(lost: np.ndarray, z: float = 5.0, k: int = 100) -> float:
    """z standard errors of the mean of a correlated 0/1 sequence, from k batch means (the
    batches must be much longer than the sequence's memory)."""
    m = lost.size // k
    means = np.asarray(lost[: m * k], dtype=float).reshape(k, m).mean(axis=1)
    return z * float(means.std(ddof=1)) / math.sqrt(k)


def lost_mask(t: Trace) -> np.ndarray:
    return t.to_numpy() == 0


# ---------------------------------------------------------------- sampled vs analytic
def test_bernoulli_sample_matches_p() -> None:
    n = 500_000
    for p in (0.01, 0.2, 0.7):
        t = BernoulliModel(p=p).sample(n, random_state=3)
        loss = 1 - t.bits.count_ones() / n
        assert abs(loss - p) < binom_tol(p, n)
        # Geometric runs: mean burst 1/(1-p), mean gap 1/p (Barsocchi et al. §III). A geometric run
        # that ends with probability q has standard deviation √(1−q)/q; 5 standard errors
        # of the mean of the m runs seen.
        s = t.stats(warn=False)
        assert abs(s.loss_bursts.mean - 1 / (1 - p)) < 5 * math.sqrt(p) / (1 - p) / math.sqrt(s.loss_bursts.n_runs)
        assert abs(s.success_runs.mean - 1 / p) < 5 * math.sqrt(1 - p) / p / math.sqrt(s.success_runs.n_runs)


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
    # TIBET (Martignon & Capone §IV.B): good 8 s, bad 4 s, 1 % / 20 % drop, packets every 10 ms.
    m = MarkovCTModel(8.0, 4.0, 0.01, 0.2, packet_interval=0.01)
    want = m.mean_loss()
    assert want == pytest.approx(8 / 12 * 0.01 + 4 / 12 * 0.2)
    t = m.sample(3_000_000, random_state=1)  # 30000 s ≈ 2500 cycles, 25 per batch of 100
    assert t.interval == 0.01
    lost = lost_mask(t)
    assert abs(lost.mean() - want) < batch_tol(lost)


def test_run_length_model_mean_loss() -> None:
    m = RunLengthModel(
        success={"kind": "geometric", "mean": 20.0},
        burst={"kind": "empirical", "values": [1, 3, 10], "weights": [5, 3, 2]},
    )
    want = m.mean_loss()
    mb = (1 * 5 + 3 * 3 + 10 * 2) / 10
    assert want == pytest.approx(mb / (mb + 20))
    t = m.sample(500_000, random_state=2)
    lost = lost_mask(t)
    assert abs(lost.mean() - want) < batch_tol(lost)


def test_on_off_time_mode_from_python() -> None:
    core = _core.LossModel.on_off(0.09, 0.01)
    starts = np.arange(200_000) * 0.005  # probes every 5 ms, zero length
    lost = core.lost_in_transit_many(starts, starts, 4)
    assert core.time_loss_fraction() == pytest.approx(0.1)
    # 1000 s of 0.1-s cycles: 100 batches of ≈ 100 cycles each.
    assert abs(lost.mean() - 0.1) < batch_tol(np.asarray(lost, dtype=bool))
    with pytest.raises(ParameterError, match="starts"):
        core.lost_in_transit_many(np.array([1.0, 0.5]), np.array([1.0, 0.5]), 0)


def test_vddp_time_fraction_from_python() -> None:
    m = VDDPModel(mean_a=10.0, mean_b=10.0, drop_a=0.0, drop_b=0.1, cycle_a=1.0, cycle_b=1.0)
    core = m.to_core()
    assert core.time_loss_fraction() == pytest.approx(0.05)
    assert core.mean_loss() is None


# ---------------------------------------------------------------- fits recover parameters
def test_table_i_bernoulli_fits() -> None:
    n, p = 300_000, 0.1
    t = BernoulliModel(p=p).sample(n, random_state=5)
    # Standard errors by the delta method: FER √(p(1−p)/n); p = 1 − 1/mean burst over
    # ≈ np(1−p) geometric bursts: √((1−p)/n); p = 1/mean gap: √(p/n).
    se = {"fer": math.sqrt(p * (1 - p) / n), "burst": math.sqrt((1 - p) / n), "gap": math.sqrt(p / n)}
    for target in ("fer", "burst", "gap"):
        m = BernoulliModel(target=target).fit(t)
        assert abs(m.p_ - p) < 5 * se[target], (target, m.p_)
    # On a bursty trace the three targets disagree (Barsocchi et al. §IV): burst → high p, gap → low p.
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
    # 5 standard deviations of the estimator at n = 60,000, measured over 20 independent
    # traces (seeds 100-119): sd(b) 0.0008, sd(g) 0.0079, sd(h) 0.0056, sd(k) 0.00058; the
    # estimator showed no bias beyond 0.2 sd.
    assert abs(m.b_ - 0.02) < 5 * 0.0008
    assert abs(m.g_ - 0.2) < 5 * 0.0079
    assert abs(m.h_loss_ - 0.9) < 5 * 0.0056
    assert abs(m.k_loss_ - 0.01) < 5 * 0.00058
    # The fitted model explains the data better than an independent one.
    assert m.score(t) > BernoulliModel().fit(t).score(t)


def test_markov_ct_fit_recovers_sojourn_means() -> None:
    truth = MarkovCTModel(0.2, 0.05, packet_interval=0.01)
    t = truth.sample(400_000, random_state=9)
    m = MarkovCTModel().fit(t)
    assert m.interval_ == 0.01
    # The fit inverts the embedded chain: m_G = −T/(π_B ln μ), m_B = −T/((1 − π_B) ln μ).
    # Truth: s = 1/0.2 + 1/0.05 = 25/s, μ = e^(−sT), π_B = 0.2, g = (1−μ)(1−π_B),
    # b = (1−μ)π_B. Standard errors of μ̂ (binomial over N0 losses, N1 successes) and π̂_B
    # (two-state chain), carried by the delta method (|∂|·sd summed: no correlation assumed).
    n, T, pb = len(t), 0.01, 0.2
    mu = math.exp(-25 * T)
    g, b = (1 - mu) * (1 - pb), (1 - mu) * pb
    sd_mu = math.sqrt(g * (1 - g) / (n * pb) + b * (1 - b) / (n * (1 - pb)))
    sd_pb = math.sqrt(pb * (1 - pb) / n * (1 + mu) / (1 - mu))
    ln = math.log(mu)
    sd_good = T / (pb * mu * ln**2) * sd_mu + T / (pb**2 * abs(ln)) * sd_pb
    sd_bad = T / ((1 - pb) * mu * ln**2) * sd_mu + T / ((1 - pb) ** 2 * abs(ln)) * sd_pb
    assert abs(m.mean_good_ - 0.2) < 5 * sd_good and abs(m.mean_bad_ - 0.05) < 5 * sd_bad, (m.mean_good_, m.mean_bad_, sd_good, sd_bad)


def test_on_off_fit_recovers_sojourn_means() -> None:
    # Moment fit (a bad period of length x touches ≈ x/T + 1 packets); short good periods
    # (< T) merge bursts, a bias of order 1 − e^(−T/m_G) ≈ 2.5 % here.
    truth = MarkovCTModel(0.2, 0.05, temporal=True, packet_interval=0.005)
    t = truth.sample(400_000, random_state=9)
    m = MarkovCTModel(temporal=True).fit(t)
    # Relative tolerance: the merging bias (a merge lengthens a good and a bad period at once,
    # bound 2·(1 − e^(−T/m_G))) plus 5 standard errors of an exponential mean over the
    # N = n·T/(m_G + m_B) = 8000 cycles (sd m/√N). Measured over seeds 9, 400-405: bias
    # +3.4 % (good) / +4.0 % (bad), sd 1.1 % / 1.7 %; the former flat 6 % failed seed 405 (bad +7.1 %).
    T, n_cycles = 0.005, len(t) * 0.005 / 0.25
    rel = 2 * (1 - math.exp(-T / 0.2)) + 5 / math.sqrt(n_cycles)
    assert abs(m.mean_good_ / 0.2 - 1) < rel and abs(m.mean_bad_ / 0.05 - 1) < rel, (m.fitted_params(), rel)


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
    # Tolerances from the estimator's spread at n = 60,000 over 10 independent traces (seeds
    # 200-209): sd of the middle state's loss probability 0.0048 (5 sd: 0.025); the boundary
    # states' estimates (sd ≈ 1.3e-4, skewed away from 0 and 1) within 1e-3; the fitted
    # mean loss has sd 0.0124 (the trace's own sampling noise), 5 sd: 0.062.
    assert np.all(np.abs(m3.loss_ - np.array([0.0, 0.5, 1.0])) < [1e-3, 0.025, 1e-3]), m3.loss_
    assert m3.mean_loss() == pytest.approx(three.mean_loss(), abs=5 * 0.0124)
    # Maximum likelihood reproduces the trace's own loss rate, up to start/end effects of the
    # order of the slowest state's mean sojourn (50 packets) over n: 2 · 50 / 60,000.
    emp = 1 - t3.bits.count_ones() / len(t3)
    assert m3.mean_loss() == pytest.approx(emp, abs=2 * 50 / 60_000)


def test_runlength_fit_recovers_pareto_tail() -> None:
    truth = RunLengthModel(success={"kind": "pareto", "scale": 10.0, "shape": 1.5}, burst={"kind": "geometric", "mean": 3.0})
    t = truth.sample(2_000_000, random_state=11)
    m = RunLengthModel(tail="pareto", tail_quantile=0.5).fit(t)
    assert m.success_["tail_scale"] >= 10
    # The Hill estimate over the k ≈ 33,000 runs above the threshold has sd α/√k ≈ 0.008 for
    # a continuous Pareto; on whole-packet runs it measured sd 0.015 over seeds 300-304 (no
    # bias beyond 0.2 sd): 0.1 is about 7 sd.
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
    # The median e^μ of N lognormal sojourns has sd ≈ median·σ/√N; N = n·T / (mean cycle),
    # lognormal means m·e^(σ²/2). Discretisation to whole packets shifts the median by < half
    # a packet (T/2). Tolerance: 5 sd + T/2 (was a flat 0.002: 11 and 28 sd).
    T, sigma = 0.001, 0.3
    n_periods = len(t) * T / ((0.05 + 0.02) * math.exp(sigma**2 / 2))
    for got, median in ((m.good_["mu"], 0.05), (m.bad_["mu"], 0.02)):
        assert abs(math.exp(got) - median) < 5 * median * sigma / math.sqrt(n_periods) + T / 2, (got, median)


def test_vddp_fit_reproduces_packet_loss_rate() -> None:
    # A heuristic fit (docs/loss-models.md) that keeps the loss rate only to first order: on
    # these traces it overestimates it by 7-11 % (seeds 6, 500-504; for seed 6 +10.9 % on
    # average over 50 sampled traces), always upwards. The sampled loss rate of 5 × 40,000
    # packets has sd 2.2 % of it, so the bound is the bias plus 5 sd: 0.11 + 5 · 0.022.
    # A fit without the bias should tighten this to the sampling noise alone.
    t = ge_trace(0.02, 0.25, n=40_000, seed=6)
    m = VDDPModel().fit(t)
    want = 1 - t.bits.count_ones() / len(t)
    got = 1 - np.mean([m.sample(len(t), random_state=i).bits.count_ones() / len(t) for i in range(5)])
    assert 0.0 < (got - want) / want < 0.11 + 5 * 0.022, (got, want, m.fitted_params())


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
        f"bootstrap:file={f},block=3": "bootstrap",
        f"bootstrap:file={f}": "bootstrap",
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
        ("ctmc:good=-8,bad=4", "good = -8"),
        ("onoff:good=1,bad=0", "bad = 0"),
        ("semi:good=pareto/0.1/-1,bad=exp/1", "good.shape ="),
        ("vddp:a=10,b=10,da=0,db=2,ca=1,cb=1", "db = 2"),
        ("runlength:success=geom/0.5,burst=geom/2", "success.mean ="),
        ("ctmc:good=8,bad=4,interval=0", "interval = 0"),
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
    # Heavy-tailed success runs (Barsocchi et al. Fig. 2, Srinivasan et al. §9).
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
    """A Rutgers/ORBIT link (Srinivasan et al.'s kind of data): frames 0..300, missing seq = lost."""
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


# ---------------------------------------------------------------- models for the TCP judge (issue 16)
def _emp(values: list[float], weights: list[float]) -> dict[str, object]:
    return {"kind": "empirical", "values": values, "weights": weights}


def test_hmm_fits_are_computed_once_per_trace_and_settings() -> None:
    """HSMM and VDDP start from the same Baum-Welch fits as HMMModel on the same trace: the
    process fits once (burstlab.models.hmm._FITS), and the models are those of fresh fits."""
    from burstlab.models import hmm as hmm_mod

    t = ge_trace(0.02, 0.2, h=0.9, k=0.01, n=8_000, seed=4)
    hmm_mod._FITS.clear()
    fresh_hsmm = HSMMModel().fit(t).to_dict()
    hmm_mod._FITS.clear()
    fresh_vddp = VDDPModel().fit(t).to_dict()
    hmm_mod._FITS.clear()
    a = HMMModel().fit(t)
    n = len(hmm_mod._FITS)
    assert n == 3  # k = 2, 3, 4 (k = 1 is closed-form)
    assert HSMMModel().fit(t).to_dict() == fresh_hsmm and VDDPModel().fit(t).to_dict() == fresh_vddp
    assert len(hmm_mod._FITS) == n  # nothing fitted again
    assert HMMModel().fit(t).to_dict() == a.to_dict()
    other = ge_trace(0.02, 0.2, h=0.9, k=0.01, n=8_000, seed=5)
    HMMModel(max_states=2).fit(other)
    assert len(hmm_mod._FITS) == n + 1  # another trace: its own fit


def test_hsmm_fit_recovers_regimes_and_their_durations() -> None:
    """Quiet regimes of 300 or 2000 packets (loss 0.02) alternate with interfered ones of 20
    or 60 (loss 0.9). Over 100,000 packets (≈ 87 cycles): the quiet loss within 5 binomial
    standard errors (≈ 96,000 packets: 0.0023); the interfered one within 0.03 (5 se of
    ≈ 3,400 packets is 0.026; Viterbi moves a few boundary packets); the mean durations
    within 5 standard errors of 87 draws (quiet: 850/√87·5 = 455; interfered 20/√87·5 = 11);
    the long-run loss the trace's (regimes are whole Viterbi segments, so the fitted
    counts are the trace's own)."""
    truth = _core.LossModel.hsmm([[0.0, 1.0], [1.0, 0.0]], [1.0, 0.0], [_emp([300.0, 2000.0], [1, 1]), _emp([20.0, 60.0], [1, 1])], [0.02, 0.9])
    t = Trace(truth.sample(100_000, 2))
    m = HSMMModel(n_states=2).fit(t)
    assert m.n_states_ == 2 and m.jump_ == [[0.0, 1.0], [1.0, 0.0]]
    assert abs(m.loss_[0] - 0.02) < 0.0023 and abs(m.loss_[1] - 0.9) < 0.03, m.loss_
    means = [float(np.average(d["values"], weights=d["weights"])) for d in m.durations_]
    assert abs(means[0] - 1150) < 455 and abs(means[1] - 40) < 11, means
    assert m.mean_loss() == pytest.approx(1 - t.bits.count_ones() / len(t), abs=1e-3)
    assert any("regime 1: loss 0.9" in line for line in m.describe())
    s = m.sample(100_000, random_state=3)
    lost = lost_mask(s)
    assert abs(lost.mean() - m.mean_loss()) < batch_tol(lost)  # type: ignore[operator]


def test_run_chain_recovers_run_to_run_correlation() -> None:
    """Success runs of 1 or 50 packets, bursts of 1 or 20; after a short success run comes a
    long burst with probability 0.9, after a long one a short burst with 0.9. The order-1
    chain finds the four classes and those probabilities (5 binomial se of ≈ 4,000 runs:
    0.024), which independent runs (RunLengthModel) cannot hold; with min_count above
    every count the order-2 chain backs off to exactly the order-1 rows."""
    det = [{"kind": "deterministic", "value": v} for v in (1.0, 50.0, 1.0, 20.0)]
    jump = [[0, 0, 0.1, 0.9], [0, 0, 0.9, 0.1], [0.5, 0.5, 0, 0], [0.5, 0.5, 0, 0]]
    t = Trace(_core.LossModel.hsmm(jump, [1, 0, 0, 0], det, [0, 0, 1, 1]).sample(300_000, 3))
    m = RunChainModel(order=1, success_classes=2, burst_classes=2).fit(t)
    assert m.edges_ == {"success": [50], "burst": [20]}
    state = {c[0]: i for i, c in enumerate(m.contexts_)}  # class → state (order 1)
    # classes: 0 = success 1, 1 = success 50, 2 = burst 1, 3 = burst 20
    assert abs(m.jump_[state[0]][state[3]] - 0.9) < 0.024 and abs(m.jump_[state[1]][state[2]] - 0.9) < 0.024
    # a sample keeps the correlation: next burst after a 50-run is short ≈ 90 % of the time
    vals, lens = _segments(m.sample(300_000, random_state=5).to_numpy())
    after_long = [lens[i + 1] for i in range(len(vals) - 1) if vals[i] == 1 and lens[i] == 50]
    assert abs(np.mean(np.asarray(after_long) == 1) - 0.9) < 5 * math.sqrt(0.09 / len(after_long))
    indep = RunLengthModel().fit(t)
    vals, lens = _segments(indep.sample(300_000, random_state=5).to_numpy())
    after_long = [lens[i + 1] for i in range(len(vals) - 1) if vals[i] == 1 and lens[i] == 50]
    assert abs(np.mean(np.asarray(after_long) == 1) - 0.5) < 5 * math.sqrt(0.25 / len(after_long))
    m2 = RunChainModel(order=2, success_classes=2, burst_classes=2, min_count=10**9).fit(t)
    assert len(m2.contexts_) == 8
    for i, ctx in enumerate(m2.contexts_):
        nxt = {m2.contexts_[j][-1]: p for j, p in enumerate(m2.jump_[i]) if p > 0}
        want = {m.contexts_[j][-1]: p for j, p in enumerate(m.jump_[state[ctx[-1]]]) if p > 0}
        assert nxt == pytest.approx(want), ctx


def test_block_bootstrap_resamples_the_trace() -> None:
    t = ge_trace(0.01, 0.2, n=50_000, seed=8)
    m = BlockBootstrapModel().fit(t)
    assert m.mean_block_ == pytest.approx(0.05 * 50_000)
    assert m.mean_loss() == pytest.approx(1 - t.bits.count_ones() / len(t))
    s = m.sample(200_000, random_state=1)
    lost = lost_mask(s)
    assert abs(lost.mean() - m.mean_loss()) < batch_tol(lost)  # type: ignore[operator]
    assert BlockBootstrapModel(mean_block=1).fit(t).mean_block_ == 1.0
    assert BlockBootstrapModel().fit(t[:1000]).mean_block_ == 200.0  # the floor


def test_new_model_parameters_name_themselves() -> None:
    for call, needle in (
        (lambda: RunChainModel(order=0), "order = 0"),
        (lambda: RunChainModel(order=5), "order = 5"),
        (lambda: RunChainModel(success_classes=0), "success_classes"),
        (lambda: RunChainModel(tail="weibull"), "tail"),
        (lambda: HSMMModel(n_states=0), "n_states"),
        (lambda: HSMMModel(tail_quantile=1.0), "tail_quantile"),
        (lambda: BlockBootstrapModel(mean_block=0.5), "mean_block"),
        (lambda: BlockBootstrapModel(mean_block="long"), "mean_block"),
        (lambda: HSMMModel().sample(5), "HSMMModel"),
        (lambda: BlockBootstrapModel().sample(5), "BlockBootstrapModel"),
        (lambda: _core.LossModel.hsmm([[0.0, 1.0], [1.0, 0.0]], [1.0, 0.0], [{"kind": "geometric", "mean": 0.5}, {"kind": "geometric", "mean": 2.0}], [0, 1]), "durations[0].mean"),
    ):
        with pytest.raises(ParameterError, match=needle.replace("[", r"\[").replace("]", r"\]")):
            call()
    with pytest.raises(ParameterError, match="no loss"):
        RunChainModel().fit(Trace([1, 1, 1]))
