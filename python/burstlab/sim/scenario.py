"""A single-link simulation (:class:`Scenario`): TCP, the forward and reverse links, how ACK
losses relate to the forward path, the workload (:class:`Workload`) and the seed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from burstlab.sim.config import TcpConfig, _number, tcp_dict
from burstlab.sim.links import Link


@dataclass(frozen=True)
class Workload:
    """Bulk transfer for ``duration`` seconds (100 s if neither ``duration`` nor
    ``size`` is given), or a fixed-size transfer of ``size`` bytes (``duration`` is then
    its time limit; one simulated day if None). The first ``warmup`` seconds are
    excluded from the measurement."""

    duration: float | None = None
    size: int | None = None
    warmup: float = 0.0


def _workload(w: Workload) -> dict[str, Any]:
    duration = 100.0 if w.duration is None and w.size is None else w.duration
    return {
        "duration": None if duration is None else _number("duration", duration, float),
        "size": w.size,
        "warmup": _number("warmup", w.warmup, float),
    }


@dataclass(frozen=True)
class Scenario:
    """A complete simulation: TCP, the forward link, the reverse link (None = the
    forward link's rate, delay and buffer, lossless), how ACK losses relate to the
    forward path, the workload and the seed."""

    tcp: TcpConfig = field(default_factory=TcpConfig)
    forward: Link = field(default_factory=Link)
    reverse: Link | None = None
    ack_loss: Literal["none", "independent", "sync"] = "none"
    workload: Workload = field(default_factory=Workload)
    seed: int = 1
    series: bool = False

    def config(self) -> dict[str, Any]:
        """The full configuration as plain data (what ``config_hash`` hashes)."""
        return {
            "mode": "links",
            "tcp": tcp_dict(self.tcp),
            "forward": self.forward._config(),
            "reverse": None if self.reverse is None else self.reverse._config(),
            "ack_loss": self.ack_loss,
            "workload": _workload(self.workload),
            "seed": int(self.seed),
            "series": bool(self.series),
        }
