"""The simulator keeps the bad-input contract (issue 34): every case ends in a result or
one ``error:`` line with exit 2, within 30 s of CPU and under a 4 GiB address-space cap
(``tests/_capped.py``); Ctrl-C stops a run at once; long runs show progress; the work of
a run is estimated before it starts and a run over the budget is refused naming the
estimate and ``--max-events``."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import burstlab.sim as sim
from burstlab import _core, io
from burstlab.lossspec import parse_loss_spec
from burstlab.traces import Trace
from tests._capped import CPU_LIMIT_S, assert_result_or_error, run_capped


@pytest.fixture
def small_trace(tmp_path: Path) -> Path:
    p = tmp_path / "small.bits"
    p.write_text("1\n0\n" * 150)  # 300 entries
    return p


# ---- item 1: huge slots and rates -------------------------------------------------------


@pytest.mark.parametrize("slot", ["4821h", "1000h"])
def test_slot_times_entries_is_bounded(small_trace: Path, slot: str) -> None:
    o = run_capped(["sim", "--trace", str(small_trace), "--slot", slot])
    assert_result_or_error(o, expect=2, contains="len(trace) × slot = 300 ×")
    assert o.cpu_seconds < CPU_LIMIT_S


@pytest.mark.parametrize("rate", ["1e19Mbit", "1e13"])
def test_huge_rates_are_refused_before_the_run(rate: str) -> None:
    o = run_capped(["sim", "--tcp", "ideal", "--rate", rate, "--duration", "1s"])
    assert_result_or_error(o, expect=2, contains="raise the budget with --max-events N")


def test_a_sack_block_of_millions_of_segments_costs_only_its_growth() -> None:
    """A fuzzer finding (seed 37): at one packet per nanosecond a hole that stays open under
    LT-TCP's window grows the SACK block above it to 5·10^7 segments in 0.05 s; marking the
    whole block again on every ACK (sender) and walking it on every decode (receiver) made
    the run quadratic: 40 minutes. Marking only what each ACK adds, it is a few seconds."""
    o = run_capped(["sim", "--duration", "0.05s", "--rate", "1e19Mbit", "--delay", "1e-300s", "--tcp", "lt-tcp"])
    assert_result_or_error(o, expect=0)
    assert o.cpu_seconds < CPU_LIMIT_S
    sent = next(ln for ln in o.stdout.splitlines() if ln.startswith("data packets sent"))
    assert int(sent.split()[-1]) > 4e7, sent  # 1 packet per ns for 0.05 s: the window held millions


#: Issue 34, replayed by the fuzzer (seeds 41-42): at one packet per ns, a drop-tail queue
#: and no handshake, the window grows to 10^6 segments over many holes.
_ONE_PER_NS = ["sim", "--duration", "0.005s", "--rate", "1e19Mbit", "--delay", "1us", "--queue", "droptail", "--no-handshake"]


@pytest.mark.parametrize("extra", [["--recovery", "lt", "--ssthresh-rule", "ns3"], ["--tcp", "lt-tcp", "--profile", "linux"],
                                   ["--pipe-rule", "ns3"]])  # fmt: skip
def test_one_packet_per_ns_over_many_holes_ends(extra: list[str]) -> None:
    """The receiver found a SACK block's edges by walking every held segment of it (runs that
    had left its three reported blocks), the sender re-marked a block of 10^6 segments each
    time a receiver reported it after short ones, searched the same SACKed segments for
    NextSeg on every ACK, and (``--pipe-rule ns3``) counted SACKed retransmissions over the
    whole window per ACK: 0.0036 s took over 2 minutes. These runs of 0.005 s now take
    seconds; with any of the walks back they pass the 30 s limit of ``run_capped``."""
    o = run_capped([*_ONE_PER_NS, *extra, "--json"])
    assert_result_or_error(o, expect=0)
    d = json.loads(o.stdout)
    assert d["packets_sent"] > 10**6  # one packet per ns: millions, many lost at the queue
    assert d["delivered_segments"] <= d["packets_sent"] and d["packets_lost"] <= d["packets_sent"]


def test_lt_tcp_bottom_hole_waits_for_the_retransmission_timeout() -> None:
    """Why LT-TCP delivers so little at one packet per ns over a drop-tail queue (docs/tcp.md,
    "LT-TCP"): its window is cut only by ECN (none here), so the queue drops thousands; the
    lowest undecoded block's RFEC and its one retransmission per hole (RFC 6675 HighRxt) are
    lost too, and the hole waits for the retransmission timeout (200 ms at least: longer
    than the run). With a 1 ms minimum RTO the timeouts repair it and nearly all arrives."""
    lt = [*_ONE_PER_NS, "--recovery", "lt", "--ssthresh-rule", "ns3", "--json"]
    stuck = json.loads(run_capped(lt).stdout)
    assert stuck["timeouts"] == 0 and stuck["retransmissions"] > 0 and stuck["rfec_sent"] > 0
    assert stuck["delivered_segments"] < 0.05 * stuck["packets_sent"]
    repaired = json.loads(run_capped([*lt, "--rto-min", "1ms"]).stdout)
    assert repaired["timeouts"] >= 1
    assert repaired["delivered_segments"] > 0.9 * repaired["packets_sent"]


def test_timeouts_at_one_bit_per_second_keep_each_ack_cheap() -> None:
    """A fuzzer finding (seed 41, input 490163): at 1 bit/s a segment takes 3 h to send, and
    under the linux profile (RACK) every timeout's retransmission of snd_una joined the
    list RACK reads on every ACK: 10^6 entries, read ~10^5 times, over 2 minutes. RACK now
    reads one entry per run of one segment."""
    o = run_capped(["sim", "--duration", "999999999s", "--rate", "1", "--buffer", "3", "--warmup", "200ms", "--profile", "linux",
                    "--ssthresh-rule", "flightsize", "--pacing", "internal", "--json"])  # fmt: skip
    assert_result_or_error(o, expect=0)
    assert o.cpu_seconds < CPU_LIMIT_S


# ---- item 3: Ctrl-C and progress ----------------------------------------------------------


def test_ctrl_c_stops_the_engine_at_once() -> None:
    o = run_capped(["sim", "--duration", "900000s", "--loss", "bernoulli:p=0.01", "--max-events", "0"], interrupt_after=3.0)
    assert o.code == 130, (o.code, o.stderr[-2000:])
    assert o.stderr.strip().splitlines()[-1] == "aborted"
    assert o.seconds < 5.0, o.seconds  # the run itself would take minutes


def test_duration_beyond_the_budget_is_refused_with_the_estimate() -> None:
    o = run_capped(["sim", "--duration", "999999999s", "--loss", "bernoulli:p=0.01"])
    assert_result_or_error(o, expect=2, contains="the run would take about")
    assert "--max-events N" in o.stderr and "2.40e12 events" in o.stderr and "33 h of CPU" in o.stderr


def test_long_run_shows_progress_on_stderr() -> None:
    o = run_capped(["sim", "--duration", "150000s", "--max-events", "0"])
    assert_result_or_error(o, expect=0)
    lines = [ln for ln in o.stderr.splitlines() if ln.startswith("simulated ")]
    assert lines and "of 150000 s" in lines[0], o.stderr


def test_python_api_progress_and_interrupt() -> None:
    seen: list[tuple[float, float, int]] = []

    def progress(now: float, end: float, events: int) -> None:
        seen.append((now, end, events))
        raise KeyboardInterrupt  # what a Ctrl-C handler raises

    with pytest.raises(KeyboardInterrupt):
        sim.run(sim.Scenario(workload=sim.Workload(duration=100000.0)), progress=progress, max_events=0)
    assert len(seen) == 1 and 0 < seen[0][0] < seen[0][1] == 100000.0 and seen[0][2] > 0


def test_max_events_is_checked() -> None:
    with pytest.raises(_core.BurstlabError, match="max_events=N"):
        sim.run(sim.Scenario(workload=sim.Workload(duration=1000.0)), max_events=1000)
    with pytest.raises(_core.ParameterError, match="max_events"):
        sim.run(sim.Scenario(), max_events=-1)


# ---- item 4: timers and periods that hang -------------------------------------------------


def test_cbr_faster_than_its_path_counts_every_packet_it_sends(tmp_path: Path) -> None:
    """A fuzzer finding (seed 43, inputs 452782 and 758562): a 1 Mbit/s CBR flow into a
    1 kbit/s hop for 10^9 s sends 1.25·10^11 packets, nearly all dropped at the queue; the
    estimate counted only what the hop carries (10^8) and the run went on for an hour. The
    source's own rate now counts: refused at once with the estimate."""
    f = _toml(tmp_path, "cbr.toml", 'duration = "999999999s"\n[[hop]]\nname = "h0"\nrate = "1kbit"\ndelay = "10ms"\n'
              '[[flow]]\nname = "f0"\npath = ["h0"]\ncbr = "1Mbit"\n')  # fmt: skip
    o = run_capped(["sim", str(f), "--json"])
    assert_result_or_error(o, expect=2, contains="1.25e11 events")


