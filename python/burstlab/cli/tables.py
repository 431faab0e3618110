"""The one table style of the commands' printed results (``stats``, ``fit``, ``report``):
a Rich table, a title above it, the first column (names) left-aligned and every other
(numbers) right-aligned, as wide as the terminal (200 columns into a file or a pipe, so that
no row is folded). Goodputs are in segments/s everywhere."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def print_table(heads: Sequence[str], rows: Sequence[Sequence[str]], title: str | None = None, left: int = 1) -> None:
    """Print ``rows`` under ``heads`` to stdout; the first ``left`` columns are prose (left-aligned)."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, show_lines=False)
    for i, h in enumerate(heads):
        table.add_column(h, justify="left" if i < left else "right", overflow="fold" if i < left else "ellipsis")
    for r in rows:
        table.add_row(*r)
    Console(width=None if sys.stdout.isatty() else 200, soft_wrap=False).print(table)


__all__ = ["print_table"]
