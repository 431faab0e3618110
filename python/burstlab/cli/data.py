"""``burstlab data``: the dataset registry on the command line (docs/datasets.md).

``list`` the registered datasets, ``info NAME`` one in full, ``fetch NAME…`` download and
check, ``path NAME`` where it is on this machine, ``verify [NAME…]`` check local copies
byte for byte (size and SHA-256) against the registry."""

from __future__ import annotations

import click

DATA_OPTION = click.option(
    "--data",
    "data",
    type=click.Path(file_okay=False),
    default=None,
    help="An offline mirror folder holding DIR/NAME/... (default: $BURSTLAB_DATA, then $BURSTLAB_SHARED/data, then the user cache).",
)


def _human(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000  # type: ignore[assignment]
    return f"{n} B"


@click.group("data")
def data_group() -> None:
    """Real datasets: list, info (describe one), fetch (download), path (locate) and verify."""


@data_group.command("list")
@DATA_OPTION
def list_cmd(data: str | None) -> None:
    """The registered datasets, their size and whether they are on this machine."""
    from burstlab.datasets.fetch import DatasetError, locate
    from burstlab.datasets.registry import datasets

    rows = []
    for d in datasets():
        try:
            where = f"{locate(d.name, data).source}"
        except DatasetError:
            where = "not here"
        rows.append((d.name, d.kind, f"{len(d.files)} files, {_human(d.size)}", where, d.title))
    w = [max(len(r[i]) for r in rows) for i in range(4)]
    click.echo(f"{'name':<{w[0]}}  {'kind':<{w[1]}}  {'files':<{w[2]}}  {'local':<{w[3]}}  title")
    for r in rows:
        click.echo(f"{r[0]:<{w[0]}}  {r[1]:<{w[1]}}  {r[2]:<{w[2]}}  {r[3]:<{w[3]}}  {r[4]}")


@data_group.command("info")
@click.argument("name")
@DATA_OPTION
def info_cmd(name: str, data: str | None) -> None:
    """Everything the registry says about NAME: origin, licence, citation, timing, what it
    can and cannot support."""
    from burstlab.datasets.fetch import DatasetError, locate
    from burstlab.datasets.registry import get

    d = get(name)
    try:
        local = locate(d.name, data)
        here = f"{local.root} (from {local.source})"
    except DatasetError:
        here = f"not on this machine ('burstlab data fetch {d.name}')"
    lines = [
        f"{d.name}: {d.title}",
        f"  aliases:     {', '.join(d.aliases) or '-'}",
        f"  kind:        {d.kind}",
        f"  origin:      {d.origin}",
        f"  licence:     {d.licence}",
        f"  cite:        {d.citation}",
        f"  files:       {len(d.files)}, {_human(d.size)}",
        f"  links:       {d.links}, {d.length_per_link} each",
        f"  timing:      {d.timing.kind}"
        + (f", {d.timing.interval} s" if d.timing.interval else "")
        + (f", profile {d.timing.profile}" if d.timing.profile else "")
        + f": {d.timing.note}",
        f"  good for:    {d.good_for}",
        f"  too short for: {d.too_short_for}",
        f"  about:       {d.description}",
        "  studies:",
    ]
    for study, (ok, why) in d.supports.items():
        lines.append(f"    {study:<15} {'yes' if ok else 'no '}  {why}")
    lines.append(f"  local copy:  {here}")
    click.echo("\n".join(lines))


@data_group.command("fetch")
@click.argument("names", nargs=-1, required=True)
@click.option("--dest", type=click.Path(file_okay=False), default=None, help="Download into DEST/NAME instead of the user cache.")
def fetch_cmd(names: tuple[str, ...], dest: str | None) -> None:
    """Download NAME (one or more; 'all' for every dataset) from its pinned origin (or
    $BURSTLAB_DATA_URL/NAME/), checking each file's SHA-256; files already there and intact
    are kept."""
    from burstlab.datasets.fetch import fetch
    from burstlab.datasets.registry import datasets, get

    wanted = [d.name for d in datasets()] if names == ("all",) else [get(n).name for n in names]
    for n in wanted:
        state = {"last": -1}

        def progress(done: int, total: int, n: str = n) -> None:
            # at most ~20 lines per dataset, on stderr
            step = max(1, total // 20)
            if done == total or done - state["last"] >= step:
                state["last"] = done
                click.echo(f"{n}: {done}/{total} files", err=True)

        local = fetch(n, dest=dest, progress=progress)
        click.echo(f"{n}: {local.root}")


@data_group.command("path")
@click.argument("name")
@DATA_OPTION
def path_cmd(name: str, data: str | None) -> None:
    """The folder holding NAME on this machine (an error saying how to get it otherwise)."""
    from burstlab.datasets.fetch import locate

    click.echo(str(locate(name, data).root))


@data_group.command("verify")
@click.argument("names", nargs=-1)
@DATA_OPTION
def verify_cmd(names: tuple[str, ...], data: str | None) -> int:
    """Check every local copy of NAME (default: every dataset) against the registry, file by
    file (size, SHA-256). Exit 1 if a copy differs; datasets with no local copy are listed."""
    from burstlab.datasets.fetch import LocalDataset, folders, verify
    from burstlab.datasets.registry import datasets, get

    wanted = [get(n) for n in names] if names else list(datasets())
    bad = 0
    for d in wanted:
        found = folders(d.name, data)
        if not found:
            click.echo(f"{d.name}: no local copy")
            continue
        for source, root in found:
            problems = verify(LocalDataset(d, root, source))
            if not problems:
                click.echo(f"{d.name}: {root} ({source}): ok, {len(d.files)} files")
                continue
            bad += 1
            click.echo(f"{d.name}: {root} ({source}): {len(problems)} of {len(d.files)} files differ from the registry")
            for p in problems[:10]:
                click.echo(f"  {p.path}: {p.what}")
            if len(problems) > 10:
                click.echo(f"  ... and {len(problems) - 10} more")
    return 1 if bad else 0


COMMANDS = [data_group]
