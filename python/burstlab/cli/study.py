"""``burstlab study prr-mu``: Srinivasan et al.'s PRR/μ study from traces to figures and a report."""

from __future__ import annotations

import click

from burstlab.cli.options import FORMAT, count

#: Options that only one input uses: giving one for another input is a usage error, not
#: a silent no-op (docs/errors.md "Combinations").
_ONLY_FOR = {
    "n_links": ("--links", "synthetic"),
    "n_slots": ("--slots", "synthetic"),
    "rutgers_noise": ("--noise", "rutgers"),
    "signal_dbm": ("--signal-dbm", "tossim"),
    "targets": ("--targets", "tossim"),
    "segment": ("--segment", "tossim"),
    "fmt": ("--format", "traces"),
}


def _check_applicable(ctx: click.Context, ds: str) -> None:
    from click.core import ParameterSource

    wrong = [(opt, only) for name, (opt, only) in _ONLY_FOR.items() if only != ds and ctx.get_parameter_source(name) is not ParameterSource.DEFAULT]
    if wrong:
        what = "; ".join(f"{opt} is for {'--traces' if only == 'traces' else '--dataset ' + only}" for opt, only in wrong)
        raise click.UsageError(f"{', '.join(o for o, _ in wrong)} {'has' if len(wrong) == 1 else 'have'} no effect with "
                               f"{'--traces' if ds == 'traces' else '--dataset ' + ds} ({what})")


