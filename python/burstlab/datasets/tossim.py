"""Packet-reception links derived from the TOSSIM noise traces (registered dataset ``tossim-noise``, docs/datasets.md).

The files are *noise* traces (one reading in dBm per line, Lee, Cerpa & Levis, IPSN 2007),
not reception traces. A link is derived from one noise file and one signal strength S (dBm)
the way TOSSIM's CPM radio model decides a reception (TinyOS ``tos/lib/tossim/CpmModelC.nc``,
``shouldReceive`` / ``prr_estimate_from_snr``): for noise sample n, SNR = S − n (dB) and the
packet is received with probability

    PSE = ½·erfc(β₁·√(|10^(SNR/10) − β₂| / 2)),   PRR(SNR) = (1 − PSE)^46,

β₁ = 1.3687, β₂ = 0.9187 (the CC2420 fit used by CPM; 46 = 23·2 symbols), clipped to [0, 1].
The absolute value is CPM's: below SNR ≈ −0.37 dB the curve rises again to about 1 %
(kept as published). One noise sample = one slot; each reception is drawn with a seeded RNG
(numpy PCG64, seed derived from the study seed, file and S), so a link is reproducible.

Signal strengths: either given in dBm, or chosen per file so the link's *expected* PRR
(the mean of PRR(S − n) over the file) hits target values — by default 0.15 … 0.85, i.e.
mostly intermediate links (Srinivasan et al. Fig. 2). CPM itself would add the sender's power and
the path gain; here S is that sum.

Malformed lines: ``meyer-heavy.txt`` ends with ``"-98 "`` (trailing space) and two empty
lines (SOURCE.txt). Surrounding whitespace is stripped, empty lines are skipped, and both
are counted and reported in each trace's ``meta``; any other unparsable line is a
:class:`burstlab.TraceFormatError` naming the file, line and text.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from scipy.optimize import brentq
from scipy.special import erfc

from burstlab._core import EmptyInputError, ParameterError, TraceFormatError
from burstlab.datasets.fetch import locate
from burstlab.traces import Trace

#: CPM's CC2420 curve constants (CpmModelC.nc, prr_estimate_from_snr).
BETA1 = 1.3687
BETA2 = 0.9187
#: Symbols per packet in CPM's curve exponent (23·2).
SYMBOLS = 46
#: The noise files this module knows (those present in the shared copy).
FILES = ("meyer-heavy", "casino-lab")
#: Default target expected PRRs for the derived links: 0.10, 0.15, …, 0.90 (Srinivasan et al. Fig. 6
#: studies 10-90 %, and half of these are intermediate, 20-60 %, Fig. 2).
DEFAULT_TARGETS = tuple(round(0.10 + 0.05 * i, 2) for i in range(17))
#: Default segment length: each noise file (196,608 readings) is cut into two links of
#: 98,304 slots, close to Srinivasan et al.'s 100,000-packet Mirage traces (μ converges, §8).
DEFAULT_SEGMENT = 98_304


def prr_from_snr(snr_db: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """CPM's reception probability for an SNR in dB (vectorised; see the module docstring)."""
    snr = np.asarray(snr_db, dtype=np.float64)
    x = np.abs(10.0 ** (snr / 10.0) - BETA2)
    pse = 0.5 * erfc(BETA1 * np.sqrt(x / 2.0))
    return np.clip((1.0 - pse) ** SYMBOLS, 0.0, 1.0)


@dataclass(frozen=True)
class NoiseTrace:
    """A parsed noise file: readings in dBm and what had to be cleaned."""

    name: str
    path: Path
    noise_dbm: npt.NDArray[np.float64]
    blank_lines: tuple[int, ...]
    stripped_lines: tuple[int, ...]

    def report(self) -> str:
        parts = []
        if self.stripped_lines:
            parts.append(f"{len(self.stripped_lines)} line(s) with surrounding whitespace stripped ({_lines(self.stripped_lines)})")
        if self.blank_lines:
            parts.append(f"{len(self.blank_lines)} empty line(s) skipped ({_lines(self.blank_lines)})")
        return f"{self.path.name}: {len(self.noise_dbm)} readings" + ("; " + "; ".join(parts) if parts else "")


def _lines(ns: Sequence[int]) -> str:
    return "line " + ", ".join(str(n) for n in ns[:5]) + (" …" if len(ns) > 5 else "")


def read_noise(path: str | Path) -> NoiseTrace:
    """Read a TOSSIM noise file (one dBm reading per line)."""
    p = Path(path)
    try:
        text = p.read_bytes().decode("utf-8")
    except UnicodeDecodeError as e:
        raise TraceFormatError(f"{p}: not a text file (byte {e.start} is not UTF-8): expected a TOSSIM noise trace, one dBm reading per line") from None
    vals: list[float] = []
    blank: list[int] = []
    stripped: list[int] = []
    for i, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if not s:
            blank.append(i)
            continue
        if s != line:
            stripped.append(i)
        try:
            v = float(s)
        except ValueError:
            raise TraceFormatError(f"{p}: line {i}: expected a noise reading in dBm, got {line!r}") from None
        if not np.isfinite(v):
            raise TraceFormatError(f"{p}: line {i}: expected a finite noise reading in dBm, got {line!r}")
        vals.append(v)
    if not vals:
        raise EmptyInputError(f"{p}: no noise readings")
    return NoiseTrace(p.stem, p, np.asarray(vals, dtype=np.float64), tuple(blank), tuple(stripped))


