"""Experiment: which loss models make TCP behave as on the real link (issue 16)?

For every real trace set under ``$BURSTLAB_SHARED/data`` whose traces are long enough for μ
to converge, and every link whose held-out PRR is in ``--prr-range`` (0.2-0.9): fit every
model family on the first half of the link's trace, and judge it on the second half — the
same TCP over ``--replicates`` synthetic traces of each model and over the second half
(``--rotations`` starts), in slotted and link modes (``burstlab.judge``). A model "holds"
a link when its mean goodput is within ``--tolerance`` (10 %) of the trace's.

Printed and written to ``--out`` (``links.csv``: one row per link, judged part, mode and
family; ``summary.md``: the tables of ``docs/loss-models.md``):

- per family and dataset, the share of links it holds held-out (the target) and
  in-sample (fitted and judged on the first half: the family's own fidelity, drift aside),
  in each mode and in both;
- ``selected``: the model the judge picks **from the first half alone** (fitted on the
  first quarter, judged on the second, the lowest worst error over the modes), refitted on
  the first half and scored on the second — what a user of ``burstlab fit --judge tcp``
  gets;
- ``best of all``: the best family per link on the held-out half (an optimistic bound: it
  picks with the answer);
- ``drift``: the first half itself (TCP over its rotations) against the second — how far
  the link moves between the halves, which no model fitted on the first half can foresee;
  and the held-out shares on the links that do not drift (within the tolerance in both
  modes).

    python benchmarks/tcp_fidelity.py [--workers 2] [--replicates 20] [--rotations 20] [--out results/tcp-fidelity]
    python benchmarks/tcp_fidelity.py --quick      # 6 links, 6 replicates: a smoke run

Which data qualifies (``SOURCE.txt`` of each set): the TOSSIM-noise-derived links (98,304
slots each, the PRR/μ study's default links); the Rutgers traces hold 301 frames per link,
far too short for μ to converge (Srinivasan et al. §8: thousands of packets), and the
Mahimahi files are link-capacity traces, not reception traces (``docs/traces.md``).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

MODES = ("slotted", "link")


@dataclass(frozen=True)
class Job:
    dataset: str
    name: str
    words: bytes
    length: int
    interval: float
    replicates: int
    rotations: int
    models: tuple[str, ...]
    seed: int
    select: bool


def _trace(job: Job) -> Any:
    from burstlab._core import BitTrace
    from burstlab.traces import Trace

    return Trace(BitTrace.from_words(np.frombuffer(job.words, dtype="<u8").astype(np.uint64), job.length), interval=job.interval, name=job.name)


def _fit_all(trace: Any, names: tuple[str, ...]) -> tuple[dict[str, Any], dict[str, str], dict[str, float]]:
    import warnings

    from burstlab._core import EmptyInputError, ParameterError
    from burstlab.models import make_model

    fitted, skipped, secs = {}, {}, {}
    for n in names:
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fitted[n] = make_model(n).fit(trace)
        except (ParameterError, EmptyInputError) as e:
            skipped[n] = str(e)
        secs[n] = time.perf_counter() - t0
    return fitted, skipped, secs


def run_link(job: Job) -> list[dict[str, Any]]:
    """One link: rows per (judged on, mode, model). ``judged`` is ``held-out`` (fitted on
    the first half, judged on the second: the target) or ``in-sample`` (fitted and judged
    on the first half: how well a family reproduces TCP on its own data, drift aside).
    Model ``drift`` is the first half itself (mean over its rotations, with the second
    half's setup) against the second: how far the link moves between the halves."""
    from burstlab.judge import TcpSetup, TcpVerdict, best_by_tcp, judge_tcp, relative_error, trace_tcp

    tr = _trace(job)
    h = len(tr) // 2
    first, second = tr[:h], tr[h : 2 * h]
    fitted, skipped, secs = _fit_all(first, job.models)
    rows: list[dict[str, Any]] = []
    picked = None
    if job.select:
        q = h // 2
        f2, _, _ = _fit_all(first[:q], job.models)
        js = [judge_tcp(f2, first[q : 2 * q], TcpSetup(mode=m), replicates=max(job.replicates // 2, 2), rotations=max(job.rotations // 2, 1), seed=job.seed)
              for m in MODES]  # fmt: skip
        b = best_by_tcp(js)
        picked = None if b is None else b[0]
    st1, st2 = first.stats(warn=False), second.stats(warn=False)
    base = {"dataset": job.dataset, "link": job.name, "prr_fit": st1.prr, "prr_judge": st2.prr, "mu_fit": st1.mu, "mu_judge": st2.mu}
    for judged, ref in (("held-out", second), ("in-sample", first)):
        for mode in MODES:
            j = judge_tcp(fitted, ref, TcpSetup(mode=mode), replicates=job.replicates, rotations=job.rotations, seed=job.seed)
            single = j.reference.values[0]
            verdicts = list(j.verdicts)
            if judged == "held-out":
                d = trace_tcp(first, j.setup, job.rotations, job.seed)
                e, ci = relative_error(d, j.reference)
                verdicts.append(TcpVerdict("drift", d, e, ci))
            for v in verdicts:
                rows.append({
                    **base, "judged": judged, "mode": mode, "model": v.model,
                    "trace_goodput": j.reference.mean, "trace_se": j.reference.se, "trace_single": single,
                    "model_goodput": v.goodput.mean, "model_se": v.goodput.se, "error": v.error, "ci_lo": v.ci[0], "ci_hi": v.ci[1],
                    "error_single": (v.goodput.mean - single) / single if single > 0 else math.nan,
                    "fit_seconds": secs.get(v.model, 0.0), "selected": v.model == picked,
                })  # fmt: skip
            for n, why in skipped.items():
                rows.append({**base, "judged": judged, "mode": mode, "model": n, "error": math.nan, "note": why})
    return rows


def datasets(root: Path) -> dict[str, list[Any]]:
    from burstlab.datasets.tossim import tossim

    return {"tossim": list(tossim(root / "data" / "tossim-noise"))}


def _share(d: dict[str, bool], n: int) -> str:
    return f"{100 * sum(d.values()) / n:.0f} %" if n else "–"


def summarise(rows: list[dict[str, Any]], tol: float) -> str:
    """Markdown tables per dataset: the share of links each family holds (within ``tol``
    of the trace's TCP goodput) held-out and in-sample, in each mode and in both; the
    selected model, the best of all, the drift between the halves, and the held-out shares
    on the links that do not drift."""
    err: dict[tuple[str, str, str, str], dict[str, float]] = defaultdict(dict)
    for r in rows:
        err[(r["dataset"], r["judged"], r["model"], r["mode"])][r["link"]] = float(r["error"])
    out = []
    for ds in sorted({r["dataset"] for r in rows}):
        links = sorted({r["link"] for r in rows if r["dataset"] == ds})
        models = sorted({r["model"] for r in rows if r["dataset"] == ds} - {"drift"})

        def held(judged: str, model: str, mode: str, among: list[str]) -> dict[str, bool]:
            e = err[(ds, judged, model, mode)]
            return {lk: math.isfinite(e.get(lk, math.nan)) and abs(e[lk]) <= tol for lk in among}

        def both(judged: str, model: str, among: list[str]) -> dict[str, bool]:
            s, k = held(judged, model, "slotted", among), held(judged, model, "link", among)
            return {lk: s[lk] and k[lk] for lk in among}

        steady = [lk for lk in links if both("held-out", "drift", links)[lk]]
        lines = [f"### {ds}: {len(links)} links with held-out PRR in the range; share within {100 * tol:.0f} % of the trace's TCP goodput", "",
                 "| model | held-out: slotted | link | **both** | in-sample: slotted | link | both | held-out, both, on the "
                 f"{len(steady)} links that do not drift | median abs. error held-out slotted / link |",
                 "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
        table = []
        for m in models:
            med = [np.nanmedian([abs(x) for x in err[(ds, "held-out", m, md)].values()] or [math.nan]) for md in MODES]
            hb = both("held-out", m, links)
            table.append((-sum(hb.values()), m, [
                _share(held("held-out", m, "slotted", links), len(links)), _share(held("held-out", m, "link", links), len(links)),
                f"**{_share(hb, len(links))}**", _share(held("in-sample", m, "slotted", links), len(links)),
                _share(held("in-sample", m, "link", links), len(links)), _share(both("in-sample", m, links), len(links)),
                _share(both("held-out", m, steady), len(steady)), f"{100 * med[0]:.1f} % / {100 * med[1]:.1f} %"]))  # fmt: skip
        for _, m, cells in sorted(table):
            lines.append(f"| {m} | " + " | ".join(cells) + " |")
        sel: dict[str, dict[str, bool]] = {md: {} for md in MODES}
        best: dict[str, dict[str, bool]] = {md: {} for md in MODES}
        for r in rows:
            if r["dataset"] == ds and r["judged"] == "held-out" and r.get("selected") and math.isfinite(float(r["error"])):
                sel[r["mode"]][r["link"]] = abs(float(r["error"])) <= tol
        for lk in links:
            worst = {m: max(abs(err[(ds, "held-out", m, md)].get(lk, math.inf)) for md in MODES) for m in models}
            bm = min(worst, key=lambda m: worst[m])
            for md in MODES:
                best[md][lk] = abs(err[(ds, "held-out", bm, md)].get(lk, math.inf)) <= tol
        for label, d in (("**selected on the first half** (what `fit --judge tcp` picks)", sel), ("best of all, per link (picked with the answer)", best)):
            b2 = {k: d["slotted"].get(k, False) and d["link"].get(k, False) for k in links}
            b2s = {k: b2[k] for k in steady}
            lines.append(f"| {label} | {_share({k: d['slotted'].get(k, False) for k in links}, len(links))} | "
                         f"{_share({k: d['link'].get(k, False) for k in links}, len(links))} | **{_share(b2, len(links))}** | | | | {_share(b2s, len(steady))} | |")  # fmt: skip
        dr = [held("held-out", "drift", md, links) for md in MODES]
        lines.append(f"| *drift: the first half itself against the second* | {_share(dr[0], len(links))} | {_share(dr[1], len(links))} | "
                     f"{_share(both('held-out', 'drift', links), len(links))} | | | | | |")  # fmt: skip
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--replicates", type=int, default=20)
    ap.add_argument("--rotations", type=int, default=20)
    ap.add_argument("--prr-range", type=float, nargs=2, default=(0.2, 0.9))
    ap.add_argument("--tolerance", type=float, default=0.10)
    ap.add_argument("--models", default="all", help="comma-separated model names, or all")
    ap.add_argument("--no-select", action="store_true", help="skip the first-half selection (halves the time)")
    ap.add_argument("--max-links", type=int, default=None)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="results/tcp-fidelity")
    a = ap.parse_args()
    from burstlab.datasets import shared_root
    from burstlab.models import ALL_MODELS

    if a.quick:
        a.replicates, a.rotations, a.max_links = 6, 6, a.max_links or 6
    names = tuple(ALL_MODELS) if a.models == "all" else tuple(a.models.split(","))
    jobs = []
    for ds, traces in datasets(shared_root()).items():
        keep = []
        for tr in traces:
            h = len(tr) // 2
            prr = tr[h : 2 * h].bits.count_ones() / h
            if a.prr_range[0] <= prr <= a.prr_range[1]:
                keep.append(tr)
        if a.max_links:
            keep = keep[:: max(1, len(keep) // a.max_links)][: a.max_links]
        for tr in keep:
            jobs.append(Job(ds, tr.name, np.asarray(tr.bits.words(), dtype="<u8").tobytes(), len(tr), tr.interval or 0.01,
                            a.replicates, a.rotations, names, a.seed, not a.no_select))
    print(f"{len(jobs)} links, {len(names)} families, {a.replicates} replicates, {a.rotations} rotations, {a.workers} workers", file=sys.stderr)
    t0 = time.perf_counter()
    rows: list[dict[str, Any]] = []
    with ProcessPoolExecutor(a.workers) as ex:
        for i, rs in enumerate(ex.map(run_link, jobs)):
            rows.extend(rs)
            print(f"  {i + 1}/{len(jobs)} {jobs[i].name} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    cols = sorted({k for r in rows for k in r})
    with open(out / "links.csv", "w", newline="") as f:
        w = csv.DictWriter(f, cols)
        w.writeheader()
        w.writerows(rows)
    md = summarise(rows, a.tolerance)
    (out / "summary.md").write_text(md)
    (out / "config.json").write_text(json.dumps({**vars(a), "argv": sys.argv, "seconds": time.perf_counter() - t0}, indent=1))
    print(md)
    print(f"wrote {out}/links.csv, summary.md ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
