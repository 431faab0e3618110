"""The dataset registry: every real dataset burstlab knows, where its bytes come from, what
they are and what they can (and cannot) support (docs/datasets.md).

Each entry pins its origin to a commit of a public repository, so one URL always serves the
same bytes; its files (``manifests/NAME.tsv``: path, size, SHA-256 and, where it differs, the
file's path in that repository) are checked on every download (:mod:`burstlab.datasets.fetch`)
and by ``burstlab data verify``. Nothing here reads the network or the disk beyond the manifest.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from burstlab._core import ParameterError

#: Studies of ``burstlab study`` (the dataset tables below speak of these).
STUDIES = ("prr-mu", "hybrid", "link-transport", "error-models", "tibet")


@dataclass(frozen=True)
class FileEntry:
    """One file of a dataset: its path inside the dataset folder, size, SHA-256, and its
    path inside the pinned repository commit."""

    path: str
    size: int
    sha256: str
    remote: str


@dataclass(frozen=True)
class Timing:
    """How a dataset's entries map to time, as the studies use it.

    ``kind``: ``"slots"`` (one entry per fixed slot; ``interval`` seconds, or None when the
    files do not record it), ``"timestamps"`` (each probe has its own time; ``interval`` is the
    nominal spacing), ``"samples"`` (channel readings, one per slot), ``"capacity"``
    (delivery opportunities in milliseconds). ``profile`` is the prr-mu timing profile
    (Srinivasan et al.'s Mirage or Roofnet timers and slot) the studies use for it, and
    ``note`` says where that choice comes from."""

    kind: str
    interval: float | None
    profile: str | None
    note: str


@dataclass(frozen=True)
class Dataset:
    """A registered dataset (see the module docstring)."""

    name: str
    title: str
    kind: str  # "reception" (per-packet delivered/lost), "probes" (timestamped), "noise", "capacity"
    repository: str  # owner/name on GitHub
    commit: str  # 40 hex digits
    remote_prefix: str  # folder of the files inside the repository
    licence: str
    citation: str
    description: str
    timing: Timing
    links: int  # traces (links) in the dataset
    length_per_link: str  # how long each trace is, in words
    good_for: str
    too_short_for: str
    #: study → (True if the data can support it, why / how)
    supports: dict[str, tuple[bool, str]] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    #: The dataset's data files, as glob patterns over its files' paths (``fnmatch``): what a
    #: command that reads traces (``burstlab stats NAME``, ``report NAME``) reads when given
    #: the dataset's name; licences and read-me files are not among them.
    inputs: tuple[str, ...] = ()

    def input_files(self) -> tuple[str, ...]:
        """The paths (inside the dataset folder) of its data files, in the manifest's order."""
        return tuple(f.path for f in self.files if any(fnmatch.fnmatchcase(f.path, g) for g in self.inputs))

    @property
    def base_url(self) -> str:
        """The public URL of the pinned commit's raw files."""
        return f"https://raw.githubusercontent.com/{self.repository}/{self.commit}/"

    @property
    def origin(self) -> str:
        return f"https://github.com/{self.repository}/tree/{self.commit}/{self.remote_prefix}"

    def url(self, f: FileEntry) -> str:
        """The public URL of one file (pinned to the commit)."""
        return self.base_url + f.remote

    @property
    def files(self) -> tuple[FileEntry, ...]:
        return _manifest(self.name, self.remote_prefix)

    @property
    def size(self) -> int:
        return sum(f.size for f in self.files)


@cache
def _manifest(name: str, prefix: str) -> tuple[FileEntry, ...]:
    text = resources.files("burstlab.datasets").joinpath("manifests", f"{name}.tsv").read_text(encoding="utf-8")
    out = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        parts = line.split("\t")
        path, size, sha = parts[0], int(parts[1]), parts[2]
        out.append(FileEntry(path, size, sha, parts[3] if len(parts) > 3 else prefix + path))
    return tuple(out)


#: The studies whose inputs are synthetic channels only (no dataset option).
_SYNTHETIC_ONLY = {s: (False, "the study runs on synthetic channels only (no dataset input)") for s in ("error-models", "tibet")}

_DATASETS: tuple[Dataset, ...] = (
    Dataset(
        name="rutgers-noise",
        aliases=("rutgers",),
        inputs=("data/*",),
        title="Rutgers ORBIT 802.11 links under injected noise (CRAWDAD rutgers/noise, traceset RSSI)",
        kind="reception",
        repository="sensorlab/link-quality-estimation",
        commit="e2c24b466c7c908e788eaaddcf37488f9731a677",
        remote_prefix="datasets/trace1_Rutgers/",
        licence="CRAWDAD data (cite the DOI); redistributed in a GPL-3.0-or-later repository, no separate data licence",
        citation=(
            "S. K. Kaul, M. Gruteser, I. Seskar, CRAWDAD dataset rutgers/noise (v. 2007-04-20), "
            "traceset RSSI, doi:10.15783/C7B59W; copy from sensorlab/link-quality-estimation"
        ),
        description=(
            "ORBIT 8x8 grid, Atheros 802.11 cards, ad hoc, artificial noise at 0, -5 and -10 dBm "
            "(3 of the 5 levels). One file per directed link: one 'seq rssi' line per received frame; "
            "a missing sequence number is a lost frame. 762 of these files are empty (nothing received)."
        ),
        timing=Timing(
            "slots", None, "roofnet",
            "the files record no times; the frames are 802.11, so the studies use Srinivasan et al.'s "
            "Roofnet slot (2 ms) and timers, and say so in every report",
        ),
        links=2436,
        length_per_link="301 frames (seq 0..300)",
        good_for="many real links at once: PRR and burstiness across noise levels, loss-model fits on short traces",
        too_short_for=(
            "μ convergence (Srinivasan et al. §8: about 10,000 frames for 802.11, 40,000 for 802.15.4), "
            "and any TCP run longer than 301 slots without looping the trace"
        ),
        supports={
            "prr-mu": (False, "301 frames per link, far below the ~10,000 at which μ levels off: the study warns and marks every link unconverged"),
            "hybrid": (False, "a 301-frame trace lasts 1.5 s at 5 ms: a 300 s run loops it 199 times, the channel becomes periodic (the study warns)"),
            "link-transport": (True, "its input: every link's 301 frames strung together in a seeded random order per hop, so one hop is not one measured link"),
            **_SYNTHETIC_ONLY,
        },
    ),
    Dataset(
        name="tossim-noise",
        aliases=("tossim",),
        inputs=("casino-lab.txt", "meyer-heavy.txt"),
        title="TOSSIM noise traces (Meyer Library heavy, casino lab)",
        kind="noise",
        repository="tinyos/tinyos-main",
        commit="c4fcab72d062e1dc6a294b8b2a64792e647528b6",
        remote_prefix="tos/lib/tossim/noise/",
        licence="BSD (TinyOS; licenses/bsd.txt, shipped as LICENSE.tinyos-bsd.txt)",
        citation=(
            "H. Lee, A. Cerpa, P. Levis, \"Improving wireless simulation through noise modeling\", "
            "IPSN 2007; files from tinyos/tinyos-main"
        ),
        description=(
            "Noise readings in dBm, one per line, 196,610 lines per file (meyer-heavy.txt ends with "
            "3 malformed lines). Channel state, not packet receptions: burstlab derives reception "
            "links with TOSSIM's CPM radio model (burstlab.datasets.tossim)."
        ),
        timing=Timing(
            "samples", None, "mirage",
            "one noise reading = one slot, as in TOSSIM's CPM; the sampling rate is not stated, so the "
            "studies use Srinivasan et al.'s Mirage 802.15.4 slot (10 ms) and timers",
        ),
        links=2,
        length_per_link="196,608 readings per file (the derived links: 2 segments of 98,304 slots per file)",
        good_for="long 802.15.4-like links whose μ converges; the PRR/μ study's default real input",
        too_short_for="nothing in the studies; it is one radio model on two noise recordings, not measured receptions",
        supports={
            "prr-mu": (True, "derived links of 98,304 slots: μ converges (40,000 needed)"),
            "hybrid": (True, "196,608 readings × 5 ms = 983 s per file: --quick 300 s runs do not loop it; the paper's 2,000 s runs loop it about twice (the study warns)"),
            "link-transport": (False, "the study reads per-hop traces in the Rutgers layout (--traces) only"),
            **_SYNTHETIC_ONLY,
        },
    ),
    Dataset(
        name="starlink-ping",
        aliases=("starlink",),
        inputs=("no-isl-ping-*.txt",),
        title="Starlink ICMP ping probes, Seattle gateway, 2023-09-11",
        kind="probes",
        repository="clarkzjw/mmsys24-starlink-livestreaming-data",
        commit="bcf33b9a75680847b6fd53c3c14cfead4cce8e81",
        remote_prefix="",
        licence="CC BY-SA 4.0 (LICENSE)",
        citation=(
            "clarkzjw/mmsys24-starlink-livestreaming-data, file "
            "src/latency/no-isl-ping-gw-seattle-230911-170535-0.1s-60min.txt, the data behind "
            "\"Low-Latency Live Video Streaming over a Low-Earth-Orbit Satellite Network with DASH\" (ACM MMSys 2024)"
        ),
        description=(
            "One probe per line, tab-separated: Unix time (s), ICMP sequence number, RTT in ms "
            "(-1 = no reply). 36,000 probes, 913 lost (2.54 %), sequence 1..36000 without gaps."
        ),
        timing=Timing(
            "timestamps", 0.1, "mirage",
            "probes are timestamped: nominal 0.1 s, median gap 0.149 s, about 840 gaps of about 5 s, span "
            "9,658 s. The PRR/μ study maps them to slots (--timing slots: one probe = one slot) or replays "
            "them in time (--timing time), and uses the Mirage timers",
        ),
        links=1,
        length_per_link="36,000 probes over 9,658 s",
        good_for="a long real path whose μ converges; loss bursts in time on a LEO satellite link",
        too_short_for="fits that need many links (one path only)",
        supports={
            "prr-mu": (True, "with --prr-range 0.1 1 (PRR 0.975): 36,000 probes, under the 40,000 of Srinivasan et al. §8 at one probe per slot "
                       "(the study warns), though the prefix μ stays within 0.041 ± 0.005 after 18,000 probes; one link, so no L1 fit across links"),
            "hybrid": (False, "a ping path, not a raw satellite channel in time at the study's frame scale"),
            "link-transport": (False, "one path, not per-hop 802.11 traces"),
            **_SYNTHETIC_ONLY,
        },
    ),
    Dataset(
        name="mahimahi-cellular",
        aliases=("mahimahi",),
        inputs=("*.up", "*.down"),
        title="Mahimahi cellular link-capacity traces (T-Mobile and Verizon LTE, short)",
        kind="capacity",
        repository="ravinet/mahimahi",
        commit="ae477d437615b972217498ba52be07db17a15618",
        remote_prefix="traces/",
        licence="GPL-3.0-or-later (the Mahimahi repository; no separate data licence)",
        citation=(
            "K. Winstein, A. Sivaraman, H. Balakrishnan, \"Stochastic Forecasts Achieve High Throughput and "
            "Low Delay over Cellular Networks\", USENIX NSDI 2013; files from ravinet/mahimahi"
        ),
        description=(
            "One integer per line: a millisecond at which one 1500-byte packet may leave the bottleneck "
            "(a delivery opportunity). Link capacity, not packet loss."
        ),
        timing=Timing("capacity", 0.001, None, "delivery opportunities at 1 ms resolution"),
        links=4,
        length_per_link="140 s each (58,655 to 194,846 opportunities)",
        good_for="variable link capacity in `burstlab sim` (--capacity) and the network engine",
        too_short_for="every reception-trace study: it holds no losses",
        supports={s: (False, "a capacity trace, not a reception trace") for s in STUDIES},
    ),
)


def datasets() -> tuple[Dataset, ...]:
    """Every registered dataset."""
    return _DATASETS


def find(name: str) -> Dataset | None:
    """The dataset called ``name`` (or one of its aliases), or None."""
    return next((d for d in _DATASETS if name == d.name or name in d.aliases), None)


def get(name: str) -> Dataset:
    """The dataset called ``name`` (or one of its aliases, e.g. ``rutgers``)."""
    if (d := find(name)) is not None:
        return d
    names = ", ".join(d.name for d in _DATASETS)
    raise ParameterError(f"unknown dataset {name!r}: expected one of {names} (see 'burstlab data list')")
