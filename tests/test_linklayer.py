"""burstlab.linklayer: 802.11 ARQ, LL-HARQ and DCF timing through the Python API, checked
against closed forms (tolerances: 5 standard errors of the sample) and known answers. The
Rust tests in crates/burstlab-core/src/link/ check the same mechanisms at larger samples."""

from __future__ import annotations

import doctest
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import burstlab.linklayer as ll
from burstlab import _core
from burstlab.io import read_trace
from burstlab.linklayer import Arq, Backoff, Dcf, Harq, measure, wifi_timing
from burstlab.lossspec import parse_loss_spec


def test_module_examples_run() -> None:
    assert doctest.testmod(ll, raise_on_error=True).attempted >= 4


def test_wifi_timing_barsocchi_5_3_mbps() -> None:
    # Barsocchi et al. §II.B: 11 Mb/s, long preamble, 1000-byte packets, no RTS/CTS → 5.3 Mb/s.
    t = wifi_timing(1000, llc_snap_bytes=0)
    assert t.capacity_bps == pytest.approx(5.2916e6, abs=100)
    assert (t.difs, t.sifs, t.mean_backoff) == pytest.approx((50e-6, 10e-6, 310e-6))
    assert t.data == pytest.approx(192e-6 + 1028 * 8 / 11e6, abs=1e-9)
    assert t.ack == pytest.approx(192e-6 + 14 * 8 / 11e6, abs=1e-9)
    assert t.attempt == pytest.approx(t.difs + t.data + t.sifs + t.ack)
    # With LLC/SNAP (the default) and the ACK at 2 Mb/s: lower.
    assert wifi_timing(1000).capacity_bps == pytest.approx(5.271e6, rel=2e-4)
    assert wifi_timing(1000, llc_snap_bytes=0, ack_rate=2e6).capacity_bps == pytest.approx(5.136e6, rel=2e-4)
    short = wifi_timing(1000, Dcf(preamble="short"), llc_snap_bytes=0)
    assert short.attempt == pytest.approx(t.attempt - 192e-6, abs=1e-9)
    with pytest.raises(_core.ParameterError, match="rte"):
        wifi_timing(1000, rte=1)
    with pytest.raises(_core.ParameterError, match="preamble"):
        wifi_timing(1000, Dcf(rate=1e6, preamble="short"))


@pytest.mark.parametrize("p", [0.1, 0.3, 0.5, 0.7])
def test_bernoulli_residual_and_mean_attempts(p: float) -> None:
    # Residual p^(R+1) and mean attempts (1 − p^(R+1))/(1 − p), 5 standard errors.
    n = 50_000
    for r in [0, 1, 7, 15, 25]:
        m = measure(Arq(retry_limit=r, timing=1e-3), _core.LossModel.bernoulli(p), frames=n, seed=r + 1)
        resid = p ** (r + 1)
        a = np.arange(1, r + 2)
        pa = np.where(a <= r, p ** (a - 1.0) * (1 - p), p**r)
        mean_a = float((a * pa).sum())
        assert mean_a == pytest.approx((1 - resid) / (1 - p))
        sd_a = math.sqrt(float((a**2 * pa).sum()) - mean_a**2)
        assert abs(m.residual_loss_rate - resid) <= 5 * math.sqrt(resid * (1 - resid) / n) + 1e-12, (r, m.residual_loss_rate)
        assert abs(m.mean_attempts - mean_a) <= 5 * sd_a / math.sqrt(n) + 1e-12, (r, m.mean_attempts)
        assert int(m.attempts_per_frame.sum()) == n
        assert int((np.arange(len(m.attempts_per_frame)) * m.attempts_per_frame).sum()) == m.attempts
        # Every attempt takes 1 ms: latency = attempts ms, duration = their sum.
        assert m.duration == pytest.approx(m.attempts * 1e-3)
        assert m.frames_per_second == pytest.approx(m.delivered / m.duration)


