"""The registered studies: ``burstlab study NAME`` for each. A study is registered by the
module attribute that holds it (a :class:`burstlab.study.base.Study`) and a one-line
summary, so that listing the studies imports none of them.

Adding a study is its module, its claims and one line here (or a call to :func:`register`
from a plug-in).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Entry:
    """A registered study: its command name, where it lives (``"module:attribute"``) and
    the one line ``burstlab study --help`` shows."""

    name: str
    target: str
    summary: str


STUDIES: dict[str, Entry] = {}


def register(name: str, target: str, summary: str) -> None:
    """Register the study held by ``target`` ("module:attribute") as ``burstlab study name``."""
    if ":" not in target:
        raise ValueError(f"study target {target!r}: expected 'module:attribute'")
    STUDIES[name] = Entry(name, target, summary)


def unregister(name: str) -> None:
    STUDIES.pop(name, None)


def load(name: str) -> Any:
    """The study registered as ``name`` (its module imported now)."""
    module, attr = STUDIES[name].target.split(":")
    return getattr(importlib.import_module(module), attr)


register("prr-mu", "burstlab.experiments.prr_mu_settings:study", "Srinivasan et al., \"PRR Is Not Enough\": PRR, μ and TCP on every link, the L1 fits.")
register("error-models", "burstlab.experiments.error_models_settings:study", "Pentikousis & Badr, \"Error Modeling for TCP Simulations\".")
register("tibet", "burstlab.experiments.tibet_settings:study", "Martignon & Capone, \"TCP with Bandwidth Estimation over Wireless Networks\".")
register("hybrid", "burstlab.experiments.hybrid_settings:study", "Barsocchi, Oligeri, Potortì, \"Packet Loss in TCP Hybrid Wireless Networks\".")
register("link-transport", "burstlab.experiments.link_transport_settings:study",
         "Subramanian et al., \"Link and Transport Protocols in Interference-Prone WLAN Environments\".")  # fmt: skip
