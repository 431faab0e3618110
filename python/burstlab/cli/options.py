"""Option types every command shares, so that one kind of value is read, bounded and
reported the same way everywhere (docs/errors.md): seeds are 0 .. 2^64 − 1 (what the
simulator's random streams take), counts have the bound their use has, quantities take
units (``10Mbit``, ``100ms``), and ``--format`` is the one fixed list of trace formats."""

from __future__ import annotations

import click

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


__all__ = ["DURATION", "FORMAT", "RATE", "SEED", "SEED_MAX", "count"]
