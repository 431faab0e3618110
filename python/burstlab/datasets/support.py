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


def looping(trace_seconds: float, run_seconds: float, *, what: str, max_loops: float = 1.0) -> str | None:
    """A warning if a trace of ``trace_seconds`` is looped more than ``max_loops`` times to
    cover a run of ``run_seconds`` (the channel repeats itself)."""
    if trace_seconds <= 0:
        return f"{what}: a trace of no duration cannot drive a run of {run_seconds:g} s"
    loops = run_seconds / trace_seconds
    if loops <= max_loops:
        return None
    return (
        f"{what}: a {trace_seconds:g} s trace is looped {loops:,.1f} times to cover a {run_seconds:g} s run "
        f"(more than {max_loops:g}): the replayed channel repeats itself every {trace_seconds:g} s"
    )


def too_few_links(n: int, needed: int, *, what: str) -> str | None:
    """A warning if ``n`` links are fewer than the ``needed`` a fit or a comparison asks for."""
    if n >= needed:
        return None
    return f"{what}: {n} link{'s' if n != 1 else ''}, fewer than the {needed} needed; its result is not an estimate across links"
