"""One kernel run through ``burstlab shell`` beside the simulator replaying its fates by
segment, event by event (root; docs/validation.md, "Why the kernel's CUBIC was slower on the
bursty channel").

The kernel side: the bulk transfer of ``shell_vs_sim.py`` (the same link and channel, the
kernel's congestion control ``--cc``, loss seed ``--seed``), with the shell's per-packet log
of both directions and the sender's ``TCP_INFO`` sampled every 0.5 ms (state, cwnd,
ssthresh, segments lost and retransmitted, RTO, backoff). The simulator's side: ``burstlab
sim --profile linux`` on the same link replaying the run's fates by segment (the network
engine with its per-packet log and window series). Prints both goodputs and timeouts, each
point where the two transfers' timelines part (the same transmission of the same segment
more than 0.1 s further apart than before), and, with ``--at T0,T1``, both sides' events in
that interval of the kernel's run (``--sim-at`` another interval for the simulator's side:
the two drift apart). ``--acks N`` prints both receivers' ACK pattern (how many data segments
arrived before each ACK: ``1`` one ACK per segment, ``2`` every second one), its first N
ACKs and the share of one-segment ACKs with the receiver's buffer empty (no hole) over the run;
``--epochs`` the windows at which both entered fast recovery and what they gained between
recoveries (the kernel's from ``TCP_INFO``).

    sudo python benchmarks/shell_trace.py --cc cubic --seed 46 --out /tmp/c46      # run and save
    python benchmarks/shell_trace.py --cc cubic --seed 46 --from /tmp/c46 --at 1.3,1.7 --sim-at 1.1,1.35
    python benchmarks/shell_trace.py --from /tmp/c46 --acks 80 --epochs
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import sys
import tempfile
from typing import Any

import numpy as np

from burstlab import _core, shell
from burstlab.lossspec import parse_loss_spec
from burstlab.sim.network import Flow, Hop, Network, run_network
from burstlab.sim import Link, TcpConfig
from shell_accuracy import _sink, bytes_by  # this script's folder is on the path
import shell_vs_sim as S

SENDER = r"""
import json, os, socket, struct, subprocess, sys, threading, time
port, secs, out = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
def counters():
    nstat = subprocess.run(["nstat", "-az"], capture_output=True, text=True).stdout
    return {l.split()[0]: int(l.split()[1]) for l in nstat.splitlines()[1:] if len(l.split()) >= 2 and l.split()[1].isdigit()}
s = socket.socket()
t0 = time.monotonic()
s.connect((os.environ["BURSTLAB_SHELL_PEER"], port))
t = time.monotonic(); b = b"x" * 65536
samples, stop, window = [], [], {}
def sample():
    last = None
    while not stop:
        raw = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
        if raw != last:
            samples.append((time.monotonic(), raw.hex())); last = raw
        time.sleep(0.0005)
def at_end():
    time.sleep(max(0.0, t + secs - time.monotonic())); window.update(counters())
th = threading.Thread(target=sample, daemon=True); th.start()
w = threading.Thread(target=at_end); w.start()
s.settimeout(0.5)
while time.monotonic() - t < secs:
    try:
        s.sendall(b)
    except socket.timeout:
        pass
