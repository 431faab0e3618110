"""Networks: many flows over paths of hops (``docs/simulator.md``, "Networks").

A :class:`Network` is a set of named :class:`Hop` objects — each two link directions,
full duplex or sharing one half-duplex channel — and :class:`Flow` objects that cross
them: TCP (any :class:`~burstlab.sim.TcpConfig`) or constant-bit-rate datagrams
(:class:`Cbr`), bulk, fixed-size or ON/OFF, each with its own start time and path.

>>> from burstlab.sim import Hop, Flow, Network, Link, run_network
>>> net = Network(hops=[Hop("access", Link(rate=100e6, delay=0.005)),
...                     Hop("bottleneck", Link(rate=10e6, delay=0.020, buffer=60))],
...               flows=[Flow("a", path=["access", "bottleneck"]), Flow("b", path=["bottleneck"])],
...               duration=20.0)
>>> r = run_network(net)
>>> round(r.jain_index, 2) > 0.5 and r.links["bottleneck"].utilisation > 0.9
True

Link names: a hop ``X`` has the links ``X`` (forward) and ``X.rev`` (``reverse_name``);
each link's loss process draws from its own stream ``link.NAME.loss``, so naming a hop
``forward`` with ``reverse_name="reverse"`` reproduces the single-link
:class:`~burstlab.sim.Scenario` exactly (:func:`burstlab.sim.presets.single`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from burstlab import _core
from burstlab.sim.config import TcpConfig, _number, tcp_dict
from burstlab.sim.links import Link, _check_first_link, _check_loss_mode, _queue_fields, link_layer_config, loss_model
from burstlab.sim.runner import Progress, SimResult, _hash, _hash_text, run_options

__all__ = ["Cbr", "Flow", "FlowResult", "Hop", "LinkResult", "Network", "NetworkResult", "OnOff", "run_network"]


@dataclass(frozen=True)
class Hop:
    """Two link directions between two nodes.

    ``forward``: the direction data take on the paths that list this hop; ``reverse``: the
    other (None: the forward link's rate, delay, buffer and queue discipline, lossless). ``ack_loss`` relates
    the reverse direction's losses to the forward ones (Pentikousis & Badr §3): ``"none"``
    (only ``reverse.loss``), ``"independent"`` (a copy of the forward model with its own
    stream, unless ``reverse.loss`` is given) or ``"sync"`` (the forward process itself:
    one channel for data and ACKs). ``duplex="half"``: both directions queue for one
    channel of the forward link's capacity (data and ACKs contend, as on Wi-Fi);
    ``medium``: hops naming the same medium share one channel (a multi-hop wireless
    chain on one frequency), which implies half duplex.
    """

    name: str
    forward: Link = field(default_factory=Link)
    reverse: Link | None = None
    ack_loss: Literal["none", "independent", "sync"] = "none"
    duplex: Literal["full", "half"] = "full"
    medium: str | None = None
    reverse_name: str | None = None

    @property
    def reverse_link(self) -> Link:
        if self.reverse is not None:
            return self.reverse
        f = self.forward
        return Link(rate=f.rate, delay=f.delay, buffer=f.buffer, buffer_unit=f.buffer_unit, capacity=f.capacity,
                    opportunity_bytes=f.opportunity_bytes, queue=f.queue, link_layer=f.link_layer)  # fmt: skip

    @property
    def link_names(self) -> tuple[str, str]:
        return self.name, self.reverse_name if self.reverse_name is not None else f"{self.name}.rev"


@dataclass(frozen=True)
class Cbr:
    """Constant-bit-rate datagrams (UDP cross traffic, Martignon & Capone §III): one packet
    of ``packet_bytes`` on the wire every ``packet_bytes·8/rate`` seconds."""

    rate: float
    packet_bytes: int = 1000


@dataclass(frozen=True)
class OnOff:
    """Alternating ON and OFF periods, mean ``on`` and ``off`` seconds, drawn from
    ``dist`` (``"exponential"``, ``"constant"`` or ``"pareto"`` with ``shape`` > 1), from
    the flow's own stream. A TCP flow's application is backlogged while ON and supplies
    nothing while OFF (what was sent is still delivered); a CBR flow sends only while ON.
    The flow starts ON."""

    on: float
    off: float
    dist: Literal["exponential", "constant", "pareto"] = "exponential"
    shape: float = 1.5

    def _config(self) -> dict[str, Any]:
        law = {"dist": self.dist, "shape": _number("shape", self.shape, float)}
        return {"on": {**law, "mean": _number("on", self.on, float)}, "off": {**law, "mean": _number("off", self.off, float)}}


@dataclass(frozen=True)
class Flow:
    """A flow over ``path`` (hop names, in the order its data cross them). TCP with
    ``tcp`` settings unless ``cbr`` is given. ``reverse_path``: the hops its ACKs cross
    (their reverse directions), by default ``path`` backwards. ``size``: bytes to
    transfer (None: bulk); ``on_off``: ON/OFF activity; ``start``/``stop``: when the
    application starts and stops supplying data (seconds)."""

    name: str
    path: Sequence[str]
    tcp: TcpConfig = field(default_factory=TcpConfig)
    cbr: Cbr | None = None
    size: int | None = None
    on_off: OnOff | None = None
    start: float = 0.0
    stop: float | None = None
    reverse_path: Sequence[str] | None = None


def _load_capacity(capacity: Any) -> Any:
    """A Mahimahi trace as nanosecond opportunity instants (uint64)."""
    import numpy as np

    if isinstance(capacity, (str, os.PathLike)):
        ms = _read_mahimahi(os.fspath(capacity))
    else:
        ms = np.asarray(capacity)
        if ms.ndim != 1 or ms.size == 0 or not np.issubdtype(ms.dtype, np.number) or not np.all(np.isfinite(ms)) or np.any(ms < 0):
            raise _core.ParameterError(
                "invalid parameter capacity: expected a Mahimahi trace file or a non-empty 1-D array of non-negative millisecond timestamps"
            )
    return (np.asarray(ms, dtype=np.float64) * 1e6).round().astype(np.uint64)


def _read_mahimahi(path: str) -> Any:
    """A Mahimahi trace file: ``burstlab.io.read_mahimahi`` (streamed in Rust; errors name
    the file, line and value)."""
    from burstlab.io import read_mahimahi

    return read_mahimahi(path)


def _capacity_id(capacity: Any) -> str | None:
    """What identifies a capacity trace in the configuration (path, or content hash)."""
    if capacity is None:
        return None
    if isinstance(capacity, (str, os.PathLike)):
        return os.fspath(capacity)
    import numpy as np

    return "sha256:" + hashlib.sha256(np.asarray(capacity, dtype=np.float64).tobytes()).hexdigest()[:16]


def _server_rate(server: dict[str, Any], capacity: Any) -> float:
    """A server's long-run rate in bits/s: its fixed rate, or a capacity trace's opportunities
    per second times their size (0 when it cannot be told, as for a link layer's frames: no
    bound is derived then)."""
    if "rate" in server:
        return float(server["rate"])
    if capacity is None:
        return 0.0
    if len(capacity) == 0 or int(capacity[-1]) <= 0:
        return 0.0
    return len(capacity) * 8.0 * server["opportunity_bytes"] / (int(capacity[-1]) / 1e9)


@dataclass(frozen=True)
class Network:
    """A network scenario. ``duration``: the run's length (default 100 s, or one simulated
    day when every TCP flow has a ``size``, the run then stopping when the last
    completes); ``warmup``: the first seconds excluded from every counter and rate;
    ``series``: record each TCP flow's cwnd/ssthresh/SRTT/RTO series; ``log``: record the
    per-packet log (:attr:`NetworkResult.log`)."""

    hops: Sequence[Hop]
    flows: Sequence[Flow]
    duration: float | None = None
    warmup: float = 0.0
    seed: int = 1
    series: bool = False
    log: bool = False

    def _duration(self) -> float:
        if self.duration is not None:
            return _number("duration", self.duration, float)
        finite = all(f.cbr is None and f.size is not None and f.on_off is None for f in self.flows)
        return 86_400.0 if finite and self.flows else 100.0

    def _build(self) -> tuple[dict[str, Any], list[Any], list[Any], dict[str, Any]]:
        """(core config, each link's loss model, each server's capacity, the config as plain data)."""
        hops: dict[str, Hop] = {}
        for h in self.hops:
            if not isinstance(h, Hop):
                raise _core.ParameterError(f"invalid parameter hops: expected burstlab.sim.Hop objects, got {type(h).__name__}")
            if h.name in hops:
                raise _core.ParameterError(f"invalid parameter hop name = {h.name!r}: a name no other hop has")
            hops[h.name] = h
        servers: list[dict[str, Any]] = []
        capacities: list[Any] = []
        plain_servers: list[dict[str, Any]] = []
        media: dict[str, int] = {}

        def server(link: Link) -> int:
            if link.link_layer is not None and link_layer_config(link.link_layer) is not None:
                if link.capacity is not None:
                    raise _core.ParameterError("invalid parameter capacity: a link with a link layer is timed by it (give one or the other)")
                capacities.append(None)
                servers.append({"link_layer": True})
                plain_servers.append({"link_layer": True})
            elif link.capacity is not None:
                capacities.append(_load_capacity(link.capacity))
                servers.append({"opportunity_bytes": _number("opportunity_bytes", link.opportunity_bytes, int)})
                plain_servers.append({"capacity": _capacity_id(link.capacity), "opportunity_bytes": link.opportunity_bytes})
            else:
                capacities.append(None)
                servers.append({"rate": _number("rate", link.rate, float)})
                plain_servers.append({"rate": servers[-1]["rate"]})
            return len(servers) - 1

        links: list[dict[str, Any]] = []
        losses: list[Any] = []
        plain_links: list[dict[str, Any]] = []
        index: dict[tuple[str, int], int] = {}
        for h in hops.values():
            if h.ack_loss not in ("none", "independent", "sync"):
                raise _core.ParameterError(f"invalid parameter hop {h.name}.ack_loss = {h.ack_loss!r}: expected none, independent or sync")
            if h.duplex not in ("full", "half"):
                raise _core.ParameterError(f"invalid parameter hop {h.name}.duplex = {h.duplex!r}: expected full or half")
            fwd, rev = h.forward, h.reverse_link
            if h.medium is not None:
                if h.medium not in media:
                    media[h.medium] = server(fwd)
                s_f = s_r = media[h.medium]
            else:
                s_f = server(fwd)
                s_r = s_f if h.duplex == "half" else server(rev)
            f_model = loss_model(fwd.loss)
            r_model = loss_model(rev.loss) if h.reverse is not None else None
            _check_loss_mode(f"hop {h.name}", f_model, fwd.loss_mode)
            _check_loss_mode(f"hop {h.name} (reverse)", r_model, rev.loss_mode)
            shared = None
            if h.ack_loss == "sync":
                if f_model is None:
                    raise _core.ParameterError(f"invalid parameter hop {h.name}.ack_loss = sync: the forward link has no loss model to share")
                shared = len(links)
                r_mode = fwd.loss_mode
            elif h.ack_loss == "independent":
                if r_model is None:
                    if f_model is None:
                        raise _core.ParameterError(f"invalid parameter hop {h.name}.ack_loss = independent: no loss model to copy")
                    r_model, r_mode = f_model, fwd.loss_mode
                else:
                    r_mode = rev.loss_mode
            else:
                r_mode = rev.loss_mode
            fname, rname = h.link_names
            for direction, name, link, srv, model, mode, share in (
                (0, fname, fwd, s_f, f_model, fwd.loss_mode, None),
                (1, rname, rev, s_r, r_model, r_mode, shared),
            ):
                index[(h.name, direction)] = len(links)
                links.append({
                    "name": name, "server": srv,
                    "delay": _number(f"{name}.delay", link.delay, float),
                    "buffer": _number(f"{name}.buffer", link.buffer, int),
                    "buffer_unit": link.buffer_unit, "loss_mode": mode, "loss_window": link.loss_window,
                    "loss_shared_with": share, **_queue_fields(link.queue),
                })  # fmt: skip
                layer = link_layer_config(link.link_layer)
                if layer is not None:
                    links[-1]["link_layer"] = layer
                losses.append(None if share is not None else model)
                plain_links.append({**links[-1], "loss": None if model is None or share is not None else repr(model)})

        def path(flow: Flow, hops_: Sequence[str], direction: int, what: str) -> list[int]:
            if isinstance(hops_, str):
                raise _core.ParameterError(f"invalid parameter flow {flow.name}.{what} = {hops_!r}: expected a list of hop names")
            out = []
            for name in hops_:
                if name not in hops:
                    known = ", ".join(hops) or "none"
                    raise _core.ParameterError(f"invalid parameter flow {flow.name}.{what}: no hop named {name!r} (hops: {known})")
                out.append(index[(name, direction)])
            return out

        flows: list[dict[str, Any]] = []
        plain_flows: list[dict[str, Any]] = []
        for f in self.flows:
            if not isinstance(f, Flow):
                raise _core.ParameterError(f"invalid parameter flows: expected burstlab.sim.Flow objects, got {type(f).__name__}")
            fwd_path = path(f, f.path, 0, "path")
            d: dict[str, Any] = {
                "name": f.name,
                "forward": fwd_path,
                "size": None if f.size is None else _number(f"flow {f.name}.size", f.size, int),
                "start": _number(f"flow {f.name}.start", f.start, float),
                "stop": None if f.stop is None else _number(f"flow {f.name}.stop", f.stop, float),
                "on_off": None if f.on_off is None else f.on_off._config(),
            }
            if f.cbr is not None:
                d.update(kind="cbr", rate=_number(f"flow {f.name}.rate", f.cbr.rate, float),
                         packet_bytes=_number(f"flow {f.name}.packet_bytes", f.cbr.packet_bytes, int), reverse=[])  # fmt: skip
            else:
                if not isinstance(f.tcp, TcpConfig):
                    raise _core.ParameterError(f"invalid parameter flow {f.name}.tcp: expected a burstlab.sim.TcpConfig")
                back = list(reversed(list(f.path))) if f.reverse_path is None else list(f.reverse_path)
                d.update(kind="tcp", tcp=tcp_dict(f.tcp), reverse=path(f, back, 1, "reverse_path"))
                if fwd_path:
                    first = links[fwd_path[0]]
                    rate = _server_rate(servers[first["server"]], capacities[first["server"]])
                    end = self._duration() if d["stop"] is None else min(d["stop"], self._duration())
                    live = end - max(0.0, d["start"])
                    _check_first_link(f"flow {f.name} on link {first['name']}", f.tcp, rate, first["buffer"], first["buffer_unit"],
                                      max(0.0, live), d["size"])  # fmt: skip
            flows.append(d)
            plain_flows.append(dict(d))
        core = {
            "servers": servers,
            "links": links,
            "flows": flows,
            "duration": self._duration(),
            "warmup": _number("warmup", self.warmup, float),
            "seed": _number("seed", self.seed, int),
            "series": bool(self.series),
            "log": bool(self.log),
        }
        plain = {**core, "mode": "network", "servers": plain_servers, "links": plain_links, "flows": plain_flows}
        return core, losses, capacities, plain

    def config(self) -> dict[str, Any]:
        """The full configuration as plain data (what ``config_hash`` hashes)."""
        return self._build()[3]


@dataclass
class FlowResult(SimResult):
    """One flow's result: every :class:`~burstlab.sim.SimResult` field (over the flow's
    own measured life: from max(warm-up, start) to its completion or the end), plus its
    name, kind (``"tcp"`` or ``"cbr"``) and ``spurious_timeouts``: retransmission timeouts
    that fired while an earlier copy of the segment was on its way to the receiver (and
    arrived) or had already arrived."""

    name: str = ""
    kind: str = "tcp"
    spurious_timeouts: int = 0


@dataclass
class LinkResult:
    """One link direction over the measured interval: packets ``offered`` to its queue,
    ``sent`` (service ended by the end), ``bytes_sent``, ``queue_drops`` (a full buffer, or
    ``early_drops``: RED's on entry, CoDel's and FQ-CoDel's at dequeue), ``ecn_marks`` (RED,
    CoDel or FQ-CoDel marked CE instead),
    ``channel_losses`` (its loss process), ``delivered`` (reached its far end),
    ``utilisation`` (share of the time its transmitter spent on its packets),
    ``capacity_bps`` (long-run; None for slotted channels) and the queueing delay (entry to
    service start) of the packets it took: mean, median, 90th and 99th percentiles and
    maximum, seconds (None when it took none; percentiles within 3 %). ``link_layer``: a
    link with a link layer has no fixed capacity (None) and reports what its link layer did
    (:class:`burstlab.linklayer.LinkLayerStats`: frames, attempts, residual losses, attempt
    times, service latency, FEC) over the measured interval; frames admitted before the end
    are counted when admitted, those still queued at the end included."""

    name: str
    offered: int
    sent: int
    bytes_sent: int
    queue_drops: int
    channel_losses: int
    delivered: int
    early_drops: int
    ecn_marks: int
    utilisation: float
    capacity_bps: float | None
    queue_delay_mean: float | None
    queue_delay_p50: float | None
    queue_delay_p90: float | None
    queue_delay_p99: float | None
    queue_delay_max: float | None
    link_layer: Any = None


class _ByName(Mapping[str, Any]):
    """Results in order, addressable by position or by name."""

    def __init__(self, items: list[Any]) -> None:
        self._items = items
        self._by_name = {x.name: x for x in items}

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, int):
            return self._items[key]
        return self._by_name[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._items)

    def values(self) -> Any:
        return list(self._items)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._items!r})"


LOG_EVENTS = ("sent", "dropped", "lost", "arrived", "delivered")
LOG_KINDS = ("data", "ack", "datagram")


@dataclass
class NetworkResult:
    """A network run: ``flows`` and ``links`` (by position or name), the aggregate goodput
    (bits/s), Jain's fairness index of the TCP flows' goodputs ((Σx)²/(n·Σx²); None without
    TCP flows), when the run stopped, the event count, the configuration and its hash, and
    with ``Network(log=True)`` the per-packet ``log``: numpy arrays ``time`` (s), ``event``
    (codes into ``LOG_EVENTS``: sent, dropped, lost, arrived, delivered), ``kind`` (codes
    into ``LOG_KINDS``: data, ack, datagram), ``flow``, ``link`` (-1 at an end host),
    ``seg`` (segment; cumulative ACK; datagram number), ``to`` (delivered: one past the
    last segment), ``retx`` and ``sent_time`` (when its flow sent it)."""

    flows: _ByName
    links: _ByName
    aggregate_goodput_bps: float
    jain_index: float | None
    end_time: float
    events: int
    config: dict[str, Any]
    config_hash: str
    log: dict[str, Any] | None = None

    def _repr_html_(self) -> str:  # a notebook's display (burstlab.notebook)
        from burstlab.notebook import network_result_html

        return network_result_html(self)

    def to_dict(self) -> dict[str, Any]:
        """Numbers and configuration as plain data (JSON-ready; no series or log)."""
        return {
            # each flow's numbers; the network's configuration once, below (not per flow:
            # that grew with the square of the flow count)
            "flows": [{**_without_config(f.to_dict()), "name": f.name, "kind": f.kind, "spurious_timeouts": f.spurious_timeouts}
                      for f in self.flows.values()],  # fmt: skip
            "links": [{**vars(x), "link_layer": x.link_layer and x.link_layer.summary()} for x in self.links.values()],
            "aggregate_goodput_bps": self.aggregate_goodput_bps,
            "jain_index": self.jain_index,
            "end_time": self.end_time,
            "events": self.events,
            "config": self.config,
            "config_hash": self.config_hash,
        }


def _without_config(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k not in ("config", "config_hash")}


def _link_fields(d: dict[str, Any]) -> dict[str, Any]:
    layer = d.get("link_layer")
    if layer is None:
        return d
    from burstlab.linklayer import LinkLayerStats

    return {**d, "link_layer": LinkLayerStats._from_core(layer)}


def run_network(network: Network, *, max_events: int | None = None, progress: Progress | None = None) -> NetworkResult:
    """Simulate a network (in Rust, GIL released). ``max_events``, ``progress``:
    :func:`burstlab.sim.run_options`."""
    if not isinstance(network, Network):
        raise _core.ParameterError(f"invalid parameter network: expected a burstlab.sim.Network, got {type(network).__name__}")
    core, losses, capacities, plain = network._build()
    d: dict[str, Any] = _core.simulate_network({**core, **run_options(max_events, progress)}, losses, capacities)
    return _network_result(d, plain, _hash(plain))


#: Stands for the seed in the JSON text of a configuration hashed once for several seeds.
_SEED_MARK = 0x5EED_0F_A11_5EED5


def run_network_seeds(network: Network, seeds: Sequence[int], *, max_events: int | None = None) -> list[NetworkResult]:
    """``[run_network(dataclasses.replace(network, seed=s)) for s in seeds]`` — the same
    results, configurations and hashes — with the network's set-up done once: it is checked,
    converted for the simulator and its loss models built once (the simulator copies them
    into each run), and its configuration written as JSON for the hash once, with the seed
    put in for each run. The replicates of one cell of a study differ only by their seed,
    and this set-up is about a third of a short simulation's CPU. The results' ``config``
    dicts share their nested parts (a copy per run at the top level)."""
    if not isinstance(network, Network):
        raise _core.ParameterError(f"invalid parameter network: expected a burstlab.sim.Network, got {type(network).__name__}")
    core, losses, capacities, plain = network._build()
    text = json.dumps({**plain, "seed": _SEED_MARK}, sort_keys=True)
    head, mark, tail = text.partition(f'"seed": {_SEED_MARK}')
    one_mark = bool(mark) and str(_SEED_MARK) not in head + tail
    out = []
    for seed in seeds:
        s = _number("seed", seed, int)
        run_plain = {**plain, "seed": s}
        h = _hash_text(f'{head}"seed": {s}{tail}') if one_mark else _hash(run_plain)
        d: dict[str, Any] = _core.simulate_network({**core, "seed": s, **run_options(max_events, None)}, losses, capacities)
        out.append(_network_result(d, run_plain, h))
    return out


def _network_result(d: dict[str, Any], plain: dict[str, Any], h: str) -> NetworkResult:
    """The :class:`NetworkResult` of the simulator's dict ``d`` for configuration ``plain``
    (hash ``h``)."""
    flows = [
        FlowResult._from_core(fd, plain, h, name=fd["name"], kind=fd["kind"], spurious_timeouts=fd["spurious_timeouts"])
        for fd in d["flows"]
    ]
    links = [LinkResult(**_link_fields(ld)) for ld in d["links"]]
    return NetworkResult(
        flows=_ByName(flows),
        links=_ByName(links),
        aggregate_goodput_bps=d["aggregate_goodput_bps"],
        jain_index=d["jain_index"],
        end_time=d["end_time"],
        events=d["events"],
        config=plain,
        config_hash=h,
        log=d["log"],
    )
