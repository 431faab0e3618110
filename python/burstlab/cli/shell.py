"""``burstlab shell [OPTIONS | SCENARIO.toml] -- COMMAND ...``: run COMMAND with its traffic
through burstlab's links under the real network stack (``burstlab.shell``, docs/shell.md).
Each option applies to both directions; ``--uplink-*`` / ``--downlink-*`` set one direction
(uplink: out of the shell, downlink: back in); a scenario file sets both from its flow's path
(``burstlab.shell_scenario``)."""

from __future__ import annotations

from typing import Any

import click
from click.core import ParameterSource

from burstlab import ParameterError
from burstlab.cli.options import SEED, SEED_MAX, TracePath, count
from burstlab.lossspec import parse_loss_spec
from burstlab.units import RATE, TIME

_CONTEXT = {"ignore_unknown_options": True, "allow_interspersed_args": False}


def _both(name: str, **kw: Any) -> Any:
    """--NAME (both directions) with --uplink-NAME and --downlink-NAME overrides."""
    help_ = kw.pop("help")

    def deco(f: Any) -> Any:
        f = click.option(f"--downlink-{name}", default=None, type=kw.get("type"), help=f"{help_} (downlink only).")(f)
        f = click.option(f"--uplink-{name}", default=None, type=kw.get("type"), help=f"{help_} (uplink only).")(f)
        return click.option(f"--{name}", help=help_, **kw)(f)

    return deco


@click.command("shell", context_settings=_CONTEXT)
@_both("rate", default=None, type=RATE, help="Link capacity, e.g. 10Mbit [default: no limit]")
@_both("capacity", default=None, type=TracePath(kinds=("capacity",)),
       help="Mahimahi capacity trace (instead of --rate): a file, or mahimahi-cellular:FILE")  # fmt: skip
@_both("delay", default="0ms", type=TIME, help="One-way propagation delay, e.g. 20ms [default: 0]")
@_both("buffer", default=1000, type=count(0), help="DropTail buffer, packets waiting behind the one in service [default: 1000]")
@_both("loss", default="none", help="Loss spec, e.g. bernoulli:p=0.01 or @fit.json (docs/loss-models.md) [default: none]")
@click.option("--loss-mode", default="packet", show_default=True, type=click.Choice(["packet", "time"]),
              help="Ask the loss model per packet, or about the time a packet occupies the link.")
@_both("link-layer", default="none", help="Link layer, e.g. arq:retry_limit=7 (docs/link-layer.md) [default: none]")
@click.option("--cc", default=None, metavar="NAME",
              help="The kernel's TCP congestion control inside the shell (reno, cubic, bbr, ...) [default: the kernel's].")
@click.option("--seed", default=1, show_default=True, type=SEED, help=f"Seed of the loss streams (0 to {SEED_MAX}).")
@click.option("--log", "log_path", default=None, type=click.Path(dir_okay=False), help="Write every packet's fate here (Parquet).")
@click.option("--replay", "replay_path", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Apply the fates logged by an earlier --log instead of drawing them.")
@click.option("--replay-key", default="packet", show_default=True, type=click.Choice(["packet", "segment"]),
              help="Match a logged fate to a packet by its number in the direction, or by what it is (TCP segment or ACK and its transmission).")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@click.pass_context
def shell_cmd(ctx: click.Context, command: tuple[str, ...], log_path: str | None, replay_path: str | None, replay_key: str, loss_mode: str,
              seed: int, cc: str | None, **kw: Any) -> None:
    """Run COMMAND in a network namespace whose traffic crosses an emulated path: each
    direction a burstlab link (rate or capacity trace, delay, DropTail buffer, loss model,
    link layer), from the options or from a scenario file (burstlab shell SCENARIO.toml --
    COMMAND: its one flow's hop each way). The outside is 100.64.0.1 ($BURSTLAB_SHELL_PEER
    in the shell). Needs root. Exits with COMMAND's status; prints each direction's counters
    on stderr."""
    # burstlab.shell imports numpy, the models and the simulator's link settings: deferred so
    # that `burstlab --help` stays fast
    from burstlab import shell
    from burstlab.io import read_mahimahi

    def pick(name: str, direction: str) -> Any:
        v = kw[f"{direction}_{name}"]
        return kw[name] if v is None else v

    if len(command) >= 2 and command[1] == "--" and command[0].endswith(".toml"):
        # burstlab shell SCENARIO.toml -- COMMAND: the path from a scenario file
        from burstlab.shell_scenario import load_shell_scenario

        given = [f"--{k.replace('_', '-')}" for k in (*kw, "loss_mode")
                 if ctx.get_parameter_source(k) not in (ParameterSource.DEFAULT, None)]  # fmt: skip
        if given:
            raise ParameterError(f"{command[0]}: the scenario file sets the path; give it or the link options ({', '.join(given)}), not both")
        explicit = ctx.get_parameter_source("seed") not in (ParameterSource.DEFAULT, None)
        sc_path = command[0]
        sc = load_shell_scenario(sc_path, seed if explicit else None)
        up, down, command = sc.uplink, sc.downlink, command[2:]
        if not command:
            raise ParameterError(f"{sc_path}: expected a command after the scenario and --")
    else:
        dirs = []
        for i, d in enumerate(("uplink", "downlink")):
            cap = pick("capacity", d)
            dirs.append(shell.Direction(
                rate=pick("rate", d), capacity=None if cap is None else read_mahimahi(cap), delay=pick("delay", d),
                buffer=pick("buffer", d), loss=parse_loss_spec(pick("loss", d)), loss_mode=loss_mode,
                link_layer=pick("link_layer", d), seed=seed + i,
            ))  # fmt: skip
        up, down = dirs
    if replay_path is not None:
        up, down = shell.with_replay(up, down, replay_path, replay_key)
    res = shell.run(list(command), up, down, log=log_path is not None or replay_path is not None, cc=cc)
    for name in ("uplink", "downlink"):
        r = getattr(res, name)
        click.echo(
            f"{name}: {r['packets']} packets, {r['delivered']} delivered, {r['lost']} lost, {r['queue_drops']} dropped by the full buffer; "
            f"written {r['late_mean'] * 1e6:.0f} µs after their time on average (at most {r['late_max'] * 1e3:.2f} ms)"
            + (f"; {r['replay_past_end']} past the end of the replayed log (delivered)" if r["replay_past_end"] else "")
            + (f"; {r['replay_unmatched']} not in the replayed log (delivered)" if r["replay_unmatched"] else ""),
            err=True,
        )
    if log_path is not None:
        n = shell.write_log(res, log_path)
        click.echo(f"wrote {n} packets' fates to {log_path}", err=True)
    ctx.exit(res.returncode)


COMMANDS = [shell_cmd]
