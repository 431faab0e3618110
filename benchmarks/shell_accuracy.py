"""How faithfully ``burstlab shell`` plays its links to the real network stack, and how fast
its forwarder is (root; docs/shell.md).

1. Rate: a kernel TCP flow (Python bulk sender inside the shell, receiver outside) over a
   10 Mb/s, 20 ms path for ``--secs`` seconds: goodput against 10 Mb/s (the issue's target:
   ≥ 95 %; the payload share of a 1500-byte IP packet with TCP timestamps is 1448/1500 =
   96.5 %).
2. Delay: UDP echoes over the same path: the median round trip against 40 ms + the two
   datagrams' serialisation (the issue's target: within 1 ms), the path's (kernel receive
   timestamps, the echo server's turnaround taken out) and the application's (both
   endpoints' scheduling in it).
3. Timers: how late the forwarder wrote packets after their scheduled arrival (mean, 99th
   percentile, maximum; the issue's target: ≤ 100 µs).
4. Throughput: the same TCP flow with no rate limit and no delay through the shell, and
   through a plain veth pair between two namespaces (the kernel alone), 1500-byte MTU.

    sudo python benchmarks/shell_accuracy.py [--secs 5] [--json]
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from burstlab import shell


#: SO_TIMESTAMPNS (Linux asm-generic/socket.h; Python's socket module does not name it):
#: kernel receive timestamps (CLOCK_REALTIME) as a struct timespec
TSNS = 35

BULK_CODE = """
import os, socket, sys, time
s = socket.create_connection((sys.argv[3] if len(sys.argv) > 3 else os.environ["BURSTLAB_SHELL_PEER"], int(sys.argv[1])))
t = time.monotonic(); b = b"x" * 65536
while time.monotonic() - t < float(sys.argv[2]):
    s.sendall(b)
s.shutdown(socket.SHUT_WR); s.recv(1); s.close()
"""

ECHO_CODE = """
import json, os, socket, struct, sys, time
TSNS = 35  # SO_TIMESTAMPNS (Linux; the socket module does not name it)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(2)
s.setsockopt(socket.SOL_SOCKET, TSNS, 1)
peer = (os.environ["BURSTLAB_SHELL_PEER"], int(sys.argv[1]))
app, net = [], []
for i in range(int(sys.argv[2])):
    m = time.monotonic(); t = time.time_ns()
    s.sendto(struct.pack("!q", i), peer)
    d, anc, _, _ = s.recvmsg(64, 64); app.append(time.monotonic() - m)
    sec, ns = next(struct.unpack("qq", c[2][:16]) for c in anc if c[0] == socket.SOL_SOCKET and c[1] == TSNS)
    net.append((sec * 10**9 + ns - t - struct.unpack("!qq", d[:16])[0]) / 1e9)
    time.sleep(0.01)
