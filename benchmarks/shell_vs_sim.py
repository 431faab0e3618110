"""The kernel's TCP through ``burstlab shell`` against ``burstlab sim --profile linux`` on the
same channel (root; docs/shell.md).

Each cell: a bulk transfer for ``--secs`` seconds from inside the shell (the kernel's
``--cc``, set per socket with TCP_CONGESTION) to a receiver outside, over a 10 Mb/s, 10 ms
one-way path with a 100-packet DropTail buffer, the channel on the data direction only; and
the simulator on the same link with ``TcpConfig.profile("linux", cc=…, mss=1448)`` (a
1500-byte MTU with timestamps). Two comparisons per cell:

- **fresh**: both sides draw their own losses from the model (seeds ``--seeds``), goodput
  means and their ratio (the issue's target: within ±15 %);
- **replayed**: the simulator replays the exact sequence of fates the shell applied to its
  uplink packets (``LossModel.replay``), so both see identical loss sequences (target ±10 %).

    sudo python benchmarks/shell_vs_sim.py [--cc reno,cubic] [--secs 20] [--seeds 1-3] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from typing import Any

import numpy as np

from burstlab import _core, shell
from burstlab.lossspec import parse_loss_spec
from burstlab.sim import Link, Scenario, TcpConfig, Workload, run
from shell_accuracy import _sink  # the same receiver (this script's folder is on the path)

RATE, DELAY, BUFFER = 10e6, 0.01, 100
CHANNELS = {
    "bernoulli 1 %": "bernoulli:p=0.01",
    "bernoulli 5 %": "bernoulli:p=0.05",
    "bernoulli 10 %": "bernoulli:p=0.1",
    "gilbert-elliott b=0.01 g=0.3": "ge:b=0.01,g=0.3",
}

SENDER = """
import os, socket, sys, time
s = socket.socket(); s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, sys.argv[3].encode())
s.connect((os.environ["BURSTLAB_SHELL_PEER"], int(sys.argv[1])))
t = time.monotonic(); b = b"x" * 65536
while time.monotonic() - t < float(sys.argv[2]):
    s.sendall(b)
s.shutdown(socket.SHUT_WR); s.recv(1); s.close()
"""


def _kernel(cc: str, spec: str, seed: int, secs: float) -> tuple[float, np.ndarray]:
    t, out, port = _sink()
    up = shell.Direction(rate=RATE, delay=DELAY, buffer=BUFFER, loss=parse_loss_spec(spec), seed=seed)
    down = shell.Direction(rate=RATE, delay=DELAY, buffer=BUFFER)
    res = shell.run([sys.executable, "-c", SENDER, str(port), str(secs), cc], up, down)
    t.join()
    return out["bps"], res.fates("uplink")


def _sim(cc: str, loss: _core.LossModel, seed: int, secs: float) -> float:
    tcp = TcpConfig.profile("linux", cc=cc, mss=1448)
    r = run(Scenario(tcp=tcp, forward=Link(rate=RATE, delay=DELAY, buffer=BUFFER, loss=loss), workload=Workload(duration=secs), seed=seed))
    return float(r.goodput_bps)


def _seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cc", default="reno,cubic")
    ap.add_argument("--secs", type=float, default=20.0)
    ap.add_argument("--seeds", default="1-3")
    ap.add_argument("--channels", default=",".join(CHANNELS), help="Comma-separated names of CHANNELS.")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    shell.check_environment()
    rows: list[dict[str, Any]] = []
    for cc in a.cc.split(","):
        for name in a.channels.split(","):
            spec = CHANNELS[name]
            kern, fresh, replayed = [], [], []
            for seed in _seeds(a.seeds):
                k, fates = _kernel(cc, spec, seed, a.secs)
                kern.append(k)
                fresh.append(_sim(cc, parse_loss_spec(spec), seed, a.secs))
                bits = _core.BitTrace.from_numpy((~fates).astype(np.uint8))
                replayed.append(_sim(cc, _core.LossModel.replay(bits, "wrap", None), seed, a.secs))
            km = statistics.fmean(kern)
            row = {"cc": cc, "channel": name, "kernel_mbps": km / 1e6, "sim_mbps": statistics.fmean(fresh) / 1e6,
                   "sim_replayed_mbps": statistics.fmean(replayed) / 1e6, "runs": len(kern)}
            row["fresh_ratio"] = row["sim_mbps"] / row["kernel_mbps"]
            row["replayed_ratio"] = row["sim_replayed_mbps"] / row["kernel_mbps"]
            rows.append(row)
            if not a.json:
                print(f"{cc:6} {name:30} kernel {row['kernel_mbps']:6.3f}  sim {row['sim_mbps']:6.3f} ({row['fresh_ratio']:.3f})  "
                      f"replayed {row['sim_replayed_mbps']:6.3f} ({row['replayed_ratio']:.3f})", flush=True)
    if a.json:
        print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
