"""The ``burstlab`` command line. Each command group lives in its own module and is
registered here; every error becomes a one-line message and a non-zero exit."""

from __future__ import annotations

import sys

import click

from burstlab import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="burstlab")
def cli() -> None:
    """burstlab: TCP over lossy, bursty links: traces, loss models, simulation, analysis."""


def _register() -> None:
    from burstlab.cli import analytic as _analytic
    from burstlab.cli import models as _models
    from burstlab.cli import sim as _sim
    from burstlab.cli import stats as _stats
    from burstlab.cli import study as _study

    for mod in (_stats, _models, _sim, _analytic, _study):
        for cmd in mod.COMMANDS:
            cli.add_command(cmd)


_register()


def main(argv: list[str] | None = None) -> int:
    """Entry point: runs the CLI and maps burstlab and OS errors to a message and exit 2."""
    from burstlab import BurstlabError

    try:
        rv = cli.main(args=argv, prog_name="burstlab", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 130
    except click.ClickException as e:
        e.show()
        return e.exit_code
    except (BurstlabError, OSError, ValueError) as e:
        click.echo(f"error: {e}", err=True)
        return 2
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":
    sys.exit(main())
