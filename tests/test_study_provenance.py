"""Provenance (burstlab.study.provenance): file records with their SHA-256, the data folder
resolved from BURSTLAB_SHARED, the Reproduce line and what it cannot pin; and a study's
provenance in provenance.json, summary.json, the store and the report."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import duckdb
import pytest

from burstlab.experiments import error_models as E
from burstlab.experiments import error_models_study as ES
from burstlab.study import provenance as P


def test_file_record_known_answer(tmp_path: Path) -> None:
    f = tmp_path / "trace.txt"
    f.write_bytes(b"0110\n")
    r = P.file_record(f)
    assert r == {"path": str(f.resolve()), "bytes": 5, "sha256": hashlib.sha256(b"0110\n").hexdigest()}


def test_collect_records_inputs_dataset_and_seeds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the dataset is found where the registry looks (here an offline copy named by
    # BURSTLAB_DATA, given with a detour), and recorded resolved, with its origin
    shared = Path(os.environ["BURSTLAB_SHARED"]) / "data"
    monkeypatch.setenv("BURSTLAB_DATA", str(shared / ".." / "data"))
    a, b = tmp_path / "b.txt", tmp_path / "a.txt"
    a.write_text("1")
    b.write_text("22")
    p = P.collect("prr-mu", seeds={"study seed": 7}, inputs=[a, b], dataset="rutgers-noise")
    assert p["data_folder"] == str(shared.resolve())  # resolved, not as typed
    assert p["dataset"]["dataset"] == "rutgers-noise" and p["dataset"]["found_in"] == "BURSTLAB_DATA" and p["dataset"]["commit"]
    assert [r["path"] for r in p["inputs"]] == sorted([str(a.resolve()), str(b.resolve())])
    assert p["inputs_sha256"] == P.inputs_digest(p["inputs"]) and p["seeds"] == {"study seed": 7}
    assert p["engine_fingerprint"] and p["dependencies"]["numpy"] and p["platform"]["python"]
    line, cannot = P.reproduce(p, ["--dataset", "rutgers"], tmp_path / "out")
    assert line.startswith(f"BURSTLAB_DATA={shared.resolve()} burstlab study prr-mu --dataset rutgers --out ")
    assert any("SHA-256" in c for c in cannot)
    # another input changes the digest
    a.write_text("3")
    assert P.collect("prr-mu", seeds={}, inputs=[a, b])["inputs_sha256"] != p["inputs_sha256"]


def test_reproduce_says_what_it_cannot_pin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(P, "git_commit", lambda: {"commit": "a" * 40, "dirty": True})
    p = P.collect("tibet", seeds={})
    line, cannot = P.reproduce(p, ["--seeds", "3"], tmp_path)
    assert line == f"burstlab study tibet --seeds 3 --out {tmp_path}" and "uncommitted changes" in cannot[0]
    monkeypatch.setattr(P, "git_commit", lambda: None)
    assert "no commit pins" in P.reproduce(P.collect("tibet", seeds={}), [], tmp_path)[1][0]


def test_study_writes_provenance_everywhere(tmp_path: Path) -> None:
    cfg = E.StudyConfig.quick_config(seeds=2, sweep=False)
    res = ES.run_study(cfg, tmp_path / "em", workers=1, progress=False)
    prov = json.loads((res.out / "provenance.json").read_text())
    assert prov["study"] == "error-models" and prov["seeds"]["study seed"] == 0 and prov["inputs"] == []
    assert json.loads((res.out / "summary.json").read_text())["provenance"]["results_version"] == prov["results_version"]
    with duckdb.connect(str(res.store_path), read_only=True) as con:
        assert json.loads(con.execute("SELECT json FROM provenance").fetchone()[0])["engine_fingerprint"] == prov["engine_fingerprint"]
    md = res.report_md.read_text()
    assert "## Provenance" in md and prov["engine_fingerprint"] in md
    assert f"burstlab study error-models --quick --seeds 2 --sweep-seeds 2 --seed 0 --no-sweep --out {res.out}" in md
