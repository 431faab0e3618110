#!/usr/bin/env python3
"""A real Linux TCP stack over an emulated lossy link (issue 11): burstlab's ``--profile
linux`` against the kernel it models.

Three network namespaces and two veth pairs, all on this host (root needed; the project's
CI does not run this):

    bl-snd (10.77.0.1) --veth-- bl-rtr --veth-- bl-rcv (10.77.0.2)
         sender: TCP_CONGESTION      link emulator       receiver: counts bytes

The link in bl-rtr is burstlab's link model (``docs/simulator.md``), one direction each way:
capacity ``--rate``, one-way delay ``--delay``, a DropTail queue of ``--buffer`` packets
waiting behind the one being serialised, and on the forward (data) direction Bernoulli
loss ``--loss p`` applied only to TCP segments that carry payload (so, as in burstlab's and
ns-3's reference scenario, neither the handshake nor any ACK is lost), decided per packet
after the queue admits it; a lost packet still occupies the link. Sizes on the link are IP
bytes (a 1000-byte segment with timestamps: 20 + 32 + 1000), as burstlab's header_bytes.

Two emulators: ``--link netem`` uses ``tc qdisc netem`` (rate, delay, loss, limit) on both
routers' egress where the kernel has sch_netem; ``--link relay`` (the default, and the only
one possible where sch_netem is absent) forwards the Ethernet frames between the two veths
in user space (AF_PACKET sockets) with the exact model above and a seeded loss stream, so a
seed means the same loss draws. Offloads are turned off (``ethtool``) and the MTU is set so
that a full segment carries ``--mss`` payload bytes with timestamps on.

    sudo python benchmarks/linux/linux_reference.py --cc reno,cubic --loss 0.01,0.05,0.1 \\
        --seeds 1-10 --duration 60 --out /tmp/linux.json

Per run it records goodput (payload bytes the receiving application read during the
``--duration`` seconds after the connection opened), and from the sender namespace's
``/proc/net/netstat`` and ``/proc/net/snmp``: segments sent and retransmitted, SACK and Reno
recovery episodes (fast retransmits), retransmission timeouts, tail-loss probes. ``--kernel``
chooses the loss detection the kernel runs: ``default`` (RACK-TLP, F-RTO, its defaults) or
``classic`` (``tcp_recovery=0``, ``tcp_early_retrans=0``, ``tcp_frto=0``: meant as duplicate-ACK /
SACK loss detection and timeouts only, as burstlab models; on Linux 6.18 the tail-loss probes
stop but lost retransmissions are still repaired without a timeout: ``docs/validation.md``,
"Is it RACK-TLP?"). ``compare.py`` beside this file
runs burstlab's ``--profile linux`` on the same scenario and prints both.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import platform
import random
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
NS = {"snd": "bl-snd", "rtr": "bl-rtr", "rcv": "bl-rcv"}
SND_IP, RCV_IP, PORT = "10.77.0.1", "10.77.0.2", 5001
IP_TCP_TS_HEADER = 20 + 20 + 12  # IPv4 + TCP + the timestamps option (RFC 7323)
TCP_CONGESTION = 13  # <netinet/tcp.h>
ETH_P_ALL = 0x0003
# The emulator and the end points run with a real-time priority where chrt exists: on a
# shared machine other processes would otherwise delay the emulated link by milliseconds
# (the relay reports how late each frame left: ``late_us`` in each run).
RT = ["chrt", "-f", "20"] if shutil.which("chrt") else []
PACKET_OUTGOING = 4


def sh(*cmd: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(list(cmd), capture_output=True, text=True)
    if check and r.returncode != 0:
        raise SystemExit(f"error: {' '.join(cmd)}: {r.stderr.strip() or r.stdout.strip()}")
    return r


def in_ns(ns: str, *cmd: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return sh("ip", "netns", "exec", ns, *cmd, check=check)


def have_netem() -> bool:
    """Whether this kernel can run a netem qdisc (tried on a scratch dummy veth)."""
    sh("ip", "link", "add", "bl-probe0", "type", "veth", "peer", "name", "bl-probe1", check=False)
    ok = sh("tc", "qdisc", "add", "dev", "bl-probe0", "root", "netem", "delay", "1ms", check=False).returncode == 0
    sh("ip", "link", "del", "bl-probe0", check=False)
    return ok


def teardown() -> None:
    for ns in NS.values():
        sh("ip", "netns", "del", ns, check=False)


def setup(mss: int, kernel: str) -> None:
    """The three namespaces, the veth pairs, MTU, offloads off, addresses, sysctls."""
    teardown()
    for ns in NS.values():
        sh("ip", "netns", "add", ns)
        in_ns(ns, "ip", "link", "set", "lo", "up")
        in_ns(ns, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1")
        in_ns(ns, "sysctl", "-q", "-w", "net.ipv6.conf.default.disable_ipv6=1")
    mtu = str(mss + IP_TCP_TS_HEADER)
    for a, b, na, nb in (("snd0", "rtr0", NS["snd"], NS["rtr"]), ("rtr1", "rcv0", NS["rtr"], NS["rcv"])):
        sh("ip", "link", "add", a, "type", "veth", "peer", "name", b)
        sh("ip", "link", "set", a, "netns", na)
        sh("ip", "link", "set", b, "netns", nb)
    for ns, dev in ((NS["snd"], "snd0"), (NS["rtr"], "rtr0"), (NS["rtr"], "rtr1"), (NS["rcv"], "rcv0")):
        in_ns(ns, "ip", "link", "set", dev, "mtu", mtu)
        # One frame per segment on the emulated link: no TSO/GSO/GRO batching.
        in_ns(ns, "ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off", "tx", "off", "rx", "off", check=False)
        in_ns(ns, "ip", "link", "set", dev, "up")
    in_ns(NS["snd"], "ip", "addr", "add", f"{SND_IP}/24", "dev", "snd0")
    in_ns(NS["rcv"], "ip", "addr", "add", f"{RCV_IP}/24", "dev", "rcv0")
    for ns in (NS["snd"], NS["rcv"]):
        in_ns(ns, "sysctl", "-q", "-w", "net.ipv4.tcp_no_metrics_save=1")
        if kernel == "classic":
            for k, v in (("tcp_recovery", "0"), ("tcp_early_retrans", "0"), ("tcp_frto", "0")):
                in_ns(ns, "sysctl", "-q", "-w", f"net.ipv4.{k}={v}")


def sysctls(ns: str) -> dict[str, str]:
    out = {}
    for k in ("tcp_sack", "tcp_timestamps", "tcp_recovery", "tcp_early_retrans", "tcp_frto", "tcp_congestion_control",
              "tcp_rmem", "tcp_wmem", "tcp_min_rtt_wlen", "tcp_no_metrics_save"):
        out[k] = in_ns(ns, "sysctl", "-n", f"net.ipv4.{k}", check=False).stdout.strip()
    return out


# ------------------------------------------------------------------------------- relay


def _is_data(frame: bytes) -> bool:
    """An IPv4 TCP segment with payload."""
    if len(frame) < 14 + 20 or frame[12:14] != b"\x08\x00":
        return False
    ip = frame[14:]
    ihl = (ip[0] & 0x0F) * 4
    if ip[9] != 6 or len(ip) < ihl + 20:
        return False
    total = struct.unpack("!H", ip[2:4])[0]
    doff = (ip[ihl + 12] >> 4) * 4
    return total - ihl - doff > 0


class Direction:
    """One direction of burstlab's link: FIFO serialisation at ``rate``, DropTail on the
    packets waiting, propagation ``delay``, Bernoulli loss of data segments, or a Gilbert-Elliott
    channel over them (``ge = (b, g)``: per data segment the state moves G→B with probability b,
    B→G with g, and a segment is lost in B: burstlab's ``LossModel.gilbert_elliott(b, g)``)."""

    def __init__(self, rate: float, delay: float, buffer: int, p: float, seed: int, out: socket.socket,
                 ge: tuple[float, float] | None = None) -> None:
        self.ns_per_byte = 8e9 / rate
        self.delay = int(delay * 1e9)
        self.buffer = buffer
        self.p = p
        self.ge = ge
        self.bad = False
        self.rng = random.Random(seed)
        self.out = out
        self.busy_until = 0
        self.waiting: deque[int] = deque()  # serialisation start times still in the future
        self.stats = {"frames": 0, "data": 0, "lost": 0, "queue_drops": 0}

    def enter(self, now: int, frame: bytes, events: list[Any], seq: int) -> None:
        self.stats["frames"] += 1
        while self.waiting and self.waiting[0] <= now:
            self.waiting.popleft()
        if len(self.waiting) >= self.buffer:
            self.stats["queue_drops"] += 1
            return
        start = max(now, self.busy_until)
        self.busy_until = start + int((len(frame) - 14) * self.ns_per_byte)
        if start > now:
            self.waiting.append(start)
        if _is_data(frame):
            self.stats["data"] += 1
            if self.ge is not None:
                b, g = self.ge
                self.bad = self.rng.random() >= g if self.bad else self.rng.random() < b
                lost = self.bad
            else:
                lost = self.p > 0 and self.rng.random() < self.p
            if lost:
                self.stats["lost"] += 1
                return
        heapq.heappush(events, (self.busy_until + self.delay, seq, self.out, frame))


def relay(args: argparse.Namespace) -> int:
    """Run in bl-rtr until SIGTERM; writes its counters to ``--stats``."""
    socks = []
    for dev in ("rtr0", "rtr1"):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        s.bind((dev, 0))
        s.setblocking(False)
        socks.append(s)
    ge = tuple(float(x) for x in args.ge.split(",")) if args.ge else None
    fwd = Direction(args.rate, args.delay, args.buffer, args.loss, args.seed, socks[1], ge)  # type: ignore[arg-type]
    rev = Direction(args.rate, args.delay, args.buffer, 0.0, args.seed + 1, socks[0])
    by_sock = {socks[0].fileno(): fwd, socks[1].fileno(): rev}
    events: list[Any] = []
    seq = 0
    running = True

    def stop(*_: Any) -> None:
        nonlocal running
        running = False

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    Path(args.stats + ".ready").touch()
    late = []  # how late each frame left (ns), to report the emulator's own timing error
    while running:
        now = time.monotonic_ns()
        while events and events[0][0] <= now:
            t, _, out, frame = heapq.heappop(events)
            late.append(now - t)
            try:
                out.send(frame)
            except OSError:
                pass
        timeout = max(0.0, (events[0][0] - now) * 1e-9) if events else 0.05
        try:
            ready, _, _ = select.select(socks, [], [], min(timeout, 0.05))
        except InterruptedError:
            continue
        for s in ready:
            d = by_sock[s.fileno()]
            while True:
                try:
                    frame, addr = s.recvfrom(65536)
                except (BlockingIOError, InterruptedError):
                    break
                if addr[2] == PACKET_OUTGOING:
                    continue
                seq += 1
                d.enter(time.monotonic_ns(), frame, events, seq)
    late.sort()
    q = (lambda f: late[int(f * (len(late) - 1))] / 1e3 if late else 0.0)
    Path(args.stats).write_text(json.dumps({"forward": fwd.stats, "reverse": rev.stats,
                                            "late_us": {"median": q(0.5), "p99": q(0.99), "max": q(1.0)}}))
    return 0


def netem(rate: float, delay: float, buffer: int, p: float) -> None:
    """The same link with tc netem on the router's two egresses (random loss of every
    packet in the forward direction: netem cannot tell data from ACKs)."""
    for dev, loss in (("rtr1", p), ("rtr0", 0.0)):
        cmd = ["tc", "qdisc", "add", "dev", dev, "root", "netem", "rate", f"{int(rate)}bit", "delay",
               f"{delay * 1e3}ms", "limit", str(buffer + 1)]
        if loss > 0:
            cmd += ["loss", f"{loss * 100}%"]
        in_ns(NS["rtr"], *cmd)
    in_ns(NS["rtr"], "ip", "link", "add", "br0", "type", "bridge")
    for dev in ("rtr0", "rtr1"):
        in_ns(NS["rtr"], "ip", "link", "set", dev, "master", "br0")
    in_ns(NS["rtr"], "ip", "link", "set", "br0", "up")


# ---------------------------------------------------------------------- end points


def receive(args: argparse.Namespace) -> int:
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((RCV_IP, PORT))
    srv.listen(1)
    Path(args.stats + ".ready").touch()
    srv.settimeout(60)
    conn, _ = srv.accept()
    t0 = time.monotonic()
    end = t0 + args.duration
    total = 0
    conn.settimeout(1.0)
    while True:
        now = time.monotonic()
        if now >= end:
            break
        try:
            data = conn.recv(1 << 20)
        except socket.timeout:
            continue
        if not data:
            break
        if time.monotonic() <= end:
            total += len(data)
    Path(args.stats).write_text(json.dumps({"bytes": total, "seconds": args.duration}))
    conn.close()
    return 0


def _netstat() -> dict[str, int]:
    out: dict[str, int] = {}
    for path in ("/proc/net/netstat", "/proc/net/snmp"):
        lines = Path(path).read_text().splitlines()
        for names, values in zip(lines[0::2], lines[1::2]):
            prefix = names.split(":")[0]
            for n, v in zip(names.split()[1:], values.split()[1:]):
                out[f"{prefix}.{n}"] = int(v)
    return out


def send(args: argparse.Namespace) -> int:
    s = socket.socket()
    s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, args.cc.encode())
    s.settimeout(30)
    for attempt in range(100):  # the receiver may still be starting on a loaded machine
        try:
            s.connect((RCV_IP, PORT))
            break
        except ConnectionRefusedError:
            time.sleep(0.2)
            s.close()
            s = socket.socket()
            s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, args.cc.encode())
            s.settimeout(30)
    else:
        raise SystemExit("error: the receiver never listened")
    s.settimeout(2.0)
    buf = b"\0" * 65536
    end = time.monotonic() + args.duration + 1.0
    while time.monotonic() < end:
        try:
            s.send(buf)
        except socket.timeout:
            continue
        except OSError:
            break
    c = _netstat()
    keys = ("Tcp.OutSegs", "Tcp.RetransSegs", "TcpExt.TCPSackRecovery", "TcpExt.TCPRenoRecovery",
            "TcpExt.TCPTimeouts", "TcpExt.TCPLossProbes", "TcpExt.TCPSpuriousRTOs", "TcpExt.TCPLostRetransmit",
            "TcpExt.TCPHystartTrainDetect", "TcpExt.TCPHystartDelayDetect")
    Path(args.stats).write_text(json.dumps({k: c.get(k, 0) for k in keys}))
    s.close()
    return 0


