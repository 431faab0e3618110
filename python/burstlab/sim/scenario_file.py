"""Network scenarios as TOML files (``burstlab sim scenario.toml``; every key is in
``docs/simulator.md``, "Scenario files").

```toml
duration = "300s"
seed = 1

[[hop]]
name = "bottleneck"
rate = "10Mbit"
delay = "20ms"
buffer = 60
loss = "bernoulli:p=0.001"

[[flow]]
name = "a"
path = ["bottleneck"]
tcp = "newreno"
```

or a preset with its parameters (``[preset] name = "dumbbell"``, ...). Quantities take
units (``10Mbit``, ``20ms``, ``5MB``) or plain numbers (bits/s, seconds, bytes). An
unknown key, a value of the wrong kind or a hop a flow does not know is an error naming
the file, the line and the key.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tomllib
import warnings
from collections.abc import Callable
from typing import Any

from burstlab import _core
from burstlab.lossspec import parse_loss_spec
from burstlab.sim.config import TcpConfig
from burstlab.sim.links import RED_FIELDS, Link, Red
from burstlab.sim.aqm import CODEL_FIELDS, FQ_CODEL_FIELDS, Codel, FqCodel
from burstlab.sim.advice import link_layer_ignores_rate, reverse_reuses_downlink, time_model_in_packet_mode
from burstlab.sim.network import Cbr, Flow, Hop, Network, OnOff

__all__ = ["load_scenario", "parse_scenario"]

LINK_KEYS = {"rate", "delay", "buffer", "buffer_unit", "loss", "loss_mode", "loss_window", "capacity", "opportunity_bytes",
             "link_layer", "queue"} | {f"red_{k}" for k in RED_FIELDS} | {f"codel_{k}" for k in CODEL_FIELDS} | {
             f"fq_codel_{k}" for k in FQ_CODEL_FIELDS}  # fmt: skip
#: Each queue discipline's keys: (prefix, class, fields, the queues they go with).
QUEUE_TABLES = (("red_", Red, RED_FIELDS, ("red",), "RED"), ("codel_", Codel, CODEL_FIELDS, ("codel", "fq_codel"), "CoDel"),
                ("fq_codel_", FqCodel, FQ_CODEL_FIELDS, ("fq_codel",), "FQ-CoDel"))  # fmt: skip
HOP_KEYS = LINK_KEYS | {"name", "reverse", "ack_loss", "duplex", "medium", "reverse_name"}
FLOW_KEYS = {"name", "path", "reverse_path", "tcp", "cbr", "packet_bytes", "size", "start", "stop", "on", "off", "on_off_dist", "on_off_shape"}
TOP_KEYS = {"duration", "warmup", "seed", "series", "log", "hop", "flow", "preset"}
PRESET_KEYS = {
    "single": {"forward", "reverse", "tcp", "ack_loss", "size"},
    "chain": {"hops", "n", "link", "tcp", "flows", "ack_loss"},
    "dumbbell": {"n", "bottleneck", "access_delay", "access_rate", "tcp", "cross_traffic", "cross_traffic_packet_bytes"},
    "wired_wireless": {"rtt", "wireless", "wired_rate", "tcp"},
    "satellite_wifi": {"fer", "wifi", "tcp", "channel"},
}


class _Where:
    """Line numbers of keys in a TOML text: a table path such as ("flow", 2, "tcp",
    "mss") → its line. Table headers and ``key =`` lines are enough for this (tomllib has
    already checked the syntax); a key inside an inline table maps to its parent's line."""

    _HEADER = re.compile(r"^\[(\[)?\s*([^\]]+?)\s*\]\]?")
    _KEY = re.compile(r"^([A-Za-z0-9_\-]+|\"[^\"]*\"|'[^']*')(\s*\.\s*([A-Za-z0-9_\-]+|\"[^\"]*\"))*\s*=")

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.lines: dict[tuple[Any, ...], int] = {}
        counts: dict[str, int] = {}
        prefix: tuple[Any, ...] = ()
        for n, raw in enumerate(text.splitlines(), 1):
            s = raw.strip()
            if not s or s.startswith("#"):
                continue
            m = self._HEADER.match(s)
            if m:
                parts = [p.strip().strip("\"'") for p in m.group(2).split(".")]
                if m.group(1):  # [[array]]
                    counts[parts[0]] = counts.get(parts[0], -1) + 1
                    prefix = (parts[0], counts[parts[0]], *parts[1:])
                else:
                    head = (parts[0], counts[parts[0]]) if parts[0] in counts else (parts[0],)
                    prefix = (*head, *parts[1:])
                self.lines.setdefault(prefix, n)
                continue
            k = self._KEY.match(s)
            if k:
                key = k.group(0).rstrip("=").strip()
                parts = [p.strip().strip("\"'") for p in key.split(".")]
                self.lines.setdefault((*prefix, *parts), n)

    def line(self, where: tuple[Any, ...]) -> int | None:
        for cut in range(len(where), 0, -1):
            if where[:cut] in self.lines:
                return self.lines[where[:cut]]
        return None

    def error(self, where: tuple[Any, ...], message: str) -> _core.ParameterError:
        n = self.line(where)
        loc = f"{self.path}:{n}" if n is not None else self.path
        return _core.ParameterError(f"{loc}: {message}")


