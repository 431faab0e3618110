"""Packet decisions per second through the Python handle (``LossModel.sample``, Rust
sampler, GIL released), next to the issue 3 target of ≥ 2×10^8/s on one core.

Run: ``python benchmarks/loss_sampling.py [N]`` (default N = 50 000 000).
The criterion benchmark ``cargo bench -p burstlab-bench --bench loss_sampling`` measures
the Rust samplers alone.
"""

from __future__ import annotations

import sys
import time

from burstlab import _core

TARGET = 2e8


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000_000
    cases = {
        "bernoulli p=0.01": _core.LossModel.bernoulli(0.01),
        "bernoulli p=0.1": _core.LossModel.bernoulli(0.1),
        "bernoulli p=0.5": _core.LossModel.bernoulli(0.5),
        "ge b=0.01 g=0.3": _core.LossModel.gilbert_elliott(0.01, 0.3),
        "ge prr=0.5 mu=0.2": _core.LossModel.gilbert_elliott_prr_mu(0.5, 0.2),
        "ge 4-param h=0.9 k=0.01": _core.LossModel.gilbert_elliott(0.01, 0.3, 0.9, 0.01),
    }
    print(f"packet decisions per second via LossModel.sample ({n} packets; target ≥ {TARGET:.0e}):")
    for name, m in cases.items():
        best = min(_timed(m, n, seed) for seed in range(3))
        rate = n / best
        print(f"  {name:<28} {rate:12.3e}/s  {'meets target' if rate >= TARGET else 'BELOW target'}")


def _timed(m: _core.LossModel, n: int, seed: int) -> float:
    t0 = time.perf_counter()
    t = m.sample(n, seed)
    dt = time.perf_counter() - t0
    assert len(t) == n
    return dt


if __name__ == "__main__":
    main()
