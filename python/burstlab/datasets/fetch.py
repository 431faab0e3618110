"""Where a registered dataset's files are on this machine, and getting them there.

:func:`locate` is the one resolver every study and reader calls (dataset name → local
folder, with the dataset's timing). It looks, in order, in

1. the folder given as ``data`` (the CLI's ``--data DIR``),
2. ``$BURSTLAB_DATA`` (an offline mirror: ``DIR/NAME/...`` laid out like the registry),
3. ``$BURSTLAB_SHARED/data`` (the project's shared folder is such a mirror),
4. the user cache (``platformdirs.user_cache_dir("burstlab")/datasets/NAME``), where
   :func:`fetch` downloads to;

never relative to the working directory. A folder counts only if every file of the
registry is there with its registered size (``burstlab data verify`` also checks SHA-256).

:func:`fetch` downloads with ``pooch`` from the URL pinned in the registry, or from
``$BURSTLAB_DATA_URL/NAME/PATH`` when that is set (a mirror server; the tests use a local
one), and checks each file's SHA-256 before keeping it.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from burstlab._core import EmptyInputError, ParameterError
from burstlab.datasets.registry import Dataset, FileEntry, Timing, get

#: Environment variables (docs/datasets.md).
ENV_DATA = "BURSTLAB_DATA"
ENV_URL = "BURSTLAB_DATA_URL"
ENV_SHARED = "BURSTLAB_SHARED"

#: Parallel downloads (many small files: Rutgers has 2,436).
_THREADS = 8


class DatasetError(EmptyInputError):
    """A dataset that is not on this machine or could not be downloaded or verified."""


@dataclass(frozen=True)
class LocalDataset:
    """A registered dataset found on this machine: its folder, where that folder came from
    (``"--data"``, ``"BURSTLAB_DATA"``, ``"BURSTLAB_SHARED"`` or ``"cache"``) and its timing."""

    dataset: Dataset
    root: Path
    source: str

    @property
    def name(self) -> str:
        return self.dataset.name

    @property
    def timing(self) -> Timing:
        return self.dataset.timing

    def path(self, f: FileEntry | str) -> Path:
        return self.root / (f.path if isinstance(f, FileEntry) else f)

    def provenance(self) -> dict[str, object]:
        """What a study records about its input (the report's provenance)."""
        d = self.dataset
        return {
            "dataset": d.name,
            "folder": str(self.root),
            "found_in": self.source,
            "origin": d.origin,
            "commit": d.commit,
            "licence": d.licence,
            "citation": d.citation,
            "timing": {"kind": d.timing.kind, "interval_s": d.timing.interval, "profile": d.timing.profile, "note": d.timing.note},
        }


def cache_root() -> Path:
    """The user cache folder for downloaded datasets."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("burstlab", appauthor=False)) / "datasets"


def _candidates(data: str | os.PathLike[str] | None) -> list[tuple[str, Path]]:
    out: list[tuple[str, Path]] = []
    if data is not None:
        out.append(("--data", Path(data)))
    if os.environ.get(ENV_DATA):
        out.append((ENV_DATA, Path(os.environ[ENV_DATA])))
    if os.environ.get(ENV_SHARED):
        out.append((ENV_SHARED, Path(os.environ[ENV_SHARED]) / "data"))
    out.append(("cache", cache_root()))
    return out


def _complete(ds: Dataset, root: Path) -> bool:
    """Every registered file present with its registered size (a cheap check; SHA-256 is
    :func:`verify`'s)."""
    if not root.is_dir():
        return False
    try:
        return all((root / f.path).stat().st_size == f.size for f in ds.files)
    except OSError:
        return False


def folders(name: str, data: str | os.PathLike[str] | None = None) -> list[tuple[str, Path]]:
    """Every place :func:`locate` looks for ``name`` that holds a folder of that name, complete
    or not (what ``burstlab data verify`` checks)."""
    ds = get(name)
    return [(source, (base / ds.name).resolve()) for source, base in _candidates(data) if (base / ds.name).is_dir()]


def locate(name: str, data: str | os.PathLike[str] | None = None, *, data_option: bool = True) -> LocalDataset:
    """The local copy of dataset ``name`` (see the module docstring for where it looks), or a
    :class:`DatasetError` that names the places looked at and how to get the data (with
    ``data_option``, the command's ``--data DIR`` among the ways)."""
    ds = get(name)
    looked = []
    for source, base in _candidates(data):
        root = (base / ds.name).resolve()
        if _complete(ds, root):
            return LocalDataset(ds, root, source)
        looked.append(f"{source} {root}")
    raise DatasetError(
        f"dataset {ds.name} is not on this machine (looked in: {'; '.join(looked)}): run 'burstlab data fetch {ds.name}' "
        f"to download it from {ds.origin}, or name an offline copy with {'--data DIR or ' if data_option else ''}{ENV_DATA}=DIR "
        f"(DIR/{ds.name}/...)"
    )


def file_url(ds: Dataset, f: FileEntry) -> str:
    """Where :func:`fetch` downloads ``f`` from: ``$BURSTLAB_DATA_URL/NAME/PATH`` if set, else the
    pinned public URL."""
    base = os.environ.get(ENV_URL)
    if base:
        if not base.startswith(("http://", "https://")):
            raise ParameterError(f"invalid {ENV_URL} = {base!r}: expected an http:// or https:// URL (a mirror serving NAME/PATH)")
        return f"{base.rstrip('/')}/{ds.name}/{f.path}"
    return ds.url(f)


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _download_one(ds: Dataset, f: FileEntry, dest: Path) -> None:
    """Download one file with pooch (hash checked before the file is kept), turning every
    failure into one :class:`DatasetError` that names the dataset, the file and the URL."""
    import pooch
    import requests

    url = file_url(ds, f)
    target = dest / f.path
    try:
        pooch.retrieve(url, known_hash=f"sha256:{f.sha256}", fname=target.name, path=target.parent, progressbar=False)
    except requests.exceptions.HTTPError as e:
        status = e.response.status_code if e.response is not None else e
        raise DatasetError(f"dataset {ds.name}: cannot download {url}: HTTP {status}") from None
    except requests.exceptions.RequestException as e:  # before ValueError: a bad URL is both
        raise DatasetError(
            f"dataset {ds.name}: cannot reach {url} ({type(e).__name__}); without the network, name an offline copy "
            f"with --data DIR or {ENV_DATA}=DIR (DIR/{ds.name}/...)"
        ) from None
    except ValueError as e:  # pooch: the downloaded bytes do not have the registered hash
        raise DatasetError(
            f"dataset {ds.name}: {f.path} downloaded from {url} is not the registered file "
            f"({f.size} bytes, SHA-256 {f.sha256}): {' '.join(str(e).split())} Nothing was kept; "
            f"the server's copy is truncated or changed"
        ) from None


def fetch(name: str, *, dest: str | os.PathLike[str] | None = None, progress: Callable[[int, int], None] | None = None) -> LocalDataset:
    """Download dataset ``name`` into ``dest`` (default: :func:`cache_root`), skipping files
    already there with their registered hash, and return its local copy. ``progress(done,
    total)`` is called after each file."""
    from concurrent.futures import ThreadPoolExecutor

    import pooch

    pooch.get_logger().setLevel(logging.WARNING)
    ds = get(name)
    root = (Path(dest) if dest is not None else cache_root()) / ds.name
    todo = [f for f in ds.files if not _good(root / f.path, f)]
    total, done = len(ds.files), len(ds.files) - len(todo)
    if todo:
        file_url(ds, todo[0])  # a malformed BURSTLAB_DATA_URL fails before anything starts
    if progress:
        progress(done, total)
    pool = ThreadPoolExecutor(max_workers=_THREADS)
    try:
        futures = [pool.submit(_download_one, ds, f, root) for f in todo]
        for fut in futures:
            fut.result()
            done += 1
            if progress:
                progress(done, total)
    except BaseException:
        # the first failure (or Ctrl-C) stops the rest: queued downloads are dropped, and
        # pooch removes the temporary file of one in flight
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return LocalDataset(ds, root.resolve(), "cache" if dest is None else str(dest))


def _good(p: Path, f: FileEntry) -> bool:
    try:
        return p.stat().st_size == f.size and sha256(p) == f.sha256
    except OSError:
        return False


@dataclass(frozen=True)
class Problem:
    path: str
    what: str


def verify(local: LocalDataset, files: Iterable[FileEntry] | None = None) -> list[Problem]:
    """Every file of ``local`` checked against the registry (size, then SHA-256): the
    problems found (an empty list: the copy is intact)."""
    out = []
    for f in files if files is not None else local.dataset.files:
        p = local.path(f)
        try:
            size = p.stat().st_size
        except OSError:
            out.append(Problem(f.path, "missing"))
            continue
        if size != f.size:
            out.append(Problem(f.path, f"size {size} bytes, registered {f.size}"))
            continue
        got = sha256(p)
        if got != f.sha256:
            out.append(Problem(f.path, f"SHA-256 {got}, registered {f.sha256}"))
    return out

