"""``burstlab sim`` for everyday use (issue 13): variants side by side (``--tcp``), replicates
with Student-t 95 % confidence intervals (``--seeds``), plots (``--plot``), scenario files
with both, units in every row and never ``None``; and the statistics behind the intervals
(``burstlab.replicates``) against known answers and scipy."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import pytest
from scipy import stats as sps

from burstlab import ParameterError
from burstlab.cli import main
from burstlab.lossspec import parse_loss_spec
from burstlab.replicates import estimate, t_quantile
from burstlab.sim import ClockResolutionWarning, Flow, Hop, Link, LossModeWarning, Network, Scenario, TcpConfig, Workload, run, run_network, run_trace

LOSS = "ge:prr=0.97,mu=0.5"
ARGS = ["--duration", "5s", "--loss", LOSS]


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(argv)
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err
    return rc, cap.out, cap.err


def _api(variant: str, seed: int, **kw: object) -> object:
    return run(Scenario(tcp=TcpConfig.profile("rfc", variant=variant), forward=Link(loss=parse_loss_spec(LOSS)),
                        workload=Workload(duration=5.0), seed=seed, **kw))  # type: ignore[arg-type]  # fmt: skip


def _row(out: str, label: str, unit: str) -> list[str]:
    """The cells of the table row ``label``/``unit`` (cells are split at two spaces)."""
    for line in out.splitlines():
        parts = [p.strip() for p in line.split("  ") if p.strip()]
        if parts[:2] == [label, unit]:
            return parts[2:]
    raise AssertionError(f"no row {label!r} [{unit}] in\n{out}")


# ----------------------------------------------------------------------- statistics


@pytest.mark.parametrize(("df", "t"), [(1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (29, 2.0452), (120, 1.9799)])
def test_t_quantile_table_values(df: int, t: float) -> None:
    # two-sided 95 % critical values, as printed in every t table (4 decimals)
    assert t_quantile(0.975, df) == pytest.approx(t, abs=5e-5)


def test_t_quantile_matches_scipy_everywhere() -> None:
    # exact below 200 degrees of freedom, Cornish-Fisher above: both within 1e-9 of scipy
    for df in [*range(1, 230), 500, 10**4, 10**7]:
        for q in (0.6, 0.9, 0.975, 0.995, 0.9995):
            assert t_quantile(q, df) == pytest.approx(sps.t.ppf(q, df), rel=1e-9), (q, df)
    assert t_quantile(0.025, 5) == -t_quantile(0.975, 5) and t_quantile(0.5, 3) == 0.0
    for bad in ((0.975, 0), (1.0, 3), (0.0, 3), (0.9, 2.5)):
        with pytest.raises(ParameterError):
            t_quantile(*bad)  # type: ignore[arg-type]


def test_estimate_known_answer() -> None:
    e = estimate([1, 2, 3, 4])
    sd = math.sqrt(5 / 3)
    assert e.mean == 2.5 and e.sd == pytest.approx(sd) and e.n == 4
    assert e.half_width == pytest.approx(sps.t.ppf(0.975, 3) * sd / 2, rel=1e-12)
    assert e.low == pytest.approx(2.5 - e.half_width) and e.high == pytest.approx(2.5 + e.half_width)
    one = estimate([7.0])
    assert one.half_width is None and one.sd is None and one.mean == 7.0
    assert estimate([3.0, 3.0, 3.0]).half_width == 0.0
    with pytest.raises(ParameterError):
        estimate([])


def test_interval_covers_the_mean_at_its_rate() -> None:
    # 2000 intervals of 5 normal draws: coverage 0.95 within 4 binomial standard errors
    import numpy as np

    rng = np.random.default_rng(7)
    n_int = 2000
    hits = 0
    for _ in range(n_int):
        e = estimate(rng.normal(3.0, 2.0, 5))
        assert e.low is not None and e.high is not None
        hits += e.low <= 3.0 <= e.high
    assert abs(hits / n_int - 0.95) < 4 * math.sqrt(0.95 * 0.05 / n_int)


# ----------------------------------------------------------------------- sim command


def test_one_run_prints_units_and_no_none(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _cli(["sim", *ARGS], capsys)
    assert rc == 0 and err == "" and "None" not in out
    r = _api("newreno", 1)
    assert _row(out, "goodput", "Mb/s") == [f"{r.goodput_bps / 1e6:.4g}"]  # type: ignore[attr-defined]
    assert _row(out, "retransmission timeouts", "events") == [str(r.timeouts)]  # type: ignore[attr-defined]
    assert _row(out, "measured time", "s") == ["5"]
    assert not any(line.startswith("completion time") for line in out.splitlines())  # a bulk transfer has none
    rc, out, _ = _cli(["sim", "--size", "100MB", "--duration", "2s"], capsys)  # cannot finish in 2 s at 10 Mb/s
    assert rc == 0 and _row(out, "completion time", "s") == ["not reached"] and "None" not in out


def test_variants_and_seeds_side_by_side_match_the_api(capsys: pytest.CaptureFixture[str]) -> None:
    variants = ["reno", "newreno", "sack", "cubic/sack"]
    rc, out, err = _cli(["sim", "--tcp", ",".join(variants), "--seeds", "4", "--seed", "11", *ARGS], capsys)
    assert rc == 0 and "16 runs" in err
    head = next(line for line in out.splitlines() if line.startswith("figure"))
    assert head.split()[2:] == variants
    assert "mean ± 95 % confidence interval over 4 runs" in out and "seeds 11-14" in out and "3 degrees of freedom" in out
    cells = _row(out, "data packets sent", "packets")
    for v, cell in zip(variants, cells):
        if "/" in v:
            cc, rec = v.split("/")
            runs = [run(Scenario(tcp=TcpConfig.profile("rfc", cc=cc, recovery=rec), forward=Link(loss=parse_loss_spec(LOSS)),
                                 workload=Workload(duration=5.0), seed=s)) for s in range(11, 15)]  # fmt: skip
        else:
            runs = [_api(v, s) for s in range(11, 15)]  # type: ignore[misc]
        xs = [r.packets_sent for r in runs]  # type: ignore[attr-defined]
        mean, half = sum(xs) / 4, sps.t.ppf(0.975, 3) * sps.tstd(xs) / 2
        shown_mean, shown_half = (float(x) for x in cell.split(" ± "))
        decimals = max(0, 1 - math.floor(math.log10(half)))
        assert shown_mean == round(mean, decimals) and shown_half == round(half, decimals), (v, cell, mean, half)


def test_json_has_every_run_and_the_summary(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _cli(["sim", "--tcp", "reno,sack", "--seeds", "3", "--json", *ARGS], capsys)
    d = json.loads(out)
    assert rc == 0 and d["seeds"] == [1, 2, 3] and len(d["runs"]) == 6
    assert [s["tcp"] for s in d["summary"]] == ["reno", "sack"]
    good = [_api("sack", s).goodput_bps for s in (1, 2, 3)]  # type: ignore[attr-defined]
    g = d["summary"][1]["figures"]["goodput_bps"]
    assert g["mean"] == pytest.approx(sum(good) / 3) and g["n"] == 3
    assert g["ci_half_width"] == pytest.approx(sps.t.ppf(0.975, 2) * sps.tstd(good) / math.sqrt(3))
    assert d["summary"][0]["figures"]["completion_time"] is None  # bulk: JSON null, not the text 'None'
    assert [(r["tcp"], r["seed"]) for r in d["runs"]][:3] == [("reno", 1), ("reno", 2), ("reno", 3)]
    rc, out, _ = _cli(["sim", "--json", *ARGS], capsys)  # one run: the run's own dictionary, as before
    assert rc == 0 and json.loads(out)["goodput_bps"] == _api("newreno", 1).goodput_bps  # type: ignore[attr-defined]


def test_workers_do_not_change_results(capsys: pytest.CaptureFixture[str]) -> None:
    outs = []
    for w in ("1", "3"):
        rc, out, _ = _cli(["sim", "--tcp", "reno,newreno", "--seeds", "3", "--workers", w, *ARGS], capsys)
        assert rc == 0
        outs.append(out)
    assert outs[0] == outs[1]


def test_plot_draws_each_variant_and_changes_no_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, plain, _ = _cli(["sim", "--tcp", "reno,cubic/sack", *ARGS], capsys)
    rc2, drawn, err = _cli(["sim", "--tcp", "reno,cubic/sack", "--plot", str(tmp_path / "p"), *ARGS], capsys)
    assert rc == rc2 == 0 and plain == drawn
    files = sorted(p.name for p in (tmp_path / "p").iterdir())
    assert files == ["sim-cubic-sack.png", "sim-reno.png"] and err.count("wrote ") == 2
    assert all((tmp_path / "p" / f).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for f in files)


def test_plot_panels_hold_the_run(tmp_path: Path) -> None:
    """The time-sequence panel draws the sender's sends from the per-packet log: as many
    points as the flow sent (retransmissions apart), its losses, its cumulative ACKs."""
    from burstlab.plot import fig_transfer
    from burstlab.sim import presets

    net = presets.single(forward=Link(loss=parse_loss_spec(LOSS)), tcp=TcpConfig(variant="sack"), duration=5.0, series=True, log=True)
    r = run_network(net)
    f = r.flows[0]
    fig = fig_transfer(f.series, 1000, "t", log=r.log)
    ax_w, ax_t, ax_s = fig.axes
    lines = {ln.get_label(): ln for ln in ax_s.get_lines()}
    assert len(lines["sent"].get_xdata()) + len(lines["retransmitted"].get_xdata()) == f.packets_sent
    assert len(lines["retransmitted"].get_xdata()) == f.retransmissions
    assert len(lines["dropped or lost"].get_xdata()) == f.packets_lost
    assert max(lines["cumulative ACK"].get_ydata()) == f.delivered_segments
    w = {ln.get_label(): ln for ln in ax_w.get_lines()}
    assert list(w["cwnd"].get_ydata()) == list(f.series["cwnd"] / 1000)
    fig2 = fig_transfer(f.series, 1000, "t")  # no log: the sequence numbers from the series
    assert {ln.get_label() for ln in fig2.axes[2].get_lines()} == {"next segment to send", "cumulative ACK"}


def test_trace_mode_variants(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "t.txt"
    bits = ([1] * 9 + [0]) * 300
    f.write_text("".join(f"{b}\n" for b in bits))
    rc, out, _ = _cli(["sim", "--trace", str(f), "--tcp", "reno,sack", "--plot", str(tmp_path / "p")], capsys)
    assert rc == 0 and "None" not in out and "3000 slots of 10 ms" in out
    sack = run_trace(bits, tcp=TcpConfig(variant="sack"))
    assert _row(out, "goodput", "segments/s")[1] == f"{sack.goodput_pps:.4g}"
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == ["sim-reno.png", "sim-sack.png"]


def test_show_config_of_several_variants(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _cli(["sim", "--tcp", "reno,cubic", "--profile", "linux", "--show-config", "--json"], capsys)
    d = json.loads(out)
    assert rc == 0 and [x["variant"] for x in d] == ["reno", "cubic"]
    assert d[0]["tcp"]["cc"] == "linux-reno" and d[1]["tcp"]["cc"] == "cubic"  # the profile's alias of reno


def test_profile_tossim_is_the_study_sender(capsys: pytest.CaptureFixture[str]) -> None:
    """One mechanism: --profile tossim is TcpConfig.tossim() (the PRR/μ study's sender)."""
    rc, out, _ = _cli(["sim", "--profile", "tossim", "--show-config", "--json"], capsys)
    from burstlab.sim import tcp_settings

    assert rc == 0 and json.loads(out)["tcp"] == tcp_settings(TcpConfig.tossim())
    assert TcpConfig.profile("tossim") == TcpConfig.tossim()


def test_largest_seed(capsys: pytest.CaptureFixture[str]) -> None:
    top = 2**64 - 1
    rc, out, _ = _cli(["sim", "--seed", str(top), "--json", *ARGS], capsys)
    r = run(Scenario(forward=Link(loss=parse_loss_spec(LOSS)), workload=Workload(duration=5.0), seed=top))
    assert rc == 0 and json.loads(out)["goodput_bps"] == r.goodput_bps
    assert run_trace([1, 0, 1], seed=top).packets_sent > 0
    with pytest.raises(ParameterError, match="seed = 18446744073709551616: expected a whole number from 0 to 2"):
        run(Scenario(seed=top + 1))


def test_time_mode_with_a_per_packet_model_warns_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _cli(["sim", "--loss-mode", "time", "--duration", "1s", "--loss", "bernoulli:p=0.01"], capsys)
    assert rc == 0 and err.count("\n") == 1 and err.startswith("warning: forward: loss_mode = time with the per-packet model bernoulli")
    rc, out, err = _cli(["sim", "--loss-mode", "time", "--duration", "1s", "--loss", "onoff:good=0.5,bad=0.05"], capsys)
    assert rc == 0 and err == ""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run(Scenario(forward=Link(loss="ge:prr=0.9,mu=0.5"), workload=Workload(duration=1.0)))  # packet mode: silent
    with pytest.warns(LossModeWarning, match="hop w:"):
        run_network(Network([Hop("w", Link(loss="ge:prr=0.9,mu=0.5", loss_mode="time"))], [Flow("f", ["w"])], duration=1.0))


def test_initial_window_bound_is_what_the_run_can_send() -> None:
    # 10 Mb/s, 1040-byte packets, 1 s: 1202 serialised (1201.9 rounded up), 100 queued, 1 in service
    link = Link(rate=10e6, buffer=100)
    ok = run(Scenario(tcp=TcpConfig(init_cwnd=1303), forward=link, workload=Workload(duration=1.0)))
    assert ok.packets_sent >= 1303 and ok.queue_drops > 0
    with pytest.raises(ParameterError, match=r"init_cwnd = 1304: at most 1303 segments here \(a 10 Mb/s link"):
        run(Scenario(tcp=TcpConfig(init_cwnd=1304), forward=link, workload=Workload(duration=1.0)))
    with pytest.raises(ParameterError, match=r"at most 11 segments here \(a transfer of 10001 bytes"):
        run(Scenario(tcp=TcpConfig(init_cwnd=12), forward=link, workload=Workload(size=10_001)))
    with pytest.raises(ParameterError, match=r"init_cwnd = 11: at most 10 segments here \(the trace has 3 slots"):
        run_trace([1, 1, 1], tcp=TcpConfig(init_cwnd=11))
    assert run_trace([1, 1, 1], tcp=TcpConfig(init_cwnd=10)).delivered_segments > 0  # RFC 6928's IW10 is never refused
    net = Network([Hop("h", Link(rate=1e6, buffer=10))], [Flow("f", ["h"], tcp=TcpConfig(init_cwnd=10**6), start=1.0)], duration=2.0)
    with pytest.raises(ParameterError, match=r"at most 132 segments here \(a 1 Mb/s link .* in 1 s"):
        run_network(net)


def test_a_rate_beyond_the_clock_is_said() -> None:
    """A 1040-byte packet takes at least 1 ns on the simulator's clock: 10^30 bit/s ran at
    8.3·10^12 without a word. Within 1 % of the rate asked for (100 Gb/s: 83.2 ns counted as
    84) it is silent; beyond, a warning names the rate the link runs at."""
    with pytest.warns(ClockResolutionWarning, match=r"rate = 1e\+30 bit/s: .* link runs at 8320 Gb/s instead"):
        r = run(Scenario(forward=Link(rate=1e30, delay=0.0), workload=Workload(duration=1e-4)))
    assert r.goodput_bps == pytest.approx(8.32e12 * 1000 / 1040, rel=0.01)  # one 1040-byte packet per ns
    with pytest.warns(ClockResolutionWarning, match=r"flow f on link h: rate = 5e\+11"):
        run_network(Network([Hop("h", Link(rate=5e11))], [Flow("f", ["h"])], duration=1e-3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run(Scenario(forward=Link(rate=100e9), workload=Workload(duration=1e-3)))


def test_parallel_runs_keep_order_and_raise_the_first_error() -> None:
    from burstlab.cli.runs import run_parallel

    assert run_parallel([lambda k=k: k * k for k in range(7)], 3) == [k * k for k in range(7)]

    def fail(k: int) -> int:
        raise ParameterError(f"job {k}")

    with pytest.raises(ParameterError, match="job 1"):
        run_parallel([lambda: 0, lambda: fail(1), lambda: fail(2)], 2)


def test_ctrl_c_ends_replicated_runs_at_once(tmp_path: Path) -> None:
    """Ctrl-C during --seeds runs (threads inside the simulator) exits 130 with one
    'aborted', without waiting for the runs under way (each would take minutes here)."""
    import signal
    import subprocess
    import sys
    import time

    code = "import sys; from burstlab.cli import main; sys.exit(main())"
    argv = ["sim", "--tcp", "reno,sack", "--seeds", "4", "--rate", "1Gbit", "--duration", "100000s", "--max-events", "0"]
    p = subprocess.Popen([sys.executable, "-c", code, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while "simulating" not in (p.stderr.readline() if p.stderr else "") and time.monotonic() < deadline:
            pass
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        t0 = time.monotonic()
        out, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == 130 and [ln for ln in err.splitlines() if ln.strip()] == ["aborted"] and out == ""
    assert time.monotonic() - t0 < 30
