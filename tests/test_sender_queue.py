"""The slotted mode's sender queue (docs/study.md "The sender's queue"): ``fifo`` (every
segment the sender releases waits for its slot) or ``radio`` (a TinyOS radio holding one
packet): known answers, the length property, the flag on ``sim --trace`` and on the PRR/μ
study, and the study's item keys."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from burstlab import ParameterError
from burstlab._core import LossModel
from burstlab.cli import main
from burstlab.experiments import prr_mu as P
from burstlab.experiments.prr_mu_inputs import load_traces, select_links
from burstlab.io import write_trace
from burstlab.sim import TcpConfig, run_trace
from burstlab.traces import Trace


def _bernoulli(p: float, n: int, seed: int = 7) -> Trace:
    return Trace(LossModel.bernoulli(p).sample(n, seed), interval=0.01)


def test_a_lossless_radio_carries_a_segment_per_slot_as_fifo_does() -> None:
    ones = np.ones(2000, dtype=np.uint8)
    radio = run_trace(ones, tcp=TcpConfig.tossim(), sender_queue="radio")
    fifo = run_trace(ones, tcp=TcpConfig.tossim(), sender_queue="fifo")
    assert radio.goodput_pps == fifo.goodput_pps == 100.0
    assert radio.delivered_segments == 2000
    # The radio holds one packet: the last one handed over, waiting for a slot after the
    # trace. The FIFO holds the window's worth the sender released.
    assert radio.packets_sent == 2001
    assert fifo.packets_sent > 2001
    assert radio.config["sender_queue"] == "radio"


def test_a_radio_sends_at_most_one_packet_per_slot_and_no_stale_queue() -> None:
    tr = _bernoulli(0.25, 300_000)
    radio = run_trace(tr, tcp=TcpConfig.tossim(), sender_queue="radio")
    fifo = run_trace(tr, tcp=TcpConfig.tossim(), sender_queue="fifo")
    assert radio.packets_sent <= len(tr) + 1
    # The FIFO's go-back-N copies pile up behind the stale ones, and its timeouts are
    # spurious: it sends several times what the radio sends for fewer segments delivered.
    assert fifo.packets_sent > 3 * radio.packets_sent
    assert fifo.delivered_segments < radio.delivered_segments


def test_radio_goodput_does_not_fall_with_the_trace_length() -> None:
    """A stationary 25 % loss channel, the study's TCP: the same goodput from 30,000 and
    300,000 slots under ``radio``; ``fifo`` falls into its collapse."""
    tcp = TcpConfig(**P.StudyConfig(n_links=40, n_slots=1000, replicates=2, max_links=1).tcp())
    g = {(q, n): run_trace(_bernoulli(0.25, n), tcp=tcp, seed=7, sender_queue=q).goodput_pps for q in ("fifo", "radio") for n in (30_000, 300_000)}
    assert abs(g["radio", 300_000] / g["radio", 30_000] - 1) < 0.1, g
    assert g["fifo", 300_000] < 0.5 * g["fifo", 30_000], g


def test_a_bad_sender_queue_is_a_parameter_error() -> None:
    with pytest.raises(ParameterError, match="sender_queue = lifo"):
        run_trace(np.ones(10, dtype=np.uint8), sender_queue="lifo")  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="sender_queue"):
        P.StudyConfig(sender_queue="lifo")


@pytest.mark.parametrize(
    "argv",
    [
        ["sim", "--trace", "TRACE", "--sender-queue", "lifo"],
        ["sim", "--sender-queue", "radio", "--duration", "1s"],
        ["study", "prr-mu", "--sender-queue", "lifo", "--out", "OUT"],
    ],
)
def test_bad_flag_is_one_error_line_exit_2(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "t.txt"
    trace.write_text("1\n0\n1\n1\n")
    argv = [str(trace) if a == "TRACE" else str(tmp_path / "out") if a == "OUT" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and len(err.splitlines()) == 1, err
    assert "sender" in err
    assert not (tmp_path / "out").exists()


def test_a_paced_tcp_runs_on_a_radio() -> None:
    """BBR waits for both its pacer and the radio: at most one packet per slot."""
    ones = np.ones(2000, dtype=np.uint8)
    r = run_trace(ones, tcp=TcpConfig(variant="bbr"), sender_queue="radio")
    assert r.packets_sent <= 2001 and r.goodput_pps > 50


def test_sim_trace_runs_under_each_choice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "t.txt"
    write_trace(_bernoulli(0.25, 3000), trace, "bits")
    out = {}
    for q in ("fifo", "radio"):
        assert main(["sim", "--trace", str(trace), "--profile", "tossim", "--sender-queue", q, "--json"]) == 0
        out[q] = json.loads(capsys.readouterr().out)
    want = {q: run_trace(_bernoulli(0.25, 3000), tcp=TcpConfig.tossim(), sender_queue=q).goodput_pps for q in ("fifo", "radio")}
    assert {q: out[q]["goodput_pps"] for q in out} == want


def test_study_items_record_the_sender_queue() -> None:
    """Items of the two choices never share a key; ``fifo`` items keep the keys they had
    before the choice existed (no ``sender_queue`` in their configuration)."""
    cfgs = {q: P.StudyConfig(n_links=3, n_slots=2000, replicates=1, sender_queue=q) for q in ("fifo", "radio")}
    tasks = {}
    for q, cfg in cfgs.items():
        links, _ = select_links(cfg, load_traces(cfg))
        tasks[q] = P.plan(cfg, links)
    items = {q: [it for t in ts for it in t.items] for q, ts in tasks.items()}
    assert items["fifo"] and len(items["fifo"]) == len(items["radio"])
    assert not {it.key for it in items["fifo"]} & {it.key for it in items["radio"]}
    assert all("sender_queue" not in json.loads(it.config) for it in items["fifo"])
    assert all(json.loads(it.config)["sender_queue"] == "radio" for it in items["radio"])
    assert all(t.sender_queue == "radio" for t in tasks["radio"])
