"""The channel as physics: a frame's error rate from the SNR, the PHY mode and the frame's
length (``burstlab_core::phy``; docs/phy.md).

>>> from burstlab.phy import frame_error, snr_for_error
>>> float(frame_error("dsss1", 0.0, 1028)) < float(frame_error("cck11", 0.0, 1028))
True

Modes: 802.11b ``dsss1``, ``dsss2``, ``cck5.5``, ``cck11``; 802.11a/g ``ofdm6`` … ``ofdm54``;
802.15.4 ``oqpsk250``. Curves, one choice per standard: ``ofdm`` ``"nist"`` (ns-3's default)
or ``"yans"``; ``cck`` ``"integral"`` (ns-3 built with GSL) or ``"matlab"`` (without);
``oqpsk`` ``"ns3"`` (IEEE 802.15.4 Annex E) or ``"cpm"`` (TOSSIM's CC2420 fit); 802.11b
``preamble`` ``"long"`` or ``"short"``.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from burstlab import _core

#: (name, data rate in bits/s) of every mode, slowest first within each standard.
MODES: tuple[tuple[str, int], ...] = tuple(_core.phy_modes())

_CHOICES = {"ofdm": ("nist", "yans"), "cck": ("integral", "matlab"), "oqpsk": ("ns3", "cpm"), "preamble": ("long", "short")}


def _psdu(psdu_bytes: int) -> int:
    if not (isinstance(psdu_bytes, (int, np.integer)) and 0 <= psdu_bytes < 2**32):
        raise _core.ParameterError(f"invalid parameter psdu_bytes = {psdu_bytes!r}: expected a whole number of bytes below 2^32")
    return int(psdu_bytes)


def frame_error(mode: str, snr_db: npt.ArrayLike, psdu_bytes: int, *, ofdm: str = "nist", cck: str = "integral",
                oqpsk: str = "ns3", preamble: str = "long") -> npt.NDArray[np.float64]:
    """Probability that a frame of ``psdu_bytes`` (MAC header, body and FCS) sent in ``mode``
    at ``snr_db`` is lost: its PHY header or its data field hit (element-wise over ``snr_db``)."""
    snr = np.asarray(snr_db, dtype=np.float64)
    out = _core.phy_frame_error(mode, np.ascontiguousarray(snr.ravel()), _psdu(psdu_bytes), ofdm, cck, oqpsk, preamble)
    return out.reshape(snr.shape)


def chunk_success(mode: str, snr: npt.ArrayLike, nbits: float, *, ofdm: str = "nist", cck: str = "integral",
                  oqpsk: str = "ns3") -> npt.NDArray[np.float64]:
    """Probability that ``nbits`` bits sent in ``mode`` at ``snr`` (a *linear* power ratio,
    as ns-3's ``GetChunkSuccessRate`` takes it) all survive."""
    s = np.asarray(snr, dtype=np.float64)
    return _core.phy_chunk_success(mode, np.ascontiguousarray(s.ravel()), float(nbits), ofdm, cck, oqpsk).reshape(s.shape)


def snr_for_error(mode: str, error: float, psdu_bytes: int, *, lo_db: float = -20.0, hi_db: float = 60.0, **curves: str) -> float:
    """The SNR (dB) at which a frame of ``psdu_bytes`` in ``mode`` is lost with probability
    ``error`` (bisection to 1e-4 dB on the falling curve); NaN when the curve never crosses
    ``error`` between ``lo_db`` and ``hi_db``."""
    if not (0.0 < error < 1.0):
        raise _core.ParameterError(f"invalid parameter error = {error!r}: expected a probability strictly between 0 and 1")
    for k, v in curves.items():
        if k not in _CHOICES or v not in _CHOICES[k]:
            raise _core.ParameterError(f"invalid parameter {k} = {v!r}: expected one of {_CHOICES.get(k, tuple(_CHOICES))}")
    f = lambda db: float(frame_error(mode, db, psdu_bytes, **curves)) - error  # noqa: E731
    # scan up for the last SNR where the error is still above the level: CPM's curve rises
    # again at very low SNR, so the first crossing from below is not the one wanted
    grid = np.arange(lo_db, hi_db + 0.5, 0.5)
    vals = frame_error(mode, grid, psdu_bytes, **curves) - error
    above = np.nonzero(vals > 0)[0]
    if above.size == 0 or above[-1] == grid.size - 1:
        return math.nan
    a, b = float(grid[above[-1]]), float(grid[above[-1] + 1])
    while b - a > 1e-4:
        mid = 0.5 * (a + b)
        if f(mid) > 0:
            a = mid
        else:
            b = mid
    return 0.5 * (a + b)