def test_tiny_rto_is_refused_not_a_hang() -> None:
    o = run_capped(["sim", "--rto-min", "1ns", "--rto-max", "1ns", "--rto-initial", "1ns", "--duration", "1s"])
    assert_result_or_error(o, expect=2)
    assert "rto" in o.stderr


def test_tiny_on_off_is_refused_not_a_hang(tmp_path: Path) -> None:
    toml = tmp_path / "s.toml"
    toml.write_text(
        '[[hop]]\nname = "a"\nrate = "10Mbit"\ndelay = "10ms"\n\n'
        '[[flow]]\nname = "f"\npath = ["a"]\non = "1ns"\noff = "1ns"\n'
    )
    o = run_capped(["sim", str(toml)])
    assert_result_or_error(o, expect=2)


# ---- item 5: big networks; the JSON of a network ----------------------------------------


def _toml(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize("preset, want", [('name = "dumbbell"\nn = 1000000', "at most 100000 flows"),
                                          ('name = "chain"\nhops = 1000000000', "at most 65535 hops")])  # fmt: skip
def test_big_networks_are_refused_before_they_are_built(tmp_path: Path, preset: str, want: str) -> None:
    o = run_capped(["sim", str(_toml(tmp_path, "big.toml", f"[preset]\n{preset}\n"))])
    assert_result_or_error(o, expect=2, contains=want)
    assert o.cpu_seconds < 10


def test_network_json_prints_the_configuration_once(tmp_path: Path) -> None:
    flows = "".join(f'[[flow]]\nname = "f{i}"\npath = ["b"]\n\n' for i in range(300))
    toml = _toml(tmp_path, "many.toml", f'duration = "2s"\n\n[[hop]]\nname = "b"\nrate = "10Mbit"\ndelay = "10ms"\n\n{flows}')
    o = run_capped(["sim", str(toml), "--json"])
    assert_result_or_error(o, expect=0)

    d = json.loads(o.stdout)
    assert len(d["flows"]) == 300 and all("config" not in f for f in d["flows"]) and len(d["config"]["flows"]) == 300
    assert len(o.stdout) < 5_000_000  # was 1.9 GB for 300 flows


def test_dumbbell_access_delay_overflow_is_a_parameter_error(tmp_path: Path) -> None:
    o = run_capped(["sim", str(_toml(tmp_path, "d.toml", '[preset]\nname = "dumbbell"\nn = 2\naccess_delay = 1e308\n'))])
    assert_result_or_error(o, expect=2, contains="access_delay = 1e+308: expected a time from 0 to 10^9 s")


# ---- item 7: valid input refused, counters ----------------------------------------------


def test_short_transfer_keeps_the_default_window(tmp_path: Path) -> None:
    assert_result_or_error(run_capped(["sim", "--size", "1000"]), expect=0)
    toml = _toml(tmp_path, "s.toml", '[[hop]]\nname = "b"\nrate = "10Mbit"\n\n[[flow]]\nname = "f"\npath = ["b"]\nsize = 1\n')
    assert_result_or_error(run_capped(["sim", str(toml)]), expect=0)


def test_warmup_counters_are_consistent() -> None:

    for loss in ("none", "bernoulli:p=0.3"):
        o = run_capped(["sim", "--warmup", "10ms", "--duration", "200ms", "--rate", "100kbit", "--buffer", "1", "--loss", loss, "--json"])
        assert_result_or_error(o, expect=0)
        d = json.loads(o.stdout)
        assert d["packets_lost"] <= d["packets_sent"] and d["delivered_segments"] <= d["packets_sent"], d


# ---- item 9: messages -------------------------------------------------------------------


def test_link_layer_numbers_in_exponent_form() -> None:
    o = run_capped(["sim", "--link-layer", "arq:retry_limit=1e9", "--duration", "1s"])
    assert_result_or_error(o, expect=2, contains="retry_limit = 1000000000: expected at most 4096")
    o = run_capped(["sim", "--link-layer", "arq:retry_limit=1.5", "--duration", "1s"])
    assert_result_or_error(o, expect=2, contains="retry_limit = '1.5': expected a whole number")
    assert_result_or_error(run_capped(["sim", "--link-layer", "arq:retry_limit=7e0", "--duration", "1s"]), expect=0)


def test_toml_rate_names_the_file_line_and_value(tmp_path: Path) -> None:
    toml = _toml(tmp_path, "r.toml", '[[hop]]\nname = "b"\nrate = 1e-300\n\n[[flow]]\nname = "f"\npath = ["b"]\n')
    o = run_capped(["sim", str(toml)])
    assert_result_or_error(o, expect=2, contains="r.toml:3: hop.rate = 1e-300: expected a rate from 1 bit/s to 10^15 bit/s")
    with pytest.raises(_core.ParameterError, match=r"forward.rate = 1e-300: expected"):
        sim.run(sim.Scenario(forward=sim.Link(rate=1e-300)))


def test_toml_mss_1_runs(tmp_path: Path) -> None:
    toml = _toml(tmp_path, "m.toml", '[[hop]]\nname = "b"\nrate = "10Mbit"\n\n[[flow]]\nname = "f"\npath = ["b"]\n[flow.tcp]\nmss = 1\n')
    o = run_capped(["sim", str(toml)])
    assert_result_or_error(o, expect=0)
    assert "lt-mss-min" not in o.stderr


def test_capacity_path_error_never_prints_the_file(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\n")
    toml = _toml(tmp_path, "p.toml", f'[[hop]]\nname = "b"\nrate = "10Mbit"\ncapacity = "{secret}"\n\n[[flow]]\nname = "f"\npath = ["b"]\n')
    o = run_capped(["sim", str(toml)])
    assert_result_or_error(o, expect=2, contains="is not a Mahimahi capacity trace")
    assert "root:x" not in o.stderr


def test_sample_counts_are_parameter_errors() -> None:

    m = parse_loss_spec("bernoulli:p=0.1")
    for n in (-1, 2**70, 1.5, True):
        with pytest.raises(_core.ParameterError, match="invalid parameter n = "):
            m.sample(n, 1)
    with pytest.raises(_core.ParameterError, match="invalid parameter seed = -1"):
        m.sample(3, -1)

    assert len(m.sample(np.int64(5), 1)) == 5


@pytest.mark.parametrize("ext", ["bits", "string", "seq", "csv", "parquet", "ttem"])
def test_empty_trace_is_refused_not_written(tmp_path: Path, ext: str) -> None:

    p = tmp_path / f"e.{ext}"
    with pytest.raises(_core.EmptyInputError, match="cannot write an empty trace"):
        io.write_trace(Trace.from_string(""), p)
    assert not p.exists()


# ---- found by the fuzzer (benchmarks/fuzz.py --seed 34) -----------------------------------


@pytest.mark.parametrize("mode", [["--duration", "0.2s", "--delay", "3s", "--buffer-unit", "bytes"], ["--trace", "TRACE", "--slot", "1s"]])
def test_mss_zero_under_the_ns3_profile_is_a_parameter_error(small_trace: Path, mode: list[str]) -> None:
    mode = [str(small_trace) if a == "TRACE" else a for a in mode]
    o = run_capped(["sim", *mode, "--tcp", "cubic", "--profile", "ns3", "--mss", "0", "--json"])
    assert_result_or_error(o, expect=2, contains="--mss = 0")  # was exit 3: ZeroDivisionError in the profile's rwnd


def test_a_runaway_bandwidth_estimate_keeps_a_bounded_window() -> None:
    # TIBET with a filter pole near 0: an estimate from back-to-back sends, near infinite
    # (an allocation abort of 3 GB under the cap; the OOM killer without one)
    o = run_capped(["sim", "--duration", "0.2s", "--rate", "1Mbit", "--loss", "ge:prr=0.7,mu=0.5", "--warmup", "1ns", "--tcp", "tibet",
                    "--tibet-alpha", "1e-9", "--json"])  # fmt: skip
    assert_result_or_error(o, expect=0)


def test_a_dead_trace_of_long_slots_ends_quickly() -> None:
    t0 = time.process_time()
    r = sim.run_trace(Trace.from_string("0" * 50), slot=3600000.0)  # 1.8e8 s: ~3e6 timeouts backed off to rto_max
    # one transmission per slot: 50 sent packets met the trace (all lost), the rest waited
    assert r.packets_lost == 50 and r.delivered_segments == 0 and r.timeouts > 10**6
    assert time.process_time() - t0 < CPU_LIMIT_S


def test_idle_ack_timers_count_in_the_budget() -> None:
    # fuzzer finding (seed 35): 100 bit/s for 10^9 s sends few packets, but the idle ACK
    # timer (--ack-on-idle) fires every 200 ms; the estimate now counts it and refuses
    o = run_capped(["sim", "--duration", "999999999s", "--rate", "100", "--warmup", "0", "--loss-mode", "time", "--profile", "rfc",
                    "--ack-on-idle", "--json"])
    assert_result_or_error(o, expect=2, contains="--max-events")
    assert o.cpu_seconds < CPU_LIMIT_S


def test_retransmissions_piling_behind_long_slots_are_refused_under_a_cap() -> None:
    # fuzzer finding (seed 36): 50 lost slots of 1.7e7 s queue a retransmission per timeout
    # (every rto_max) behind the slot, 1.4e7 copies: a 1 GiB ring allocation aborted the
    # worker (2.1 GB mapped already) under its 4 GiB address-space cap. The estimate counts
    # them, and the cap net of what the process has mapped, with room for a ring's doubling.

    code = (
        "import mmap, resource; resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))\n"
        "held = mmap.mmap(-1, 2150 << 20)\n"
        "import burstlab.sim as sim\nfrom burstlab.traces import Trace\n"
        "try:\n    sim.run_trace(Trace.from_string('0' * 50), slot=1.7e7)\n    print('ran')\n"
        "except MemoryError as e:\n    print('refused:', e)\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.startswith("refused:") and "retransmissions queued" in p.stdout, p.stdout
