"""The trace formats' names, in one place and without heavy imports, so that every
command offers the same fixed ``--format`` list (docs/traces.md) without paying for
numpy when it is only parsing its options."""

from __future__ import annotations

#: Packet-reception trace formats (what ``--format`` takes in every command).
FORMATS = ("bits", "string", "seqlist", "ttem", "csv", "parquet", "probes", "ping")
#: The text formats parsed (and written) in Rust.
TEXT_FORMATS = ("bits", "string", "seqlist", "ttem")
#: Probe logs (:mod:`burstlab.probelog`): read into traces with timestamps, never written.
PROBE_FORMATS = ("probes", "ping")
#: The formats a trace can be written in.
WRITE_FORMATS = tuple(f for f in FORMATS if f not in PROBE_FORMATS)
#: A link-capacity trace, not a reception trace: read by :func:`burstlab.io.read_mahimahi`.
CAPACITY_FORMATS = ("mahimahi",)

#: Extensions that decide the format before the content is looked at.
EXTENSIONS = {
    ".csv": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".ttem": "ttem",
    ".bits": "bits",
    ".seq": "seqlist",
    ".seqlist": "seqlist",
}
