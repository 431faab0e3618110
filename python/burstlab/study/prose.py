"""Sentences generated from numbers. Every sentence that states a direction or a
comparison is produced here from the estimate beside it: when the interval straddles, the
sentence says the two cannot be told apart instead of naming a direction; when the numbers
move, the sentence moves with them. Reports never hard-code a comparative sentence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from burstlab.study.estimate import Estimate
from burstlab.study.verdict import PREVIEW, SettingVerdicts, Tally, Verdict


def fmt(e: Estimate, nd: int = 2) -> str:
    """"1.34 [1.30, 1.38]" (95 % interval), "–" without a value."""
    return format(e, f".{nd}f")


def direction(e: Estimate, null: float) -> int | None:
    """+1 when the whole interval lies above ``null``, −1 wholly below, 0 when it contains
    it (no direction can be stated), None without an interval."""
    if not e.has_interval:
        return None
    if e.lo > null:
        return 1
    if e.hi < null:
        return -1
    return 0


def compare_ratio(a: str, b: str, e: Estimate, more: str = "longer", less: str = "shorter", what: str = "", verb: str = "is") -> str:
    """A sentence comparing a and b from the estimate of a ÷ b: "a is 23 % longer than b
    (ratio 1.23 [1.10, 1.36], 30 replicates)", "a is longer than b by a factor 2.95 (…)"
    from a factor 1.5 on; "a and b cannot be told apart (…)" when the interval contains 1;
    "" without an estimate."""

    def size(v: float) -> tuple[str, str]:
        f = v if v >= 1 else 1 / v
        return ("", f" by a factor {f:.2f}") if f >= 1.5 else (f"{100 * abs(v - 1):.0f} % ", "")

    return _compare(a, b, e, 1.0, more, less, what, size, "ratio", verb)


def compare_difference(a: str, b: str, e: Estimate, unit: str = "s", more: str = "longer", less: str = "shorter", what: str = "", verb: str = "is") -> str:
    """As :func:`compare_ratio` from the estimate of a − b: "a is 4.1 s longer than b (…)"."""
    return _compare(a, b, e, 0.0, more, less, what, lambda v: (f"{abs(v):.3g} {unit} ".replace("  ", " "), ""), "difference", verb)


def _compare(a: str, b: str, e: Estimate, null: float, more: str, less: str, what: str, size, kind: str, verb: str) -> str:  # type: ignore[no-untyped-def]
    d = direction(e, null)
    w = f" {what}" if what else ""
    if d is None:
        return "" if not math.isfinite(e.value) else f"{a} and {b}{w}: {kind} {e.value:.3g} from {e.n} replicate(s), no interval: no direction can be stated."
    if d == 0:
        return f"{a} and {b} cannot be told apart{w} ({kind} {fmt(e)}, {e.n} replicates)."
    pre, post = size(e.value)
    return f"{a} {verb} {pre}{more if d > 0 else less}{w} than {b}{post} ({kind} {fmt(e)}, {e.n} replicates)."


def verdict_sentence(v: Verdict, nd: int = 3) -> str:
    """Why the verdict is what it is, from its numbers."""
    c = v.claim
    e = v.estimate
    ours = format(e, f".{nd}g")
    cmp = c.describe_comparison()
    where = f" ({v.setting})" if v.setting else ""
    if v.outcome == "reproduced":
        s = f"Reproduced{where}: ours {ours} lies wholly within {cmp}."
    elif v.outcome == "contradicted":
        s = f"Contradicted{where}: ours {ours} lies wholly outside {cmp}."
    elif not e.has_interval:
        s = f"Inconclusive{where}: ours {ours} has no confidence interval."
    else:
        more = v.more
        s = (f"Inconclusive{where}: ours {ours} straddles {cmp}; "
             + (f"about {more} more replicates would likely decide." if more is not None else "more replicates are unlikely to decide (a tie)."))  # fmt: skip
    if v.claim.calibration:
        s += " (Calibration check: true by construction, not counted.)"
    return s + (f" [{PREVIEW}]" if v.preview else "")


def settings_sentence(sv: SettingVerdicts) -> str:
    """"Reproduced under A; contradicted under B." from the verdict under each setting."""
    s = sv.summary()
    return (s[0].upper() + s[1:] + ".") if s else ""


def tally_sentence(t: Tally) -> str:
    return t.sentence()


def list_words(items: Sequence[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


VERDICT_HEAD = ["where", "claim", "paper", "ours (95 % CI)", "n", "verdict", "tolerance and why"]


def verdict_rows(verdicts: Sequence[Verdict], nd: int = 3) -> list[list[str]]:
    """One table row per verdict: where, the paper's words, the comparison, ours with its
    interval and replicates, the verdict (and how many more replicates would likely decide
    an inconclusive one), the tolerance's written reason."""
    rows = []
    for v in verdicts:
        c = v.claim
        e = v.estimate
        ours = format(e, f".{nd}g")
        if c.parts:
            ok = sum(p.outcome == "reproduced" for p in v.parts)
            ours = f"{ok} of {len(v.parts)} parts reproduced; deciding part {ours}"
        verdict = v.label
        if v.outcome == "inconclusive":
            verdict += f" (~{v.more} more replicates)" if v.more is not None else " (a tie)"
        words = c.words + (f" [{c.conditions}]" if c.conditions else "") + (f" — under {v.setting}" if v.setting else "")
        rows.append([c.where, words, c.describe_comparison(), ours, str(v.n), verdict, getattr(c.comparison, "reason", "") or "the sign of the effect"])
    return rows


def split_calibration(verdicts: Sequence[Verdict]) -> tuple[list[Verdict], list[Verdict]]:
    """(the paper's findings, the calibration checks): shown apart, only the first counted."""
    return [v for v in verdicts if not v.claim.calibration], [v for v in verdicts if v.claim.calibration]
