"""What the per-claim tests of every study share: a claim reproduced on data built so that
the paper's finding holds, and contradicted once that claim's data are flipped."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from burstlab.study.claims import Claim
from burstlab.study.verdict import judge


def assert_flip_fails(claim: Claim, world: Mapping[str, Any], flip: Callable[[Any, Any, Mapping[str, Any]], Mapping[str, Any]]) -> None:
    """``claim`` is reproduced on ``world``; ``flip(quantity, comparison, world)`` of its
    first quantity makes it contradicted."""
    v = judge(claim, world)
    assert v.outcome == "reproduced", (claim.id, [(p.label, p.estimate, p.outcome) for p in v.parts])
    _, q = claim.measured()[0]
    f = judge(claim, flip(q, claim.comparison, world))
    assert f.outcome == "contradicted", (claim.id, [(p.label, p.estimate, p.outcome) for p in f.parts])
