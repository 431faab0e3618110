"""``--quick`` is a preview everywhere it shows: prr-mu has it too; the terminal's tally,
the report and claims.csv mark every verdict "preview: not evidence"; ``--budget`` (adding
replicates) is refused with ``--quick``."""

from __future__ import annotations

import csv
from pathlib import Path

from click.testing import CliRunner

from burstlab.cli import cli
from burstlab.study.verdict import PREVIEW


def test_prr_mu_quick_is_a_preview(tmp_path: Path) -> None:
    out = tmp_path / "pm"
    r = CliRunner().invoke(cli, ["study", "prr-mu", "--quick", "--links", "12", "--slots", "4000", "--workers", "1", "--no-progress", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert f"— {PREVIEW}" in r.output and "claims of the paper:" in r.output
    assert "Quick run" in (out / "report.md").read_text() and PREVIEW in (out / "report.md").read_text()
    rows = list(csv.DictReader((out / "claims.csv").open()))
    assert rows and all(x["preview"] == "true" for x in rows)


def test_budget_is_refused_with_quick(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["study", "error-models", "--quick", "--budget", "50", "--out", str(tmp_path / "em")])
    assert r.exit_code == 2 and "--budget has no effect with --quick" in r.output