open(sys.argv[3], "w").write(json.dumps({"app": app, "net": net}))
"""


def _sink(host: str = "0.0.0.0", timeline: bool = False) -> tuple[threading.Thread, dict[str, Any], int]:
    """A TCP receiver on an ephemeral port, in a thread: ``out["bps"]`` the bytes read over
    the time from the connection's accept to its end of file, its reset, or ``out["stop"]``
    being set (after the shell ended: a FIN or RST the channel lost is never retransmitted
    once the shell is gone); with ``timeline``, ``out["times"]`` and ``out["bytes"]`` the
    monotonic time of each read and the bytes read by then (for :func:`bytes_by`)."""
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((host, 0))
    srv.listen(1)
    srv.settimeout(60)
    out: dict[str, Any] = {"stop": threading.Event()}
    times: list[float] = []
    counts: list[int] = []

    def run() -> None:
        try:
            c, _ = srv.accept()
        except OSError:  # no connection came (the shell did not start): out has no "bps"
            srv.close()
            return
        c.settimeout(0.5)
        t0, n = time.monotonic(), 0
        while True:
            try:
                b = c.recv(1 << 16)
            except socket.timeout:
                if out["stop"].is_set():
                    break
                continue
            except ConnectionResetError:
                break  # the sender gave up draining (benchmarks/shell_vs_sim.py): what was read counts
            if not b:
                break
            n += len(b)
            if timeline:
                times.append(time.monotonic())
                counts.append(n)
        out["bps"] = n * 8 / (time.monotonic() - t0)
        if timeline:
            out["times"], out["bytes"] = times, counts
        c.close()
        srv.close()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, out, int(srv.getsockname()[1])


def bytes_by(out: dict[str, Any], deadline: float) -> int:
    """The bytes a :func:`_sink` with ``timeline`` had read by the monotonic time ``deadline``."""
    i = bisect.bisect_right(out["times"], deadline)
    return int(out["bytes"][i - 1]) if i else 0


def rate_and_timers(secs: float) -> dict[str, float]:
    link = shell.Direction(rate=10e6, delay=0.02, buffer=100)
    t, out, port = _sink()
    res = shell.run([sys.executable, "-c", BULK_CODE, str(port), str(secs)], link, link)
    out["stop"].set()
    t.join()
    log = res.uplink["log"]
    ok = log["fate"] == 0
    late = (log["t_out"][ok].astype(np.int64) - log["arrive"][ok].astype(np.int64)) * 1e-6
    return {"goodput_mbps": out["bps"] / 1e6, "share_of_10mbps": out["bps"] / 10e6,
            "late_mean_ms": float(late.mean()), "late_p99_ms": float(np.percentile(late, 99)), "late_max_ms": float(late.max())}


def round_trip(n: int = 100) -> dict[str, float]:
    """UDP echoes over a 10 Mb/s, 20 ms path. The application's round trip (send to
    receive, in the client) holds both endpoints' scheduling, which on a loaded machine is
    milliseconds; the path's round trip removes it: the reply's kernel receive time
    (``SO_TIMESTAMPNS``) minus the send time, minus the echo server's own turnaround (its
    request's kernel receive time to its reply, which it sends back in the reply)."""
    srv = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    srv.setsockopt(socket.SOL_SOCKET, TSNS, 1)
    srv.bind(("0.0.0.0", 0))
    port = srv.getsockname()[1]

    def echo() -> None:
        try:
            while True:
                d, anc, _, a = srv.recvmsg(64, 64)
                sec, ns = next(struct.unpack("qq", c[2][:16]) for c in anc if c[0] == socket.SOL_SOCKET and c[1] == TSNS)
                srv.sendto(struct.pack("!q", time.time_ns() - (sec * 10**9 + ns)) + d[:8], a)
        except OSError:
            return

    threading.Thread(target=echo, daemon=True).start()
    out = Path(f"/tmp/burstlab-rtt-{os.getpid()}.json")
    link = shell.Direction(rate=10e6, delay=0.02)
    shell.run([sys.executable, "-c", ECHO_CODE, str(port), str(n), str(out)], link, link)
    srv.close()
    r = json.loads(out.read_text())
    out.unlink()
    app, net = np.array(r["app"]) * 1e3, np.array(r["net"]) * 1e3
    # a 36-byte request (20 IP + 8 UDP + 8) and a 44-byte reply at 10 Mb/s
    expected = 40.0 + (36 + 44) * 8 / 10e6 * 1e3
    return {"rtt_median_ms": float(np.median(net)), "rtt_expected_ms": expected, "rtt_p90_ms": float(np.percentile(net, 90)),
            "rtt_app_median_ms": float(np.median(app)), "rtt_app_p90_ms": float(np.percentile(app, 90))}  # fmt: skip


def through_shell(secs: float) -> float:
    t, out, port = _sink()
    free = shell.Direction(buffer=10_000)
    shell.run([sys.executable, "-c", BULK_CODE, str(port), str(secs)], free, free, log=False)
    out["stop"].set()
    t.join()
    return out["bps"]


def through_veth(secs: float) -> float:
    ns = f"blv{os.getpid() % 10**6}"
    ip = lambda *a: subprocess.run(["ip", *a], check=True, capture_output=True)  # noqa: E731
    ip("netns", "add", ns)
    try:
        ip("link", "add", f"{ns}a", "type", "veth", "peer", "name", f"{ns}b")
        ip("link", "set", f"{ns}b", "netns", ns)
        ip("addr", "add", "100.65.0.1/24", "dev", f"{ns}a")
        ip("link", "set", f"{ns}a", "up")
        ip("-n", ns, "addr", "add", "100.65.0.2/24", "dev", f"{ns}b")
        ip("-n", ns, "link", "set", f"{ns}b", "up")
        ip("-n", ns, "link", "set", "lo", "up")
        t, out, port = _sink()
        subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-c", BULK_CODE, str(port), str(secs), "100.65.0.1"], check=True)
        t.join()
        return out["bps"]
    finally:
        subprocess.run(["ip", "link", "del", f"{ns}a"], capture_output=True)
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--secs", type=float, default=5.0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    shell.check_environment()
    r = {**rate_and_timers(a.secs), **round_trip(), "shell_gbps": through_shell(a.secs) / 1e9, "veth_gbps": through_veth(a.secs) / 1e9}
    r["shell_over_veth"] = r["shell_gbps"] / r["veth_gbps"]
    if a.json:
        print(json.dumps(r, indent=1))
    else:
        for k, v in r.items():
            print(f"{k:18} {v:.4g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
