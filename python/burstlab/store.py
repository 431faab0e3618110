"""The results store: an embedded DuckDB database, one row per finished task, keyed by a
hash of the full configuration that produced it.

Every row is inserted in its own transaction as soon as its task finishes, so a study that
is killed loses nothing it had already finished; re-running the same configuration skips
the keys already present (resume). Only the coordinating process opens the database
(workers return rows), so there is never more than one writer.

The key is :func:`config_hash` of the row's configuration, which always includes
:func:`results_version`: the burstlab version and a fingerprint of the code that computed
the row (the engine's Rust sources, the Python package's sources). A new version, or an
edited checkout, never silently reuses numbers that other code produced; an unchanged one
resumes and re-runs from the store.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from burstlab import _core
from burstlab._core import __version__
from burstlab._core import ParameterError
from burstlab._util import json_safe
from burstlab.files import remove_stale_temporaries

if TYPE_CHECKING:
    import duckdb

#: Column types the store understands (a small, explicit subset of DuckDB's).
TYPES = ("VARCHAR", "DOUBLE", "BIGINT", "INTEGER", "BOOLEAN", "UBIGINT")


def _duckdb_error(e: BaseException, path: str) -> BaseException:
    """A DuckDB failure as the error the contract asks for (docs/errors.md): Ctrl-C during
    a query (DuckDB's ``InterruptException``, "Query interrupted") is ``KeyboardInterrupt``;
    a full disk (or a write refused otherwise, even when DuckDB reports it as a failed
    commit) is an ``OSError`` naming the store; anything else stays as it is."""
    import duckdb

    text = str(e)
    if isinstance(e, duckdb.InterruptException) or "interrupted" in text.lower():
        return KeyboardInterrupt()
    if "No space left on device" in text or "Disk full" in text:
        return OSError(errno.ENOSPC, "no space left on the device", path)
    if "File too large" in text:
        return OSError(errno.EFBIG, "file too large (a file-size limit refused more bytes)", path)
    if "Could not write file" in text:
        return OSError(errno.EIO, f"cannot write the results store: {text.splitlines()[0]}", path)
    return e


def _canonical(obj: Any) -> Any:
    """JSON-safe, order-independent form of a configuration (dict keys sorted by json.dumps;
    tuples → lists; numpy scalars → Python; NaN/inf rejected)."""
    if isinstance(obj, Mapping):
        return {str(k): _canonical(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_canonical(v) for v in obj]
    if isinstance(obj, np.generic):
        return _canonical(obj.item())
    if isinstance(obj, float) and not math.isfinite(obj):
        raise ParameterError(f"invalid parameter config: non-finite number {obj} cannot be hashed reproducibly")
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    raise ParameterError(f"invalid parameter config: {type(obj).__name__} value {obj!r} is not JSON-serialisable")


def canonical_json(config: Mapping[str, Any]) -> str:
    """The canonical JSON text of a configuration (sorted keys, no whitespace)."""
    return json.dumps(_canonical(config), sort_keys=True, separators=(",", ":"))


@functools.lru_cache(maxsize=1)
def results_version() -> str:
    """What a stored result was computed by: ``"<version>+<engine>.<python>"``, the burstlab
    version, the engine's fingerprint (a hash of the Rust sources, the dependency lock file
    included, fixed when the extension is built: ``burstlab._core.ENGINE_FINGERPRINT``) and a
    hash of the installed package's Python sources (the studies, the models, the analysis).
    Every results-store key includes it, so an edited engine or study never reuses rows that
    the old code computed; a comment's change, too, recomputes them (the safe side)."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py")):
        h.update(p.relative_to(root).as_posix().encode() + b"\0")
        h.update(p.read_bytes() + b"\0")
    return f"{__version__}+{_core.ENGINE_FINGERPRINT}.{h.hexdigest()[:16]}"


def config_hash(config: Mapping[str, Any], *, with_version: bool = True) -> str:
    """SHA-256 (hex) of the canonical JSON of ``config`` plus :func:`results_version` (as
    ``burstlab_version``, unless the configuration names one itself)."""
    full = dict(config)
    if with_version:
        full.setdefault("burstlab_version", results_version())
    return hashlib.sha256(canonical_json(full).encode()).hexdigest()


