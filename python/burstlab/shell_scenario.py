"""A simulator scenario file (``docs/simulator.md``, "Scenario files") as the path of
``burstlab shell SCENARIO.toml -- COMMAND`` (docs/shell.md, "A scenario as the path").

The shell carries one host's traffic: the scenario must have one flow, and the hops of its
path are the shell's uplink (their forward directions, data out of the shell) and downlink
(the reverse directions of its ``reverse_path``, by default the path backwards). Each
direction of the shell is one burstlab link, so each path has one hop. What the shell cannot
express is refused with one error naming the file, the line and the key: several flows
(several hosts), a path of several hops, a RED queue, the ``transit`` loss window, ACK losses
synchronised with the data's (``ack_loss = "sync"``: one loss process for both directions),
half-duplex or shared media. The flow's own settings (``tcp``, ``size``, ``start``, ...) and
the run's (``duration``, ``warmup``, ``series``, ``log``) describe the simulator's sender and
run: in the shell the command's own stack sends, for as long as it runs, and they are listed
in a warning. The scenario's ``seed`` seeds the loss streams as ``--seed`` does.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
import warnings
from typing import Any

from burstlab import _core
from burstlab.sim import Link, Red
from burstlab.sim.network import Flow, Hop, Network
from burstlab.sim.scenario_file import _label, _Reader, load_scenario
from burstlab.sim import loss_model

__all__ = ["ShellScenario", "load_shell_scenario"]

#: Flow fields that describe the simulator's sender (ignored in the shell, with a warning).
SENDER_FIELDS = ("tcp", "cbr", "size", "on_off", "start", "stop")
#: Run settings of the simulator (ignored in the shell, with a warning).
RUN_FIELDS = ("duration", "warmup", "series", "log")


@dataclasses.dataclass(frozen=True)
class ShellScenario:
    """The shell's two directions from a scenario, its seed, and the names of the hops they
    come from (``uplink_hop``, ``downlink_hop``)."""

    uplink: Any
    downlink: Any
    seed: int
    uplink_hop: str
    downlink_hop: str


def _where(flow_index: int | None, key: str | None, preset: bool) -> tuple[Any, ...]:
    if preset:
        return ("preset",)
    if flow_index is None:
        return (key,) if key else ()
    return ("flow", flow_index, key) if key else ("flow", flow_index)


def _hop_where(net: Network, name: str, key: str | None, preset: bool, reverse: bool = False) -> tuple[Any, ...]:
    if preset:
        return ("preset",)
    i = next(i for i, h in enumerate(net.hops) if h.name == name)
    base: tuple[Any, ...] = ("hop", i, "reverse") if reverse else ("hop", i)
    return (*base, key) if key else base


def _direction(r: _Reader, link: Link, where: Any, seed: int, loss_override: Any = None) -> Any:
    """A sim :class:`Link` as a shell :class:`~burstlab.shell.Direction` (refusing what the
    forwarder does not do)."""
    from burstlab import shell
    from burstlab.io import read_mahimahi

    queue = link.queue
    if isinstance(queue, Red) or queue != "droptail":
        raise r.fail(where("queue"), f"{_label(where(None))} queue = red: the shell's links are DropTail only (use burstlab sim for RED)")
    if link.loss_window != "serialisation":
        raise r.fail(where("loss_window"), f"{_label(where(None))} loss_window = {link.loss_window!r}: the shell asks the loss model about a "
                                           "packet's service interval only (loss_window = \"serialisation\")")  # fmt: skip
    capacity = None if link.capacity is None else read_mahimahi(link.capacity) if isinstance(link.capacity, (str, os.PathLike)) else link.capacity
    loss = loss_override if loss_override is not None else loss_model(link.loss)
    return shell.Direction(
        rate=None if capacity is not None else link.rate, capacity=capacity, capacity_bytes=link.opportunity_bytes,
        delay=link.delay, buffer=link.buffer, buffer_unit=link.buffer_unit, loss=loss, loss_mode=link.loss_mode,
        link_layer=link.link_layer, seed=seed,
    )  # fmt: skip


def load_shell_scenario(path: str | os.PathLike[str], seed: int | None = None) -> ShellScenario:
    """The shell's uplink and downlink from the scenario file at ``path`` (its flow's path and
    reverse path); ``seed`` (None: the scenario's) seeds the uplink's loss stream, seed + 1
    the downlink's. Every error names the file and line (:class:`burstlab.ParameterError`)."""
    p = os.fspath(path)
    if not os.path.isfile(p):
        raise _core.ParameterError(f"{p}: no such scenario file")
    net = load_scenario(p)  # the simulator's own checks first
    with open(p, "rb") as f:
        text = f.read().decode("utf-8")
    top = tomllib.loads(text)
    r = _Reader(p, text)
    preset = "preset" in top
    flows: list[Flow] = list(net.flows)
    if len(flows) != 1:
        raise r.fail(_where(1 if len(flows) > 1 else None, None, preset) if not preset else ("preset",),
                     f"the scenario has {len(flows)} flows: the shell carries one host's traffic (COMMAND's), so its scenario has one "
                     "flow, whose path is the shell's uplink")  # fmt: skip
    flow = flows[0]
    hops = {h.name: h for h in net.hops}
    back = list(reversed(list(flow.path))) if flow.reverse_path is None else list(flow.reverse_path)
    for key, names in (("path", list(flow.path)), ("reverse_path", back)):
        if len(names) != 1:
            raise r.fail(_where(0, key if key in top.get("flow", [{}])[0] else "path", preset),
                         f"{key} = {names!r}: the shell emulates one link per direction, so a path of one hop "
                         f"({len(names)} given; nest shells to cross several, the first hop innermost: burstlab shell SECOND.toml -- "
                         "burstlab shell FIRST.toml -- COMMAND)")  # fmt: skip
    up_hop: Hop = hops[flow.path[0]]
    down_hop: Hop = hops[back[0]]
    for h in {up_hop.name: up_hop, down_hop.name: down_hop}.values():
        if h.duplex != "full" or h.medium is not None:
            key = "medium" if h.medium is not None else "duplex"
            raise r.fail(_hop_where(net, h.name, key, preset),
                         f"hop {h.name!r} {key}: a half-duplex or shared channel needs both directions on one server, which the shell's "
                         "independent directions are not (use burstlab sim)")  # fmt: skip
    if down_hop.ack_loss == "sync":
        raise r.fail(_hop_where(net, down_hop.name, "ack_loss", preset),
                     f"hop {down_hop.name!r} ack_loss = \"sync\": one loss process for data and ACKs is not in the shell, whose two "
                     "directions draw apart (\"independent\" or a reverse loss model is)")  # fmt: skip
    s = net.seed if seed is None else seed
    up = _direction(r, up_hop.forward, lambda k: _hop_where(net, up_hop.name, k, preset), s)
    rev_loss = None
    if down_hop.ack_loss == "independent" and (down_hop.reverse is None or down_hop.reverse.loss is None):

        rev_loss = loss_model(down_hop.forward.loss)  # a copy of the forward model, on the downlink's own stream
    down = _direction(r, down_hop.reverse_link, lambda k: _hop_where(net, down_hop.name, k, preset, reverse=down_hop.reverse is not None),
                      s + 1, rev_loss)  # fmt: skip
    ignored = [k for k in SENDER_FIELDS if getattr(flow, k) != getattr(Flow(name="", path=[]), k)]
    ignored += [k for k in RUN_FIELDS if k in top]
    if ignored:
        warnings.warn(f"{p}: {', '.join(ignored)} describe the simulator's sender and run; in the shell COMMAND's own stack sends, "
                      "for as long as it runs (ignored)", UserWarning, stacklevel=2)  # fmt: skip
    return ShellScenario(up, down, int(s), up_hop.name, down_hop.name)
