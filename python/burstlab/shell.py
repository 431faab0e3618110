"""``burstlab shell``: run a command whose traffic crosses burstlab's links — the same loss
models, link layer and capacity as the simulator — under the real network stack (docs/shell.md).

The command runs in a new network namespace. Its only interface is a TUN device whose
packets a forwarder (Rust, ``crates/burstlab-py/src/shell.rs``) moves to a second TUN device
in the caller's namespace through one emulated link per direction; the caller's side is
``100.64.0.1`` (``BURSTLAB_SHELL_PEER`` inside the shell), the shell's ``100.64.0.2``; shells
nest (:data:`MAX_LEVEL`). A server
the caller runs on ``100.64.0.1`` (or on every address) is what the command reaches.

Needs root (``CAP_NET_ADMIN`` and ``CAP_SYS_ADMIN`` for namespaces and TUN devices), the
``ip`` command (iproute2) and ``/dev/net/tun``; :func:`check_environment` says in one line what
is missing.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from burstlab import _core
from burstlab.sim import link_layer_config

#: Fates in the log (its ``fate`` column holds the index): delivered, lost by the loss model
#: (or the link layer's last attempt), dropped by the full buffer, admitted to be delivered
#: but still in flight when the shell ended, or refused by the device it was due on (the
#: kernel's first packets on a new interface, before the other side is configured).
FATES = ("delivered", "lost", "queue_drop", "in_flight_at_end", "write_error")
#: Shells nest: a shell started inside a shell of level L - 1 is of level L (the environment
#: variable BURSTLAB_SHELL_LEVEL), and its path uses 100.64.L.1 (caller's side) and 100.64.L.2
#: (the shell's side). Every shell forwards between its two sides and routes the addresses
#: of deeper levels (100.64.L+1.0 to 100.64.255.255) towards them, so a command in the
#: innermost shell reaches the outermost caller, 100.64.0.1 (BURSTLAB_SHELL_PEER), across
#: every level's links.
MAX_LEVEL = 254
PREFIX = 24
#: How ``replay`` matches a logged fate to a packet: ``packet``, the k-th admitted packet of a
#: direction gets the k-th logged fate; ``segment``, a packet gets the fate logged for the same
#: transmission of the same packet — its flow, kind (:data:`KINDS`) and number (a data
#: segment's sequence number, an ACK's acknowledgement number, in bytes from the flow's
#: start) and the how-many-th time such a packet reached the loss decision (docs/shell.md).
REPLAY_KEYS = ("packet", "segment")
#: The ``kind`` column of the log: a TCP segment with payload, an ACK without, a SYN / FIN /
#: RST without payload, anything else (not TCP over IPv4).
KINDS = ("data", "ack", "control", "other")
#: The columns of a fate's key in the log and in a keyed replay.
KEY_COLUMNS = ("flow", "kind", "num", "tx")
_KEY_DTYPES = {"flow": np.uint32, "kind": np.uint8, "num": np.uint64, "tx": np.uint32, "lost": np.bool_}
#: ``tx`` of a packet the full buffer dropped: not counted (only packets that reach the loss
#: decision are).
NOT_COUNTED = 2**32 - 1


def _addresses(level: int) -> tuple[str, str]:
    return f"100.64.{level}.1", f"100.64.{level}.2"


def _deeper(level: int) -> list[str]:
    """Prefixes covering 100.64.(level + 1).0 … 100.64.255.255 (for the routes towards
    deeper shells)."""
    out, lo = [], level + 1
    while lo <= 255:
        size = 1
        while lo % (size * 2) == 0 and lo + size * 2 - 1 <= 255:
            size *= 2
        out.append(f"100.64.{lo}.0/{24 - size.bit_length() + 1}")
        lo += size
    return out


def current_level() -> int:
    """This process's shell level: 0 outside any shell."""
    text = os.environ.get("BURSTLAB_SHELL_LEVEL", "0")
    try:
        level = int(text)
    except ValueError:
        raise _core.ParameterError(f"invalid environment variable BURSTLAB_SHELL_LEVEL = {text!r}: expected a whole number") from None
    if not 0 <= level <= MAX_LEVEL:
        raise ShellError(f"burstlab shell nests at most {MAX_LEVEL} deep (BURSTLAB_SHELL_LEVEL = {level})")
    return level