class ResultStore:
    """A DuckDB table of results with a primary key ``key``.

    Parameters
    ----------
    path:
        The database file (created with its folder if missing), or ``":memory:"``.
    table:
        Table name.
    schema:
        Ordered ``{column: type}`` (types from :data:`TYPES`), without ``key`` (always the
        first column, VARCHAR PRIMARY KEY). An existing table must have exactly these columns.
    """

    def __init__(self, path: str | Path, table: str, schema: Mapping[str, str]) -> None:
        if not table.isidentifier():
            raise ParameterError(f"invalid parameter table = {table!r}: expected an identifier")
        for col, typ in schema.items():
            if not col.isidentifier() or col == "key":
                raise ParameterError(f"invalid parameter schema: column name {col!r}")
            if typ not in TYPES:
                raise ParameterError(f"invalid parameter schema: type {typ!r} of column {col!r}, expected one of {TYPES}")
        self.path = str(path)
        fresh = False
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            p = Path(self.path)
            # A store that a full disk (or a kill during creation) left at 0 bytes holds no
            # row; DuckDB would call it "not a valid database file" forever after.
            if p.is_file() and p.stat().st_size == 0 and not Path(self.path + ".wal").exists():
                p.unlink()
            fresh = not p.exists()
        self.table = table
        self.columns = ["key", *schema]
        import duckdb  # here, not at import: a worker process that only hashes configurations does not pay for it

        try:
            self._con = duckdb.connect(self.path)
            cols = ", ".join(f'"{c}" {t}' for c, t in schema.items())
            self._con.execute(f'CREATE TABLE IF NOT EXISTS "{table}" ("key" VARCHAR PRIMARY KEY, {cols})')
        except duckdb.Error as e:  # locked by another process, not a DuckDB file, a full disk, …
            with contextlib.suppress(Exception):
                self._con.close()
            if fresh:  # do not leave a half-made store behind
                for f in (self.path, self.path + ".wal"):
                    with contextlib.suppress(OSError):
                        os.unlink(f)
            mapped = _duckdb_error(e, self.path)
            if mapped is not e:
                raise mapped from None
            raise OSError(f"{self.path}: cannot open the results store: {str(e).splitlines()[0]}") from e
        have = [r[0] for r in self._con.execute("SELECT column_name FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position", [table]).fetchall()]
        if have != self.columns:
            self._con.close()
            raise ParameterError(
                f"invalid parameter path = {self.path}: a results store of another study, or of another version of this one "
                f"(its table {table} has columns {', '.join(have)}; this study writes {', '.join(self.columns)}): "
                "give this study its own --out"
            )
        self._types = {"key": "VARCHAR", **schema}
        if self.path != ":memory:":
            # The store's lock is ours now: the temporary files a killed writer left in its
            # folder (figures, tables, reports: atomic_write's) are nobody's; every study
            # opens its store before it writes anything (docs/errors.md).
            remove_stale_temporaries(Path(self.path).parent)

    @property
    def _arrow(self) -> dict[str, Any]:
        import pyarrow as pa

        kinds = {"VARCHAR": pa.string(), "DOUBLE": pa.float64(), "BIGINT": pa.int64(), "INTEGER": pa.int32(), "BOOLEAN": pa.bool_(), "UBIGINT": pa.uint64()}
        return {c: kinds[t] for c, t in self._types.items()}

    # -- writing ------------------------------------------------------------------------
    def insert(self, row: Mapping[str, Any]) -> None:
        """Insert one row in its own transaction (committed before this returns)."""
        self.insert_many([row])

    def insert_many(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Insert rows atomically (all or none) in one transaction."""
        if not rows:
            return
        import pyarrow as pa

        want = set(self.columns)
        for row in rows:
            if row.keys() != want:
                missing = [c for c in self.columns if c not in row]
                extra = [c for c in row if c not in self.columns]
                raise ParameterError(f"invalid parameter row: missing columns {missing}, unknown columns {extra}")
        # Column by column; only values that are not plain Python scalars (or are NaN) go
        # through _db_value: the same values, a third of the Python time of a study's inserts.
        cols: dict[str, list[Any]] = {}
        for c in self.columns:
            vals = [row[c] for row in rows]
            if not all(type(v) in _PLAIN for v in vals) or any(v != v for v in vals if type(v) is float):
                vals = [_db_value(v) for v in vals]
            cols[c] = vals
        # One Arrow table per call, inserted by one SQL statement: DuckDB's executemany
        # binds row by row and took ~70 ms for a study link's 11 rows (issue 12).
        try:
            table = pa.table({c: pa.array(v, type=self._arrow[c]) for c, v in cols.items()})
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError) as e:
            raise ParameterError(f"invalid parameter row: {e}") from None
        self._transaction(table, f'INSERT INTO "{self.table}" SELECT * FROM _burstlab_insert')

    def replace_table(self, name: str, rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> None:
        """Replace (or create) the derived table ``name`` with ``rows`` (their ``columns``,
        values made JSON-safe) in one transaction: a full disk or Ctrl-C during its commit is
        the usual ``OSError`` naming the store or ``KeyboardInterrupt``, and the old table
        stays (a study's summary tables; DuckDB's failed ``COMMIT`` escaped as exit 3)."""
        import pyarrow as pa

        table = pa.table({c: [json_safe(r.get(c)) for r in rows] for c in columns})
        self._transaction(table, f'CREATE OR REPLACE TABLE "{name}" AS SELECT * FROM _burstlab_insert')

    def _transaction(self, table: Any, sql: str) -> None:
        """Run ``sql`` (which reads the Arrow ``table`` as ``_burstlab_insert``) in one
        transaction, DuckDB's failures mapped by :func:`_duckdb_error`."""
        con = self._con
        con.register("_burstlab_insert", table)
        try:
            con.execute("BEGIN TRANSACTION")
            con.execute(sql)
            con.execute("COMMIT")
        except BaseException as e:
            # The transaction may already be gone (an interrupted or failed COMMIT): a
            # failing ROLLBACK must not hide why (it said "cannot rollback").
            with contextlib.suppress(Exception):
                con.execute("ROLLBACK")
            mapped = _duckdb_error(e, self.path)
            if mapped is e:
                raise
            raise mapped from None
        finally:
            with contextlib.suppress(Exception):
                con.unregister("_burstlab_insert")

    # -- reading ------------------------------------------------------------------------
    def keys(self) -> set[str]:
        """Keys of all finished rows."""
        return {r[0] for r in self._con.execute(f'SELECT "key" FROM "{self.table}"').fetchall()}

    def __len__(self) -> int:
        row = self._con.execute(f'SELECT count(*) FROM "{self.table}"').fetchone()
        return int(row[0]) if row else 0

    def rows(self, where: str = "", params: Iterable[Any] = (), order_by: str = '"key"') -> list[dict[str, Any]]:
        """All rows (optionally filtered by a SQL ``where`` clause with ``?`` parameters) as dicts."""
        sql = f'SELECT * FROM "{self.table}"' + (f" WHERE {where}" if where else "") + f" ORDER BY {order_by}"
        cur = self._con.execute(sql, list(params))
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    def rows_with_keys(self, keys: Sequence[str], order_by: str = '"key"') -> list[dict[str, Any]]:
        """Exactly the rows whose key is in ``keys``, ordered by ``order_by``: what a study
        reads back after its run (a RuntimeError if any is missing)."""
        import pyarrow as pa

        con = self._con
        con.register("_burstlab_want", pa.table({"key": pa.array(list(keys), pa.string())}))
        try:
            cur = con.execute(f'SELECT r.* FROM "{self.table}" r JOIN _burstlab_want w USING ("key") ORDER BY {order_by}')
            names = [d[0] for d in cur.description]
            rows = [dict(zip(names, r)) for r in cur.fetchall()]
        finally:
            con.unregister("_burstlab_want")
        if len(rows) != len(keys):
            raise RuntimeError(f"the store holds {len(rows)} of the {len(keys)} rows asked for")
        return rows

    @property
    def connection(self) -> duckdb.DuckDBPyConnection:
        """The open DuckDB connection (for queries and derived tables)."""
        return self._con

    def close(self) -> None:
        self._con.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: Values that _db_value leaves as they are (a float only when it is not NaN).
_PLAIN = frozenset({str, int, float, bool, type(None)})


def _db_value(v: Any) -> Any:
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, (dict, list, tuple)):
        return json.dumps(_canonical(v), sort_keys=True, separators=(",", ":"))
    return v
