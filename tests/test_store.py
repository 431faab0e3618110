"""The results store: keys, one transaction per insert, resume after a kill, schema checks."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from burstlab import ParameterError, __version__
from burstlab.store import ResultStore, canonical_json, config_hash, results_version

SCHEMA = {"link": "VARCHAR", "value": "DOUBLE", "n": "BIGINT", "ok": "BOOLEAN"}


def test_config_hash_is_order_independent_and_versioned() -> None:
    a = {"x": 1, "y": {"b": 2.5, "a": [1, 2]}}
    b = {"y": {"a": (1, 2), "b": 2.5}, "x": 1}
    assert config_hash(a) == config_hash(b)
    assert config_hash(a) != config_hash({**a, "x": 2})
    # the burstlab version and the code's fingerprint are part of the key unless the config
    # names its own
    assert config_hash(a) == config_hash({**a, "burstlab_version": results_version()})
    assert config_hash(a) != config_hash({**a, "burstlab_version": __version__})
    assert config_hash(a) != config_hash({**a, "burstlab_version": "0.0.0-other"})
    assert canonical_json(b) == '{"x":1,"y":{"a":[1,2],"b":2.5}}'
    with pytest.raises(ParameterError, match="non-finite"):
        config_hash({"x": float("nan")})


def test_results_version_fingerprints_the_engine_and_the_python_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    import burstlab
    import burstlab.store as store
    from burstlab import _core

    v = results_version()
    version, _, rest = v.partition("+")
    engine, _, py = rest.partition(".")
    assert version == __version__
    assert engine == _core.ENGINE_FINGERPRINT and len(engine) == 16 and int(engine, 16) >= 0
    assert len(py) == 16 and int(py, 16) >= 0
    # a copy of the package's sources with one file edited hashes differently: an edited
    # study never reuses the rows its old code stored
    pkg = Path(burstlab.__file__).parent
    copy = tmp_path / "burstlab"
    shutil.copytree(pkg, copy, ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    try:
        with monkeypatch.context() as m:
            m.setattr(store, "__file__", str(copy / "store.py"))
            store.results_version.cache_clear()
            assert store.results_version() == v
            (copy / "stats.py").write_text((copy / "stats.py").read_text() + "\n# edited\n")
            store.results_version.cache_clear()
            assert store.results_version() != v
    finally:
        store.results_version.cache_clear()
    assert store.results_version() == v


def test_insert_and_read_back(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "s.duckdb", "runs", SCHEMA) as st:
        st.insert({"key": "k1", "link": "a", "value": 1.5, "n": 3, "ok": True})
        st.insert_many([{"key": "k2", "link": "b", "value": float("nan"), "n": 4, "ok": False}])
        assert st.keys() == {"k1", "k2"}
        assert len(st) == 2
        rows = st.rows()
        assert rows[0] == {"key": "k1", "link": "a", "value": 1.5, "n": 3, "ok": True}
        assert rows[1]["value"] is None  # NaN is stored as NULL
        with pytest.raises(Exception, match="(?i)duplicate|primary key|constraint"):
            st.insert({"key": "k1", "link": "c", "value": 0.0, "n": 0, "ok": True})
        assert len(st) == 2  # the failed insert rolled back
        with pytest.raises(ParameterError, match="missing columns"):
            st.insert({"key": "k3", "link": "c"})
    # reopening sees the same rows
    with ResultStore(tmp_path / "s.duckdb", "runs", SCHEMA) as st:
        assert st.keys() == {"k1", "k2"}


def test_rows_with_keys_reads_back_exactly_those(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "s.duckdb", "runs", SCHEMA) as st:
        st.insert_many([{"key": f"k{i}", "link": "ab"[i % 2], "value": float(i), "n": 10 - i, "ok": True} for i in range(6)])
        rows = st.rows_with_keys(["k4", "k1", "k2"], order_by="r.n")
        assert [r["key"] for r in rows] == ["k4", "k2", "k1"]
        with pytest.raises(RuntimeError, match="2 of the 3 rows"):
            st.rows_with_keys(["k0", "k5", "missing"])


def test_schema_mismatch_is_an_error(tmp_path: Path) -> None:
    ResultStore(tmp_path / "s.duckdb", "runs", SCHEMA).close()
    with pytest.raises(ParameterError, match="has columns"):
        ResultStore(tmp_path / "s.duckdb", "runs", {**SCHEMA, "extra": "DOUBLE"})
    with pytest.raises(ParameterError, match="type"):
        ResultStore(tmp_path / "t.duckdb", "runs", {"x": "BLOB"})


def test_rows_committed_before_a_kill_survive(tmp_path: Path) -> None:
    """A writer killed with SIGKILL mid-stream loses nothing it had committed."""
    db = tmp_path / "k.duckdb"
    code = textwrap.dedent(
        f"""
        import sys, time
        from burstlab.store import ResultStore
        st = ResultStore({str(db)!r}, "runs", {SCHEMA!r})
        for i in range(100000):
            st.insert({{"key": f"k{{i}}", "link": "x", "value": float(i), "n": i, "ok": True}})
            if i == 20:
                print("ready", flush=True)
            time.sleep(0.002)
        """
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        time.sleep(0.2)
    finally:
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
    with ResultStore(db, "runs", SCHEMA) as st:
        n = len(st)
        assert n > 20
        # exactly the keys k0..k{n-1}: no gap, no half row
        assert st.keys() == {f"k{i}" for i in range(n)}
        assert all(r["n"] == int(r["key"][1:]) for r in st.rows())


def test_a_locked_or_foreign_file_is_a_clean_error(tmp_path: Path) -> None:
    bad = tmp_path / "not-a-db.duckdb"
    bad.write_text("hello, I am not a database\n" * 100)
    with pytest.raises(OSError, match="cannot open the results store"):
        ResultStore(bad, "runs", SCHEMA)


def test_replace_table_on_a_full_disk_is_an_os_error_naming_the_store(tmp_path: Path) -> None:
    """Issue 34: DuckDB's failed COMMIT of a study's summary table on a full disk
    (``TransactionException``) escaped as exit 3; it is the usual ENOSPC naming the store,
    and the store keeps its rows. A real full file system: a small tmpfs."""
    import errno

    from tests._capped import fill, small_disk

    with small_disk(tmp_path, "3m") as mnt:
        with ResultStore(mnt / "s.duckdb", "runs", SCHEMA) as st:
            st.insert({"key": "k1", "link": "a", "value": 1.5, "n": 3, "ok": True})
            st.replace_table("summary", [{"a": 1, "b": "x"}], ["a", "b"])
            fill(mnt)
            with pytest.raises(OSError) as ei:
                st.replace_table("summary", [{"a": i, "b": "x" * 50} for i in range(200_000)], ["a", "b"])
            assert ei.value.errno == errno.ENOSPC and ei.value.filename == str(mnt / "s.duckdb")
            assert len(st) == 1
            assert st.connection.execute('SELECT count(*) FROM "summary"').fetchone() == (1,)
