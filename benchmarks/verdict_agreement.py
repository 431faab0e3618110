"""Do a study's verdicts survive fresh seeds? (issue 27: target ≥ 95 % agreement.)

Runs each study twice, with study seeds A and B (each its own output folder, resumable),
and compares the verdicts claim by claim: among the claims decided (reproduced or
contradicted) in both runs, the share with the same verdict; an inconclusive claim in
either run is counted apart. Prints one line per study and the claims that disagree.

    python benchmarks/verdict_agreement.py [--studies error-models,tibet] [--seeds 0,1] [--out results/agreement] [--quick]
    python benchmarks/verdict_agreement.py --studies hybrid --study-args="--no-sweep"   # the defaults only

``--study-args`` passes options to every ``burstlab study`` run (e.g. ``--no-sweep``: the claims
at the defaults are judged on the same cells, and the claims that need the sensitivity
sweep are left out of both runs).
"""

from __future__ import annotations

import argparse
import csv
import shlex
import subprocess
import sys
from pathlib import Path


def verdicts(folder: Path) -> dict[str, str]:
    """claim id → verdict of a study folder's claims at the defaults (no setting)."""
    with (folder / "claims.csv").open() as f:
        return {r["id"]: r["verdict"] for r in csv.DictReader(f) if not r["setting"] and r["calibration"] != "true"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--studies", default="error-models,tibet")
    ap.add_argument("--seeds", default="0,1", help="two study seeds")
    ap.add_argument("--out", default="results/agreement")
    ap.add_argument("--quick", action="store_true", help="preview runs (their verdicts are not evidence; for trying the script)")
    ap.add_argument("--workers", default=None)
    ap.add_argument("--study-args", default="", help="more options for every 'burstlab study' run, e.g. --study-args=--no-sweep")
    a = ap.parse_args()
    s1, s2 = (int(x) for x in a.seeds.split(","))
    total = same = 0
    for study in a.studies.split(","):
        runs = []
        for seed in (s1, s2):
            out = Path(a.out) / f"{study}-seed{seed}"
            cmd = [sys.executable, "-c", "import sys; from burstlab.cli import main; sys.exit(main(sys.argv[1:]))", "study", study, "--seed", str(seed), "--out", str(out), "--no-progress"]
            cmd += ["--quick"] if a.quick else []
            cmd += ["--workers", a.workers] if a.workers else []
            cmd += shlex.split(a.study_args)
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            runs.append(verdicts(out))
        v1, v2 = runs
        both = [k for k in v1 if k in v2 and v1[k] != "inconclusive" and v2[k] != "inconclusive"]
        agree = [k for k in both if v1[k] == v2[k]]
        undecided = [k for k in v1 if k in v2 and k not in both]
        total, same = total + len(both), same + len(agree)
        rate = f"{100 * len(agree) / len(both):.0f} %" if both else "–"
        print(f"{study}: {len(agree)} of {len(both)} decided claims agree ({rate}); {len(undecided)} inconclusive in either run")
        for k in both:
            if v1[k] != v2[k]:
                print(f"  differs: {k}: seed {s1} {v1[k]}, seed {s2} {v2[k]}")
    print(f"all: {same} of {total} agree ({100 * same / total:.0f} %; target ≥ 95 %)" if total else "all: no claim decided in both runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