def test_uniform_attempt_times_and_distributions() -> None:
    # Subramanian et al. slide 8: each attempt uniform in [min, max].
    lo, hi = 0.3e-3, 2e-3
    m = measure(Arq(retry_limit=14, timing=(lo, hi)), _core.LossModel.bernoulli(0.5), frames=50_000)
    at = m.attempt_time
    assert at.count == m.attempts
    assert lo <= at.min <= at.max <= hi  # type: ignore[operator]
    # Uniform mean (lo + hi)/2 within 5 standard errors.
    assert abs(at.mean - (lo + hi) / 2) < 5 * (hi - lo) / math.sqrt(12 * at.count)  # type: ignore[operator]
    qs = [float(at.quantiles[q]) for q in ll.QUANTILES]  # type: ignore[arg-type]
    assert qs == sorted(qs)
    # Nearest-rank median of a uniform within the histogram's 0.8 % and 5 standard errors.
    assert at.quantiles[0.5] == pytest.approx((lo + hi) / 2, rel=0.02)
    assert int(at.counts.sum()) == at.count
    assert np.all(np.diff(at.lower) > 0) and np.all(at.width > 0)
    lat = m.latency
    assert lat.count == m.frames and lat.min >= lo and lat.max <= 15 * hi  # type: ignore[operator]
    assert lat.mean == pytest.approx(m.duration / m.frames)


def test_backoff_lowers_mac_throughput() -> None:
    # 802.11 backoff on a lossless link: the capacity with mean backoff; without backoff more.
    dcf = Dcf()
    with_b = measure(Arq(timing=dcf, backoff=Backoff()), None, frames=50_000, frame_bytes=1000)
    without = measure(Arq(timing=dcf), None, frames=50_000, frame_bytes=1000)
    cap = wifi_timing(1000).capacity_bps
    # Backoff per frame uniform on 0..31 slots: relative sd of the mean frame time.
    rel = 5 * 20e-6 * math.sqrt((32**2 - 1) / 12) / math.sqrt(50_000) / (1000 * 8 / cap)
    assert with_b.throughput_bps == pytest.approx(cap, rel=rel)
    assert without.throughput_bps == pytest.approx(1000 * 8 / wifi_timing(1000).attempt, rel=2e-6)


def test_harq_binomial_known_answer() -> None:
    # Fixed p̂ = p (gain 0), mean sizing: n = ⌈k/(1 − p)⌉; one attempt: residual =
    # P(Binomial(n, 1 − p) < k). 1040 bytes + 8 LLC/SNAP in 100-byte fragments: k = 11.
    p, n_frames = 0.3, 100_000
    h = Harq(attempts=1, sizing="mean", ewma_gain=0.0, initial_loss=p)
    m = measure(h, _core.LossModel.bernoulli(p), frames=n_frames)
    k, n = 11, math.ceil(11 / (1 - p))
    want = float(stats.binom.cdf(k - 1, n, 1 - p))
    assert abs(m.residual_loss_rate - want) < 5 * math.sqrt(want * (1 - want) / n_frames)
    assert m.fec["data_sent"][0] == k * n_frames
    assert m.fec["pfec_sent"][0] == (n - k) * n_frames
    assert m.fec["rfec_sent"] == (0, 0)
    assert m.units_sent == n * n_frames
    assert m.fec["data_sent"][1] == 96 * k * n_frames  # ⌈1048 / 11⌉ bytes per fragment
    rates = m.fec_rates_bps()
    assert rates["pfec_sent"] == pytest.approx(m.fec["pfec_sent"][1] * 8 / m.duration)
    # Two attempts: lower residual loss, RFEC sent and some of it wasted.
    m2 = measure(Harq(attempts=2, sizing="mean", ewma_gain=0.0, initial_loss=p), _core.LossModel.bernoulli(p), frames=n_frames)
    assert m2.residual_loss_rate < m.residual_loss_rate / 3
    assert m2.fec["rfec_sent"][0] > m2.fec["rfec_wasted"][0] > 0