def _check_memory(n_links: int, n_slots: int) -> None:
    """The synthetic testbed holds every link's packed trace at once (1 bit per slot): refuse,
    naming the options, a size the machine cannot hold."""
    from burstlab._core import ParameterError, available_memory

    need = n_links * ((n_slots + 63) // 64) * 8
    avail = available_memory()
    if avail is not None and need > avail:
        raise ParameterError(
            f"invalid --slots = {n_slots} with --links = {n_links}: the testbed's packed traces need {need / 1e9:.3g} GB, "
            f"only {avail / 1e9:.3g} GB of memory is available"
        )


@click.group("study")
def study_group() -> None:
    """The papers' studies, end to end (traces → simulations → fits → figures → report)."""


def _floats(s: str | None, name: str) -> tuple[float, ...] | None:
    if s is None:
        return None
    try:
        return tuple(float(x) for x in s.split(",") if x.strip())
    except ValueError:
        raise click.BadParameter(f"expected comma-separated numbers, got {s!r}", param_hint=name) from None


@study_group.command("prr-mu")
@click.pass_context
@click.option("--dataset", type=click.Choice(["synthetic", "rutgers", "tossim"]), default=None, help="Named input (default: the built-in synthetic testbed).")
@click.option("--traces", "traces_dir", type=click.Path(file_okay=False), default=None, help="A folder of trace files instead of a named dataset.")
@click.option("--format", "fmt", type=FORMAT, default=None, help="Trace format for --traces (default: detected).")
@click.option("--out", "out", type=click.Path(file_okay=False), default=None, help="Output folder (default: results/prr-mu-<dataset>).")
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Local worker processes (default: all cores).")
@click.option("--cluster", default=None, help="Dask scheduler address (tcp://host:port) to run the tasks on.")
@click.option("--seeds", "replicates", type=int, default=5, show_default=True, help="Seeds per synthetic condition (independent, GE).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True, help="Study seed.")
@click.option("--profile", type=click.Choice(["mirage", "roofnet"]), default=None, help="Srinivasan et al. timers and slot (default per dataset).")
@click.option("--ack-path", type=click.Choice(["lossless", "trace"]), default="lossless", show_default=True)
@click.option("--rto-backoff-reset", type=click.Choice(["sample", "new_ack"]), default="sample", show_default=True,
              help="When a backed-off RTO collapses: at a new RTT sample (RFC 6298, Karn) or on any new ACK (ns-3, Linux).")
@click.option("--prr-range", nargs=2, type=float, default=(0.1, 0.9), show_default=True, help="PRR range of the links simulated.")
@click.option("--fit-range", nargs=2, type=float, default=(0.2, 0.6), show_default=True, help="PRR range of the links fitted.")
@click.option("--folds", type=int, default=5, show_default=True, help="k for the cross-validated fit errors.")
@click.option("--links", "n_links", type=int, default=60, show_default=True, help="Synthetic testbed: number of links.")
@click.option("--slots", "n_slots", type=count(), default=100_000, show_default=True, help="Synthetic testbed: slots per link.")
@click.option("--max-links", type=int, default=None, help="Only the first N eligible links (by id).")
@click.option("--noise", "rutgers_noise", default=None, help="Rutgers: comma-separated noise levels (e.g. dbm0,dbm-5).")
@click.option("--signal-dbm", default=None, help="TOSSIM: comma-separated signal strengths in dBm (default: solved for --targets).")
@click.option("--targets", default=None, help="TOSSIM: comma-separated expected PRRs the signal strengths are solved for.")
@click.option("--segment", type=int, default=98_304, show_default=True, help="TOSSIM: noise samples per derived link (0: the whole file).")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
def prr_mu_cmd(ctx: click.Context, dataset: str | None, traces_dir: str | None, fmt: str | None, out: str | None, workers: int | None, cluster: str | None,
               replicates: int, seed: int, profile: str | None, ack_path: str, rto_backoff_reset: str, prr_range: tuple[float, float], fit_range: tuple[float, float],
               folds: int, n_links: int, n_slots: int, max_links: int | None, rutgers_noise: str | None, signal_dbm: str | None,
               targets: str | None, segment: int, no_progress: bool) -> None:
    """Srinivasan et al.'s method on every link: PRR, μ, TCP NewReno over the trace, over independent and
    Gilbert-Elliott links with the same PRR (and μ), the differences, μ convergence, the L1 fits
    (PRR only, second order, 15 terms); writes a results store, figures and a report."""
    from burstlab.experiments.prr_mu import StudyConfig, run_study

    if traces_dir and dataset:
        raise click.UsageError("give either --dataset or --traces, not both")
    ds = "traces" if traces_dir else (dataset or "synthetic")
    _check_applicable(ctx, ds)
    if ds == "synthetic" and n_links >= 1 and n_slots >= 2:
        _check_memory(n_links, n_slots)
    cfg = StudyConfig(
        dataset=ds,
        traces_dir=traces_dir,
        fmt=fmt,
        profile=profile,
        replicates=replicates,
        seed=seed,
        ack_path=ack_path,
        rto_backoff_reset=rto_backoff_reset,
        prr_range=tuple(prr_range),  # type: ignore[arg-type]
        fit_range=tuple(fit_range),  # type: ignore[arg-type]
        folds=folds,
        n_links=n_links,
        n_slots=n_slots,
        max_links=max_links,
        rutgers_noise=tuple(x.strip() for x in rutgers_noise.split(",")) if rutgers_noise else None,
        tossim_targets=_floats(targets, "--targets"),
        tossim_signal_dbm=_floats(signal_dbm, "--signal-dbm"),
        tossim_segment=segment or None,
    )
    out_dir = out or f"results/prr-mu-{ds}"
    res = run_study(cfg, out_dir, workers=workers, cluster=cluster, progress=not no_progress, log=lambda s: click.echo(s, err=True))
    click.echo(f"{res.ran} simulations run, {res.skipped} reused from the store, {res.elapsed_s:.1f} s")
    for r in res.fig13:
        click.echo(f"fit error ×1e-2 [{r['group']}]: PRR only {100 * r['err_prr']:.2f}, 2nd order {100 * r['err_2nd']:.2f}, 15 term {100 * r['err_15']:.2f} "
                   f"(CV: {100 * r['cv_err_prr']:.2f}, {100 * r['cv_err_2nd']:.2f}, {100 * r['cv_err_15']:.2f})")
    click.echo(f"report: {res.report_md.resolve()}")
    click.echo(f"report (HTML): {res.report_html.resolve()}")


COMMANDS = [study_group]