PEER, SHELL_ADDR = _addresses(0)
#: Longest wait for the forwarder to create its devices.
READY_TIMEOUT = 10.0


class ShellError(_core.BurstlabError):
    """The machine cannot run a shell (no root, no TUN device, no ``ip``), or setting one up failed."""


@dataclass(frozen=True)
class Direction:
    """One direction of the emulated path, as a burstlab link: ``rate`` (bits/s; None: no
    limit) or ``capacity`` (a Mahimahi trace's delivery opportunities in ms, as
    :func:`burstlab.io.read_mahimahi` returns, each of ``capacity_bytes``), one-way ``delay``
    (s), DropTail ``buffer`` (what waits behind the packet in service, in ``buffer_unit``
    ``"packets"`` or ``"bytes"``), ``loss`` (a loss model or None) in
    ``loss_mode`` ``"packet"`` or ``"time"``, ``link_layer`` (an ARQ/HARQ spec or object),
    ``seed`` of the loss stream, and ``replay``: a logged run's fates to apply instead of
    drawing — by packet number, a bool per admitted packet (True = lost); keyed by segment,
    a dict of arrays ``flow``, ``kind``, ``num``, ``tx`` and ``lost``
    (:meth:`ShellResult.keyed_fates`)."""

    rate: float | None = None
    capacity: Any = None
    capacity_bytes: int = 1500
    delay: float = 0.0
    buffer: int = 1000
    buffer_unit: str = "packets"
    loss: _core.LossModel | None = None
    loss_mode: str = "packet"
    link_layer: Any = None
    seed: int = 1
    replay: Any = None

    def _dict(self) -> dict[str, Any]:
        cap = None
        if self.capacity is not None:
            cap = (np.asarray(self.capacity, dtype=np.uint64) * np.uint64(1_000_000)).astype(np.uint64)
        return {
            "rate": 0.0 if self.rate is None else float(self.rate),
            "capacity": cap,
            "capacity_bytes": float(self.capacity_bytes),
            "delay": float(self.delay),
            "buffer": int(self.buffer),
            "buffer_unit": self.buffer_unit,
            "loss": self.loss,
            "loss_mode": self.loss_mode,
            "link_layer": link_layer_config(self.link_layer),
            "seed": int(self.seed),
            "replay": None if self.replay is None or isinstance(self.replay, dict) else np.asarray(self.replay, dtype=bool),
            "replay_keyed": _keyed(self.replay) if isinstance(self.replay, dict) else None,
        }


def _keyed(fates: dict[str, Any]) -> dict[str, np.ndarray]:
    missing = [c for c in _KEY_DTYPES if c not in fates]
    if missing:
        raise _core.ParameterError(f"invalid parameter replay: a keyed replay needs the columns {', '.join(_KEY_DTYPES)} (missing {missing[0]})")
    return {c: np.ascontiguousarray(fates[c], dtype=t) for c, t in _KEY_DTYPES.items()}


@dataclass
class ShellResult:
    """The command's exit status and, per direction, the forwarder's counters and (when
    logged) every packet's fate."""

    returncode: int
    uplink: dict[str, Any] = field(default_factory=dict)
    downlink: dict[str, Any] = field(default_factory=dict)

    def fates(self, direction: str) -> np.ndarray:
        """Loss decisions of the admitted packets of ``direction``, in order (True = lost):
        what ``replay`` takes."""
        log = getattr(self, direction)["log"]
        f = log["fate"]
        return np.asarray(f[f != 2] == 1)

    def keyed_fates(self, direction: str) -> dict[str, np.ndarray]:
        """Loss decisions of the admitted packets of ``direction`` with their keys (columns
        ``flow``, ``kind``, ``num``, ``tx``, ``lost``): what a replay keyed by segment takes."""
        return _keyed_from(getattr(self, direction)["log"])


def _keyed_from(log: Any) -> dict[str, np.ndarray]:
    f = np.asarray(log["fate"])
    admitted = f != 2
    out = {c: np.asarray(log[c])[admitted] for c in KEY_COLUMNS}
    out["lost"] = f[admitted] == 1
    return out


