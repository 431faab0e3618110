"""How often the TCP judge keeps the true model family in its top group (issue 27, item 8).

For every generating family: a model of that family (fitted to a fixed, structured base
trace, see :func:`generators`), ``--cases`` traces of ``--length`` entries sampled from it
with fresh seeds, and on each :func:`burstlab.judge.select` with every candidate family
(fitted on the first half, judged on the second, slotted and link modes). Reported per
family and overall: the share of traces whose top group holds the generating family
(target ≥ 90 %), with its 95 % Clopper-Pearson interval; the mean size of the top group;
the share of traces from bursty families on which the independent-loss model
(``bernoulli-fer``) is left out of the top group (the judge's power); and how often the
generating family's own interval holds 0, per mode (the intervals' calibration: 95 % if
they are exact, more if conservative).

    python benchmarks/judge_coverage.py [--cases 20] [--length 40000] [--replicates 6] [--rotations 4] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: The families the judge chooses among (those whose fits take well under a second).
CANDIDATES = ("bernoulli-fer", "bistable", "markov-ct", "semi-markov", "runlength", "run-chain", "run-chain-vo", "bootstrap")


def base_trace(n: int = 60_000, seed: int = 7) -> Any:
    """A structured trace no candidate family is: stretches of a few hundred to a few
    thousand entries from three Gilbert-Elliott regimes (PRR 0.6 / μ 0.5, 0.3 / 0.85,
    0.45 / 0.7), in random order and of random (geometric) length: a bursty link of PRR
    about 0.45, where losses that came independently would carry far less TCP (Srinivasan
    et al. §6), so a judge with any power leaves ``bernoulli-fer`` out."""
    from burstlab import _core
    from burstlab.traces import Trace

    rng = np.random.default_rng(seed)
    regimes = [_core.LossModel.gilbert_elliott_prr_mu(p, m) for p, m in ((0.6, 0.5), (0.3, 0.85), (0.45, 0.7))]
    parts: list[np.ndarray] = []
    total = 0
    while total < n:
        k = int(rng.geometric(1 / 2000))
        parts.append(Trace(regimes[int(rng.integers(3))].sample(k, int(rng.integers(2**32)))).to_numpy())
        total += k
    return Trace(np.concatenate(parts)[:n], interval=0.01, name="base")


def generators(names: tuple[str, ...] = CANDIDATES) -> dict[str, Any]:
    """One model per family, fitted to :func:`base_trace`."""
    from burstlab.models import make_model

    base = base_trace()
    return {n: make_model(n).fit(base) for n in names}


_GENERATORS: dict[str, Any] = {}


def one_case(args: tuple[str, int, int, int, int, tuple[str, ...]]) -> dict[str, Any]:
    """Judge one trace of ``length`` entries sampled from the generator of ``family``
    (built once per process: fitted models hold Rust objects that do not pickle)."""
    from burstlab.judge import select

    family, seed, length, replicates, rotations, candidates = args
    if not _GENERATORS:
        _GENERATORS.update(generators())
    trace = _GENERATORS[family].sample(length, random_state=seed)
    trace.interval = 0.01
    sel = select(trace, "tcp", list(candidates), replicates=replicates, rotations=rotations, seed=seed, refit=False)
    own = [next(v for v in j.verdicts if v.model == family) for j in sel.tcp]
    return {"family": family, "seed": seed, "top_group": sel.top_group, "best": sel.best, "covered": family in sel.top_group,
            "zero_in_ci": [bool(v.ci[0] <= 0 <= v.ci[1]) for v in own],
            "size": len(sel.top_group), "bernoulli_out": "bernoulli-fer" not in sel.top_group, "mu": sel.reference.to_dict().get("mu"),
            "warnings": sel.warnings}  # fmt: skip


def cases(families: Sequence[str], n: int, length: int, replicates: int, rotations: int, candidates: tuple[str, ...],
          seed: int = 1000) -> list[tuple[str, int, int, int, int, tuple[str, ...]]]:  # fmt: skip
    """``n`` cases per family, each with its own seed."""
    return [(f, seed + 97 * i + 7919 * k, length, replicates, rotations, candidates) for k, f in enumerate(families) for i in range(n)]


def rate(hits: int, n: int) -> tuple[float, float, float]:
    """Share and its 95 % Clopper-Pearson interval."""
    from scipy.stats import binomtest

    ci = binomtest(hits, n).proportion_ci(0.95, method="exact")
    return hits / n, float(ci.low), float(ci.high)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=20, help="traces per generating family")
    ap.add_argument("--length", type=int, default=40_000)
    ap.add_argument("--replicates", type=int, default=6)
    ap.add_argument("--rotations", type=int, default=4)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=None, help="write every case as JSON lines here")
    a = ap.parse_args()
    t0 = time.perf_counter()
    gens = CANDIDATES
    jobs = cases(gens, a.cases, a.length, a.replicates, a.rotations, CANDIDATES)
    with ProcessPoolExecutor(a.workers) as ex:
        rows = list(ex.map(one_case, jobs))
    if a.out:
        Path(a.out).write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(f"{len(rows)} traces of {a.length:,} entries, {a.replicates} replicates, {a.rotations} starts, {len(CANDIDATES)} candidates "
          f"({time.perf_counter() - t0:.0f} s)")  # fmt: skip
    print(f"{'generating family':18} {'in top group [95 % CI]':>26} {'mean top size':>14} {'bernoulli-fer out':>18} {'0 in its interval':>18}")
    for f in gens:
        rs = [r for r in rows if r["family"] == f]
        p, lo, hi = rate(sum(r["covered"] for r in rs), len(rs))
        out = f"{100 * np.mean([r['bernoulli_out'] for r in rs]):.0f} %" if f != "bernoulli-fer" else "-"
        zero = f"{100 * np.mean([z for r in rs for z in r['zero_in_ci']]):.0f} %"
        print(f"{f:18} {f'{100 * p:.0f} % [{100 * lo:.0f}, {100 * hi:.0f}]':>26} {np.mean([r['size'] for r in rs]):>14.1f} {out:>18} {zero:>18}")
    p, lo, hi = rate(sum(r["covered"] for r in rows), len(rows))
    print(f"{'all':18} {f'{100 * p:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]':>26} {np.mean([r['size'] for r in rows]):>14.1f}")
    sys.exit(0)


if __name__ == "__main__":
    main()
