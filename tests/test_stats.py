"""Trace statistics against hand-computed fixtures and properties (Srinivasan et al. §5.2-5.3,
§6.2, §8; Barsocchi et al. §IV)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from burstlab import ParameterError, Trace
from burstlab.stats import (
    UndefinedMuWarning,
    ge_from_prr_mu,
    link_class,
    p_two_successes,
    prefix_grid,
    trace_stats,
)


def test_hand_computed_fixture() -> None:
    # 1 1 0 0 1 0 1 1 1 0 — pairs: 11 10 00 01 10 01 11 11 10
    s = trace_stats(Trace.from_string("1100101110"), chunk=5)
    assert (s.length, s.delivered, s.lost) == (10, 6, 4)
    assert s.prr == 0.6
    assert (s.n00, s.n01, s.n10, s.n11) == (1, 2, 3, 3)
    assert s.g == pytest.approx(2 / 3) and s.b == pytest.approx(1 / 2)
    assert s.mu == pytest.approx(-1 / 6)  # oscillatory
    assert s.p_success_after_success == pytest.approx(1 / 2)
    assert s.p_loss_after_loss == pytest.approx(1 / 3)
    assert s.p_two_successes == pytest.approx(3 / 9)
    # loss bursts: 2, 1, 1; success runs: 2, 1, 3
    assert s.loss_bursts.lengths.tolist() == [1, 2] and s.loss_bursts.counts.tolist() == [2, 1]
    assert s.success_runs.lengths.tolist() == [1, 2, 3] and s.success_runs.counts.tolist() == [1, 1, 1]
    assert s.loss_bursts.mean == pytest.approx(4 / 3) and s.loss_bursts.max == 2
    assert s.success_runs.mean == pytest.approx(2.0) and s.success_runs.max == 3
    assert s.loss_bursts.cdf().tolist() == pytest.approx([2 / 3, 1.0])
    assert s.success_runs.ccdf().tolist() == pytest.approx([1.0, 2 / 3, 1 / 3])
    # chunks of 5: "11001" → |11|=1,|10|=1,|00|=1,|01|=1: g=1/2, b=1/2, μ=0;
    # "01110" → |01|=1,|11|=2,|10|=1: g=1, b=1/3, μ=-1/3. RMS of (1/6, -1/6) = 1/6.
    assert s.chunk_mu.tolist() == pytest.approx([0.0, -1 / 3])
    assert s.chunk_rms == pytest.approx(1 / 6)
    assert s.link_class == "intermediate"
    assert s.ge_closed_form == pytest.approx((0.6 * 7 / 6, 0.4 * 7 / 6))


def test_bursty_fixture_and_convergence_curve() -> None:
    # 20 × (5 successes, 5 losses): |11| = |00| = 80, |10| = 20, |01| = 19.
    t = Trace.from_string("1111100000" * 20)
    s = trace_stats(t, chunk=10, convergence_points=20)
    assert (s.n00, s.n01, s.n10, s.n11) == (80, 19, 20, 80)
    assert s.mu == pytest.approx(1 - 19 / 99 - 20 / 100)
    assert s.loss_bursts.lengths.tolist() == [5] and s.loss_bursts.n_runs == 20
    # Every chunk of 10 is 1111100000: |00| = 4, |01| = 0 → g = 0; |10| = 1, |11| = 4 → b = 1/5; μ = 0.8.
    assert np.allclose(s.chunk_mu, 0.8)
    assert s.chunk_rms == pytest.approx(abs(0.8 - s.mu))
    assert s.prefix_lengths.tolist() == list(range(10, 201, 10))
    # prefix of 10: μ = 0.8 (as one chunk); the last prefix is the whole trace.
    assert s.prefix_mu[0] == pytest.approx(0.8)
    assert s.prefix_mu[-1] == pytest.approx(s.mu)


@pytest.mark.parametrize("bits,why", [("", "empty"), ("1", "single"), ("1111", "no loss"), ("000", "no success")])
def test_degenerate_traces_warn_and_report_undefined(bits: str, why: str) -> None:
    t = Trace(np.array([int(c) for c in bits], dtype=np.uint8), name="deg")
    with pytest.warns(UndefinedMuWarning, match=why):
        s = trace_stats(t)
    assert s.mu is None and s.mu_undefined is not None and why in s.mu_undefined
    assert s.chunk_rms is None
    d = s.to_dict()
    assert d["mu"] is None and d["p_two_successes_ge"] is None
    if bits:
        assert s.prr == bits.count("1") / len(bits)
    else:
        assert s.prr is None and s.link_class is None


def test_warn_can_be_silenced() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert trace_stats(Trace([1, 1, 1]), warn=False).mu is None


def test_link_classes_seed000_fig2() -> None:
    assert [link_class(p) for p in (0.0, 0.099, 0.1, 0.199, 0.2, 0.6, 0.61, 0.95, 1.0)] == [
        "very poor", "very poor", "poor", "poor", "intermediate", "intermediate", "good", "good", "perfect",
    ]
    assert link_class(0.95, very_good=0.9) == "very good"
    assert link_class(0.85, very_good=0.9) == "good"
    with pytest.raises(ParameterError):
        link_class(1.5)


def test_section_6_2_known_answers() -> None:
    # Srinivasan et al. §6.2: PRR 0.9, μ 0.6 → 0.864 (bursty) vs 0.81 (independent);
    # PRR 0.1, μ 0.6 → 0.064 (the text rounds it to 0.06) vs 0.01.
    assert p_two_successes(0.9, 0.6) == pytest.approx(0.864)
    assert p_two_successes(0.9, 0.0) == pytest.approx(0.81)
    assert p_two_successes(0.1, 0.6) == pytest.approx(0.064)
    assert p_two_successes(0.1, 0.0) == pytest.approx(0.01)


def test_bad_parameters() -> None:
    with pytest.raises(ParameterError, match="chunk"):
        trace_stats(Trace([1, 0]), chunk=0)
    with pytest.raises(ParameterError, match="convergence_points"):
        prefix_grid(10, 0)


bit_lists = st.lists(st.integers(0, 1), min_size=0, max_size=400)


@settings(max_examples=150, deadline=None)
@given(bit_lists)
def test_properties_runs_transitions_mu(bits: list[int]) -> None:
    t = Trace(np.array(bits, dtype=np.uint8))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMuWarning)
        s = trace_stats(t, chunk=17)
    n = len(bits)
    # Run lengths sum to the length; runs alternate, so their counts differ by ≤ 1.
    total = int((s.loss_bursts.lengths * s.loss_bursts.counts).sum() + (s.success_runs.lengths * s.success_runs.counts).sum())
    assert total == n
    assert abs(s.loss_bursts.n_runs - s.success_runs.n_runs) <= 1
    starts0 = sum(1 for i, x in enumerate(bits) if x == 0 and (i == 0 or bits[i - 1] == 1))
    assert s.loss_bursts.n_runs == starts0
    # Transition counts: naive pairs.
    pairs = list(zip(bits, bits[1:]))
    assert (s.n00, s.n01, s.n10, s.n11) == tuple(pairs.count(p) for p in ((0, 0), (0, 1), (1, 0), (1, 1)))
    assert s.n00 + s.n01 + s.n10 + s.n11 == max(n - 1, 0)
    # |10| and |01| alternate, so they differ by at most one.
    assert abs(s.n10 - s.n01) <= 1
    # g, b, μ agree with the transition counts (Srinivasan et al. §5.2).
    if s.n01 + s.n00:
        assert s.g == s.n01 / (s.n01 + s.n00)
    else:
        assert s.g is None
    if s.n10 + s.n11:
        assert s.b == s.n10 / (s.n10 + s.n11)
    else:
        assert s.b is None
    if s.g is not None and s.b is not None:
        assert s.mu == pytest.approx(1 - s.g - s.b)
        assert -1.0 <= s.mu <= 1.0
    else:
        assert s.mu is None
    if n:
        assert s.delivered == sum(bits) and s.prr == pytest.approx(sum(bits) / n)
        assert s.loss_bursts.max == max((len(r) for r in "".join(map(str, bits)).split("1") if r), default=0)
    # The last prefix of the convergence curve is the whole trace.
    if s.prefix_mu.size:
        assert (math.isnan(s.prefix_mu[-1]) and s.mu is None) or s.prefix_mu[-1] == pytest.approx(s.mu)


def _naive_run_histograms(bits: np.ndarray) -> tuple[dict[int, int], dict[int, int]]:
    """Run lengths by value from the change points (numpy, one entry at a time in meaning)."""
    hist: tuple[dict[int, int], dict[int, int]] = ({}, {})
    if bits.size == 0:
        return hist
    ends = np.flatnonzero(np.diff(bits) != 0)
    starts = np.concatenate(([0], ends + 1))
    lengths = np.diff(np.concatenate((starts, [bits.size])))
    for s, n in zip(starts.tolist(), lengths.tolist()):
        h = hist[int(bits[s])]
        h[n] = h.get(n, 0) + 1
    return hist


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 1), st.lists(st.integers(1, 9000), min_size=0, max_size=150), st.integers(0, 70))
def test_run_histograms_of_long_traces_match_naive(first: int, runs: list[int], pad: int) -> None:
    """The word kernel of the fused pass (traces above 2^18 entries; shorter ones walk their
    run boundaries) gives exactly the naive run histograms: runs inside a 16-entry chunk,
    across chunks, across words and beyond 4096 entries, lengths not multiples of 64."""
    filler = (np.arange(300_000 + pad) // 3 % 2).astype(np.uint8)  # runs of 3, then the drawn ones
    drawn = np.concatenate([np.full(n, (first + k) % 2, dtype=np.uint8) for k, n in enumerate(runs)] or [np.zeros(0, np.uint8)])
    bits = np.concatenate((filler, drawn))
    s = trace_stats(Trace(bits), warn=False)
    zeros, ones = _naive_run_histograms(bits)
    for got, want in ((s.loss_bursts, zeros), (s.success_runs, ones)):
        assert dict(zip(got.lengths.tolist(), got.counts.tolist())) == want
    assert (s.n01 + s.n10) == int(np.count_nonzero(np.diff(bits)))


@settings(max_examples=200, deadline=None)
@given(st.floats(0.0, 1.0), st.floats(-1.0, 1.0))
def test_section_6_2_identities(prr: float, mu: float) -> None:
    g, b = ge_from_prr_mu(prr, mu)
    assert 1 - g - b == pytest.approx(mu, abs=1e-12)  # μ = 1 − g − b
    assert prr * b == pytest.approx((1 - prr) * g, abs=1e-12)  # G·b = B·g in steady state
    assert p_two_successes(prr, mu) == pytest.approx(prr * (1 - b), abs=1e-12)
    # μ = 0 is the independent link: P(two successes) = PRR².
    assert p_two_successes(prr, 0.0) == pytest.approx(prr * prr, abs=1e-12)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.floats(0.05, 0.95), st.floats(-0.5, 0.9), st.integers(0, 2**32))
def test_closed_forms_match_long_ge_traces(prr: float, mu: float, seed: int) -> None:
    """A long Gilbert-Elliott trace built from (PRR, μ) measures back close to them, and its
    empirical g, b satisfy the §6.2 closed forms. Statistical tolerances are 5 standard errors
    for n = 200,000 (derandomized: the same examples every run)."""
    from burstlab._core import LossModel

    g, b = ge_from_prr_mu(prr, mu)
    assume(0 < g <= 1 and 0 < b <= 1)
    n = 200_000
    t = Trace(LossModel.gilbert_elliott(b, g).sample(n, seed))
    s = trace_stats(t, warn=False)
    # PRR of a two-state chain: variance P(1−P)/n · (1+μ)/(1−μ).
    assert abs(s.prr - prr) < 5 * math.sqrt(prr * (1 - prr) / n * (1 + mu) / (1 - mu))
    # μ̂ = 1 − ĝ − b̂: binomial proportions over the ≈ n(1−PRR) losses and ≈ n·PRR successes.
    assert s.mu is not None
    assert abs(s.mu - mu) < 5 * math.sqrt(g * (1 - g) / (n * (1 - prr)) + b * (1 - b) / (n * prr))
    # The §6.2 identities hold for the trace's own counts exactly, up to end effects: |01|
    # and |10| differ by at most one and the last entry starts no pair, which moves ĝ, b̂
    # by at most 2/(N0 − 1) + 2/(N1 − 1) (N0 losses, N1 successes).
    n1 = s.delivered
    n0 = n - n1
    edge = 2 / (n0 - 1) + 2 / (n1 - 1)
    gc, bc = s.ge_closed_form  # type: ignore[misc]
    assert abs(gc - s.g) <= edge and abs(bc - s.b) <= edge
    # P(11) = |11|/(n−1) against PRR·(1 − b): the same end effects plus one pair in n − 1.
    assert abs(s.p_two_successes - s.p_two_successes_ge) <= edge + 2 / (n - 1)


def _naive_mu(bits: list[int]) -> float | None:
    pairs = list(zip(bits, bits[1:]))
    c = {p: pairs.count(p) for p in ((0, 0), (0, 1), (1, 0), (1, 1))}
    if not (c[0, 1] + c[0, 0]) or not (c[1, 0] + c[1, 1]):
        return None
    return 1 - c[0, 1] / (c[0, 1] + c[0, 0]) - c[1, 0] / (c[1, 0] + c[1, 1])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 1), min_size=0, max_size=300), st.integers(1, 80), st.integers(1, 30))
def test_convergence_matches_naive(bits: list[int], chunk: int, points: int) -> None:
    """Prefix μ, per-chunk μ and their RMS deviation (Srinivasan et al. §8) against plain Python."""
    s = trace_stats(Trace(np.array(bits, dtype=np.uint8)), chunk=chunk, convergence_points=points, warn=False)
    for length, m in zip(s.prefix_lengths.tolist(), s.prefix_mu.tolist()):
        want = _naive_mu(bits[:length])
        assert (want is None and math.isnan(m)) or m == pytest.approx(want, abs=1e-12)
    chunks = [_naive_mu(bits[k * chunk : (k + 1) * chunk]) for k in range(len(bits) // chunk)]
    assert len(s.chunk_mu) == len(chunks)
    for got, want in zip(s.chunk_mu.tolist(), chunks):
        assert (want is None and math.isnan(got)) or got == pytest.approx(want, abs=1e-12)
    whole = _naive_mu(bits)
    defined = [c for c in chunks if c is not None]
    if whole is None or not defined:
        assert s.chunk_rms is None
    else:
        assert s.chunk_rms == pytest.approx(math.sqrt(sum((c - whole) ** 2 for c in defined) / len(defined)), abs=1e-12)