w.join(); stop.append(1); th.join()
s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)); s.close()
open(out, "w").write(json.dumps({"t0": t0, "start": t, "counters": window, "samples": samples}))
"""

#: struct tcp_info (include/uapi/linux/tcp.h): the leading u8 fields, then u32 fields.
INFO_U8 = ("state", "ca_state", "retransmits", "probes", "backoff")
INFO_U32 = ("rto", "ato", "snd_mss", "rcv_mss", "unacked", "sacked", "lost", "retrans", "fackets", "last_data_sent",
            "last_ack_sent", "last_data_recv", "last_ack_recv", "pmtu", "rcv_ssthresh", "rtt", "rttvar", "snd_ssthresh",
            "snd_cwnd")  # fmt: skip


def tcp_info(hexs: str) -> dict[str, int]:
    raw = bytes.fromhex(hexs)
    d = dict(zip(INFO_U8, raw[:5]))
    d.update(zip(INFO_U32, struct.unpack_from(f"<{len(INFO_U32)}I", raw, 8)))
    return d


def kernel_run(cc: str, seed: int, secs: float, spec: str, out: str) -> None:
    th, recv, port = _sink(timeline=True)
    up = shell.Direction(rate=S.RATE, delay=S.DELAY, buffer=S.BUFFER, loss=parse_loss_spec(spec), seed=seed)
    down = shell.Direction(rate=S.RATE, delay=S.DELAY, buffer=S.BUFFER)
    with tempfile.TemporaryDirectory() as d:
        info = os.path.join(d, "info.json")
        res = shell.run([sys.executable, "-c", SENDER, str(port), str(secs), info], up, down, cc=cc)
        recv["stop"].set()
        th.join()
        with open(info) as f:
            sender = json.load(f)
    os.makedirs(out, exist_ok=True)
    logs = {f"{name}_{k}": np.asarray(v) for name in ("uplink", "downlink") for k, v in getattr(res, name)["log"].items()}
    np.savez(os.path.join(out, "log.npz"), **logs)
    sender.update(cc=cc, seed=seed, secs=secs, spec=spec, goodput=bytes_by(recv, sender["start"] + secs) * 8 / secs)
    with open(os.path.join(out, "kernel.json"), "w") as f:
        json.dump(sender, f)


def simulate(z: Any, cc: str, seed: int, secs: float, spec: str) -> Any:
    f = z["uplink_fate"]
    fates = {c: z["uplink_" + c][f != 2] for c in shell.KEY_COLUMNS}
    fates["lost"] = f[f != 2] == 1
    k = shell.for_simulator(fates, S.MSS)
    loss = _core.LossModel.keyed_replay(k["flow"], k["kind"], k["num"], k["tx"], k["lost"], otherwise=parse_loss_spec(spec))
    tcp = TcpConfig.profile("linux", cc=cc, mss=S.MSS)
    hop = Hop(name="path", forward=Link(rate=S.RATE, delay=S.DELAY, buffer=S.BUFFER, loss=loss),
              reverse=Link(rate=S.RATE, delay=S.DELAY, buffer=S.BUFFER))  # fmt: skip
    return run_network(Network(hops=[hop], flows=[Flow(name="bulk", path=["path"], tcp=tcp)], duration=secs, seed=seed, series=True, log=True))


def arrivals_per_ack(arrivals: np.ndarray, acks: np.ndarray) -> np.ndarray:
    """For each ACK (its sending times, increasing), how many data segments reached the
    receiver (``arrivals``, increasing) since the ACK before it."""
    return np.diff(np.r_[0, np.searchsorted(arrivals, acks, side="right")])


def kernel_acks(z: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kernel receiver's data arrivals (the shell's writes of delivered data segments),
    their segment numbers, and its ACKs (the shell's reads of them), times in s."""
    d = (z["uplink_kind"] == 0) & (z["uplink_fate"] == 0)
    order = np.argsort(z["uplink_t_out"][d])
    seg = (z["uplink_num"][d][order].astype(np.int64) + S.MSS // 2) // S.MSS
    return z["uplink_t_out"][d][order] / 1e9, seg, np.sort(z["downlink_t_in"][z["downlink_kind"] == 1]) / 1e9


def sim_acks(log: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`kernel_acks` from the simulator's log (data arriving at the receiving host, ACKs
    it sent)."""
    d = (log["event"] == 3) & (log["kind"] == 0)
    order = np.argsort(log["time"][d], kind="stable")
    ack = (log["event"] == 0) & (log["kind"] == 1)
    return log["time"][d][order], log["seg"][d][order].astype(np.int64), np.sort(log["time"][ack])


def in_order_alone(seg: np.ndarray) -> np.ndarray:
    """Whether each arriving segment came in order with no hole above it (the receiver's
    delayed-ACK rule applies only to those)."""
    out = np.zeros(len(seg), bool)
    nxt, held = 0, set()
    for i, s in enumerate(seg.tolist()):
        if s == nxt and not held:
            nxt += 1
            out[i] = True
        elif s == nxt:
            nxt += 1
            while nxt in held:
                held.discard(nxt)
                nxt += 1
        elif s > nxt:
            held.add(s)
    return out


def ack_summary(arrivals: np.ndarray, seg: np.ndarray, acks: np.ndarray, first: int) -> str:
    n = arrivals_per_ack(arrivals, acks)
    # an ACK right after an in-order segment with nothing held, and that segment alone since
    # the previous ACK: a quick ACK (an ACK of every second one would have waited)
    last = np.searchsorted(arrivals, acks, side="right") - 1
    alone = in_order_alone(seg)
    quick = (n == 1) & (last >= 0) & alone[np.maximum(last, 0)]
    plain = np.count_nonzero((n >= 1) & (last >= 0) & alone[np.maximum(last, 0)])
    return (f"{''.join(str(min(int(x), 9)) for x in n[:first])}\n      {len(acks)} ACKs; of those after an in-order segment "
            f"with no hole, {np.count_nonzero(quick)} of {plain} acknowledge it alone")  # fmt: skip


def recoveries_kernel(samples: list[list[Any]]) -> list[tuple[float, float, float | None, float | None]]:
    """(time, window at entry, time and window at the previous recovery's end) of each entry
    into fast recovery, from the sender's ``TCP_INFO`` samples."""
    out: list[tuple[float, float, float | None, float | None]] = []
    prev: dict[str, int] | None = None
    end: tuple[float | None, float | None] = (None, None)
    for t, h in samples:
        d = tcp_info(h)
        if prev is not None and prev["ca_state"] < 3 and d["ca_state"] == 3:
            out.append((t, prev["snd_cwnd"], *end))
        if prev is not None and prev["ca_state"] >= 3 and d["ca_state"] < 3:
            end = (t, d["snd_cwnd"])
        prev = d
    return out


def recoveries_sim(series: dict[str, np.ndarray]) -> list[tuple[float, float, float | None, float | None]]:
    """:func:`recoveries_kernel` from the simulator's window series (states numbered as
    Linux's: 3 Recovery, 4 Loss)."""
    st, cw, t = np.asarray(series["state"]), np.asarray(series["cwnd"]) / S.MSS, np.asarray(series["time"])
    out: list[tuple[float, float, float | None, float | None]] = []
    end: tuple[float | None, float | None] = (None, None)
    for i in range(1, len(st)):
        if st[i - 1] < 3 and st[i] == 3:
            out.append((float(t[i]), float(cw[i - 1]), *end))
        if st[i - 1] >= 3 and st[i] < 3:
            end = (float(t[i]), float(cw[i]))
    return out


def epoch_summary(rec: list[tuple[float, float, float | None, float | None]]) -> str:
    w = np.array([r[1] for r in rec])
    ep = [(r[0] - r[2], r[1] - r[3]) for r in rec if r[2] is not None and r[3] is not None and r[0] > r[2]]
    gained = np.array([g for _, g in ep])
    secs = np.array([d for d, _ in ep])
    return (f"{len(rec)} recoveries, window at entry mean {w.mean():.1f} (median {np.median(w):.0f}; without the first "
            f"{w[1:].mean():.1f}); the first ten {' '.join(f'{x:.0f}' for x in w[:10])}; between recoveries "
            f"{secs.mean() * 1000:.0f} ms and {gained.mean():.2f} segments gained on average ({gained.sum() / secs.sum():.1f} per s)")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cc", default="cubic")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--secs", type=float, default=20.0)
    ap.add_argument("--channel", default="gilbert-elliott b=0.01 g=0.3", help="A channel of shell_vs_sim.CHANNELS (no link layer).")
    ap.add_argument("--out", help="Run the kernel (root) and save its run in this folder.")
    ap.add_argument("--from", dest="from_", help="A folder --out saved.")
    ap.add_argument("--at", help="T0,T1: print both sides' events in this interval of the kernel's run (s from its first data).")
    ap.add_argument("--sim-at", help="T0,T1 of the simulator's run (default: --at).")
    ap.add_argument("--acks", type=int, default=0, help="N: both receivers' ACK patterns, the first N ACKs (see above).")
    ap.add_argument("--epochs", action="store_true", help="Both senders' windows at each fast recovery's entry and between.")
    a = ap.parse_args(argv)
    spec, layer = S.CHANNELS.get(a.channel, (None, None))
    if not spec or layer:
        ap.error(f"--channel {a.channel!r}: one of {', '.join(n for n, (sp, ly) in S.CHANNELS.items() if sp and not ly)}")
    folder = a.out or a.from_
    if not folder:
        ap.error("--out DIR (run) or --from DIR (a saved run)")
    if a.out:
        shell.check_environment()
        kernel_run(a.cc, a.seed, a.secs, spec, a.out)
    with open(os.path.join(folder, "kernel.json")) as f:
        kern = json.load(f)
    z = np.load(os.path.join(folder, "log.npz"))
    r = simulate(z, kern["cc"], kern["seed"], kern["secs"], kern["spec"])
    flow = r.flows[0]
    c = kern["counters"]
    print(f"kernel {kern['goodput'] / 1e6:.3f} Mb/s, {c.get('TcpExtTCPTimeouts', 0)} timeouts, {c.get('TcpExtTCPLossProbes', 0)} probes, "
          f"{c.get('TcpExtTCPLostRetransmit', 0)} lost retransmissions | simulator by segment {flow.goodput_bps / 1e6:.3f} Mb/s, "
          f"{flow.timeouts} timeouts, {flow.loss_probes} probes, {flow.lost_retransmissions} lost retransmissions")  # fmt: skip
    if a.acks:
        print("data segments per ACK at the receiver (1: each acknowledged alone):")
        print("  kernel    " + ack_summary(*kernel_acks(z), a.acks))
        print("  simulator " + ack_summary(*sim_acks(r.log), a.acks))
    if a.epochs:
        print("fast recoveries:")
        print("  kernel    " + epoch_summary(recoveries_kernel(kern["samples"])))
        print("  simulator " + epoch_summary(recoveries_sim(flow.series)))
    # each transmission (segment, n-th copy) on both sides, times from the first data packet
    f = z["uplink_fate"]
    adm = f != 2
    kind, num, tx = z["uplink_kind"][adm], z["uplink_num"][adm].astype(np.int64), z["uplink_tx"][adm]
    t_in, lost = z["uplink_t_in"][adm] / 1e9, f[adm] == 1
    seg = (num + S.MSS // 2) // S.MSS
    data = np.flatnonzero(kind == 0)
    k0 = t_in[data[0]]
    ktx = {(int(seg[i]), int(tx[i])): (t_in[i] - k0, bool(lost[i])) for i in data[::-1]}
    log = r.log
    sent = np.flatnonzero((log["event"] == 0) & (log["kind"] == 0))
    s0 = float(log["time"][sent[0]])
    stx: dict[tuple[int, int], float] = {}
    copies: dict[int, int] = {}
    for i in sent:
        sg = int(log["seg"][i])
        stx[(sg, copies.get(sg, 0))] = float(log["time"][i]) - s0
        copies[sg] = copies.get(sg, 0) + 1
    print("where the timelines part (kernel time - simulator time of the same transmission):")
    lag = 0.0
    for key in sorted(ktx, key=lambda k: ktx[k][0]):
        if key in stx and abs((ktx[key][0] - stx[key]) - lag) > 0.1:
            lag = ktx[key][0] - stx[key]
            print(f"  segment {key[0]} copy {key[1]}: kernel {ktx[key][0]:.3f} s, simulator {stx[key]:.3f} s, lag {lag:+.3f} s")
    if a.at:
        t0, t1 = (float(x) for x in a.at.split(","))
        s_0, s_1 = (float(x) for x in (a.sim_at or a.at).split(","))
        events = [(t, f"send {k[0]} copy {k[1]}{' LOST' if lo else ''}") for k, (t, lo) in ktx.items() if t0 <= t < t1]
        mono = z["uplink_t_in"][0] / 1e9 - kern["t0"]  # the shell's clock minus the sender's (its SYN)
        prev = None
        for t, h in kern["samples"]:
            d = tcp_info(h)
            ts = t + mono - k0
            now = tuple(d[k] for k in ("ca_state", "snd_cwnd", "snd_ssthresh", "lost", "retrans", "backoff"))
            if t0 <= ts < t1 and now != prev:
                events.append((ts, "      TCP_INFO state {} cwnd {} ssthresh {} out {} sacked {} lost {} retrans {} rto {} ms backoff {}".format(
                    d["ca_state"], d["snd_cwnd"], d["snd_ssthresh"], d["unacked"], d["sacked"], d["lost"], d["retrans"], d["rto"] // 1000, d["backoff"])))  # fmt: skip
            prev = now
        print("kernel:")
        for t, e in sorted(events):
            print(f"  {t:8.4f} {e}")
        ser = flow.series
        events = [(t, f"send {k[0]} copy {k[1]}") for k, t in stx.items() if s_0 <= t < s_1]
        gone = np.flatnonzero((log["event"] == 2) & (log["kind"] == 0))
        events += [(float(log["time"][i]) - s0, f"   lost {int(log['seg'][i])}") for i in gone if s_0 <= float(log["time"][i]) - s0 < s_1]
        prev = None
        for i in range(len(ser["time"])):
            ts = float(ser["time"][i]) - s0
            now = (ser["state"][i], ser["cwnd"][i], ser["ssthresh"][i])
            if s_0 <= ts < s_1 and now != prev:
                events.append((ts, f"      state {ser['state'][i]} cwnd {ser['cwnd'][i] / S.MSS:.1f} ssthresh {ser['ssthresh'][i] / S.MSS:.1f} rto {ser['rto'][i] * 1000:.0f} ms"))
            prev = now
        print("simulator:")
        for t, e in sorted(events):
            print(f"  {t:8.4f} {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
