"""Closed-form throughput models: known answers computed by hand from the published
equations, input validation, regimes, properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from burstlab import ParameterError
from burstlab.analytic import (
    MATHIS_C,
    Estimate,
    OutOfRegimeError,
    ge_two_successes,
    mathis,
    mathis_constant,
    padhye,
    padhye_approx,
    padhye_ew,
    padhye_f,
    padhye_q,
    tibet_ideal,
    tibet_reno,
)

# --------------------------------------------------------------------------- Mathis


def test_mathis_known_answers() -> None:
    # C·MSS/(RTT·√p): p = 0.01 → √p = 0.1; RTT = 0.1 s → RTT·√p = 0.01;
    # C = 1.31 → 131 packets/s; × 1000 bytes × 8 = 1 048 000 bits/s.
    e = mathis(0.01, 0.1, 1000, c=1.31)
    assert e.pps == pytest.approx(131.0, rel=1e-12)
    assert e.bps == pytest.approx(1_048_000.0, rel=1e-12)
    assert e.in_regime
    # C = √(3/2) = 1.224744871 → 122.4744871 packets/s.
    assert mathis(0.01, 0.1, c="sqrt(3/2)").pps == pytest.approx(122.4744871, rel=1e-9)
    # Srinivasan et al. §4's C = 1.3 with p = 0.0025 (√p = 0.05), RTT = 0.2 s: 1.3/(0.2·0.05) = 130.
    assert mathis(0.0025, 0.2, c="1.3").pps == pytest.approx(130.0, rel=1e-12)


def test_mathis_constants() -> None:
    assert MATHIS_C["sqrt(3/2)"] == pytest.approx(1.2247448714, rel=1e-10)
    assert mathis_constant("1.31") == 1.31
    assert mathis_constant(2.5) == 2.5
    with pytest.raises(ParameterError, match="c ="):
        mathis_constant("golden")
    with pytest.raises(ParameterError, match="c ="):
        mathis_constant(-1.0)


def test_mathis_regimes() -> None:
    e = mathis(0.05, 0.1)
    assert not e.in_regime
    assert any("timeouts" in o for o in e.outside)
    with pytest.raises(OutOfRegimeError, match="p = 0.05"):
        mathis(0.05, 0.1, strict=True)
    # Implied window 1.31/√0.0001 = 131 packets > wmax = 20.
    w = mathis(0.0001, 0.1, wmax=20)
    assert any("window-limited" in o for o in w.outside)
    assert mathis(0.0001, 0.1, wmax=200).in_regime


@pytest.mark.parametrize("p", [0.0, 1.0, -0.1, 1.5, math.nan, math.inf])
def test_invalid_p_is_rejected_by_every_model(p: float) -> None:
    for f in (mathis, tibet_ideal, tibet_reno, padhye, padhye_approx):
        with pytest.raises(ParameterError, match=r"invalid p"):
            f(p, 0.1)


@pytest.mark.parametrize("rtt", [0.0, -0.1, math.nan])
def test_invalid_rtt_is_rejected(rtt: float) -> None:
    for f in (mathis, tibet_ideal, padhye, padhye_approx):
        with pytest.raises(ParameterError, match=r"invalid rtt"):
            f(0.01, rtt)


def test_invalid_other_parameters() -> None:
    with pytest.raises(ParameterError, match="invalid mss"):
        mathis(0.01, 0.1, mss=0)
    with pytest.raises(ParameterError, match="invalid t0"):
        padhye(0.01, 0.1, t0=0.0)
    with pytest.raises(ParameterError, match="invalid b"):
        padhye(0.01, 0.1, b=0.5)
    with pytest.raises(ParameterError, match="invalid wmax"):
        padhye_approx(0.01, 0.1, wmax=0.5)
    assert issubclass(OutOfRegimeError, ParameterError)


# --------------------------------------------------------------------------- Padhye


def test_padhye_pieces_known_answers() -> None:
    # E[W_u] = (2+b)/(3b) + √(8(1−p)/(3bp) + ((2+b)/(3b))²); b = 2, p = 0.01:
    # (2+2)/6 = 0.6666667; 8·0.99/(3·2·0.01) = 7.92/0.06 = 132; √(132 + 0.4444444) = 11.5084510
    # → E[W] = 12.1751177.
    assert padhye_ew(0.01, 2) == pytest.approx(12.1751177, rel=1e-8)
    # b = 1, p = 0.05: 3/3 = 1; 8·0.95/(3·0.05) = 50.6666667; √51.6666667 = 7.1879529 → 8.1879529.
    assert padhye_ew(0.05, 1) == pytest.approx(8.1879529, rel=1e-8)
    # f(p) = 1 + p + 2p² + 4p³ + 8p⁴ + 16p⁵ + 32p⁶ at p = 0.01: 1 + 0.01 + 0.0002 + 0.000004
    # + 8e-8 + 1.6e-9 + 3.2e-11 = 1.0102040816; at p = 0.5: 1 + .5 + .5 + .5 + .5 + .5 + .5 = 4.
    assert padhye_f(0.01) == pytest.approx(1.0102040816, rel=1e-10)
    assert padhye_f(0.5) == pytest.approx(4.0, rel=1e-12)
    # Q̂(w) at p = 0.01, w = 8: (1−p)³ = 0.970299, 1−(1−p)³ = 0.029701, (1−p)⁵ = 0.9509900,
    # numerator 0.029701·(1 + 0.970299·0.0490099) = 0.0311134; (1−p)⁸ = 0.9227447,
    # denominator 0.0772553 → Q̂ = 0.4027349.
    assert padhye_q(0.01, 8) == pytest.approx(0.4027349, rel=1e-6)
    # w ≤ 3: every loss is a timeout.
    assert padhye_q(0.01, 3) == 1.0
    assert padhye_q(0.3, 2.5) == 1.0


def test_padhye_full_loss_limited_known_answer() -> None:
    # p = 0.01, b = 2, RTT = 0.1 s, T0 = 1 s, no Wmax. E[W] = 12.1751177 (above);
    # Q̂(E[W]): (1−p)^(E[W]−3) = 0.99^9.1751177 = 0.9119109, numerator 0.029701·(1 +
    # 0.970299·0.0880891) = 0.0322396; (1−p)^E[W] = 0.8848262, denominator 0.1151738 →
    # Q̂ = 0.2799216. f = 1.0102041.
    # Numerator (1−p)/p + E[W] + Q̂/(1−p) = 99 + 12.1751177 + 0.2827491 = 111.4578667.
    # Denominator RTT·(b·E[W]/2 + 1) + Q̂·T0·f/(1−p) = 1.3175118 + 0.2856343 = 1.6031460.
    # B = 111.4578667 / 1.6031460 = 69.524463 packets/s.
    e = padhye(0.01, 0.1, t0=1.0, b=2)
    assert e.pps == pytest.approx(69.524463, rel=1e-7)
    assert e.regime == "loss-limited"
    assert e.in_regime
    assert e.params["Q"] == pytest.approx(0.2799216, rel=1e-6)


def test_padhye_full_window_limited_known_answer() -> None:
    # Same with Wmax = 8 < E[W] = 12.18: the window-limited branch.
    # Q̂(8) = 0.4027349 (above). Numerator 99 + 8 + 0.4027349/0.99 = 107.4068030.
    # Denominator RTT·(b·Wmax/8 + (1−p)/(p·Wmax) + 2) = 0.1·(2 + 12.375 + 2) = 1.6375,
    # plus Q̂·T0·f/(1−p) = 0.4027349·1.0102041/0.99 = 0.4109540 → 2.0484540.
    # B = 107.4068030 / 2.0484540 = 52.433104 packets/s.
    e = padhye(0.01, 0.1, t0=1.0, b=2, wmax=8)
    assert e.pps == pytest.approx(52.433104, rel=1e-7)
    assert e.regime == "window-limited"


def test_padhye_full_second_known_answer() -> None:
    # p = 0.05, b = 1, RTT = 0.2 s, T0 = 2 s. E[W] = 8.1879529; (1−p)³ = 0.857375;
    # 0.95^5.1879529 = 0.7663570 → numerator 0.142625·(1 + 0.857375·0.2336430) = 0.1711956;
    # 0.95^8.1879529 = 0.6570553 → denominator 0.3429447 → Q̂ = 0.4991930.
    # f(0.05) = 1 + .05 + .005 + .0005 + .00005 + .000005 + .0000005 = 1.0555555.
    # Numerator 19 + 8.1879529 + 0.4991930/0.95 = 27.7134192.
    # Denominator 0.2·(8.1879529/2 + 1) + 0.4991930·2·1.0555555/0.95 = 1.0187953 + 1.1093178
    # = 2.1281131. B = 13.022531 packets/s.
    assert padhye(0.05, 0.2, t0=2.0, b=1).pps == pytest.approx(13.022531, rel=1e-7)


def test_padhye_approx_known_answers() -> None:
    # B ≈ 1/(RTT·√(2bp/3) + T0·min(1, 3√(3bp/8))·p·(1 + 32p²)).
    # p = 0.01, b = 2, RTT = 0.1, T0 = 1: √(0.04/3) = 0.1154701 → 0.0115470;
    # 3·√(0.0075) = 0.2598076; ·0.01·1.0032 = 0.0026064; B = 1/0.0141534 = 70.654424.
    assert padhye_approx(0.01, 0.1, t0=1.0, b=2).pps == pytest.approx(70.654424, rel=1e-7)
    # p = 0.05, b = 1, RTT = 0.2, T0 = 2: 0.2·√(0.1/3) = 0.0365148; 3·√(0.01875) = 0.4107919;
    # 2·0.4107919·0.05·1.08 = 0.0443655; B = 1/0.0808804 = 12.363940.
    assert padhye_approx(0.05, 0.2, t0=2.0, b=1).pps == pytest.approx(12.363940, rel=1e-7)
    # Window cap: Wmax/RTT = 5/0.1 = 50 < 70.65.
    e = padhye_approx(0.01, 0.1, t0=1.0, b=2, wmax=5)
    assert e.pps == pytest.approx(50.0) and e.regime == "window-limited"


def test_padhye_default_t0_and_regimes() -> None:
    # T0 defaults to max(1 s, 4·RTT): 1 s for RTT = 0.1, 2 s for RTT = 0.5.
    assert padhye(0.01, 0.1).params["t0"] == 1.0
    assert padhye(0.01, 0.5).params["t0"] == 2.0
    e = padhye(0.01, 0.5, t0=0.2)
    assert any("T0" in o for o in e.outside)
    assert any("30 %" in o for o in padhye(0.4, 0.1).outside)
    with pytest.raises(OutOfRegimeError):
        padhye_approx(0.4, 0.1, strict=True)


def test_padhye_tends_to_square_root_law_at_small_p() -> None:
    # Without timeouts E[W] → √(8/(3bp)) and B → 1/(RTT·√(2bp/3)) = √(3/(2b))/(RTT√p).
    for b in (1, 2):
        full = padhye(1e-6, 0.1, t0=1.0, b=b).pps
        sq = mathis(1e-6, 0.1, c=math.sqrt(1.5 / b)).pps
        assert full / sq == pytest.approx(1.0, abs=0.01)


@settings(max_examples=60, deadline=None)
@given(p1=st.floats(1e-4, 0.6), p2=st.floats(1e-4, 0.6), b=st.sampled_from([1, 2]))
def test_padhye_decreases_with_loss(p1: float, p2: float, b: int) -> None:
    lo, hi = sorted((p1, p2))
    assume(hi - lo >= 1e-6)
    assert padhye(lo, 0.1, 1.0, b).pps > padhye(hi, 0.1, 1.0, b).pps
    assert padhye_approx(lo, 0.1, 1.0, b).pps > padhye_approx(hi, 0.1, 1.0, b).pps


@settings(max_examples=60, deadline=None)
@given(p=st.floats(1e-4, 0.9), w=st.floats(1.0, 500.0))
def test_padhye_q_is_a_probability_and_window_caps_throughput(p: float, w: float) -> None:
    q = padhye_q(p, w)
    assert 0.0 < q <= 1.0
    # A window limit can only lower the rate.
    assert padhye(p, 0.1, 1.0, 2, wmax=w).pps <= padhye(p, 0.1, 1.0, 2).pps * (1 + 1e-12)


# --------------------------------------------------------------------------- TIBET


def test_tibet_known_answers() -> None:
    # 3.4·MSS/(RTT·p·log2(1/p)): p = 0.01, log2(100) = 6.6438562; RTT·p·log2 = 0.1·0.066438562
    # = 0.0066438562 → 511.75099 packets/s.
    e = tibet_ideal(0.01, 0.1)
    assert e.pps == pytest.approx(511.75099, rel=1e-7)
    assert e.in_regime
    # Fig. 9 (RTT = MSS = 1): p = 0.1: 3.4/(0.1·3.3219281) = 3.4/0.33219281 = 10.235020; Reno 1.31/√0.1 = 4.1425838.
    assert tibet_ideal(0.1, 1.0, 1).pps == pytest.approx(10.235020, rel=1e-7)
    r = tibet_reno(0.01, 1.0, 1)
    assert r.pps == pytest.approx(13.1, rel=1e-12) and r.in_regime
    assert tibet_reno(0.1, 1.0, 1).pps == pytest.approx(4.1425838, rel=1e-7)


def test_tibet_validity_range() -> None:
    for p in (1e-4, 0.2, 0.9):
        e = tibet_ideal(p, 0.1)
        assert not e.in_regime and "outside [0.001, 0.1]" in e.outside[0]
        with pytest.raises(OutOfRegimeError):
            tibet_ideal(p, 0.1, strict=True)
    assert tibet_ideal(1e-3, 0.1).in_regime and tibet_ideal(0.1, 0.1).in_regime
    assert not tibet_reno(1e-4, 0.1).in_regime


# --------------------------------------------------------------------------- Gilbert-Elliott


def test_ge_two_successes_seed000_examples() -> None:
    # Srinivasan et al. §6.2: b = (1−PRR)(1−μ), g = PRR(1−μ), P = PRR·(1−b).
    # PRR = 0.1, μ = 0.6: b = 0.9·0.4 = 0.36, P = 0.1·0.64 = 0.064 ("0.06"), independent 0.01.
    t = ge_two_successes(0.1, 0.6)
    assert (t.b, t.g) == (pytest.approx(0.36), pytest.approx(0.04))
    assert t.bursty == pytest.approx(0.064) and t.independent == pytest.approx(0.01)
    # PRR = 0.9, μ = 0.6: b = 0.04, P = 0.9·0.96 = 0.864, independent 0.81 (as printed).
    t = ge_two_successes(0.9, 0.6)
    assert t.bursty == pytest.approx(0.864) and t.independent == pytest.approx(0.81)
    # μ = 0 is the independent link.
    assert ge_two_successes(0.3, 0.0).ratio == pytest.approx(1.0)


def test_ge_two_successes_rejects_impossible_chains() -> None:
    # PRR = 0.1, μ = −0.5: b = 0.9·1.5 = 1.35 > 1: no such chain; the message gives μ ≥ −0.111.
    with pytest.raises(ParameterError, match="μ ≥ -0.1111"):
        ge_two_successes(0.1, -0.5)
    with pytest.raises(ParameterError, match="invalid mu"):
        ge_two_successes(0.5, 1.0)
    with pytest.raises(ParameterError, match="invalid prr"):
        ge_two_successes(1.0, 0.5)


def test_estimate_to_dict() -> None:
    e = Estimate("x", 10.0, 1500, "loss-limited", ("a",), {"p": 0.1})
    d = e.to_dict()
    assert d["bps"] == 10.0 * 1500 * 8 and d["in_regime"] is False and d["outside"] == ["a"]


# --------------------------------------------------------------------------- CLI


def test_cli_predict(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from burstlab.cli import main
    from burstlab.units import parse_duration

    assert parse_duration("100ms") == pytest.approx(0.1)
    assert parse_duration("0.25") == 0.25 and parse_duration("250us") == pytest.approx(2.5e-4)
    with pytest.raises(ParameterError, match="rtt"):
        parse_duration("fast", "rtt")

    assert main(["predict", "--prr", "0.4", "--mu", "0.6", "--rtt", "100ms", "--mss", "1000"]) == 0
    out = capsys.readouterr().out
    assert "padhye" in out and "tibet-ideal" in out and "mathis" in out
    assert "outside [0.001, 0.1]" in out  # p = 0.6 is outside TIBET's range, and says so
    assert "P(two consecutive successes) = 0.304" in out  # 0.4·(1 − 0.6·0.4)

    assert main(["predict", "--p", "0.01", "--rtt", "0.1", "--t0", "1s", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    pad = next(m for m in d["models"] if m["model"] == "padhye")
    assert pad["pps"] == pytest.approx(69.524463, rel=1e-7) and pad["in_regime"]
    assert d["gilbert_elliott"] is None

    assert main(["predict", "--prr", "0.4", "--rtt", "100ms", "--strict"]) == 2
    assert "outside its regime" in capsys.readouterr().err
    assert main(["predict", "--prr", "1.2", "--rtt", "100ms"]) == 2
    assert "invalid --prr = 1.2" in capsys.readouterr().err
    assert main(["predict", "--rtt", "100ms"]) != 0  # neither --prr nor --p
    assert main(["predict", "--p", "0.01", "--rtt", "-3ms"]) != 0