def test_harq_estimates_the_loss_rate() -> None:
    m = measure(Harq(), _core.LossModel.bernoulli(0.2), frames=20_000)
    # EWMA with gain 1/8 per attempt of ~15 fragments: sd ≈ sqrt(g/(2−g)·p(1−p)/15).
    sd = math.sqrt(0.125 / 1.875 * 0.2 * 0.8 / 15)
    assert m.loss_estimate == pytest.approx(0.2, abs=5 * sd)
    assert measure(Arq(), None, frames=10).loss_estimate is None


def test_ttem_trace_drives_arq_in_time_mode(tmp_path: Path) -> None:
    # Barsocchi et al.'s Ttem: 0 = good, 1 = bad per 5 ms. [10, 20) ms bad. Attempts of
    # 1.2 ms back to back: the frame in service at 9.6 ms loses 8 attempts (R = 7) and is
    # dropped; the next loses one, then everything gets through.
    f = tmp_path / "channel.ttem"
    f.write_text("0\n0\n1\n1\n0\n0\n0\n0\n")
    model = _core.LossModel.replay(read_trace(f).bits, end="deliver", slot=0.005)
    m = measure(Arq(retry_limit=7, timing=1.2e-3), model, mode="time", frames=20)
    assert (m.dropped, m.units_lost, m.attempts) == (1, 9, 28)
    assert m.attempts_per_frame[8] == 1 and m.attempts_per_frame[2] == 1
    m15 = measure(Arq(retry_limit=15, timing=1.2e-3), model, mode="time", frames=20)
    assert (m15.dropped, m15.units_lost) == (0, 9)
    # Packet mode reads the trace one entry per attempt instead.
    mp = measure(Arq(retry_limit=0, timing=1.2e-3), model, mode="packet", frames=8)
    assert (mp.dropped, mp.units_lost) == (2, 2)


SPECS = [
    "bernoulli:p=0.2",
    "ge:b=0.05,g=0.3",
    "ge:prr=0.8,mu=0.5",
    "list:drops=2/3/4,period=10",
    "ctmc:good=0.05,bad=0.01,pg=0.01,pb=0.8",
    "onoff:good=0.05,bad=0.01",
    "semi:good=pareto/0.01/1.5,bad=exp/0.005",
    "vddp:a=0.1,b=0.1,da=0,db=0.5,ca=0.01,cb=0.01",
    "runlength:success=geom/5,burst=geom/2",
    "ber:ber=1e-4",
    "phy:mode=cck11,snr=6",
]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("mode", ["packet", "time"])
def test_every_loss_model_both_modes(spec: str, mode: str) -> None:
    model = parse_loss_spec(spec)
    for layer in (Arq(retry_limit=3, timing=(0.5e-3, 2e-3)), Harq(attempts=2)):
        m = measure(layer, model, mode=mode, frames=5_000, seed=3)  # type: ignore[arg-type]
        assert m.delivered + m.dropped == m.frames == 5_000
        assert 0 < m.units_lost < m.units_sent, spec
        assert m.failed_attempts == m.attempts - m.delivered
        again = measure(layer, model, mode=mode, frames=5_000, seed=3)  # type: ignore[arg-type]
        assert (again.units_lost, again.duration) == (m.units_lost, m.duration)


