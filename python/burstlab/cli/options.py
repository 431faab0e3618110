"""Option types every command shares, so that one kind of value is read, bounded and
reported the same way everywhere (docs/errors.md): seeds are 0 .. 2^64 − 1 (what the
simulator's random streams take), counts have the bound their use has, quantities take
units (``10Mbit``, ``100ms``), ``--format`` is the one fixed list of trace formats, and a
trace argument takes a file or a registered dataset (:class:`TracePath`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from burstlab.datasets.registry import Dataset

from burstlab.formats import FORMATS
from burstlab.units import DURATION, RATE

#: A seed: any integer from 0 to 2^64 − 1.
SEED_MAX = 2**64 - 1
SEED = click.IntRange(0, SEED_MAX)

#: The trace formats (``--format`` of every command that reads or writes a trace).
FORMAT = click.Choice(FORMATS)


def count(lo: int = 1, hi: int = 2**63 - 1) -> click.IntRange:
    """A whole number in [lo, hi]; the default upper bound is the largest index the core
    takes (2^63 − 1), so an absurd value is a usage error naming the option rather than
    an overflow inside."""
    return click.IntRange(lo, hi)


class DatasetFile(str):
    """A path that came from a registered dataset; ``label`` is ``NAME:PATH`` (the file inside
    the dataset's folder), the name a table shows for it."""

    label: str

    def __new__(cls, path: Path, label: str) -> DatasetFile:
        self = super().__new__(cls, str(path))
        self.label = label
        return self


class TracePath(click.ParamType):
    """A trace argument: a file (or, with ``many``, a folder to walk), or a registered dataset
    (``burstlab data list``) by name: ``NAME`` for its data files (one file where the argument
    takes one: a dataset of several files asks for ``NAME:FILE``), ``NAME:FILE`` for one of
    them. A file of that name in the working folder is read first; a dataset is found where
    ``burstlab data path NAME`` finds it (never relative to the working folder), and one that
    is not on this machine is an error saying how to fetch it. ``many`` gives a tuple of
    paths for a dataset name (see :func:`flatten`)."""

    name = "path"

    def __init__(self, *, many: bool = False, kinds: tuple[str, ...] = ("reception", "probes")) -> None:
        self.many, self.kinds = many, kinds

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple | DatasetFile):
            return value  # converted already
        text = str(value)
        p = Path(text)
        if p.exists():
            if p.is_dir() and not self.many:
                self.fail(f"{text!r} is a directory, not a file", param, ctx)
            return text
        from burstlab.datasets.registry import find  # the datasets package loads numpy: only when a name is not a file

        name, _, inside = text.partition(":")
        ds = find(name)
        if ds is None:
            self.fail(f"{text!r} does not exist (neither a file nor a dataset of 'burstlab data list')", param, ctx)
        if ds.kind not in self.kinds:
            self.fail(f"dataset {ds.name} holds {ds.kind} traces, not {' or '.join(self.kinds)} traces ('burstlab data info {ds.name}')", param, ctx)
        return self._resolve(ds, inside, param, ctx)

    def _resolve(self, ds: Dataset, inside: str, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from burstlab.datasets.fetch import DatasetError, locate

        try:
            local = locate(ds.name, data_option=False)  # these commands have no --data option
        except DatasetError as e:
            self.fail(str(e), param, ctx)
        files = ds.input_files()
        if inside:
            if inside not in {f.path for f in ds.files}:
                self.fail(f"dataset {ds.name} has no file {inside!r}: its data files are {_some(files)}", param, ctx)
            return DatasetFile(local.path(inside), f"{ds.name}:{inside}")
        if len(files) == 1 or self.many:
            paths = tuple(DatasetFile(local.path(f), f"{ds.name}:{f}") for f in files)
            return paths if self.many else paths[0]
        self.fail(f"dataset {ds.name} has {len(files)} data files: name one as {ds.name}:FILE (e.g. {ds.name}:{files[0]}; "
                  f"'burstlab data info {ds.name}')", param, ctx)  # fmt: skip


def _some(files: tuple[str, ...], n: int = 4) -> str:
    return ", ".join(files[:n]) + (f" and {len(files) - n} more" if len(files) > n else "")


def flatten(values: tuple[Any, ...]) -> tuple[str, ...]:
    """The paths of a ``TracePath(many=True)`` argument, a dataset's files in its place."""
    return tuple(q for v in values for q in (v if isinstance(v, tuple) else (v,)))


#: A trace file argument (a file, ``NAME`` of a one-file dataset, or ``NAME:FILE``).
TRACE_FILE = TracePath()
#: Trace files or folders (``stats``), or datasets by name.
TRACE_FILES = TracePath(many=True)

__all__ = ["DURATION", "FORMAT", "RATE", "SEED", "SEED_MAX", "TRACE_FILE", "TRACE_FILES", "DatasetFile", "TracePath", "count", "flatten"]