def _label(where: tuple[Any, ...]) -> str:
    """("flow", 1, "tcp") → "[[flow]] #2 tcp"."""
    out: list[str] = []
    for i, p in enumerate(where):
        if isinstance(p, int):
            out[-1] = f"[[{where[i - 1]}]] #{p + 1}"
        else:
            out.append(str(p))
    return " ".join(out) if out else "the top level"


class _Reader:
    def __init__(self, path: str, text: str) -> None:
        self.where = _Where(path, text)
        self.base = os.path.dirname(os.path.abspath(path))

    def fail(self, where: tuple[Any, ...], message: str) -> _core.ParameterError:
        return self.where.error(where, message)

    def advise(self, where: tuple[Any, ...], message: str | None) -> None:
        """A setting that runs but not as it reads (burstlab.sim.advice): a warning naming the line."""
        if message is not None:
            warnings.warn(str(self.where.error(where, message)), UserWarning, stacklevel=2)

    def table(self, value: Any, where: tuple[Any, ...], keys: set[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, f"{_label(where)}: expected a table, got {value!r}")
        for k in value:
            if k not in keys:
                raise self.fail((*where, k), f"unknown key {k!r} in {_label(where)} (known: {', '.join(sorted(keys))})")
        return value

    def quantity(self, value: Any, where: tuple[Any, ...], parse: Callable[[str, str], float], kind: str) -> float:
        name = ".".join(str(p) for p in where if not isinstance(p, int))
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise self.fail(where, f"{name} = {value!r}: expected {kind}")
        if isinstance(value, (int, float)):
            if not (value >= 0 and value != float("inf")):
                raise self.fail(where, f"{name} = {value!r}: expected a non-negative, finite {kind}")
            return float(value)
        try:
            return parse(value, name)
        except _core.ParameterError as e:
            raise self.fail(where, str(e)) from None

    def check_capacity(self, given: str, path: str, where: tuple[Any, ...]) -> None:
        """The capacity file must be a Mahimahi trace: said with the path and what was
        expected, never with the file's content (a path to /etc/passwd printed its first line)."""
        from burstlab.io import read_mahimahi

        try:
            read_mahimahi(path)
        except (_core.TraceFormatError, _core.EmptyInputError, UnicodeDecodeError):
            raise self.fail(where, f"capacity = {given!r}: {path} is not a Mahimahi capacity trace (expected one whole number "
                                   "of milliseconds per line, non-decreasing; docs/simulator.md)") from None  # fmt: skip
        except OSError as e:
            raise self.fail(where, f"capacity = {given!r}: cannot read {path}: {e.strerror or e}") from None

    def rate(self, v: Any, where: tuple[Any, ...]) -> float:
        from burstlab.units import parse_rate

        r = self.quantity(v, where, parse_rate, "a rate (e.g. 10Mbit)")
        if not 1.0 <= r < 1e15:  # what the simulator takes (servers and CBR flows)
            name = ".".join(str(p) for p in where if not isinstance(p, int))
            raise self.fail(where, f"{name} = {v!r}: expected a rate from 1 bit/s to 10^15 bit/s")
        return r

    def time(self, v: Any, where: tuple[Any, ...]) -> float:
        from burstlab.units import parse_time

        return self.quantity(v, where, parse_time, "a time (e.g. 20ms)")

    def size(self, v: Any, where: tuple[Any, ...]) -> int:
        from burstlab.units import parse_size

        return int(self.quantity(v, where, parse_size, "a size (e.g. 5MB)"))

    def integer(self, v: Any, where: tuple[Any, ...]) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise self.fail(where, f"{_label(where)} = {v!r}: expected a non-negative integer")
        return v

    def string(self, v: Any, where: tuple[Any, ...], choices: tuple[str, ...] | None = None) -> str:
        if not isinstance(v, str) or (choices is not None and v not in choices):
            expect = f"one of {', '.join(choices)}" if choices else "a string"
            raise self.fail(where, f"{_label(where)} = {v!r}: expected {expect}")
        return v

    def boolean(self, v: Any, where: tuple[Any, ...]) -> bool:
        if not isinstance(v, bool):
            raise self.fail(where, f"{_label(where)} = {v!r}: expected true or false")
        return v

    def names(self, v: Any, where: tuple[Any, ...]) -> list[str]:
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise self.fail(where, f"{_label(where)} = {v!r}: expected a list of hop names")
        return list(v)

    def link(self, d: Any, where: tuple[Any, ...], keys: set[str] = LINK_KEYS) -> Link:
        d = self.table(d, where, keys)
        kw: dict[str, Any] = {}
        for k, v in d.items():
            w = (*where, k)
            if k == "rate":
                kw[k] = self.rate(v, w)
            elif k == "delay":
                kw[k] = self.time(v, w)
            elif k in ("buffer", "opportunity_bytes"):
                kw[k] = self.integer(v, w)
            elif k == "buffer_unit":
                kw[k] = self.string(v, w, ("packets", "bytes"))
            elif k == "loss_mode":
                kw[k] = self.string(v, w, ("packet", "time"))
            elif k == "loss_window":
                kw[k] = self.string(v, w, ("serialisation", "transit"))
            elif k == "loss":
                kw[k] = self.loss(v, w)
            elif k == "link_layer":
                from burstlab.linklayer import parse_link_layer

                if not isinstance(v, (str, dict)):
                    raise self.fail(w, f"link_layer = {v!r}: expected a spec string (arq:retry_limit=7) or a table with kind = \"arq\" or \"harq\"")
                try:
                    kw[k] = parse_link_layer(v)
                except _core.ParameterError as e:
                    raise self.fail(w, str(e)) from None
            elif k == "capacity":
                p = self.string(v, w)
                kw[k] = p if os.path.isabs(p) else os.path.join(self.base, p)
                if not os.path.exists(kw[k]):
                    raise self.fail(w, f"capacity = {p!r}: no such file ({kw[k]})")
                self.check_capacity(p, kw[k], w)
            elif k == "queue":
                kw[k] = self.string(v, w, ("droptail", "red", "codel", "fq_codel"))
        self.queue_params(d, where, kw)
        if "loss" in d:
            self.advise((*where, "loss"), time_model_in_packet_mode(f"{_label(where)} loss", d["loss"], kw.get("loss_mode", "packet")))
        return Link(**kw)

    def queue_params(self, d: dict[str, Any], where: tuple[Any, ...], kw: dict[str, Any]) -> None:
        """A link's ``red_*``, ``codel_*`` and ``fq_codel_*`` keys: each family needs its queue,
        and the queue becomes the class with them (``queue = "red"`` and ``red_max_p = 0.1``)."""
        params: dict[str, Any] = {}
        for prefix, cls, names, queues, label in QUEUE_TABLES:
            keys = [k for k in d if k.startswith(prefix) and k[len(prefix):] in names]
            if keys and kw.get("queue") not in queues:
                need = " or ".join(f'queue = "{q}"' for q in queues)
                raise self.fail((*where, keys[0]), f"{keys[0]} = {d[keys[0]]!r}: {label} parameters need {need}")
            defaults = cls()
            for key in keys:
                k, v, w = key[len(prefix):], d[key], (*where, key)
                default = getattr(defaults, k)
                if isinstance(default, bool):
                    params[k] = self.boolean(v, w)
                elif isinstance(default, int):
                    params[k] = self.integer(v, w)
                elif prefix == "codel_" and k in ("target", "interval"):
                    params[k] = self.time(v, w)
                elif isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise self.fail(w, f"{key} = {v!r}: expected a number")
                else:
                    params[k] = float(v)
        classes = {"red": Red, "codel": Codel, "fq_codel": FqCodel}
        if kw.get("queue") in classes and params:
            kw["queue"] = classes[kw["queue"]](**params)

    def tcp(self, v: Any, where: tuple[Any, ...]) -> TcpConfig:
        if isinstance(v, str):
            return TcpConfig(variant=v)
        fields = {f.name: f for f in dataclasses.fields(TcpConfig)}
        # tcp-variants: `profile` and `variant` (the --tcp shorthand) besides every field.
        d = self.table(v, where, set(fields) | {"profile", "variant"})
        kw: dict[str, Any] = {}
        for k, x in d.items():
            w = (*where, k)
            if k in ("profile", "variant"):
                kw[k] = self.string(x, w)
                continue
            kind = fields[k].metadata["spec"]["kind"]  # as the core declares it (docs/parameters.md)
            if kind == "bool":
                kw[k] = self.boolean(x, w)
            elif kind == "time":
                kw[k] = self.time(x, w)
            elif kind == "float":
                kw[k] = float(self.time(x, w))  # a plain number
            elif kind in ("int", "int?"):
                kw[k] = self.integer(x, w)
            else:
                kw[k] = self.string(x, w)
        profile = kw.pop("profile", "rfc")
        try:
            return TcpConfig.profile(profile, **kw)
        except _core.ParameterError as e:
            raise self.fail(where, str(e)) from None

    def hop(self, d: Any, where: tuple[Any, ...]) -> Hop:
        d = self.table(d, where, HOP_KEYS)
        if "name" not in d:
            raise self.fail(where, f"{_label(where)}: a hop needs a name")
        link = self.link({k: v for k, v in d.items() if k in LINK_KEYS}, where)
        kw: dict[str, Any] = {"name": self.string(d["name"], (*where, "name"))}
        if "reverse" in d:
            kw["reverse"] = self.link(d["reverse"], (*where, "reverse"))
        for k, choices in (("ack_loss", ("none", "independent", "sync")), ("duplex", ("full", "half"))):
            if k in d:
                kw[k] = self.string(d[k], (*where, k), choices)
        for k in ("medium", "reverse_name"):
            if k in d:
                kw[k] = self.string(d[k], (*where, k))
        if "link_layer" in d and "rate" in d:
            self.advise((*where, "rate"), link_layer_ignores_rate(f"{_label(where)} rate", str(d["link_layer"])))
        if "capacity" in d:
            self.advise((*where, "capacity"), reverse_reuses_downlink(_label(where), str(link.capacity), "reverse" in d))
        return Hop(forward=link, **kw)

    def flow(self, d: Any, where: tuple[Any, ...]) -> Flow:
        d = self.table(d, where, FLOW_KEYS)
        for need in ("name", "path"):
            if need not in d:
                raise self.fail(where, f"{_label(where)}: a flow needs a {need}")
        kw: dict[str, Any] = {"name": self.string(d["name"], (*where, "name")), "path": self.names(d["path"], (*where, "path"))}
        if "reverse_path" in d:
            kw["reverse_path"] = self.names(d["reverse_path"], (*where, "reverse_path"))
        if "cbr" in d:
            if "tcp" in d:
                raise self.fail((*where, "cbr"), f"{_label(where)}: give tcp or cbr, not both")
            pb = self.integer(d.get("packet_bytes", 1000), (*where, "packet_bytes"))
            kw["cbr"] = Cbr(rate=self.rate(d["cbr"], (*where, "cbr")), packet_bytes=pb)
        elif "packet_bytes" in d:
            raise self.fail((*where, "packet_bytes"), "packet_bytes is for a cbr flow")
        if "tcp" in d:
            kw["tcp"] = self.tcp(d["tcp"], (*where, "tcp"))
        if "size" in d:
            kw["size"] = self.size(d["size"], (*where, "size"))
        for k in ("start", "stop"):
            if k in d:
                kw[k] = self.time(d[k], (*where, k))
        oo = [k for k in ("on", "off", "on_off_dist", "on_off_shape") if k in d]
        if oo:
            if "on" not in d or "off" not in d:
                raise self.fail((*where, oo[0]), f"{_label(where)}: ON/OFF needs both on and off")
            dist: Any = self.string(d.get("on_off_dist", "exponential"), (*where, "on_off_dist"), ("exponential", "constant", "pareto"))
            shape = d.get("on_off_shape", 1.5)
            if isinstance(shape, bool) or not isinstance(shape, (int, float)):
                raise self.fail((*where, "on_off_shape"), f"on_off_shape = {shape!r}: expected a number > 1")
            kw["on_off"] = OnOff(self.time(d["on"], (*where, "on")), self.time(d["off"], (*where, "off")), dist, float(shape))
        return Flow(**kw)

    def loss(self, v: Any, w: tuple[Any, ...]) -> Any:
        """A loss spec (``burstlab sim --loss``'s) as a loss model; an error names the key."""
        spec = self.string(v, w)
        try:
            return parse_loss_spec(spec)
        except (ValueError, OSError) as e:
            raise self.fail(w, f"{w[-1]} = {spec!r}: {e}") from None

    def preset(self, d: Any, top: dict[str, Any]) -> Network:
        from burstlab.sim import presets

        where: tuple[Any, ...] = ("preset",)
        if not isinstance(d, dict) or "name" not in d:
            raise self.fail(where, f"[preset] needs a name: one of {', '.join(PRESET_KEYS)}")
        name = self.string(d["name"], (*where, "name"), tuple(PRESET_KEYS))
        d = self.table(d, where, PRESET_KEYS[name] | {"name"})
        kw: dict[str, Any] = {}
        for k, v in d.items():
            w = (*where, k)
            if k == "name":
                continue
            if k in ("forward", "reverse", "bottleneck", "wireless", "wifi", "link"):
                kw[k] = self.link(v, w)
            elif k == "hops":
                if isinstance(v, int) and not isinstance(v, bool):
                    kw[k] = self.integer(v, w)
                elif isinstance(v, list):
                    kw[k] = [self.link(x, (*w, i)) for i, x in enumerate(v)]
                else:
                    raise self.fail(w, f"hops = {v!r}: expected a number of hops or a list of link tables")
            elif k == "n":
                kw["n" if name == "dumbbell" else "hops"] = self.integer(v, w)
            elif k in ("flows",):
                kw[k] = self.integer(v, w)
            elif k == "tcp":
                kw[k] = [self.tcp(x, (*w, i)) for i, x in enumerate(v)] if isinstance(v, list) else self.tcp(v, w)
            elif k in ("access_delay", "rtt"):
                kw[k] = [self.time(x, (*w, i)) for i, x in enumerate(v)] if isinstance(v, list) else self.time(v, w)
            elif k in ("access_rate", "wired_rate"):
                kw[k] = self.rate(v, w)
            elif k == "cross_traffic":
                kw[k] = Cbr(self.rate(v, w), self.integer(d.get("cross_traffic_packet_bytes", 1000), (*where, "cross_traffic_packet_bytes")))
            elif k == "cross_traffic_packet_bytes":
                continue
            elif k == "fer":
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
                    raise self.fail(w, f"fer = {v!r}: expected a probability")
                kw[k] = float(v)
            elif k == "channel":  # satellite_wifi: the Wi-Fi hop's raw channel (time mode)
                kw[k] = self.loss(v, w)
            elif k == "ack_loss":
                kw[k] = self.string(v, w, ("none", "independent", "sync"))
            elif k == "size":
                kw[k] = self.size(v, w)
        kw.update(self.common(top))
        try:
            return getattr(presets, name)(**kw)  # type: ignore[no-any-return]
        except _core.ParameterError as e:
            raise self.fail(where, f"preset {name}: {e}") from None

    def common(self, top: dict[str, Any]) -> dict[str, Any]:
        kw: dict[str, Any] = {}
        for k in ("duration", "warmup"):
            if k in top:
                kw[k] = self.time(top[k], (k,))
        if "seed" in top:
            kw["seed"] = self.integer(top["seed"], ("seed",))
        for k in ("series", "log"):
            if k in top:
                kw[k] = self.boolean(top[k], (k,))
        return kw

    def network(self, top: dict[str, Any]) -> Network:
        self.table(top, (), TOP_KEYS)
        if "preset" in top:
            if "hop" in top or "flow" in top:
                raise self.fail(("preset",), "a scenario has either a [preset] or [[hop]] and [[flow]] tables, not both")
            return self.preset(top["preset"], top)
        hops, flows = top.get("hop", []), top.get("flow", [])
        if not isinstance(hops, list) or not hops:
            raise self.fail(("hop",), "a scenario needs [[hop]] tables (or a [preset])")
        if not isinstance(flows, list) or not flows:
            raise self.fail(("flow",), "a scenario needs [[flow]] tables (or a [preset])")
        from burstlab.sim.presets import check_size

        try:
            check_size(len(flows), len(hops), "scenario")
        except _core.ParameterError as e:
            raise self.fail(("flow",) if len(flows) > len(hops) else ("hop",), str(e).removeprefix("invalid parameter scenario ")) from None
        hop_objs = [self.hop(h, ("hop", i)) for i, h in enumerate(hops)]
        flow_objs = [self.flow(f, ("flow", i)) for i, f in enumerate(flows)]
        known = {h.name for h in hop_objs}
        for i, f in enumerate(flow_objs):
            for key, names in (("path", f.path), ("reverse_path", f.reverse_path or [])):
                for n in names:
                    if n not in known:
                        raise self.fail(("flow", i, key), f"{_label(('flow', i))} {key}: no hop named {n!r} (hops: {', '.join(sorted(known))})")
        return Network(hop_objs, flow_objs, **self.common(top))


def parse_scenario(text: str, path: str = "<scenario>") -> Network:
    """A :class:`~burstlab.sim.Network` from TOML text (``path`` names it in errors and
    anchors relative capacity-trace paths)."""
    try:
        top = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _core.ParameterError(f"{path}: not valid TOML: {e}") from None
    return _Reader(path, text).network(top)


def load_scenario(path: str | os.PathLike[str]) -> Network:
    """Read a TOML scenario file."""
    p = os.fspath(path)
    with open(p, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _core.ParameterError(f"{p}: not a UTF-8 text file (byte {e.start})") from None
    return parse_scenario(text, p)