def expected_prr(noise_dbm: npt.NDArray[np.float64], signal_dbm: float) -> float:
    """Mean reception probability of a link with signal ``signal_dbm`` over the noise samples."""
    return float(prr_from_snr(signal_dbm - noise_dbm).mean())


def signal_for_prr(noise_dbm: npt.NDArray[np.float64], target: float) -> float:
    """The signal strength (dBm, to 0.01 dB) whose expected PRR over the noise is ``target``."""
    if not 0.0 < target < 1.0:
        raise ParameterError(f"invalid parameter target PRR = {target}: expected a value in (0, 1)")
    # Search between "always below the curve" and "always above it" for every sample
    # (the curve is ~0 below SNR 0 dB, apart from CPM's ≤1 % bump, and ~1 above 12 dB).
    lo, hi = float(noise_dbm.min()) - 0.3, float(noise_dbm.max()) + 15.0
    return round(float(brentq(lambda s: expected_prr(noise_dbm, s) - target, lo, hi, xtol=1e-4)), 2)


def _seed(seed: int, name: str, signal_dbm: float) -> int:
    text = f"tossim\x1f{int(seed)}\x1f{name}\x1f{signal_dbm:.4f}"
    return struct.unpack("<Q", hashlib.sha256(text.encode()).digest()[:8])[0]


def derive_link(noise: NoiseTrace, signal_dbm: float, *, seed: int = 0, interval: float = 0.01, start: int = 0, stop: int | None = None) -> Trace:
    """One reception trace over noise samples ``start:stop``: sample i is received with
    probability PRR(S − noise[i])."""
    stop = len(noise.noise_dbm) if stop is None else stop
    if not 0 <= start < stop <= len(noise.noise_dbm):
        raise ParameterError(f"invalid parameter start:stop = {start}:{stop}: expected a non-empty range within {len(noise.noise_dbm)} readings")
    p = prr_from_snr(signal_dbm - noise.noise_dbm[start:stop])
    rng = np.random.Generator(np.random.PCG64(_seed(seed, f"{noise.name}@{start}", signal_dbm)))
    bits = (rng.random(p.shape[0]) < p).astype(np.uint8)
    seg = "" if (start, stop) == (0, len(noise.noise_dbm)) else f"/{start}-{stop}"
    return Trace(
        bits,
        interval=interval,
        name=f"tossim/{noise.name}{seg}/S{signal_dbm:+.2f}dBm",
        meta={
            "dataset": "tossim-noise",
            "noise_file": noise.path.name,
            "start": int(start),
            "stop": int(stop),
            "signal_dbm": float(signal_dbm),
            "expected_prr": float(p.mean()),
            "seed": int(seed),
            "cleaning": noise.report(),
        },
    )


def tossim(
    root: str | Path | None = None,
    *,
    files: Sequence[str] = FILES,
    signal_dbm: Sequence[float] | None = None,
    targets: Sequence[float] = DEFAULT_TARGETS,
    seed: int = 0,
    interval: float = 0.01,
    segment: int | None = DEFAULT_SEGMENT,
    noise_files: Sequence[str | Path] | None = None,
) -> Iterator[Trace]:
    """Links derived from the TOSSIM noise traces: each file is cut into segments of
    ``segment`` readings (None: the whole file; a shorter tail is dropped), and each segment
    gives one link per signal strength (``signal_dbm``, or the strengths whose expected PRR
    over that segment is each of ``targets``). ``noise_files`` are paths of any TOSSIM noise
    traces (one dBm reading per line) to use instead of ``files`` under ``root``."""
    if segment is not None and segment < 2:
        raise ParameterError(f"invalid parameter segment = {segment}: expected at least 2 readings")
    if noise_files is not None:
        paths = [Path(f) for f in noise_files]
        for path in paths:
            if not path.is_file():
                raise FileNotFoundError(f"--noise {path}: no such file (a TOSSIM noise trace, one dBm reading per line)")
    else:
        base = Path(root) if root is not None else locate("tossim-noise").root
        if not base.is_dir():
            raise FileNotFoundError(f"TOSSIM noise data not found at {base}")
        paths = [base / f"{name}.txt" for name in files]
    for path in paths:
        noise = read_noise(path)
        n = len(noise.noise_dbm)
        # A file of the user's shorter than the segment is one link (the shared ones are longer).
        seg = n if segment is None or (noise_files is not None and segment > n) else segment
        if seg > n:
            raise ParameterError(f"invalid parameter segment = {segment}: {path} has only {n} readings")
        for start in range(0, n - seg + 1, seg):
            part = noise.noise_dbm[start : start + seg]
            strengths = list(signal_dbm) if signal_dbm is not None else [signal_for_prr(part, t) for t in targets]
            for s in strengths:
                yield derive_link(noise, float(s), seed=seed, interval=interval, start=start, stop=start + seg)
