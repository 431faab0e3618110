"""The claims framework (burstlab.study): known answers for each verdict kind, a
flipped-data test per comparison kind, direction and ties, replicates needed, adaptive
replication, verdicts under settings, tallies with calibration apart, and prose that
follows its numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from burstlab.study import estimate as E
from burstlab.study import prose
from burstlab.study.claims import Claim, ClaimSet, _ratio_of_means, Difference, Given, Greater, Less, Mean, Near, Ratio, Statistic, every, ordering
from burstlab.study.verdict import PREVIEW, adaptive, judge, judge_all, judge_settings, mark_preview, replicates_needed, replicates_to_add, tally

X = np.array([1.0, 2.0, 3.0, 4.0, 5.0])  # mean 3, sd √2.5, n 5
H = stats.t.ppf(0.975, 4) * math.sqrt(2.5) / math.sqrt(5)  # 1.9632


def claim(cmp, q=None, **kw):  # type: ignore[no-untyped-def]
    return Claim("c", "Fig. 1", "words", cmp, q or Mean("x"), **kw)


# ---------------------------------------------------------------- estimates
def test_mean_interval_is_student_t():
    e = E.mean(X)
    assert e.value == 3.0 and e.n == 5
    assert e.lo == pytest.approx(3 - H) and e.hi == pytest.approx(3 + H)


def test_paired_difference_uses_pairs_and_drops_nan_pairs():
    x = np.array([10.0, 11.0, 12.0, np.nan, 14.0])
    y = x - np.array([1.0, 2.0, 3.0, 99.0, 4.0])
    e = E.difference(x, y)
    assert e.n == 4 and e.value == pytest.approx(2.5)
    h = stats.t.ppf(0.975, 3) * np.std([1, 2, 3, 4], ddof=1) / 2
    assert e.hi - e.value == pytest.approx(h)


def test_ratio_delta_interval_narrows_with_pairing():
    rng = np.random.default_rng(0)
    common = rng.normal(100, 10, 30)
    x, y = common * 1.3 + rng.normal(0, 1, 30), common + rng.normal(0, 1, 30)
    p, u = E.ratio(x, y, paired=True), E.ratio(x, y, paired=False)
    assert p.value == pytest.approx(np.mean(x) / np.mean(y))
    assert p.lo < p.value < p.hi
    assert p.half_width < u.half_width / 3  # common random numbers pay off


def test_bootstrap_matches_t_interval_for_a_mean_roughly():
    rng = np.random.default_rng(1)
    x = rng.normal(5, 1, 200)
    b, t = E.bootstrap(np.mean, [x]), E.mean(x)
    assert b.value == pytest.approx(t.value)
    assert b.lo == pytest.approx(t.lo, abs=0.05) and b.hi == pytest.approx(t.hi, abs=0.05)


# ---------------------------------------------------------------- known answers per verdict kind
@pytest.mark.parametrize("cmp, want", [
    (Near(3.0, 0.5, 5.5, reason="r"), "reproduced"),       # [1.04, 4.96] inside
    (Near(10.0, 8.0, 12.0, reason="r"), "contradicted"),   # wholly below
    (Near(5.0, 4.0, 6.0, reason="r"), "inconclusive"),     # straddles 4
    (Greater(0.5, reason="r"), "reproduced"),
    (Greater(2.0, reason="r"), "inconclusive"),
    (Greater(6.0, reason="r"), "contradicted"),
    (Less(6.0, reason="r"), "reproduced"),
    (Less(4.0, reason="r"), "inconclusive"),
    (Less(0.5, reason="r"), "contradicted"),
])  # fmt: skip
def test_known_verdicts(cmp, want):  # type: ignore[no-untyped-def]
    assert judge(claim(cmp), {"x": X}).outcome == want


def test_interval_touching_the_threshold_is_not_a_hold():
    x = np.array([0.0, 2.0])  # mean 1; make the threshold the interval's own lower bound
    e = E.mean(x)
    assert judge(claim(Greater(e.lo, reason="edge")), {"x": x}).outcome == "inconclusive"


def test_a_tie_is_never_reproduced_and_never_decides():
    x = np.array([-1.0, 1.0, -1.0, 1.0])  # mean exactly 0
    v = judge(claim(Greater(), Difference("x", "z")), {"x": x, "z": np.zeros(4)})
    assert v.outcome == "inconclusive" and v.more is None
    assert "tie" in prose.verdict_rows([v])[0][5]


# ---------------------------------------------------------------- flipped data fails each comparison kind
def _pair(shift: float, n: int = 30, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.normal(100, 10, n)
    return {"a": y * shift + rng.normal(0, 1, n), "b": y}


def test_near_ratio_flipped_fails():
    c = claim(Near(1.34, 1.27, 1.41, reason="10 batches"), Ratio("a", "b"))
    assert judge(c, _pair(1.34)).outcome == "reproduced"
    assert judge(c, _pair(1 / 1.34)).outcome == "contradicted"


def test_near_difference_flipped_fails():
    c = claim(Near(30.0, 20.0, 40.0, reason="r"), Difference("a", "b"))
    assert judge(c, _pair(1.3)).outcome == "reproduced"
    assert judge(c, _pair(0.7)).outcome == "contradicted"


def test_greater_flipped_fails():
    c = claim(Greater(), Ratio("a", "b"))
    assert judge(c, _pair(1.05)).outcome == "reproduced"
    assert judge(c, _pair(0.95)).outcome == "contradicted"


def test_less_flipped_fails():
    c = claim(Less(), Difference("a", "b"))
    assert judge(c, _pair(0.9)).outcome == "reproduced"
    assert judge(c, _pair(1.1)).outcome == "contradicted"


def test_ordering_flipped_fails():
    c = ordering("o", "Table 1", "a < b < c", ["a", "b", "c"])
    rng = np.random.default_rng(2)
    base = rng.normal(70, 3, 20)
    s = {"a": base, "b": base + 2 + rng.normal(0, 0.3, 20), "c": base + 4 + rng.normal(0, 0.3, 20)}
    assert judge(c, s).outcome == "reproduced"
    s["a"], s["c"] = s["c"], s["a"]
    v = judge(c, s)
    assert v.outcome == "contradicted" and [p.outcome for p in v.parts] == ["contradicted", "contradicted"]


def test_every_flipped_part_fails_the_whole():
    parts = {f"cfg{k}": Ratio(f"a{k}", f"b{k}") for k in range(3)}
    c = every("e", "Fig. 2", "faster in every configuration", Greater(), parts)
    s = {}
    for k in range(3):
        p = _pair(1.5, seed=k)
        s[f"a{k}"], s[f"b{k}"] = p["a"], p["b"]
    assert judge(c, s).outcome == "reproduced"
    s["a1"] = s["b1"] * 0.6
    assert judge(c, s).outcome == "contradicted"


def test_statistic_flipped_fails():
    q = Statistic(lambda a, b: float(np.mean(a) / np.mean(b)), ("a", "b"), "ratio of means", null=1.0)
    c = claim(Greater(), q)
    assert judge(c, _pair(1.2)).outcome == "reproduced"
    assert judge(c, _pair(0.8)).outcome == "contradicted"


def test_given_estimate_is_judged_as_given():
    c = claim(Near(2.0, 1.5, 2.5, reason="r"), Given("fit"))
    assert judge(c, {"fit": E.Estimate(2.0, 1.8, 2.2, 10)}).outcome == "reproduced"
    assert judge(c, {"fit": E.Estimate(3.0, 2.8, 3.2, 10)}).outcome == "contradicted"


# ---------------------------------------------------------------- direction always counts
def test_band_crossing_no_effect_is_refused():
    with pytest.raises(ValueError, match="direction"):
        claim(Near(1.035, 0.93, 1.14, reason="±10 %"), Ratio("a", "b"))


def test_sign_of_a_near_claim_counts():
    c = claim(Near(1.035, 1.0, 1.07, reason="sync slower by 0-7 % in Table 1"), Ratio("a", "b"))
    assert judge(c, _pair(1.035, n=200)).outcome == "reproduced"
    assert judge(c, _pair(0.957, n=200)).outcome == "contradicted"


def test_band_needs_reason_and_must_hold_the_paper_value():
    with pytest.raises(ValueError):
        Near(1.0, 1.1, 1.2, reason="r")
    with pytest.raises(ValueError, match="reason"):
        Near(1.0, 0.9, 1.1, reason=" ")
    with pytest.raises(ValueError, match="why"):
        claim(Greater(2.0), Ratio("a", "b"))


def test_claimset_ids_unique():
    c = claim(Greater(1.0, reason="r"))
    with pytest.raises(ValueError, match="duplicate"):
        ClaimSet((c, c))


# ---------------------------------------------------------------- replicates needed, adaptive
def test_replicates_needed_known_answer():
    """Centre 3, sd √2.5, n 5; nearest edge 4 at distance 1: n' is the smallest n with
    t(n)·√2.5/√n ≤ 1 (t(n) the quantile with n − 1 degrees of freedom): 13."""
    e = E.mean(X)
    n = next(n for n in range(2, 100) if stats.t.ppf(0.975, n - 1) * math.sqrt(2.5) / math.sqrt(n) <= 1)
    assert n == 13
    assert abs(replicates_needed(e, (4.0, 6.0)) - n) <= 1
    v = judge(claim(Near(5.0, 4.0, 6.0, reason="r")), {"x": X})
    assert v.more == replicates_needed(e, (4.0, 6.0)) - 5
    # a sample that large from the same spread does clear the edge
    assert stats.t.ppf(0.975, n - 1) * math.sqrt(2.5) / math.sqrt(n) <= 1 < stats.t.ppf(0.975, n - 2) * math.sqrt(2.5) / math.sqrt(n - 1)


def test_adaptive_adds_replicates_until_decided_within_budget():
    rng = np.random.default_rng(3)
    pool = rng.normal(1.0, 1.0, 400)  # mean ≈ 1, threshold 0: decides after a few dozen
    c = Claim("c", "w", "x > 0", Greater(), Difference("x", "z"))
    calls = []

    def samples_for(n):  # type: ignore[no-untyped-def]
        calls.append(n)
        return {"x": pool[:n], "z": np.zeros(n)}

    verdicts, n = adaptive([c], samples_for, 3, 400)
    assert verdicts[0].outcome == "reproduced"
    assert calls[0] == 3 and 3 < n <= 400 and calls == sorted(calls)


def test_replicates_to_add_respects_budget_and_ignores_calibration():
    v = judge(claim(Near(5.0, 4.0, 6.0, reason="r")), {"x": X})
    assert replicates_to_add([v], 5, 10) == 10  # needs ~20: the budget
    assert replicates_to_add([v], 5, 100) == v.needed
    assert replicates_to_add([v], 100, 100) == 100
    cal = judge(claim(Near(5.0, 4.0, 6.0, reason="r"), calibration=True), {"x": X})
    assert replicates_to_add([cal], 5, 100) == 5


# ---------------------------------------------------------------- settings, tallies, preview
def test_verdict_under_each_setting():
    c = claim(Greater(), Ratio("a", "b"))
    sv = judge_settings(c, {"error unit = packet": _pair(1.2), "error unit = bit": _pair(0.8)})
    assert sv.outcome == "depends"
    assert sv.summary() == "reproduced under error unit = packet; contradicted under error unit = bit"
    assert prose.settings_sentence(sv).startswith("Reproduced under")


def test_tally_counts_calibration_apart_and_marks_preview():
    s = {"x": X}
    vs = judge_all([claim(Greater(0.5, reason="r")), claim(Greater(2.0, reason="r")),
                    Claim("k", "§5", "timing constants give 5.3 Mb/s", Greater(0.5, reason="r"), Mean("x"), calibration=True)], s)  # fmt: skip
    t = tally(vs)
    assert (t.reproduced, t.contradicted, t.inconclusive, t.findings) == (1, 0, 1, 2)
    assert t.calibration == {"reproduced": 1}
    assert "not counted" in t.sentence() and PREVIEW not in t.sentence()
    q = tally(mark_preview(vs))
    assert q.sentence().endswith(PREVIEW)
    assert all(PREVIEW in v.label for v in mark_preview(vs))
    assert all(PREVIEW in prose.verdict_sentence(v) for v in mark_preview(vs))


def test_to_dict_carries_the_declaration_and_the_numbers():
    c = Claim("r", "Table 1", "30 % more", Near(1.34, 1.27, 1.41, reason="10 batches"), Ratio("a", "b"), conditions="LAN")
    d = judge(c, _pair(1.34)).to_dict()
    assert d["id"] == "r" and d["paper"] == 1.34 and d["tolerance_reason"] == "10 batches" and d["verdict"] == "reproduced"
    assert d["lo"] < d["ours"] < d["hi"] and d["n"] == 30


# ---------------------------------------------------------------- prose follows its numbers
def test_comparative_sentence_changes_with_the_numbers():
    up = prose.compare_ratio("the rate-based model", "the temporal one", E.ratio(*_pair(1.3).values()))
    down = prose.compare_ratio("the rate-based model", "the temporal one", E.ratio(*_pair(0.7).values()))
    tie = prose.compare_ratio("the rate-based model", "the temporal one", E.Estimate(1.0, 0.9, 1.1, 10))
    assert "longer" in up and "30 %" in up
    assert "shorter" in down and "longer" not in down
    assert "cannot be told apart" in tie and "longer" not in tie and "shorter" not in tie
    assert prose.compare_ratio("a", "b", E.NAN) == ""
    d = prose.compare_difference("Reno", "Tahoe", E.Estimate(-4.0, -6.0, -2.0, 10), more="slower", less="faster")
    assert d.startswith("Reno is 4 s faster than Tahoe")


def test_verdict_sentence_follows_the_outcome():
    base = claim(Near(5.0, 2.5, 7.5, reason="r"))
    s_in = prose.verdict_sentence(judge(base, {"x": X + 2}))
    s_out = prose.verdict_sentence(judge(base, {"x": X + 20}))
    s_mid = prose.verdict_sentence(judge(base, {"x": X}))
    assert s_in.startswith("Reproduced") and s_out.startswith("Contradicted") and s_mid.startswith("Inconclusive")
    assert "more replicates" in s_mid


def test_large_ratios_are_factors_and_verbs_agree():
    s = prose.compare_ratio("the rate-based model", "the temporal one", E.Estimate(2.95, 2.7, 3.2, 400), "slower", "faster")
    assert s.startswith("the rate-based model is slower than the temporal one by a factor 2.95")
    s = prose.compare_ratio("a", "b", E.Estimate(0.5, 0.4, 0.6, 10))
    assert "shorter than b by a factor 2.00" in s
    s = prose.compare_difference("Reno's timeouts", "Tahoe's", E.Estimate(7.0, 6.6, 7.4, 400), unit="", more="more", less="fewer", verb="are")
    assert s.startswith("Reno's timeouts are 7 more than Tahoe's")


def test_vectorized_bootstrap_gives_the_same_interval_as_one_call_per_resample() -> None:
    """The ratio claims' bootstrap computes every resample in one call; the resamples (and
    so the interval) are those of the one-call-per-resample path."""
    rng = np.random.default_rng(7)
    a, b = rng.exponential(2.0, 25), rng.exponential(1.5, 25) + 0.1
    one = E.bootstrap(lambda x, y: float(np.mean(x)) / float(np.mean(y)), [a, b])
    vec = E.bootstrap(_ratio_of_means, [a, b], vectorized=True)
    assert vec.value == pytest.approx(one.value, rel=1e-12) and vec.lo == pytest.approx(one.lo, rel=1e-9) and vec.hi == pytest.approx(one.hi, rel=1e-9)
    assert vec.method == one.method == "bootstrap BCa" and vec.lo < vec.value < vec.hi
    assert np.isnan(_ratio_of_means(np.array([1.0, 2.0]), np.array([0.0, 0.0])))  # a zero denominator: NaN, not an error


def test_t_quantiles_handed_to_another_process_are_the_same_numbers() -> None:
    """A figure worker takes the study's computed t quantiles (known_t_quantiles →
    add_t_quantiles) instead of importing scipy.special: the same numbers as scipy's t."""
    for n in (2, 3, 8, 40, 401):
        assert E.t_quantile(n) == float(stats.t.ppf(0.975, n - 1))
        assert E.t_quantile(n, 0.9) == float(stats.t.ppf(0.95, n - 1))
    table = E.known_t_quantiles()
    assert table[(8, 0.95)] == E.t_quantile(8)
    saved = dict(E._T_QUANTILES)
    try:
        E._T_QUANTILES.clear()
        E.add_t_quantiles({(8, 0.95): 1.25})  # a table is taken as given: the next call reads it
        assert E.t_quantile(8) == 1.25
        E.add_t_quantiles(table)
        assert E.t_quantile(8) == float(stats.t.ppf(0.975, 7))
    finally:
        E._T_QUANTILES.clear()
        E._T_QUANTILES.update(saved)
