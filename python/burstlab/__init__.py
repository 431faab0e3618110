"""burstlab: a laboratory for TCP over lossy, bursty links.

Traces (:mod:`burstlab.traces`, :mod:`burstlab.stats`), loss models
(:mod:`burstlab.models`), simulation (:mod:`burstlab.sim`), closed forms and fits
(:mod:`burstlab.analytic`) and the papers' experiments (:mod:`burstlab.experiments`).
Bit convention everywhere: 1 = delivered (good), 0 = lost (bad).
"""

from burstlab._core import (
    BurstlabError,
    EmptyInputError,
    ParameterError,
    TraceFormatError,
    __version__,
)
from burstlab.traces import Trace

__all__ = [
    "BurstlabError",
    "EmptyInputError",
    "ParameterError",
    "Trace",
    "TraceFormatError",
    "__version__",
]
