"""``burstlab netem MODEL``: the Linux netem command that expresses a loss model, and what it
cannot express (``burstlab.netem``). stdout is a shell script: the ``tc`` line, then ``#``
comment lines saying whether it is exact and what it keeps and loses."""

from __future__ import annotations

import json

import click

from burstlab.cli.options import SEED, SEED_MAX, count


@click.command("netem")
@click.argument("model", metavar="MODEL")
@click.option("--dev", default="DEV", show_default=True, help="The interface whose egress netem shapes.")
@click.option("--samples", default=1_000_000, show_default=True, type=count(2, 10**9),
              help="Packets sampled from a model netem cannot express exactly, to find the closest two-state chain.")
@click.option("--seed", default=1, show_default=True, type=SEED, help=f"Seed of that sample (0 to {SEED_MAX}).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def netem_cmd(model: str, dev: str, samples: int, seed: int, as_json: bool) -> None:
    """Print the `tc qdisc ... netem` command for MODEL (a loss spec as `gen` takes it, e.g.
    bernoulli:p=0.02, ge:b=0.01,g=0.3, runlength:..., or @model.json from `fit --save`), and
    say exactly what netem loses where it cannot express the model."""
    # burstlab.netem imports numpy and the models: deferred so that `burstlab --help` stays fast.
    from burstlab.netem import to_netem

    n = to_netem(model, samples=samples, seed=seed)
    if as_json:
        click.echo(json.dumps({**n.to_dict(), "command": n.command(dev)}, indent=1))
        return
    click.echo(n.command(dev))
    if n.exact:
        click.echo(f"# exact: netem's process is the {n.model} model itself")
    else:
        click.echo(f"# approximate: the two-state chain with the transition counts of {n.samples} packets of the {n.model} model")
    for k in n.kept:
        click.echo(f"# kept: {k}")
    for t in n.tails:
        click.echo(f"# {t.sentence()}")
    for lost in n.lost:
        click.echo(f"# not expressed: {lost}")


COMMANDS = [netem_cmd]