def for_simulator(fates: dict[str, np.ndarray], mss: int) -> dict[str, np.ndarray]:
    """A keyed replay of the kernel's packets (:meth:`ShellResult.keyed_fates`) in the
    simulator's numbers, for ``LossModel.keyed_replay``. The simulator's segment n holds bytes
    [n·mss, (n + 1)·mss); a kernel data segment starting at byte x becomes the simulator's
    segment round(x / mss), the one it overlaps most (the kernel may send a partial segment,
    after which its segments start off the simulator's grid), and an ACK of byte x the
    cumulative ACK round(x / mss). Where two kernel numbers fall on one simulator number (a
    partial segment beside a whole one), the first one logged keeps it. Control packets (the
    simulator sends no SYN or FIN) and other packets are left out. The kernel's connections
    that carry data become the simulator's flows 0, 1, … in the order they were first logged
    (a connection without data, e.g. a refused attempt, would otherwise shift the numbers)."""
    if not (isinstance(mss, (int, np.integer)) and mss > 0):
        raise _core.ParameterError(f"invalid parameter mss = {mss!r}: expected a positive whole number of bytes")
    num = np.asarray(fates["num"], dtype=np.uint64)
    kind = np.asarray(fates["kind"])
    flow = np.asarray(fates["flow"])
    sim = (num + np.uint64(mss // 2)) // np.uint64(mss)
    keep = kind <= 1
    order: dict[int, int] = {}
    for f in flow[kind == 0]:
        order.setdefault(int(f), len(order))
    flow = np.array([order.get(int(f), -1) for f in flow], dtype=np.int64)
    keep &= flow >= 0
    owner: dict[tuple[int, int, int], int] = {}
    for i in np.flatnonzero(keep):
        k = (int(flow[i]), int(kind[i]), int(sim[i]))
        if owner.setdefault(k, int(num[i])) != int(num[i]):
            keep[i] = False
    out = {c: np.asarray(fates[c])[keep] for c in _KEY_DTYPES}
    out["num"], out["flow"] = sim[keep], flow[keep]
    return _keyed(out)

def check_environment() -> None:
    """Raise :class:`ShellError` naming what this machine lacks for a shell."""
    if os.geteuid() != 0:
        raise ShellError("burstlab shell needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) to create a network namespace and TUN devices: run it with sudo")
    if not os.path.exists("/dev/net/tun"):
        raise ShellError("burstlab shell needs /dev/net/tun (the tun kernel module): modprobe tun")
    if shutil.which("ip") is None:
        raise ShellError("burstlab shell needs the ip command (iproute2): apt-get install iproute2")


#: Where the kernel lists the congestion controls it has loaded (and can load on demand).
AVAILABLE_CC = "/proc/sys/net/ipv4/tcp_available_congestion_control"


def check_congestion_control(cc: str) -> None:
    """Make sure the kernel offers ``cc`` (loading ``tcp_CC`` with modprobe if it is a module
    not loaded yet); raise :class:`ShellError` naming what it offers otherwise."""
    if not cc or not all(c.isalnum() or c in "_-" for c in cc):
        raise _core.ParameterError(f"invalid parameter cc = {cc!r}: expected the name of a kernel congestion control (e.g. cubic, reno, bbr)")

    def available() -> list[str]:
        try:
            return Path(AVAILABLE_CC).read_text().split()
        except OSError:
            return []

    if cc in available():
        return
    if shutil.which("modprobe") is not None:
        subprocess.run(["modprobe", f"tcp_{cc}"], capture_output=True)
        if cc in available():
            return
    raise ShellError(f"the kernel has no congestion control {cc!r} (available: {', '.join(available()) or 'none listed'}; "
                     f"modprobe tcp_{cc} did not add it)")


def _ip(*args: str) -> None:
    r = subprocess.run(["ip", *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise ShellError(f"ip {' '.join(args)}: {r.stderr.strip() or 'failed'}")


def _sysctl(netns: str | None, key: str, value: str) -> None:
    """Set ``key`` in the namespace ``netns`` (None: this process's own)."""
    path = "/proc/sys/" + key.replace(".", "/")
    if netns is None:
        try:
            Path(path).write_text(value)
        except OSError as e:
            raise ShellError(f"{key} = {value}: {e.strerror or e}") from None
        return
    r = subprocess.run(["ip", "netns", "exec", netns, "sh", "-c", f"echo {value} > {path}"], capture_output=True, text=True)
    if r.returncode != 0:
        raise ShellError(f"{key} = {value} in the shell's namespace: {r.stderr.strip() or 'failed'}")


def run(command: list[str], uplink: Direction, downlink: Direction, *, log: bool = True, env: dict[str, str] | None = None,
        stdin: Any = None, stdout: Any = None, stderr: Any = None, cc: str | None = None) -> ShellResult:
    """Run ``command`` in a shell whose traffic crosses ``uplink`` (out of the shell) and
    ``downlink`` (back in); returns its exit status and the forwarder's counters and log.
    ``cc``: the kernel congestion control of the command's TCP connections through the shell
    (the congestion control of the shell's default route, ``ip route … congctl``, and, where
    the host allows it, the namespace's ``net.ipv4.tcp_congestion_control``); a connection
    may still choose its own with ``TCP_CONGESTION``. None keeps the kernel's default.
    Ctrl-C is passed to the command; the namespace and devices are removed however it ends."""
    if not command:
        raise _core.ParameterError("invalid parameter command: expected a command to run in the shell")
    check_environment()
    if cc is not None:
        check_congestion_control(cc)
    level = current_level()
    peer, addr = _addresses(level)
    up, down = uplink._dict(), downlink._dict()  # validate before creating anything
    # a shell that just ended may still be tearing its device down: wait up to 2 s for it
    for _ in range(20):
        busy = subprocess.run(["ip", "-o", "addr", "show", "to", f"{peer}/32"], capture_output=True, text=True).stdout.split()
        if not busy:
            break
        time.sleep(0.1)
    if busy:
        raise ShellError(f"{peer} is taken by {busy[1]} in this namespace (another burstlab shell at level {level}?): run one shell per level at a time")
    tag = f"bl{os.getpid() % 10**8}"
    netns, inner, outer = f"{tag}s", f"{tag}i", f"{tag}o"
    _ip("netns", "add", netns)
    stop_r, stop_w = os.pipe()
    ready_r, ready_w = os.pipe()
    out: dict[str, Any] = {}

    def forward() -> None:
        try:
            out["result"] = _core.shell_forward(f"/run/netns/{netns}", inner, outer, up, down, stop_r, ready_w, log)
        except BaseException as e:  # noqa: BLE001 - handed to the caller's thread
            out["error"] = e
            os.write(ready_w, b"!")

    t = threading.Thread(target=forward, name="burstlab-shell-forwarder", daemon=True)
    rc = -1
    try:
        t.start()
        r, _, _ = select.select([ready_r], [], [], READY_TIMEOUT)
        if not r:
            raise ShellError(f"the forwarder did not create its devices within {READY_TIMEOUT:g} s")
        if os.read(ready_r, 1) != b"\x01":
            t.join()
            err = out.get("error")
            raise ShellError(f"the forwarder could not start: {err}") from err
        # IPv4 only: no IPv6 on the two devices, whose router solicitations and MLD reports
        # would otherwise cross the links among COMMAND's packets (and take loss decisions)
        for ns, dev in ((netns, inner), (None, outer)):
            try:
                _sysctl(ns, f"net.ipv6.conf.{dev}.disable_ipv6", "1")
            except ShellError:
                pass  # a kernel without IPv6
        _ip("-n", netns, "link", "set", "lo", "up")
        _ip("-n", netns, "addr", "add", f"{addr}/{PREFIX}", "dev", inner)
        _ip("-n", netns, "link", "set", inner, "up")
        # cc: the routes' congestion control (RTAX_CC_ALGO, `ip route … congctl`) applies to
        # every connection over them, whatever the host allows as a namespace's default: the
        # default route and the shell's own prefix (the caller's address is on it)
        congctl = ("congctl", cc) if cc else ()
        _ip("-n", netns, "route", "add", "default", "via", peer, "dev", inner, *congctl)
        if cc:
            net = addr.rsplit(".", 1)[0] + f".0/{PREFIX}"
            _ip("-n", netns, "route", "replace", net, "dev", inner, "proto", "kernel", "scope", "link", "src", addr, *congctl)
        _ip("addr", "add", f"{peer}/{PREFIX}", "dev", outer)
        _ip("link", "set", outer, "up")
        # a deeper shell's packets pass through this one: forwarding inside, and routes
        # here (the caller's namespace) for the deeper levels' addresses, towards the shell
        _sysctl(netns, "net.ipv4.ip_forward", "1")
        _sysctl(netns, "net.ipv4.conf.all.rp_filter", "0")
        if cc is not None:
            # and the namespace's default (new sockets, loopback), where the host allows it:
            # a namespace other than the first may only default to an algorithm listed in
            # net.ipv4.tcp_allowed_congestion_control
            try:
                _sysctl(netns, "net.ipv4.tcp_congestion_control", cc)
            except ShellError:
                pass
        for prefix in _deeper(level):
            _ip("route", "add", prefix, "via", addr, "dev", outer)
        base = os.environ if env is None else env
        child_env = {**base, "BURSTLAB_SHELL": "1", "BURSTLAB_SHELL_LEVEL": str(level + 1), "BURSTLAB_SHELL_ADDR": addr,
                     "BURSTLAB_SHELL_PEER": base.get("BURSTLAB_SHELL_PEER", peer) if level > 0 else peer}
        proc = subprocess.Popen(["ip", "netns", "exec", netns, *command], env=child_env, stdin=stdin, stdout=stdout, stderr=stderr)
        try:
            rc = proc.wait()
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGINT)
            rc = proc.wait()
            raise
    finally:
        os.write(stop_w, b"x")
        t.join()
        for fd in (stop_r, stop_w, ready_r, ready_w):
            os.close(fd)
        subprocess.run(["ip", "netns", "del", netns], capture_output=True)
    if "error" in out:
        raise out["error"]
    res = out["result"]
    return ShellResult(rc, res["uplink"], res["downlink"])


def write_log(result: ShellResult, path: str | os.PathLike[str]) -> int:
    """Every logged packet of both directions as Parquet (one row per packet: direction,
    times in ns from the forwarder's start, size, fate, attempts), written atomically.
    Returns the number of rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols: dict[str, list[Any]] = {}
    n = 0
    for name in ("uplink", "downlink"):
        log = getattr(result, name).get("log")
        if log is None:
            raise _core.ParameterError("invalid parameter log: the shell ran without its log (log=False)")
        k = len(log["fate"])
        n += k
        cols.setdefault("direction", []).append(np.full(k, name, dtype=object))
        for c in ("t_in", "bytes", "start", "end", "arrive", "t_out", "attempts", "fate", *KEY_COLUMNS):
            cols.setdefault(c, []).append(log[c])
    table = pa.table({c: np.concatenate(v) for c, v in cols.items()})
    p = Path(path)
    tmp = p.with_name(f".{p.name}.tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, p)
    return n


def read_replay(path: str | os.PathLike[str], key: str = "packet") -> dict[str, Any]:
    """The fates a logged shell applied, per direction, for ``replay``: by packet number
    (``key="packet"``) a bool per admitted packet (True = lost); keyed by segment
    (``key="segment"``) a dict of arrays (:meth:`ShellResult.keyed_fates`)."""
    import pyarrow.parquet as pq

    if key not in REPLAY_KEYS:
        raise _core.ParameterError(f"invalid parameter replay key = {key!r}: expected one of {', '.join(REPLAY_KEYS)}")
    cols = ["direction", "fate", *(KEY_COLUMNS if key == "segment" else ())]
    try:
        t = pq.read_table(path, columns=cols)
    except (OSError, ValueError, KeyError) as e:
        raise _core.TraceFormatError(f"{path}: not a burstlab shell log with the columns {', '.join(cols)} "
                                     f"(a replay keyed by segment needs a log written since the shell logs keys): {e}") from None
    d = np.asarray(t.column("direction").to_pylist(), dtype=object)
    f = np.asarray(t.column("fate").to_numpy())
    out: dict[str, Any] = {}
    for name in ("uplink", "downlink"):
        mine = d == name
        if key == "packet":
            out[name] = f[mine & (f != 2)] == 1
        else:
            out[name] = _keyed_from({c: np.asarray(t.column(c).to_numpy())[mine] for c in ("fate", *KEY_COLUMNS)})
    return out


def with_replay(u: Direction, d: Direction, path: str | os.PathLike[str], key: str = "packet") -> tuple[Direction, Direction]:
    """``u`` and ``d`` playing the fates logged in ``path``, matched by packet number or
    keyed by segment (:data:`REPLAY_KEYS`)."""
    r = read_replay(path, key)
    return replace(u, replay=r["uplink"]), replace(d, replay=r["downlink"])
