"""A registered dataset by name wherever a command reads a trace (``stats NAME``,
``fit NAME:FILE``, ``report``, ``sim --trace``, ``convert``): found where ``burstlab data path``
finds it, never relative to the working folder; every wrong name is one error line, exit 2."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from burstlab.datasets.registry import datasets, get
from tests._capped import run_capped

STARLINK_FILE = "no-isl-ping-gw-seattle-230911-170535-0.1s-60min.txt"


@pytest.fixture(autouse=True)
def _no_data_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BURSTLAB_DATA", raising=False)


def _run(args: list[str], env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """``burstlab ARGS`` as a user runs it (a subprocess: the real error lines and exit code)."""
    with pytest.MonkeyPatch.context() as mp:
        for k, v in (env or {}).items():
            mp.setenv(k, v) if v else mp.delenv(k, raising=False)
        o = run_capped(args)
    return o.code, o.stdout, o.stderr


def test_every_dataset_declares_its_data_files_and_not_its_licence() -> None:
    for d in datasets():
        files = d.input_files()
        assert files, d.name
        assert not any(Path(f).name.upper().startswith(("LICENSE", "README")) for f in files), (d.name, files)
        # the rest of the dataset's files are licences and read-me files only
        rest = [f.path for f in d.files if f.path not in files]
        assert all(Path(p).name.upper().startswith(("LICENSE", "README")) for p in rest), (d.name, rest)
    assert get("starlink").input_files() == (STARLINK_FILE,)
    assert len(get("rutgers").input_files()) == 2436


def test_stats_by_dataset_name_reads_its_data_files(shared: Path) -> None:
    code, out, err = _run(["stats", "starlink", "--json"], env={"BURSTLAB_SHARED": str(shared)})
    assert code == 0, err
    (row,) = json.loads(out)
    assert row["name"] == f"starlink-ping:{STARLINK_FILE}"  # named by the dataset, not by a path
    assert row["length"] == 36000 and 0.97 < row["prr"] < 0.98  # docs/datasets.md: 913 of 36,000 lost
    # the same file by path gives the same numbers
    code, out2, _ = _run(["stats", str(shared / "data" / "starlink-ping" / STARLINK_FILE), "--json"])
    (by_path,) = json.loads(out2)
    assert {k: v for k, v in by_path.items() if k != "name"} == {k: v for k, v in row.items() if k != "name"}


def test_stats_of_a_many_file_dataset_names_each_file(shared: Path) -> None:
    code, out, err = _run(["stats", "rutgers-noise", "--csv"], env={"BURSTLAB_SHARED": str(shared)})
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 2436 - 762  # 762 files are empty (nothing received): skipped, said on stderr
    assert "skipped 762 empty file(s)" in err
    assert all(r["name"].startswith("rutgers-noise:data/dbm") for r in rows)
    assert len({r["name"] for r in rows}) == len(rows)  # one name per link, across noise levels


def test_one_file_of_a_dataset(shared: Path) -> None:
    code, out, err = _run(["fit", f"starlink-ping:{STARLINK_FILE}", "--models", "gilbert-elliott", "--json"], env={"BURSTLAB_SHARED": str(shared)})
    assert code == 0, err
    assert json.loads(out)["trace"].endswith(STARLINK_FILE)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["report", "rutgers"], "dataset rutgers-noise has 2436 data files: name one as rutgers-noise:FILE"),
        (["stats", "mahimahi"], "dataset mahimahi-cellular holds capacity traces, not reception or probes traces"),
        (["stats", "no-such-thing"], "'no-such-thing' does not exist (neither a file nor a dataset of 'burstlab data list')"),
        (["fit", "starlink:nofile"], "dataset starlink-ping has no file 'nofile': its data files are " + STARLINK_FILE),
        (["sim", "--trace", "rutgers"], "name one as rutgers-noise:FILE"),
        (["shell", "--capacity", "mahimahi", "--", "true"], "mahimahi-cellular has 4 data files: name one as mahimahi-cellular:FILE"),
        (["shell", "--capacity", "starlink", "--", "true"], "dataset starlink-ping holds probes traces, not capacity traces"),
    ],
)
def test_wrong_names_are_one_error_line(shared: Path, args: list[str], says: str) -> None:
    code, out, err = _run(args, env={"BURSTLAB_SHARED": str(shared)})
    assert code == 2 and out == ""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and says in lines[0], err


def test_a_dataset_not_on_this_machine_says_how_to_fetch_it(tmp_path: Path) -> None:
    env = {"BURSTLAB_SHARED": "", "BURSTLAB_DATA": "", "XDG_CACHE_HOME": str(tmp_path / "cache")}
    code, _, err = _run(["stats", "starlink"], env=env)
    assert code == 2
    assert "dataset starlink-ping is not on this machine" in err and "burstlab data fetch starlink-ping" in err
    assert "--data DIR" not in err  # stats has no --data option: only what works here is offered


def test_a_file_of_that_name_comes_first(tmp_path: Path, shared: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("starlink").write_text("1\n0\n1\n1\n")
    code, out, err = _run(["stats", "starlink", "--json"], env={"BURSTLAB_SHARED": str(shared)})
    assert code == 0, err
    assert json.loads(out)[0]["length"] == 4
