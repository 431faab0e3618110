"""Can this data support this study? Checks the studies call before computing, each
returning a message with the numbers (a warning the study prints and records in its report),
or None when the data is enough (docs/datasets.md "What the data can support").

- :func:`mu_convergence`: traces shorter than the length after which μ levels off
  (Srinivasan et al., *PRR Is Not Enough*, §8: about 40,000 packets for 802.15.4 links at
  10 ms, 10,000 for 802.11 links at 2 ms);
- :func:`looping`: a trace replayed in a loop more than ``max_loops`` times over a run (the
  "real" channel becomes periodic);
- :func:`too_few_links`: fewer links than a fit needs.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence


def mu_convergence(lengths: Sequence[int], needed: int, *, dataset: str, profile: str) -> str | None:
    """A warning if some traces are shorter than ``needed`` entries (μ has not converged on
    them), with how many, the longest and what §8 asks for."""
    if not lengths:
        return None
    short = [n for n in lengths if n < needed]
    if not short:
        return None
    longest = max(lengths)
    what = "none" if len(short) == len(lengths) else f"{len(lengths) - len(short)}"
    return (
        f"dataset {dataset}: {len(short)} of {len(lengths)} links are shorter than the {needed:,} packets after which μ levels off "
        f"at the {profile} profile (Srinivasan et al. §8); {what} reach it (longest {longest:,}): their μ, and the table's "
        f"differences built on it, are not converged (column 'converged')"
    )


def looping(trace_seconds: Sequence[float], run_seconds: float, *, what: str, max_loops: float = 1.0) -> str | None:
    """A warning if traces of ``trace_seconds`` are looped more than ``max_loops`` times to
    cover a run of ``run_seconds`` (the replayed channel repeats itself): how many, and the
    worst."""
    if not trace_seconds:
        return None
    loops = [run_seconds / t if t > 0 else math.inf for t in trace_seconds]
    over = [x for x in loops if x > max_loops]
    if not over:
        return None
    shortest = min(trace_seconds)
    return (
        f"{what}: {len(over)} of {len(loops)} traces are looped more than {max_loops:g} time{'s' if max_loops != 1 else ''} to cover a "
        f"{run_seconds:g} s run (the shortest, {shortest:g} s, {max(loops):,.1f} times): the replayed channel repeats itself"
    )


def warn(message: str | None) -> str | None:
    """Issue ``message`` (if any) as a :class:`DataSupportWarning` (the CLI prints one
    ``warning:`` line) and return it, for the report."""
    if message:
        warnings.warn(message, DataSupportWarning, stacklevel=2)
    return message


class DataSupportWarning(UserWarning):
    """The data is too short, too few or looped for what the study computes from it."""


def too_few_links(n: int, needed: int, *, what: str) -> str | None:
    """A warning if ``n`` links are fewer than the ``needed`` a fit or a comparison asks for."""
    if n >= needed:
        return None
    return f"{what}: {n} link{'s' if n != 1 else ''}, fewer than the {needed} needed; its result is not an estimate across links"
