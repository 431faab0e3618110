"""Numbers with units on the command line: rates (→ bits/s), times (→ seconds) and sizes
(→ bytes), as parser functions and as click parameter types. Every command that takes a
quantity uses these, so ``10ms``, ``0.01s`` and ``0.01`` mean the same everywhere
(``burstlab sim`` parses its string options in the command, so that its errors are
``error: ...`` lines; ``predict`` and ``validate padhye`` use the click type
:data:`DURATION`).

A bad value is a :class:`burstlab._core.ParameterError` (a ``ValueError``) that names the
parameter and quotes the text: ``invalid parameter rtt = 'fast': expected a number with a
unit, e.g. 100ms, 0.1s, 0.1``. Through the click type it becomes click's usage error for
that option."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import click

from burstlab._core import ParameterError

#: bits/s; SI prefixes (k = 10^3).
RATE_UNITS = {"": 1.0, "bit": 1.0, "bps": 1.0, "b": 1.0, "k": 1e3, "kbit": 1e3, "kbps": 1e3, "m": 1e6, "mbit": 1e6,
              "mbps": 1e6, "g": 1e9, "gbit": 1e9, "gbps": 1e9}  # fmt: skip
#: seconds; ``m`` is minutes. ``µs`` lower-cases to the Greek ``μs``, so both are listed.
TIME_UNITS = {"": 1.0, "s": 1.0, "sec": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ns": 1e-9,
              "min": 60.0, "m": 60.0, "h": 3600.0}  # fmt: skip
#: bytes; MB = 10^6, MiB = 2^20.
SIZE_UNITS = {"": 1, "b": 1, "kb": 1000, "k": 1000, "mb": 1000**2, "m": 1000**2, "gb": 1000**3, "g": 1000**3,
              "kib": 1024, "mib": 1024**2, "gib": 1024**3}  # fmt: skip

_NUM = re.compile(r"^\s*([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)\s*([A-Za-zµμ/]*)\s*$")

#: The longest time burstlab's clock holds: 2^64 − 1 nanoseconds ≈ 584 years.
MAX_SECONDS = (2**64 - 1) / 1e9


def _signed(text: str, units: dict[str, Any], name: str, example: str) -> float:
    m = _NUM.match(str(text))
    unit = m.group(2).lower().replace("/s", "ps") if m else ""
    if not m or unit not in units:
        raise ParameterError(f"invalid parameter {name} = {text!r}: expected a number with a unit, e.g. {example}")
    v = float(m.group(1)) * units[unit]
    if not math.isfinite(v):
        raise ParameterError(f"invalid parameter {name} = {text!r}: too large to be a number (over 1.8e308)")
    return v


def parse_quantity(text: str, units: dict[str, Any], name: str, example: str) -> float:
    """``text`` = a number and a unit of ``units`` (case-insensitive, ``/s`` read as
    ``ps``), as a multiple of the base unit. A negative value is refused, saying so
    (``must not be negative``), as is one too large to be a number at all."""
    v = _signed(text, units, name, example)
    if v < 0:
        raise ParameterError(f"invalid parameter {name} = {text!r}: must not be negative")
    return v


def parse_rate(text: str, name: str = "rate", positive: bool = False) -> float:
    """``10Mbit``, ``10Mbps``, ``1G``, ``500k``, ``1e7`` → bits/s (``positive``: zero refused,
    as for a link's capacity)."""
    v = parse_quantity(text, RATE_UNITS, name, "10Mbit, 1Gbps, 500kbit")
    if positive and v == 0:
        raise ParameterError(f"invalid parameter {name} = {text!r}: must be positive")
    return v


def parse_link_rate(text: str, name: str = "rate") -> float:
    """A link's capacity: :func:`parse_rate`, zero refused."""
    return parse_rate(text, name, positive=True)


def _time(text: str, name: str, example: str, positive: bool = False) -> float:
    v = _signed(text, TIME_UNITS, name, example)
    if positive and v <= 0:
        raise ParameterError(f"invalid parameter {name} = {text!r}: must be positive")
    if v < 0:
        raise ParameterError(f"invalid parameter {name} = {text!r}: must not be negative")
    if v > MAX_SECONDS:
        raise ParameterError(
            f"invalid parameter {name} = {text!r}: at most {MAX_SECONDS:.3g} s (584 years): time is counted in 64-bit nanoseconds"
        )
    return v


def parse_time(text: str, name: str = "time") -> float:
    """``10ms``, ``100s``, ``2min``, ``0.3`` → seconds (zero allowed)."""
    return _time(text, name, "10ms, 100s, 0.3")


def parse_duration(text: str, name: str = "duration") -> float:
    """A positive time: ``100ms``, ``0.1s``, ``0.1`` (seconds), ``250us``, ``2min`` → seconds."""
    return _time(text, name, "100ms, 0.1s, 0.1", positive=True)


def parse_size(text: str, name: str = "size") -> int:
    """``5MB``, ``8MB``, ``64KiB``, ``5000000`` → bytes (MB = 10^6)."""
    return int(round(parse_quantity(text, SIZE_UNITS, name, "5MB, 64KiB, 5000000")))


class Quantity(click.ParamType):
    """A click option type parsing with ``parse(text, name)``; the message names the
    option (``rto_min`` → ``rto-min``). Numbers given as defaults pass through."""

    def __init__(self, name: str, parse: Callable[[str, str], float]) -> None:
        self.name = name
        self._parse = parse

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return value
        opt = param.name.replace("_", "-") if param is not None and param.name else self.name.lower()
        try:
            return self._parse(value, opt)
        except ParameterError as e:
            # click prefixes "Invalid value for '--OPT'": keep only what is wrong
            self.fail(re.sub(r"^invalid parameter [\w-]+ = ", "", str(e)), param, ctx)


#: A positive time in seconds (``burstlab predict --rtt``, ``validate padhye --duration``).
DURATION = Quantity("DURATION", parse_duration)
#: A positive rate in bits/s (``1.5Mbit``; ``sim --rate``, ``validate padhye --rate``, ``study
#: error-models --rate``: a link's capacity), a time in
#: seconds (``500us``, zero allowed; ``validate padhye --warmup``), a size in bytes (``8MB``).
RATE = Quantity("RATE", parse_link_rate)
TIME = Quantity("TIME", parse_time)
SIZE = Quantity("SIZE", parse_size)
