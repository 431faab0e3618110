"""The simulator's and the writers' side of the bad-input contract (issue 34), as inputs a
fuzzer can draw and checks it can run: ``sim`` command lines over every flag, TOML
scenario files, the Python API (``burstlab.sim``, loss models, traces, presets) and output
paths (device files, FIFOs, symbolic links, read-only folders, a full disk).

Each ``check_*`` returns an outcome kind (``"ok"``: a result, ``"refused"``: one burstlab
error) or raises :class:`ContractViolation`: a traceback, exit 3, more than one error line,
an exception that is not burstlab's, a counter inconsistent with another (lost > sent,
delivered > sent, goodput > the bottleneck), an allocation that hit the memory cap instead
of being refused before it was made, a non-regular output replaced by a file, or a
temporary file left behind. ``benchmarks/fuzz.py`` draws millions of these (each under a
4 GiB address-space cap, with a time limit, an abort or a hang recorded as such);
``tests/test_fuzz_sim.py`` runs a few hundred in CI."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import math
import os
import random
import stat
import subprocess
import threading
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _fuzz import ContractViolation

#: A memory error is the contract's only when it was refused before the allocation: its
#: message says what needs how much (mem.rs, sim/budget.rs, the readers' checks).
_PRECHECKED = ("of memory is available", "this process may use", "needs ", "out of memory: ")

TIMES = ["0", "1ns", "1us", "1ms", "10ms", "200ms", "1s", "3s", "60s", "1e5s", "999999999s", "1e12s", "-1s", "nan", "1e-300s", "x", ""]
RATES = ["1", "1e-300", "0", "-1", "1kbit", "100kbit", "1Mbit", "10Mbit", "1Gbit", "1e13", "1e19Mbit", "1e300", "inf", "x"]
INTS = ["0", "1", "2", "3", "10", "100", "65535", "1000000", "4294967296", "18446744073709551616", "-1", "1.5", "1e9", "x", ""]
FLOATS = ["0", "0.5", "1", "-1", "1e-9", "1e300", "nan", "inf", "0.99", "2", "x"]
SHORT_RUNS = ["0.05s", "0.2s", "1s", "2s"]
LOSSES = ["none", "bernoulli:p=0.01", "bernoulli:p=0.5", "bernoulli:p=1", "ge:prr=0.7,mu=0.5", "ge:prr=0.9,mu=0.99",
          "onoff:on=1ms,off=1ms", "ctmc:pg=0.01,pb=0.5,a=1,b=1", "list:drops=3/5/9,period=10", "bernoulli:p=2", "nosuch",
          "vddp:da=1ms,db=1ms,ca=0.1,cb=0.5"]  # fmt: skip
LINK_LAYERS = ["none", "arq", "arq:retry_limit=7", "arq:retry_limit=1e9", "arq:retry_limit=0", "arq:retry_limit=1.5", "harq",
               "harq:attempts=4", "arq:nosuch=1", "x"]  # fmt: skip


def _tcp_flags() -> list[tuple[str, str, tuple[str, ...]]]:
    """(flag, kind, choices) for every TcpConfig field, as ``burstlab sim`` declares them."""
    from burstlab.sim import TcpConfig

    out = []
    for fl in dataclasses.fields(TcpConfig):
        opt = "--" + fl.name.replace("_", "-")
        meta = fl.metadata
        if meta.get("choices"):
            out.append((opt, "choice", tuple(meta["choices"])))
        elif fl.type in ("bool", bool):
            out.append((opt, "bool", ()))
        elif meta.get("unit") == "s":
            out.append((opt, "time", ()))
        elif fl.name in ("max_cwnd", "rwnd"):
            out.append((opt, "window", ()))
        else:
            out.append((opt, "int" if "int" in str(fl.type) else "float", ()))
    return out


_FLAGS: list[tuple[str, str, tuple[str, ...]]] | None = None


def _value(r: random.Random, kind: str, choices: tuple[str, ...] = ()) -> str:
    if kind == "choice":
        return r.choice([*choices, "x"]) if r.random() < 0.95 else ""
    if kind == "time":
        return r.choice(TIMES)
    if kind == "window":
        return r.choice(["none", *INTS])
    if kind == "int":
        return r.choice(INTS)
    return r.choice(FLOATS)


# ---- sim command lines -------------------------------------------------------------------


def sim_argv(r: random.Random, trace: Path) -> list[str]:
    """A ``burstlab sim`` command line over the simulator's flags; mostly short runs, some
    extreme (which must be refused at once or finish within the time limit)."""
    global _FLAGS
    if _FLAGS is None:
        _FLAGS = _tcp_flags()
    argv = ["sim"]
    trace_mode = r.random() < 0.15
    if trace_mode:
        argv += ["--trace", str(trace), "--slot", r.choice(["10ms", "1ms", "1ns", "4821h", "1000h", "1s", "0", "-1s"])]
        if r.random() < 0.3:
            argv += ["--ack-path", r.choice(["lossless", "trace", "x"])]
        if r.random() < 0.3:  # the slotted sender's queue (docs/study.md "The sender's queue")
            argv += ["--sender-queue", r.choice(["radio", "fifo", "x"])]
    else:
        argv += ["--duration", r.choice(SHORT_RUNS) if r.random() < 0.85 else r.choice(TIMES)]
        for opt, vals in (("--rate", RATES), ("--delay", TIMES), ("--buffer", INTS), ("--loss", LOSSES), ("--link-layer", LINK_LAYERS),
                          ("--warmup", TIMES), ("--size", ["1", "1000", "1MB", "0", "-1", "1e30", "x"]),
                          ("--ack-loss", ["none", "independent", "sync", "x"]), ("--loss-mode", ["packet", "time"]),
                          ("--buffer-unit", ["packets", "bytes"]), ("--queue", ["droptail", "red"])):  # fmt: skip
            if r.random() < 0.25:
                argv += [opt, r.choice(vals) if r.random() < 0.7 or opt in ("--loss", "--link-layer") else r.choice(["10ms", "1", "100"])]
        if r.random() < 0.1:
            argv += ["--seeds", r.choice(["2", "3", "0", "100001"])]
    if r.random() < 0.3:
        argv += ["--tcp", r.choice(["reno", "newreno", "sack", "cubic", "vegas", "westwood", "tibet", "ideal", "lt-tcp", "linux-reno",
                                    "tahoe", "reno,sack", "nosuch", "rack"])]  # fmt: skip
    if r.random() < 0.2:
        argv += ["--profile", r.choice(["rfc", "ns3", "linux", "tossim", "x"])]
    for _ in range(r.choice([0, 1, 1, 2, 3, 5])):
        opt, kind, choices = r.choice(_FLAGS)
        if kind == "bool":
            argv.append(opt if r.random() < 0.5 else "--no-" + opt[2:])
        else:
            argv += [opt, _value(r, kind, choices)]
    if r.random() < 0.05:  # no budget (0) only for a short run: without one a long run is the user's choice
        short = argv[argv.index("--duration") + 1] in SHORT_RUNS if "--duration" in argv else False
        argv += ["--max-events", r.choice(["0", "1", "1000", "-1"] if short else ["1", "1000", "-1", "x"])]
    argv.append("--json")
    return argv


def _run_main(argv: list[str]) -> tuple[int, str, str]:
    from burstlab.cli import main

    out, err = io.StringIO(), io.StringIO()
    old = os.environ.pop("BURSTLAB_DEBUG", None)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            rc = main(argv)
    finally:
        if old is not None:
            os.environ["BURSTLAB_DEBUG"] = old
    return rc, out.getvalue(), err.getvalue()


def _contract(argv: list[str], rc: int, out: str, err: str) -> str:
    if "Traceback" in err or "Traceback" in out:
        raise ContractViolation(f"{argv}: a traceback: {err[-800:]}")
    if rc == 2:
        lines = [ln for ln in err.splitlines() if ln.strip()]
        errors = [ln for ln in lines if ln.startswith("error: ")]
        if len(errors) != 1 or not lines[-1].startswith("error: "):
            raise ContractViolation(f"{argv}: exit 2 without exactly one final error line: {err[-800:]}")
        if "out of memory" in errors[0] and not any(p in errors[0] for p in _PRECHECKED):
            raise ContractViolation(f"{argv}: memory-cap: an allocation failed instead of being refused: {errors[0]}")
        return "refused"
    if rc != 0:
        raise ContractViolation(f"{argv}: exit {rc}: {err[-800:]}")
    return "ok"


def check_counters(d: dict[str, Any], bottleneck_bps: float | None, what: Any) -> None:
    """lost ≤ sent, delivered ≤ sent, ACKs lost ≤ ACKs sent, goodput ≤ the bottleneck."""
    bad = []
    if d["packets_lost"] > d["packets_sent"]:
        bad.append("lost > sent")
    if d["delivered_segments"] > d["packets_sent"]:
        bad.append("delivered > sent")
    if d.get("acks_lost", 0) > d.get("acks_sent", 0):
        bad.append("acks lost > acks sent")
    if d["retransmissions"] > d["packets_sent"]:
        bad.append("retransmissions > sent")
    if bottleneck_bps is not None and d["goodput_bps"] > bottleneck_bps * (1 + 1e-9):
        bad.append(f"goodput {d['goodput_bps']} > bottleneck {bottleneck_bps}")
    if bad:
        raise ContractViolation(f"{what}: wrong counters ({', '.join(bad)}): {d}")


#: Wall-clock seconds after which a run the user gave no budget (``--max-events 0``) is
#: stopped as Ctrl-C would stop it (issue 34: a run without a budget is the user's choice,
#: bounded only by their patience; what the contract asks of it is progress and an exit at
#: Ctrl-C, which this checks).
UNLIMITED_WALL_S = 10.0


def _unlimited(argv: list[str]) -> bool:
    return any(a == "--max-events" and b == "0" for a, b in zip(argv, argv[1:]))


def _run_stopped_after(argv: list[str], seconds: float) -> tuple[int, str, str] | None:
    """``_run_main(argv)``, interrupted like Ctrl-C (SIGINT's KeyboardInterrupt) after
    ``seconds`` of wall time: None if it was interrupted and exited 130 with ``aborted``."""
    import signal

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        rc, out, err = _run_main(argv)
    except KeyboardInterrupt:  # fired outside the CLI's own handler (before or after it ran)
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    if rc == 130:
        if err.strip().splitlines()[-1:] != ["aborted"]:
            raise ContractViolation(f"{argv}: Ctrl-C did not end in 'aborted': {err[-800:]}")
        return None
    return rc, out, err


def check_sim_cli(argv: list[str]) -> str:
    """The contract on one ``burstlab sim`` command line; ``stopped``: a run without a
    budget (``--max-events 0``) still running after ``UNLIMITED_WALL_S``, ended by Ctrl-C."""
    if _unlimited(argv):
        got = _run_stopped_after(argv, UNLIMITED_WALL_S)
        if got is None:
            return "stopped"
        rc, out, err = got
    else:
        rc, out, err = _run_main(argv)
    kind = _contract(argv, rc, out, err)
    if kind == "ok" and "--json" in argv and "--seeds" not in argv and "--trace" not in argv and out.strip():
        d = json.loads(out)
        runs = [d] if "packets_sent" in d else []
        rate = None
        if "--rate" in argv and "--link-layer" not in argv:
            from burstlab.units import parse_rate

            rate = parse_rate(argv[argv.index("--rate") + 1], "--rate")
        elif "--link-layer" not in argv:
            rate = 10e6
        for run in runs:
            check_counters(run, rate, argv)
    return kind


# ---- TOML scenario files -----------------------------------------------------------------


def _q(v: Any) -> str:
    return json.dumps(v) if isinstance(v, str) else repr(v) if not isinstance(v, bool) else str(v).lower()


def scenario_toml(r: random.Random, capacity: Path) -> str:
    """A scenario file: hops and flows, or a preset, with values from plausible to absurd."""
    lines = [f"duration = {_q(r.choice(SHORT_RUNS) if r.random() < 0.85 else r.choice(TIMES))}"]
    if r.random() < 0.2:
        lines.append(f"warmup = {_q(r.choice(['0s', '10ms', '100ms', '1s', '-1s', 'x']))}")
    if r.random() < 0.25:
        name = r.choice(["dumbbell", "chain", "single", "wired_wireless", "satellite_wifi", "nosuch"])
        lines.append("[preset]")
        lines.append(f"name = {_q(name)}")
        if name == "dumbbell" and r.random() < 0.7:
            lines.append(f"n = {r.choice([1, 2, 10, 0, -1, 1000, 1000000])}")
        if name == "dumbbell" and r.random() < 0.3:
            lines.append(f"access_delay = {r.choice(['1e308', '5ms', '-1', '1e9', '0', '[0.01, 0.02]'])}")
        if name == "chain" and r.random() < 0.7:
            lines.append(f"hops = {r.choice([1, 4, 0, 70000, 1000000000])}")
        return "\n".join(lines) + "\n"
    hops = [f"h{i}" for i in range(r.choice([1, 1, 2, 3]))]
    for h in hops:
        lines += ["", "[[hop]]", f"name = {_q(h)}"]
        if r.random() < 0.8:
            v = r.choice(RATES + ["10Mbit"] * 6)
            lines.append(f"rate = {v if v in ('1e-300', '1e300', '0', '-1', '1') else _q(v)}")
        if r.random() < 0.6:
            lines.append(f"delay = {_q(r.choice(TIMES[:8] + ['10ms'] * 4))}")
        if r.random() < 0.3:
            lines.append(f"buffer = {r.choice([0, 1, 10, 100, -1, 10**20])}")
        if r.random() < 0.2:
            lines.append(f"loss = {_q(r.choice(LOSSES))}")
        if r.random() < 0.1:
            lines.append(f"link_layer = {_q(r.choice(LINK_LAYERS))}")
        if r.random() < 0.08:
            lines.append(f"capacity = {_q(r.choice([str(capacity), '/etc/passwd', '/nonexistent', '/dev/null']))}")
    for i in range(r.choice([1, 1, 2, 5, 50])):
        lines += ["", "[[flow]]", f"name = \"f{i}\"", f"path = {json.dumps([r.choice(hops)] if r.random() < 0.9 else ['nosuch'])}"]
        if r.random() < 0.15:
            lines.append(f"size = {r.choice([1, 1000, 0, -1, 10**20])}")
        if r.random() < 0.1:
            lines += [f"on = {_q(r.choice(['1ns', '1us', '10ms', '1s', '0', 'x']))}", f"off = {_q(r.choice(['1ns', '1us', '10ms', '1s']))}"]
        if r.random() < 0.1:
            lines.append(f"start = {_q(r.choice(['0s', '10ms', '1e12s', '-1s']))}")
        if r.random() < 0.1:
            lines.append(f"cbr = {_q(r.choice(['1Mbit', '1e-300', '1e19Mbit']))}")
        if r.random() < 0.2:
            lines.append("[flow.tcp]")
            key = r.choice(["mss", "init_cwnd", "rto_min", "rto_max", "rto_initial", "variant", "max_cwnd", "ack_timeout"])
            val = r.choice([1, 0, -1, 1000, 10**19]) if key in ("mss", "init_cwnd", "max_cwnd") else \
                r.choice(["1ns", "1ms", "1s", "reno", "x"])  # fmt: skip
            lines.append(f"{key} = {_q(val)}")
    return "\n".join(lines) + "\n"


def check_scenario(text: str, folder: Path) -> str:
    p = folder / "fuzz-scenario.toml"
    p.write_text(text)
    argv = ["sim", str(p), "--json"]
    rc, out, err = _run_main(argv)
    kind = _contract([*argv, text], rc, out, err)
    if kind == "ok":
        d = json.loads(out)
        for f in d.get("flows", []):
            if f.get("kind") == "tcp":
                check_counters(f, None, text)
    return kind


# ---- the Python API ----------------------------------------------------------------------

API_ERRORS: tuple[type[BaseException], ...] = (ValueError, OSError, MemoryError)


def api_call(r: random.Random) -> tuple[str, dict[str, Any]]:
    """A call of the Python API with values of the right kinds, in and out of range."""
    which = r.choice(["run", "run_trace", "sample", "filled", "write_trace", "preset", "network", "bdp"])
    num = lambda: r.choice([0, 1, 2, 10, 1e-300, 1e300, -1, math.nan, math.inf, 0.5, 1e9, 2**64])  # noqa: E731
    kw: dict[str, Any] = {}
    if which == "run":
        kw = {"rate": r.choice([1, 1e6, 1e7, 1e13, 1e19, 0, -1, math.nan, 1e-300]), "delay": r.choice([0, 0.01, 1e9, -1, math.inf]),
              "buffer": r.choice([0, 1, 100, -1, 2**70]), "duration": r.choice([0.05, 0.5, 1e6, 1e9, -1, math.nan, None]),
              "warmup": r.choice([0.0, 0.01, 0.04, 1.0]), "size": r.choice([None, None, 1, 1000, 0, -1]),
              "loss": r.choice(LOSSES), "init_cwnd": r.choice([None, 1, 2, 10, 11, 2**40, 0]),
              "rto_min": r.choice([None, 1e-9, 1e-6, 0.2, 1.0]), "seed": r.choice([1, 0, -1, 2**64])}  # fmt: skip
    elif which == "run_trace":
        kw = {"bits": r.choice(["", "1", "10" * 150, "0" * 50]), "slot": r.choice([0.01, 1e-9, 0, -1, 3.6e6, 1.7e7, math.nan])}
    elif which in ("sample", "filled"):
        kw = {"n": r.choice([0, 1, 1000, -1, 2**70, 1.5, True, 10**12]), "seed": r.choice([1, -1, 2**64])}
    elif which == "write_trace":
        kw = {"bits": r.choice(["", "1", "0110"]), "ext": r.choice(["bits", "string", "seq", "csv", "parquet", "ttem"])}
    elif which == "preset":
        kw = {"name": r.choice(["dumbbell", "chain"]), "n": r.choice([1, 3, 0, -1, 10**6, 10**9]),
              "access_delay": r.choice([0.005, 1e308, -1, math.nan, 1e9])}  # fmt: skip
    elif which == "network":
        kw = {"flows": r.choice([1, 2, 5]), "on": r.choice([1e-9, 1e-6, 0.01, 1.0, 0.0]), "cbr": r.choice([None, 1e6, 1e-300, 1e19])}
    else:
        kw = {"rate": num(), "rtt": num(), "bytes": r.choice([1040, 0, -1])}
    return which, kw


def check_api(which: str, kw: dict[str, Any], folder: Path) -> str:
    import burstlab.sim as s
    from burstlab import _core, io
    from burstlab.lossspec import parse_loss_spec
    from burstlab.sim import presets
    from burstlab.traces import Trace

    try:
        if which == "run":
            tcp = {k: kw[k] for k in ("init_cwnd", "rto_min") if kw[k] is not None}
            if "rto_min" in tcp:
                tcp["rto_initial"] = max(tcp["rto_min"], 1e-6) if tcp["rto_min"] > 0 else tcp["rto_min"]
            sc = s.Scenario(tcp=s.TcpConfig(**tcp), forward=s.Link(rate=kw["rate"], delay=kw["delay"], buffer=kw["buffer"],
                                                                 loss=parse_loss_spec(kw["loss"])),
                            workload=s.Workload(duration=kw["duration"], warmup=kw["warmup"], size=kw["size"]), seed=kw["seed"])  # fmt: skip
            res = s.run(sc)
            check_counters(vars(res), kw["rate"], (which, kw))
        elif which == "run_trace":
            s.run_trace(Trace.from_string(kw["bits"]), slot=kw["slot"])
        elif which == "sample":
            parse_loss_spec("bernoulli:p=0.1").sample(kw["n"], kw["seed"])
        elif which == "filled":
            _core.BitTrace.filled(kw["n"], True)
        elif which == "write_trace":
            p = folder / f"api.{kw['ext']}"
            io.write_trace(Trace.from_string(kw["bits"]), p)
            back = "".join(str(b) for b in io.read_trace(p).to_numpy())
            if back != kw["bits"]:
                raise ContractViolation(f"write_trace({kw}) did not round-trip: read back {back!r}")
        elif which == "preset":
            if kw["name"] == "dumbbell":
                net = presets.dumbbell(kw["n"], access_delay=kw["access_delay"], duration=0.2)
            else:
                net = presets.chain(hops=kw["n"], duration=0.2)
            r = s.run_network(net)
            for f in r.flows.values():
                check_counters(vars(f), 10e6 if kw["name"] == "dumbbell" else None, (which, kw))
        elif which == "network":
            hop = s.Hop("h", s.Link(rate=1e6))
            flows = [s.Flow(f"f{i}", ["h"], on_off=s.OnOff(on=kw["on"], off=kw["on"]) if kw["on"] else None) for i in range(kw["flows"])]
            if kw["cbr"] is not None:
                flows.append(s.Flow("c", ["h"], cbr=s.Cbr(kw["cbr"])))
            s.run_network(s.Network([hop], flows, duration=0.5))
        else:
            presets.bdp_packets(kw["rate"], kw["rtt"], kw["bytes"])
    except ContractViolation:
        raise
    except API_ERRORS as e:
        if isinstance(e, MemoryError) and not any(p in str(e) for p in _PRECHECKED):
            raise ContractViolation(f"{which}({kw}): memory-cap: {e}") from None
        if type(e) in (ValueError, OverflowError, TypeError) and not isinstance(e, _core.BurstlabError):
            raise ContractViolation(f"{which}({kw}): {type(e).__name__} instead of a burstlab error: {e}") from None
        return "refused"
    except Exception as e:  # noqa: BLE001 - every other exception is a finding
        raise ContractViolation(f"{which}({kw}): {type(e).__name__}: {e}") from None
    return "ok"


# ---- output paths ------------------------------------------------------------------------


@dataclass
class PathFixtures:
    """The special places outputs are tried on: made once per fuzz run."""

    folder: Path
    null: Path | None  # a private character device (1, 3)
    fifo: Path
    link_file: Path  # -> target.bits
    link_dangling: Path
    link_dir: Path  # -> a folder
    readonly: Path | None  # a read-only mount
    full: Path | None  # a full file system
    mounts: list[Path]


def _mount(where: Path, opts: str) -> bool:
    where.mkdir(exist_ok=True)
    return subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(where)], capture_output=True).returncode == 0


@contextlib.contextmanager
def path_fixtures(folder: Path) -> Iterator[PathFixtures]:
    folder = folder / "paths"
    folder.mkdir(exist_ok=True)
    null: Path | None = folder / "null"
    try:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # type: ignore[arg-type]
    except OSError:
        null = None
    fifo = folder / "fifo"
    os.mkfifo(fifo)
    (folder / "target.bits").write_text("1\n")
    (folder / "adir").mkdir()
    links = [folder / "link.bits", folder / "dangling.bits", folder / "linkdir"]
    links[0].symlink_to("target.bits")
    links[1].symlink_to("nowhere/x.bits")
    links[2].symlink_to("adir")
    mounts = []
    ro: Path | None = folder / "ro"
    if _mount(ro, "size=1m,ro"):  # type: ignore[arg-type]
        mounts.append(ro)
    else:
        ro = None
    full: Path | None = folder / "full"
    if _mount(full, "size=256k"):  # type: ignore[arg-type]
        mounts.append(full)
        with open(full / "filler", "wb") as f:  # type: ignore[operator]
            with contextlib.suppress(OSError):
                f.write(b"\0" * (1 << 20))
    else:
        full = None
    try:
        yield PathFixtures(folder, null, fifo, links[0], links[1], links[2], ro, full, mounts)
    finally:
        for m in mounts:
            subprocess.run(["umount", "-l", str(m)], capture_output=True)


def path_case(r: random.Random, fx: PathFixtures) -> tuple[str, str, bool]:
    """(writer, output path, whether a reader opens the FIFO first)."""
    places = ["-", "/dev/full", str(fx.fifo), str(fx.link_file), str(fx.link_dangling), str(fx.link_dir), str(fx.folder / "adir"),
              str(fx.folder / "new.bits"), str(fx.folder / "missing" / "x.bits"), str(fx.folder / "target.bits" / "x.bits")]  # fmt: skip
    if fx.null is not None:
        places += [str(fx.null)] * 2
    if fx.readonly is not None:
        places.append(str(fx.readonly / "x.bits"))
    if fx.full is not None:
        places += [str(fx.full / "x.bits"), str(fx.full / "sub" / "x.csv")]
    writer = r.choice(["gen", "convert", "series", "api"])
    return writer, r.choice(places), r.random() < 0.5


def _snapshot(fx: PathFixtures) -> dict[str, tuple[int, int, str]]:
    """Type, inode and link target of every special place (what must not change)."""
    out = {}
    for p in [fx.null, fx.fifo, fx.link_file, fx.link_dangling, fx.link_dir, Path("/dev/null"), Path("/dev/full")]:
        if p is None:
            continue
        st = os.lstat(p)
        out[str(p)] = (stat.S_IFMT(st.st_mode), st.st_ino, os.readlink(p) if stat.S_ISLNK(st.st_mode) else "")
    return out


def _temporaries(fx: PathFixtures) -> list[str]:
    from burstlab.files import _TEMP_RE

    found = []
    for d in [fx.folder, fx.folder / "adir", *(m for m in (fx.full, fx.readonly) if m is not None)]:
        with contextlib.suppress(OSError):
            found += [str(d / f) for f in os.listdir(d) if _TEMP_RE.match(f)]
    return found


def check_path(writer: str, out: str, reader: bool, fx: PathFixtures) -> str:
    before = _snapshot(fx)
    src = fx.folder / "src.bits"
    if not src.exists():
        src.write_text("1\n0\n1\n1\n")
    got: list[bytes] = []
    t = None
    if reader and out == str(fx.fifo):
        def read() -> None:
            with open(fx.fifo, "rb") as fh:
                got.append(fh.read())

        t = threading.Thread(target=read, daemon=True)
        t.start()
    try:
        if writer == "api":
            from burstlab import io
            from burstlab.traces import Trace

            try:
                io.write_trace(Trace.from_string("1011"), out)
                kind = "ok"
            except API_ERRORS as e:
                if type(e) in (ValueError, TypeError):
                    raise ContractViolation(f"write_trace to {out}: {type(e).__name__}: {e}") from None
                kind = "refused"
        else:
            argv = {"gen": ["gen", "bernoulli:p=0.3", "-n", "20", "-o", out], "convert": ["convert", str(src), out],
                    "series": ["sim", "--duration", "0.2s", "--series", out]}[writer]  # fmt: skip
            if writer == "series" and out.endswith(".bits"):
                argv[-1] = out[:-5] + ".csv"
            rc, o, e = _run_main(argv)
            kind = _contract(argv, rc, o, e)
    finally:
        if t is not None:
            if t.is_alive() and not got:
                with contextlib.suppress(OSError), open(os.open(fx.fifo, os.O_WRONLY | os.O_NONBLOCK), "wb"):
                    pass
            t.join(5)
    after = _snapshot(fx)
    if after != before:
        changed = [k for k in before if before[k] != after.get(k)]
        raise ContractViolation(f"{writer} -o {out}: clobbered {changed}")
    left = _temporaries(fx)
    if left:
        for f in left:
            with contextlib.suppress(OSError):
                os.unlink(f)
        raise ContractViolation(f"{writer} -o {out}: left temporary files {left}")
    for p in (fx.folder / "new.bits", fx.folder / "target.bits"):
        if p.name == "new.bits":
            with contextlib.suppress(OSError):
                p.unlink()
    return kind
