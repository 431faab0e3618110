"""The TCP simulator: describe a scenario with dataclasses, run it in Rust.

>>> from burstlab.sim import Scenario, Link, TcpConfig, Workload, run
>>> res = run(Scenario(tcp=TcpConfig(variant="newreno"), forward=Link(rate=10e6, delay=0.01),
...                    workload=Workload(duration=5.0), seed=1))
>>> res.goodput_bps > 8e6
True

Units: seconds, bits/s, bytes; segments for windows. ``run_trace`` is the slotted
trace-driven mode of Srinivasan et al. §3.1. See ``docs/simulator.md`` for the model and for what
each counter means.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from burstlab.sim.aqm import Codel, FqCodel
from burstlab.sim.config import CONGESTION_CONTROLS, RECOVERIES, VARIANTS, TcpConfig, _number, tcp_settings
from burstlab.sim.links import (IW_ALWAYS, RED_FIELDS, TIME_MODELS, ClockResolutionWarning, Link, LossModeWarning, Red,
                                _check_first_link, _check_init_cwnd, _check_loss_mode, _queue_config, _queue_fields,
                                _rate_text, link_layer_config, loss_model, segments_bound)  # fmt: skip
from burstlab.sim.profiles import PROFILES
from burstlab.sim.runner import Progress, SimResult, _hash, run, run_options, run_trace
from burstlab.sim.scenario import Scenario, Workload

__all__ = [
    "PROFILES", "TIME_MODELS", "VARIANTS", "Cbr", "ClockResolutionWarning", "Flow", "FlowResult", "Hop", "Link", "LinkResult", "LossModeWarning",
    "Network", "NetworkResult", "OnOff", "Red", "Codel", "FqCodel", "Scenario", "SimResult", "TcpConfig", "Workload", "load_scenario", "loss_model",
    "presets", "run", "run_network", "run_network_seeds", "run_trace", "segments_bound", "tcp_settings",
]  # fmt: skip


# The network half of the package (hops, flows, results, presets, scenario files), imported
# when first used: a single-link run does not pay for defining it (benchmarks/startup.py).
_NETWORK_NAMES = ("Cbr", "Flow", "FlowResult", "Hop", "LinkResult", "Network", "NetworkResult", "OnOff", "run_network", "run_network_seeds")

if TYPE_CHECKING:
    from burstlab.sim import presets
    from burstlab.sim.network import Cbr, Flow, FlowResult, Hop, LinkResult, Network, NetworkResult, OnOff, run_network, run_network_seeds
    from burstlab.sim.scenario_file import load_scenario


def __getattr__(name: str) -> Any:
    if name in _NETWORK_NAMES:
        return getattr(importlib.import_module("burstlab.sim.network"), name)
    if name == "presets":
        return importlib.import_module("burstlab.sim.presets")
    if name == "load_scenario":
        return importlib.import_module("burstlab.sim.scenario_file").load_scenario
    raise AttributeError(f"module 'burstlab.sim' has no attribute {name!r}")
