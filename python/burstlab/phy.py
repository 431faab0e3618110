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
import os

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


# --------------------------------------------------------------------------- the channel as a loss model
def read_snr_trace(path: str, slot: float | None = None) -> tuple[list[float], list[float], float]:
    """An SNR trace file: one value (dB) per line, ``slot`` seconds apart, or two columns
    ``time_s snr_db`` (whitespace or comma separated; ``#`` comments and blank lines
    skipped). Returns (times from 0, dB values, end of the trace in seconds). Errors name the
    file, the line and the value."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except UnicodeDecodeError as e:
        raise _core.TraceFormatError(f"{path}: not an SNR trace: binary content (byte {e.start} is not UTF-8)") from None
    times: list[float] = []
    db: list[float] = []
    cols = None
    for i, raw in enumerate(lines, 1):
        text = raw.split("#", 1)[0].replace(",", " ").strip()
        if not text:
            continue
        parts = text.split()
        if cols is None:
            cols = len(parts)
            if cols not in (1, 2):
                raise _core.TraceFormatError(f"{path}:{i}: expected one column (SNR dB) or two (time s, SNR dB), got {len(parts)}: {raw.strip()!r}")
        if len(parts) != cols:
            raise _core.TraceFormatError(f"{path}:{i}: expected {cols} column(s) like the first line, got {len(parts)}: {raw.strip()!r}")
        try:
            vals = [float(p) for p in parts]
        except ValueError:
            raise _core.TraceFormatError(f"{path}:{i}: not a number: {raw.strip()!r}") from None
        if not all(math.isfinite(v) for v in vals):
            raise _core.TraceFormatError(f"{path}:{i}: not a finite number: {raw.strip()!r}")
        if cols == 2:
            if times and vals[0] <= times[-1]:
                raise _core.TraceFormatError(f"{path}:{i}: time {vals[0]} s does not increase (previous {times[-1]} s)")
            times.append(vals[0])
            db.append(vals[1])
        else:
            db.append(vals[0])
    if not db:
        raise _core.EmptyInputError(f"{os.fspath(path)}: empty SNR trace: expected one SNR (dB) per line, or time and SNR")
    if cols == 1:
        if slot is None:
            raise _core.ParameterError(f"{path}: a one-column SNR trace needs slot= (seconds per value)")
        if not (math.isfinite(slot) and slot > 0):
            raise _core.ParameterError(f"invalid parameter slot = {slot!r}: expected a positive number of seconds")
        times = [i * slot for i in range(len(db))]
        end = len(db) * slot
    else:
        t0 = times[0]
        times = [t - t0 for t in times]
        # the last value lasts as long as the median step before it (or `slot`)
        steps = np.diff(times)
        last = slot if slot is not None else (float(np.median(steps)) if steps.size else 1.0)
        end = times[-1] + last
    return times, db, end


def loss_model(mode: str, psdu_bytes: int, snr: dict[str, object], *, packet_interval: float = 0.001, ofdm: str = "nist",
               cck: str = "integral", oqpsk: str = "ns3", preamble: str = "long") -> _core.LossModel:
    """Frames of ``psdu_bytes`` in ``mode`` over an SNR source, as a loss model for the
    simulator or ``sample`` (Rust ``loss/phy.rs``). ``snr``: ``{"kind": "process", "mean_db",
    "fading": "none"|"rayleigh"|"ricean", "k", "coherence", "sigma_db", "tau"}``,
    ``{"kind": "two_state", "good_db", "bad_db", "mean_good", "mean_bad"}`` or ``{"kind":
    "trace", "times", "db", "end", "wrap"}`` (seconds and dB)."""
    return _core.phy_loss_model(mode, _psdu(psdu_bytes), snr, packet_interval, ofdm, cck, oqpsk, preamble)


_SPEC_KEYS = {"mode", "bytes", "snr", "fading", "k", "coherence", "sigma", "tau", "good", "bad", "mgood", "mbad", "trace", "slot", "wrap",
              "interval", "ofdm", "cck", "oqpsk", "preamble"}


def from_spec(spec: str, p: dict[str, str]) -> _core.LossModel:
    """``phy:`` loss specs (``burstlab.lossspec``): ``mode=`` and one SNR source — ``snr=DB``
    (with ``fading=rayleigh|ricean``, ``k=``, ``coherence=S``, ``sigma=DB``, ``tau=S``),
    ``good=DB,bad=DB,mgood=S,mbad=S`` (two states), or ``trace=FILE`` (``slot=S``, ``wrap=0|1``);
    ``bytes=`` (PSDU, default 1028), ``interval=S`` (packet mode), curve choices."""
    unknown = set(p) - _SPEC_KEYS
    if unknown:
        raise _core.ParameterError(f"invalid loss spec {spec!r}: unknown parameter(s) {sorted(unknown)} for phy (known: {sorted(_SPEC_KEYS)})")
    if "mode" not in p:
        raise _core.ParameterError(f"invalid loss spec {spec!r}: missing parameter(s) ['mode'] for phy (one of {', '.join(m for m, _ in MODES)})")

    def num(k: str, default: float | None = None) -> float:
        if k not in p:
            if default is None:
                raise _core.ParameterError(f"invalid loss spec {spec!r}: missing parameter {k!r} for phy")
            return default
        try:
            return float(p[k])
        except ValueError:
            raise _core.ParameterError(f"invalid parameter {k} = {p[k]!r} in loss spec {spec}: expected a number") from None

    sources = [name for name, keys in (("snr", ("snr",)), ("two states", ("good", "bad")), ("trace", ("trace",))) if any(k in p for k in keys)]
    if len(sources) != 1:
        raise _core.ParameterError(f"invalid loss spec {spec!r}: give exactly one SNR source (snr=DB, good=/bad= two states, or trace=FILE), got {sources or 'none'}")
    snr: dict[str, object]
    if "snr" in p:
        snr = {"kind": "process", "mean_db": num("snr"), "fading": p.get("fading", "none"), "coherence": num("coherence", 0.01),
               "sigma_db": num("sigma", 0.0), "tau": num("tau", 1.0)}
        if p.get("fading") == "ricean":
            if "k" not in p:
                raise _core.ParameterError(f"invalid loss spec {spec!r}: fading=ricean needs k= (the K-factor: line-of-sight power over scattered power)")
            snr["k"] = num("k")
    elif "trace" in p:
        times, db, end = read_snr_trace(p["trace"], num("slot") if "slot" in p else None)
        snr = {"kind": "trace", "times": times, "db": db, "end": end, "wrap": num("wrap", 1.0) != 0}
    else:
        snr = {"kind": "two_state", "good_db": num("good"), "bad_db": num("bad"), "mean_good": num("mgood"), "mean_bad": num("mbad")}
    nbytes = num("bytes", 1028.0)
    if not (nbytes.is_integer() and 0 <= nbytes < 2**32):
        raise _core.ParameterError(f"invalid parameter bytes = {p['bytes']!r} in loss spec {spec}: expected a whole number of bytes")
    return loss_model(p["mode"], int(nbytes), snr, packet_interval=num("interval", 0.001), ofdm=p.get("ofdm", "nist"),
                      cck=p.get("cck", "integral"), oqpsk=p.get("oqpsk", "ns3"), preamble=p.get("preamble", "long"))


# --------------------------------------------------------------------------- rate adaptation
def rate_adaptation(controller: str, snr: float | dict[str, object], *, frames: int = 20_000, packet_bytes: int = 1000,
                    max_attempts: int = 7, seed: int = 1, cck: str = "integral", rate_set: str = "b",
                    ack_rates: str = "basic", rate_table: str = "distinct") -> dict[str, object]:
    """A saturated 802.11 link whose rate ARF, AARF or Minstrel (``controller``: ``arf``,
    ``aarf``, ``minstrel``) chooses per attempt (Rust ``link/rate.rs``, ``link/minstrel.rs``)
    among ``rate_set``'s rates (``b``: 802.11b's 1-11 Mb/s; ``g``: 802.11g's ERP-OFDM 6-54 Mb/s;
    ``bg``: both, in ns-3's 802.11g order): ``frames`` packets of ``packet_bytes`` at an SNR
    (dB, constant) or an SNR source dict as :func:`loss_model` takes. Each ACK goes at the
    highest basic rate at or below the data rate, the basic rates being ``ack_rates``:
    ``"basic"`` (1 and 2 Mb/s; ERP 6, 12, 24) or ``"mandatory"`` (every mandatory rate, as
    ns-3's ad hoc stations: an 802.11b frame's ACK at its own rate); an ACK is lost with its
    own curve's probability at the same SNR, which fails the attempt. ``rate_table``:
    ``"distinct"`` (each rate once in the controller's table) or ``"ns3"`` (each DSSS rate
    twice, as ns-3 3.44's 802.11b/g stations list them; Minstrel then keeps two sets of
    statistics per DSSS rate, docs/link-layer.md). Returns the rates (bits/s) and modes, the
    attempts and successes at each (a rate's entries summed), frames delivered, link time (s)
    and MAC throughput."""
    source = {"kind": "process", "mean_db": float(snr)} if isinstance(snr, (int, float)) else snr
    return dict(_core.phy_rate_measure(controller, source, int(frames), _psdu(packet_bytes), int(max_attempts), int(seed), cck, rate_set, ack_rates,
                                         rate_table))