# --------------------------------------------------------------------- orchestration


def run_one(cc: str, p: float, seed: int, prm: dict[str, Any], tmp: Path, ge: tuple[float, float] | None = None) -> dict[str, Any]:
    setup(int(prm["mss"]), prm["kernel"])
    me = [sys.executable, str(Path(__file__).resolve())]
    stats = {k: tmp / f"{k}.json" for k in ("relay", "recv", "send")}
    for f in stats.values():
        f.unlink(missing_ok=True)
        Path(str(f) + ".ready").unlink(missing_ok=True)

    def wait_ready(f: Path) -> None:
        for _ in range(600):
            if Path(str(f) + ".ready").exists():
                return
            time.sleep(0.05)
        raise SystemExit(f"error: {f.stem} did not start")

    relay_proc = None
    try:
        if prm["link"] == "netem":
            if ge is not None:
                raise SystemExit("error: a Gilbert-Elliott channel needs --link relay")
            netem(prm["rate"], prm["delay"], prm["buffer"], p)
        else:
            relay_proc = subprocess.Popen([*RT, "ip", "netns", "exec", NS["rtr"], *me, "relay", "--rate", str(prm["rate"]),
                                           "--delay", str(prm["delay"]), "--buffer", str(prm["buffer"]),
                                           "--loss", repr(p), "--seed", str(seed), "--stats", str(stats["relay"]),
                                           *(["--ge", f"{ge[0]!r},{ge[1]!r}"] if ge else [])])
            wait_ready(stats["relay"])
        recv = subprocess.Popen([*RT, "ip", "netns", "exec", NS["rcv"], *me, "receive", "--duration", str(prm["duration"]),
                                 "--stats", str(stats["recv"])])
        wait_ready(stats["recv"])
        snd = subprocess.run([*RT, "ip", "netns", "exec", NS["snd"], *me, "send", "--cc", cc,
                              "--duration", str(prm["duration"]), "--stats", str(stats["send"])],
                             capture_output=True, text=True, timeout=prm["duration"] + 60)
        recv.wait(timeout=60)
        if snd.returncode != 0:
            raise SystemExit(f"error: sender failed: {snd.stderr.strip()[-500:]}")
        kernel_sysctls = sysctls(NS["snd"])
    finally:
        if relay_proc is not None:
            relay_proc.send_signal(signal.SIGTERM)
            relay_proc.wait(timeout=30)
        teardown()
    r = json.loads(stats["recv"].read_text())
    c = json.loads(stats["send"].read_text())
    out: dict[str, Any] = {
        "cc": cc, "p": p, "seed": seed, **({"ge": list(ge)} if ge else {}),
        "goodput_bps": r["bytes"] * 8.0 / r["seconds"],
        "packets_sent": c["Tcp.OutSegs"],
        "retransmissions": c["Tcp.RetransSegs"],
        "fast_retransmits": c["TcpExt.TCPSackRecovery"] + c["TcpExt.TCPRenoRecovery"],
        "timeouts": c["TcpExt.TCPTimeouts"],
        "loss_probes": c["TcpExt.TCPLossProbes"],
        "counters": c,
        "sysctls": kernel_sysctls,
    }
    if stats["relay"].exists():
        out["relay"] = json.loads(stats["relay"].read_text())
    return out


