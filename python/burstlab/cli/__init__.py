"""The ``burstlab`` command line. Each command group lives in its own module and is
registered here; every error becomes a one-line message and a non-zero exit."""

from __future__ import annotations

import errno
import os
import sys
import warnings
from typing import Any

import click

from burstlab._core import BurstlabError, __version__
from burstlab.cli import (
    analytic as _analytic,
    data as _data,
    models as _models,
    netem as _netem,
    report as _report,
    shell as _shell,
    sim as _sim,
    stats as _stats,
    study as _study,
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="burstlab")
def cli() -> None:
    """burstlab: TCP over lossy, bursty links: traces, loss models, simulation, analysis."""


def _register() -> None:
    for mod in (_stats, _models, _report, _sim, _analytic, _study, _data, _netem, _shell):
        for cmd in mod.COMMANDS:
            cli.add_command(cmd)


_register()


def error_message(e: BaseException) -> str:
    """The one-line text of an error (docs/errors.md): burstlab's own messages as they are;
    an ``OSError`` as ``PATH: reason`` (``PATH -> PATH2: reason`` for a rename) rather than
    Python's ``[Errno N] reason: 'PATH'``."""
    if isinstance(e, OSError) and e.strerror and e.filename is not None:
        where = os.fsdecode(e.filename)
        if e.filename2 is not None:
            where += f" -> {os.fsdecode(e.filename2)}"
        return f"{where}: {e.strerror}"
    if isinstance(e, OSError) and e.errno == errno.ENOSPC and e.filename is None:
        return f"no space left on the device: {e}"
    if isinstance(e, MemoryError):
        if str(e).startswith("out of memory: "):  # the simulator's budget: its own advice
            return str(e)
        return f"out of memory{': ' + str(e) if str(e) else ''} (ask for less: a shorter trace, fewer packets, fewer links)"
    text = str(e) or type(e).__name__
    text = " ".join(text.splitlines())  # one line, whatever the message (or a binary file's bytes) held
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int, file: Any = None, line: str | None = None) -> None:
    """A warning is one ``warning: MESSAGE`` line on stderr, like an error (not Python's
    two-line ``FILE:LINE: Category: message`` and source line)."""
    click.echo(f"warning: {error_message(message if isinstance(message, Warning) else Warning(message))}", err=True)


def main(argv: list[str] | None = None) -> int:
    """Entry point: runs the CLI and turns every error into one line on stderr and an exit
    code (docs/errors.md): 2 for bad input (burstlab's errors, ``ValueError``, ``OSError``,
    ``MemoryError``) and click's usage errors (also one ``error:`` line), 130 for Ctrl-C,
    3 for an unexpected internal error (a bug: set ``BURSTLAB_DEBUG=1`` to see its
    traceback). A warning is one ``warning:`` line on stderr."""
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            rv = cli.main(args=argv, prog_name="burstlab", standalone_mode=False)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("aborted", err=True)
        return 130
    except click.ClickException as e:
        # click's own usage errors are one `error:` line like every other error, with
        # the help command to see what the command takes
        hint = ""
        if isinstance(e, click.UsageError) and e.ctx is not None:
            hint = f" (see '{e.ctx.command_path} -h')"
        click.echo(f"error: {error_message(click.ClickException(e.format_message()))}{hint}", err=True)
        return e.exit_code
    except (BurstlabError, OSError, ValueError, MemoryError) as e:
        click.echo(f"error: {error_message(e)}", err=True)
        return 2
    except Exception as e:  # a bug: still one line, never a traceback unless asked for
        if type(e).__name__ == "InterruptException" or "Query interrupted" in str(e):
            click.echo("aborted", err=True)  # Ctrl-C inside a DuckDB query
            return 130
        if os.environ.get("BURSTLAB_DEBUG"):
            raise
        click.echo(f"error: internal error ({type(e).__name__}: {error_message(e)}); set BURSTLAB_DEBUG=1 for the traceback and please report it", err=True)
        return 3
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":
    sys.exit(main())