def test_size_aware_loss_fragments_lose_less_than_frames() -> None:
    # ber: and phy: give each unit its own size: a 1040-byte frame with LLC/SNAP on an ARQ
    # hop (8384 bits) is lost with 1 − (1 − BER)^8384, a Harq fragment (95 + 4 bytes) far less.
    ber = 5e-5
    n = 50_000
    arq = measure(Arq(retry_limit=0, timing=1e-3), parse_loss_spec(f"ber:ber={ber}"), frames=n, frame_bytes=1040, seed=2)
    want = 1 - (1 - ber) ** (8 * 1048)
    assert abs(arq.raw_loss_rate - want) <= 5 * math.sqrt(want * (1 - want) / n), arq.raw_loss_rate
    harq = measure(Harq(attempts=2), parse_loss_spec(f"ber:ber={ber}"), frames=n, frame_bytes=1040, seed=2)
    q = 1 - (1 - ber) ** (8 * 99)
    assert abs(harq.raw_loss_rate - q) <= 5 * math.sqrt(q * (1 - q) / harq.units_sent), harq.raw_loss_rate
    # The PHY curve at one SNR: a fragment's loss below a frame's.
    phy = "phy:mode=cck11,snr=6"
    f_arq = measure(Arq(retry_limit=0, timing=1e-3), parse_loss_spec(phy), frames=20_000, frame_bytes=1040, seed=2).raw_loss_rate
    f_harq = measure(Harq(attempts=2), parse_loss_spec(phy), frames=20_000, frame_bytes=1040, seed=2).raw_loss_rate
    assert f_harq < f_arq / 3, (f_harq, f_arq)
    for bad, match in (("ber:ber=0.7", "ber = 0.7"), ("ber:ber=1e-4,bytes=1.5", "bytes"), ("ber:rate=1e-4", "unknown")):
        with pytest.raises(_core.ParameterError, match=match):
            parse_loss_spec(bad)


def test_fixed_erp_ofdm_hop() -> None:
    # 802.11g ERP-OFDM at a fixed 24 Mb/s (dcf_phy=erp): the standard's TXTIME, 20 µs PLCP +
    # 4 µs · ⌈(16 + 8·1036 + 6) / 96⌉ + 6 µs signal extension = 374 µs for a 1000-byte packet,
    # the ACK at 24 Mb/s 34 µs, CWmin 15
    t = wifi_timing(1000, rate=24e6, phy="erp")
    assert (round(t.data * 1e9), round(t.ack * 1e9), round(t.attempt * 1e9)) == (374_000, 34_000, 468_000)
    assert t.mean_backoff == pytest.approx(7.5 * 20e-6)
    layer = ll.parse_link_layer("arq:retry_limit=0,dcf_phy=erp,dcf_rate=24Mbit")
    assert isinstance(layer, Arq) and isinstance(layer.timing, Dcf) and layer.timing.phy == "erp"
    # each attempt is decided in its own mode, ofdm24, whatever the channel's phy:mode says: at
    # 13 dB the CCK-11 curve loses nothing and the OFDM-24 one 31 % of 1036-byte PSDUs
    from burstlab.phy import frame_error

    n = 20_000
    channel = "phy:mode=cck11,snr=13"
    dsss = measure(Arq(retry_limit=0), parse_loss_spec(channel), frames=n, frame_bytes=1000, seed=2).raw_loss_rate
    erp = measure(layer, parse_loss_spec(channel), frames=n, frame_bytes=1000, seed=2).raw_loss_rate
    want = frame_error("ofdm24", 13.0, 1036)
    assert dsss == 0.0
    assert abs(erp - want) <= 5 * math.sqrt(want * (1 - want) / n) + 0.005, (erp, want)  # + the PER table's interpolation
    for spec, match in (("arq:dcf_phy=erp,dcf_rate=11Mbit", "rate = 11000000"), ("arq:dcf_phy=erp,dcf_rate=24Mbit,dcf_cw_min=7", "cw_min = 7"),
                        ("arq:dcf_phy=ofdm", "phy = ofdm"), ("harq:dcf_phy=erp,dcf_rate=24Mbit", "phy = erp"),
                        ("arq:dcf_phy=erp,dcf_rate=24Mbit,rate_control=aarf", "phy = erp")):
        with pytest.raises(_core.ParameterError, match=match):
            measure(ll.parse_link_layer(spec), parse_loss_spec("bernoulli:p=0"), frames=10)