def _seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            out += range(int(a), int(b) + 1)
        elif part.strip():
            out.append(int(part))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd")
    r = sub.add_parser("relay")
    for k, t in (("--rate", float), ("--delay", float), ("--buffer", int), ("--loss", float), ("--seed", int)):
        r.add_argument(k, type=t, required=True)
    r.add_argument("--stats", required=True)
    r.add_argument("--ge", default="", help="b,g of a Gilbert-Elliott channel instead of --loss")
    rc = sub.add_parser("receive")
    rc.add_argument("--duration", type=float, required=True)
    rc.add_argument("--stats", required=True)
    sd = sub.add_parser("send")
    sd.add_argument("--cc", required=True)
    sd.add_argument("--duration", type=float, required=True)
    sd.add_argument("--stats", required=True)
    ap.add_argument("--cc", default="reno,cubic", help="kernel congestion controls (default reno,cubic)")
    ap.add_argument("--loss", default="0.01,0.05,0.1",
                    help="loss of data segments, comma-separated: Bernoulli probabilities, or ge:B:G for a Gilbert-Elliott "
                    "channel (G->B with B, B->G with G, lost in B; default 0.01,0.05,0.1)")
    ap.add_argument("--seeds", default="1-10")
    ap.add_argument("--rate", type=float, default=10e6, help="bits/s (10e6)")
    ap.add_argument("--delay", type=float, default=0.010, help="one-way, s (0.010)")
    ap.add_argument("--buffer", type=int, default=100, help="DropTail, packets (100)")
    ap.add_argument("--mss", type=int, default=1000, help="payload bytes per segment (1000)")
    ap.add_argument("--duration", type=float, default=60.0, help="seconds per run (60)")
    ap.add_argument("--link", choices=("auto", "relay", "netem"), default="auto",
                    help="link emulator: netem where the kernel has it, else the user-space relay (auto)")
    ap.add_argument("--kernel", choices=("default", "classic"), default="default",
                    help="default: the kernel's loss detection (RACK-TLP, F-RTO); classic: duplicate ACKs, "
                    "SACK and timeouts only (tcp_recovery=0, tcp_early_retrans=0, tcp_frto=0)")
    ap.add_argument("--out", type=Path, default=None, help="write every run to this JSON file")
    args = ap.parse_args(argv)
    if args.cmd == "relay":
        return relay(args)
    if args.cmd == "receive":
        return receive(args)
    if args.cmd == "send":
        return send(args)
    if os.geteuid() != 0:
        print("error: needs root (network namespaces, tc, ethtool)", file=sys.stderr)
        return 2
    tools = (("ip", "iproute2"), ("ethtool", "ethtool"), ("tc", "iproute2"))  # (command, Debian package)
    missing = [pkg for tool, pkg in tools if shutil.which(tool) is None]
    if missing and shutil.which("apt-get"):
        # A bare machine: install what the harness runs (Debian's packages).
        print(f"installing {' '.join(sorted(set(missing)))} (apt-get)...", file=sys.stderr)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True)
        subprocess.run(["apt-get", "install", "-y", "-qq", *sorted(set(missing))], env=env, capture_output=True)
    for tool, pkg in tools:
        if shutil.which(tool) is None:
            print(f"error: {tool} is not installed (Debian package {pkg}) and could not be installed", file=sys.stderr)
            return 2
    link = args.link
    if link in ("auto", "netem"):
        netem_ok = have_netem()
        if link == "netem" and not netem_ok:
            print("error: this kernel has no sch_netem (tc qdisc add ... netem fails); use --link relay", file=sys.stderr)
            return 2
        link = "netem" if netem_ok else "relay"
    available = Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text().split()
    ccs = [c.strip() for c in args.cc.split(",") if c.strip()]
    for c in ccs:
        if c not in available:
            print(f"error: the kernel has no congestion control {c!r} (it has {' '.join(available)})", file=sys.stderr)
            return 2
    conditions: list[tuple[float, tuple[float, float] | None]] = []
    for tok in (x.strip() for x in args.loss.split(",") if x.strip()):
        try:
            if tok.startswith("ge:"):
                b, g = (float(v) for v in tok[3:].split(":"))
                if not (0 < b <= 1 and 0 < g <= 1):
                    raise ValueError
                conditions.append((b / (b + g), (b, g)))
            else:
                conditions.append((float(tok), None))
        except ValueError:
            print(f"error: --loss: {tok!r} is neither a probability nor ge:B:G with 0 < B, G <= 1", file=sys.stderr)
            return 2
    prm = {"rate": args.rate, "delay": args.delay, "buffer": args.buffer, "mss": args.mss, "duration": args.duration,
           "link": link, "kernel": args.kernel}
    tmp = Path(f"/tmp/bl-linux-{os.getpid()}")
    tmp.mkdir(exist_ok=True)
    runs: list[dict[str, Any]] = []
    if args.out is not None and args.out.exists():
        old = json.loads(args.out.read_text())
        if old.get("params") == prm:
            runs = old["runs"]

    def save(rs: list[dict[str, Any]]) -> None:
        if args.out is None:
            return
        tmpf = args.out.with_name(args.out.name + ".tmp")
        tmpf.write_text(json.dumps({"kernel": platform.release(), "params": prm, "runs": rs}, indent=1) + "\n")
        os.replace(tmpf, args.out)

    try:
        for c in ccs:
            for p, ge in conditions:
                for seed in _seeds(args.seeds):
                    if any((r["cc"], r["p"], r.get("ge"), r["seed"]) == (c, p, list(ge) if ge else None, seed) for r in runs):
                        continue  # kept from an earlier, interrupted invocation (--out)
                    res = run_one(c, p, seed, prm, tmp, ge)
                    runs.append(res)
                    print(json.dumps({k: v for k, v in res.items() if k not in ("counters", "sysctls")}), flush=True)
                    save(runs)
    finally:
        teardown()
    save(runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
