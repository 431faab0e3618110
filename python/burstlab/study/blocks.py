"""Report blocks for judged claims, the same in every study's report: the tally, the
findings table, the calibration checks apart, and the verdicts under each documented
setting of an open parameter. Blocks are ``(kind, content)`` pairs as the report renderers
take them (``("h2", text)``, ``("p", text)``, ``("table", (head, rows))``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from burstlab._core import __version__
from burstlab.study.prose import VERDICT_HEAD, settings_sentence, split_calibration, verdict_rows
from burstlab.study.verdict import PREVIEW, SettingVerdicts, Verdict, tally

RULE = ("Each claim is declared with the paper's words, the quantity that measures it and the tolerance its precision allows (with the reason); "
        "**reproduced**: our 95 % interval lies inside the tolerance band (or wholly on the claimed side of an ordering); **contradicted**: wholly "
        "outside; **inconclusive**: it straddles — a tie is never a hold — with the replicates that would likely decide. A claim over several points "
        "is reproduced when every point is. See `docs/claims.md`.")  # fmt: skip


def preamble(title: str, *, quick: str | None, numbers: str | None = None, tables: Sequence[str] = (), files: Sequence[str] = ()) -> list[tuple[str, Any]]:
    """The opening of a study's report: the title; for a ``--quick`` run (``quick``: what it
    shrank) the "preview: not evidence" paragraph; then what every number comes from
    (``numbers``, after the package version; None: the report says it itself) and where the
    data are: ``store.duckdb`` with its ``tables`` and the other ``files`` of the study
    folder, linked."""
    b: list[tuple[str, Any]] = [("h1", title)]
    if quick is not None:
        b.append(("p", f"**Quick run — {PREVIEW}** (`--quick`): {quick}. Every verdict below is a preview; run without `--quick` for the study."))
    if numbers is None:
        return b
    where = ""
    if tables or files:
        links = ([f"[`store.duckdb`](store.duckdb) (tables {', '.join(f'`{t}`' for t in tables)})"] if tables else []) + [f"[`{f}`]({f})" for f in files]
        where = " Store: " + ", ".join(links) + "."
    return b + [("p", f"burstlab {__version__}. {numbers}{where}")]


def replicates_sentence(unit: str, n_runs: int, n_cells: int, seed: int, seeds: int, sweep_seeds: int) -> str:
    """What every number of a study of keyed cells comes from: its ``n_runs`` (``unit``:
    "runs", "transfers") in ``n_cells`` cells, the study seed, the replicates per cell at the
    defaults and per sensitivity point; ± is a 95 % confidence interval."""
    return (f"Every number below comes from the simulator: {n_runs} {unit} in {n_cells} cells, study seed {seed}; {seeds} {unit} per cell at the "
            f"defaults, {sweep_seeds} per cell of every sensitivity point; ± is a 95 % confidence interval")  # fmt: skip


def claims_section(verdicts: Sequence[Verdict], settings: Sequence[SettingVerdicts] = (), *, intervals: str = "", setting_intro: str = "") -> list[tuple[str, Any]]:
    """The report's claims section: heading, tally (calibration apart, preview marked), the
    rule, the findings table, the calibration checks' table, and — when given — each
    claim's verdict under every documented setting of an open parameter."""
    findings, calibration = split_calibration(verdicts)
    b: list[tuple[str, Any]] = [("h2", "Claims of the paper, judged"), ("p", f"**{tally(verdicts).sentence()}.**"), ("p", RULE + (" " + intervals if intervals else ""))]
    b.append(("table", (VERDICT_HEAD, verdict_rows(findings))))
    if calibration:
        b.append(("p", "**Calibration checks** — true by construction of the set-up, not findings of the paper; shown so that a broken set-up is seen, "
                       "never counted above:"))  # fmt: skip
        b.append(("table", (VERDICT_HEAD, verdict_rows(calibration))))
    return b + settings_blocks(settings, setting_intro)


def settings_blocks(settings: Sequence[SettingVerdicts], intro: str = "") -> list[tuple[str, Any]]:
    """Each claim's verdict under every documented setting of an open parameter
    ("reproduced under …; contradicted under …"); nothing when there are none."""
    if not settings:
        return []
    preview = any(v.preview for sv in settings for v in sv.verdicts)
    rows = [[sv.claim.where, sv.claim.words, settings_sentence(sv) + (f" ({PREVIEW})" if preview else "")] for sv in settings]
    return [("p", intro or "**Verdicts under each documented setting** of the open parameters the paper leaves unstated:"),
            ("table", (["where", "claim", "verdict by setting"], rows))]  # fmt: skip