def test_higher_retry_limit_lower_residual_higher_latency() -> None:
    # Subramanian et al. Fig. 1: persistence 7 → 15 → 25 attempts on a bursty channel.
    ge = _core.LossModel.gilbert_elliott(0.1333, 0.2)
    n = 100_000
    runs = [measure(Arq(retry_limit=a, counts="attempts", timing=(0.3e-3, 2e-3)), ge, frames=n, seed=2) for a in (7, 15, 25)]
    for a, b in zip(runs, runs[1:]):
        se = math.sqrt((a.residual_loss_rate + b.residual_loss_rate) / n)
        assert a.residual_loss_rate - b.residual_loss_rate > 5 * se
        assert b.latency.mean > a.latency.mean  # type: ignore[operator]
        assert b.latency.max > a.latency.max  # type: ignore[operator]


def test_harq_vs_arq_two_attempts_short_bursts() -> None:
    # Short error events in time (2 µs bad every 2 ms): LL-HARQ with 2 attempts has lower
    # residual loss and lower latency than ARQ with 2 attempts (Subramanian et al. slide 16).
    model = _core.LossModel.on_off(0.002, 2e-6)
    n = 30_000
    a = measure(Arq(retry_limit=2, counts="attempts"), model, mode="time", frames=n)
    h = measure(Harq(attempts=2), model, mode="time", frames=n)
    assert a.residual_loss_rate - h.residual_loss_rate > 5 * math.sqrt(a.residual_loss_rate / n)
    # Popoviciu: sd ≤ range/2.
    se = math.hypot(*((m.latency.max - m.latency.min) / 2 / math.sqrt(n) for m in (a, h)))  # type: ignore[operator]
    assert a.latency.mean - h.latency.mean > 5 * se  # type: ignore[operator]


def test_configs_are_plain_data() -> None:
    for layer in (Arq(), Arq(timing=(1e-3, 2e-3), rate=1e6, backoff=Backoff()), Harq(), Harq(timing=1e-3, rate=11e6)):
        cfg = layer._config()
        assert json.loads(json.dumps(cfg)) == cfg


@pytest.mark.parametrize(
    ("layer", "kwargs", "match"),
    [
        (Arq(retry_limit=-1), {}, "retry_limit"),
        (Arq(retry_limit=0, counts="attempts"), {}, "retry_limit = 0"),
        (Arq(counts="tries"), {}, "counts"),  # type: ignore[arg-type]
        (Arq(timing=(2e-3, 1e-3)), {}, "attempt_time"),
        (Arq(timing=-1.0), {}, "attempt_time"),
        (Arq(timing=Dcf(rate=0)), {}, "rate"),
        (Arq(timing=Dcf(), rate=1e6), {}, "timing"),
        (Arq(backoff=Backoff(cw_min=64, cw_max=32)), {}, "cw_min"),
        (Harq(attempts=0), {}, "attempts"),
        (Harq(target=1.5), {}, "target"),
        (Harq(sizing="median"), {}, "sizing"),  # type: ignore[arg-type]
        (Harq(initial_loss=1.0), {}, "initial_loss"),
        (Harq(fragment_bytes=0), {}, "fragment_bytes"),
        (Arq(), {"mode": "slot"}, "mode"),
        (Arq(), {"frames": 0}, "frames"),
        (Arq(), {"frame_bytes": -5}, "frame_bytes"),
        (Arq(), {"seed": -1}, "seed"),
    ],
)
def test_bad_parameters_name_themselves(layer: Arq | Harq, kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(_core.ParameterError, match=match):
        measure(layer, _core.LossModel.bernoulli(0.1), **kwargs)  # type: ignore[arg-type]


def test_rejects_a_non_layer() -> None:
    with pytest.raises(_core.ParameterError, match="layer"):
        measure("arq", None)  # type: ignore[arg-type]
