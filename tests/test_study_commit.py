"""Batched commits of a sweep's finished tasks (burstlab.study.commit)."""

from __future__ import annotations

import pytest

from burstlab.store import ResultStore
from burstlab.study.commit import commit_in_batches


class _Recorder:
    def __init__(self) -> None:
        self.commits: list[list[dict]] = []

    def insert_many(self, rows):
        self.commits.append(list(rows))


def _finished(n: int, per: int = 2):
    for t in range(n):
        yield t, [{"task": t, "row": r} for r in range(per)]


def test_every_row_committed_once_in_order_whole_tasks() -> None:
    st, seen = _Recorder(), []
    assert commit_in_batches(_finished(7), st, committed=lambda t, k: seen.append((t, k)), every_s=3600.0) == 7
    assert len(st.commits) == 1  # nothing reached the interval: one commit at the end
    assert [r["task"] for r in st.commits[0]] == [t for t in range(7) for _ in range(2)]
    assert seen == [(t, t + 1) for t in range(7)]


def test_zero_interval_commits_each_task() -> None:
    st, seen = _Recorder(), []
    commit_in_batches(_finished(4), st, committed=lambda t, k: seen.append((t, k)), every_s=0.0)
    assert [[r["task"] for r in c] for c in st.commits] == [[0, 0], [1, 1], [2, 2], [3, 3]]
    assert seen == [(0, 1), (1, 2), (2, 3), (3, 4)]


def test_failure_keeps_the_finished_tasks() -> None:
    def failing():
        yield from _finished(3)
        raise KeyboardInterrupt

    st, seen = _Recorder(), []
    with pytest.raises(KeyboardInterrupt):
        commit_in_batches(failing(), st, committed=lambda t, k: seen.append((t, k)), every_s=3600.0)
    assert sorted({r["task"] for c in st.commits for r in c}) == [0, 1, 2]
    assert seen == [(0, 1), (1, 2), (2, 3)]


def test_real_store_holds_every_row(tmp_path) -> None:
    with ResultStore(tmp_path / "s.duckdb", "runs", {"task": "BIGINT", "row": "BIGINT"}) as store:
        rows = ((t, [{"key": f"{t}-{r}", "task": t, "row": r} for r in range(3)]) for t in range(5))
        commit_in_batches(rows, store, every_s=0.0)
        assert len(store) == 15


class _LateInterrupt:
    """A store whose first commit lands and then raises KeyboardInterrupt (Ctrl-C delivered
    after DuckDB's COMMIT returned), as a real store would hold the rows."""

    def __init__(self) -> None:
        self.rows: dict[str, dict] = {}
        self.calls = 0

    def insert_many(self, rows):
        self.calls += 1
        for r in rows:
            assert r["key"] not in self.rows, f"duplicate key {r['key']}"
            self.rows[r["key"]] = r
        if self.calls == 1:
            raise KeyboardInterrupt

    def keys(self):
        return set(self.rows)


def test_ctrl_c_after_a_commit_landed_commits_nothing_twice() -> None:
    st, seen = _LateInterrupt(), []
    rows = ((t, [{"key": f"{t}-{r}", "task": t} for r in range(2)]) for t in range(3))
    with pytest.raises(KeyboardInterrupt):
        commit_in_batches(rows, st, committed=lambda t, k: seen.append((t, k)), every_s=0.0)
    # task 0's commit landed and was interrupted: kept once, reported once; nothing re-inserted
    assert sorted(st.rows) == ["0-0", "0-1"] and seen == [(0, 1)]
