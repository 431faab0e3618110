"""burstlab: a laboratory for TCP over lossy, bursty links.

Traces (:mod:`burstlab.traces`, :mod:`burstlab.stats`), loss models
(:mod:`burstlab.models`), simulation (:mod:`burstlab.sim`), closed forms and fits
(:mod:`burstlab.analytic`) and the papers' experiments (:mod:`burstlab.experiments`).
Bit convention everywhere: 1 = delivered (good), 0 = lost (bad).

Importing ``burstlab`` loads only the core extension: :class:`Trace` (numpy) is imported
when first used, so that a command that needs no numpy does not pay for it.
"""

from typing import TYPE_CHECKING, Any

from burstlab._core import (
    BurstlabError,
    EmptyInputError,
    ParameterError,
    TraceFormatError,
    __version__,
)

if TYPE_CHECKING:
    from burstlab.traces import Trace

__all__ = [
    "BurstlabError",
    "EmptyInputError",
    "ParameterError",
    "Trace",
    "TraceFormatError",
    "__version__",
]


def __getattr__(name: str) -> Any:
    if name == "Trace":
        from burstlab.traces import Trace

        return Trace
    raise AttributeError(f"module 'burstlab' has no attribute {name!r}")
