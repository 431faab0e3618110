"""``burstlab study``: the papers' studies — ``prr-mu`` (Srinivasan et al.'s PRR/μ study),
``error-models`` (Pentikousis & Badr's error models), ``tibet`` (Martignon & Capone's TIBET),
``hybrid`` (Barsocchi, Oligeri and Potortì's satellite/Wi-Fi path) and ``link-transport``
(Subramanian et al.'s link and transport protocols) — from inputs to figures and a report."""

from __future__ import annotations

from typing import Any

import click

from burstlab._core import ParameterError, available_memory
from burstlab.cli.options import FORMAT, count
from burstlab.experiments import error_models_settings as EM
from burstlab.experiments import tibet_settings as TB
from burstlab.sim import VARIANTS
from burstlab.study import settings
from burstlab.units import RATE, SIZE, TIME

#: Options that only some inputs use: giving one for another input is a usage error, not
#: a silent no-op (docs/errors.md "Combinations").
_ONLY_FOR = {
    "n_links": ("--links", ("synthetic",)),
    "n_slots": ("--slots", ("synthetic",)),
    "noise": ("--noise", ("rutgers", "tossim")),
    "signal_dbm": ("--signal-dbm", ("tossim",)),
    "targets": ("--targets", ("tossim",)),
    "segment": ("--segment", ("tossim",)),
    "fmt": ("--format", ("traces",)),
    "expected": ("--expected", ("traces",)),
    "drop_beyond": ("--drop-beyond", ("traces",)),
    "one_means": ("--one-means", ("traces",)),
}


def _input_name(ds: str) -> str:
    return "--traces" if ds == "traces" else f"--dataset {ds}"


def _check_applicable(ctx: click.Context, ds: str) -> None:
    from click.core import ParameterSource

    wrong = [(opt, only) for name, (opt, only) in _ONLY_FOR.items() if ds not in only and ctx.get_parameter_source(name) is not ParameterSource.DEFAULT]
    if wrong:
        what = "; ".join(f"{opt} is for {' or '.join(_input_name(o) for o in only)}" for opt, only in wrong)
        raise click.UsageError(f"{', '.join(o for o, _ in wrong)} {'has' if len(wrong) == 1 else 'have'} no effect with {_input_name(ds)} ({what})")


def _check_memory(n_links: int, n_slots: int) -> None:
    """The synthetic testbed holds every link's packed trace at once (1 bit per slot): refuse,
    naming the options, a size the machine cannot hold."""
    need = n_links * ((n_slots + 63) // 64) * 8
    avail = available_memory()
    if avail is not None and need > avail:
        raise ParameterError(
            f"invalid --slots = {n_slots} with --links = {n_links}: the testbed's packed traces need {need / 1e9:.3g} GB, "
            f"only {avail / 1e9:.3g} GB of memory is available"
        )


def _parallel(f: Any) -> Any:
    """``--workers`` and ``--cluster``: where a study's tasks run (``burstlab.sweep``)."""
    f = click.option("--cluster", default=None, help="Dask scheduler address (tcp://host:port) to run the tasks on.")(f)
    return click.option("--workers", type=click.IntRange(min=1), default=None, help="Local worker processes (default: all cores).")(f)


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


#: ``study prr-mu --quick``: seeds per condition, links at most, synthetic links and slots.
QUICK_PRR_MU = {"replicates": 2, "max_links": 24, "n_links": 24, "n_slots": 30_000}


@study_group.command("prr-mu")
@click.pass_context
@click.option("--dataset", type=click.Choice(["synthetic", "rutgers", "tossim", "starlink"]), default=None, help="Named input (default: the built-in synthetic testbed; docs/datasets.md).")
@click.option("--timing", type=click.Choice(["slots", "time"]), default="slots", show_default=True,
              help="--dataset starlink: one probe per slot, or the probes replayed in time on the profile's slot (docs/datasets.md).")
@click.option("--traces", "traces_dir", type=click.Path(file_okay=False), default=None, help="A folder of trace files instead of a named dataset.")
@click.option("--format", "fmt", type=FORMAT, default=None, help="Trace format for --traces (default: detected).")
@click.option("--expected", type=click.IntRange(min=1), default=None, help="--traces seqlist files: packets sent per link (an empty file is then an all-lost link).")
@click.option("--drop-beyond", is_flag=True, help="--traces seqlist files: drop (and count) sequence numbers ≥ --expected instead of stopping.")
@click.option("--one-means", type=click.Choice(["received", "lost"]), default="received", show_default=True, help="--traces bits/string files: what a 1 means.")
@click.option("--subsample", type=click.IntRange(min=1), default=1, show_default=True,
              help="Keep every K-th entry of every trace (Srinivasan et al. §8, Fig. 14; `burstlab convert --every K` does it to a file).")
@click.option("--out", "out", type=click.Path(file_okay=False), default=None, help="Output folder (default: results/prr-mu-<dataset>).")
@_parallel
@click.option("--seeds", "replicates", type=int, default=5, show_default=True, help="Seeds per synthetic condition (independent, GE).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True, help="Study seed.")
@click.option("--profile", type=click.Choice(["mirage", "roofnet"]), default=None, help="Srinivasan et al. timers and slot (default per dataset).")
@click.option("--tcp-profile", type=click.Choice(["tossim", "rfc"]), default="tossim", show_default=True,
              help="TCP: Srinivasan et al.'s TinyOS/TOSSIM NewReno as reconstructed in docs/study.md, or the RFC behaviour of `burstlab sim`.")
@click.option("--tcp", "tcp_variant", type=click.Choice(list(VARIANTS)), default="newreno", show_default=True,
              help="Congestion control and loss recovery over the TCP profile's timers and receiver (newreno: Srinivasan et al.'s; bbr: does burstiness matter to BBR?).")
@click.option("--ack-path", type=click.Choice(["lossless", "trace"]), default="lossless", show_default=True)
@click.option("--rto-backoff-reset", type=click.Choice(["sample", "new_ack"]), default="sample", show_default=True,
              help="With --tcp-profile rfc: when a backed-off RTO collapses, at a new RTT sample (RFC 6298, Karn) or on any new ACK (ns-3, Linux).")
@click.option("--prr-range", nargs=2, type=float, default=(0.1, 0.9), show_default=True, help="PRR range of the links simulated.")
@click.option("--fit-range", nargs=2, type=float, default=(0.2, 0.6), show_default=True, help="PRR range of the links fitted.")
@click.option("--folds", type=int, default=5, show_default=True, help="k for the cross-validated fit errors.")
@click.option("--links", "n_links", type=int, default=60, show_default=True, help="Synthetic testbed: number of links.")
@click.option("--slots", "n_slots", type=count(), default=100_000, show_default=True, help="Synthetic testbed: slots per link.")
@click.option("--max-links", type=int, default=None, help="Only the first N eligible links (by id).")
@click.option("--noise", "noise", default=None,
              help="Rutgers: comma-separated noise levels (e.g. dbm0,dbm-5). TOSSIM: comma-separated noise trace files (any TOSSIM noise trace, one dBm reading per line).")
@click.option("--signal-dbm", default=None, help="TOSSIM: comma-separated signal strengths in dBm (default: solved for --targets).")
@click.option("--targets", default=None, help="TOSSIM: comma-separated expected PRRs the signal strengths are solved for.")
@click.option("--segment", type=int, default=98_304, show_default=True, help="TOSSIM: noise samples per derived link (0: the whole file).")
@click.option("--pdf/--no-pdf", default=False, show_default=True, help="Also write every figure as PDF.")
@click.option("--no-progress", is_flag=True, help="No progress bar (one line per phase and finished link instead).")
@click.option("--quick", is_flag=True, help=f"A preview: {QUICK_PRR_MU['replicates']} seeds per condition, at most {QUICK_PRR_MU['max_links']} links "
              f"(synthetic: {QUICK_PRR_MU['n_links']} links × {QUICK_PRR_MU['n_slots']} slots) unless given; every verdict marked 'preview: not evidence'.")
def prr_mu_cmd(ctx: click.Context, dataset: str | None, timing: str, traces_dir: str | None, fmt: str | None, expected: int | None, drop_beyond: bool, one_means: str, subsample: int,
               out: str | None, workers: int | None, cluster: str | None,
               replicates: int, seed: int, profile: str | None, tcp_profile: str, tcp_variant: str, ack_path: str, rto_backoff_reset: str, prr_range: tuple[float, float], fit_range: tuple[float, float],
               folds: int, n_links: int, n_slots: int, max_links: int | None, noise: str | None, signal_dbm: str | None,
               targets: str | None, segment: int, pdf: bool, no_progress: bool, quick: bool) -> None:
    """Srinivasan et al.'s method on every link: PRR, μ, TCP NewReno over the trace, over independent and
    Gilbert-Elliott links with the same PRR (and μ), the differences, μ convergence, the L1 fits
    (PRR only, second order, 15 terms); writes a results store, figures and a report."""
    from burstlab.experiments.prr_mu import StudyConfig, run_study

    if traces_dir and dataset:
        raise click.UsageError("give either --dataset or --traces, not both")
    ds = "traces" if traces_dir else (dataset or "synthetic")
    _check_applicable(ctx, ds)
    from click.core import ParameterSource

    if ds != "starlink" and ctx.get_parameter_source("timing") is not ParameterSource.DEFAULT:
        raise click.UsageError(f"--timing is for --dataset starlink, not {_input_name(ds)}")
    if ds == "synthetic" and n_links >= 1 and n_slots >= 2:
        _check_memory(n_links, n_slots)
    noise_list = tuple(x.strip() for x in noise.split(",") if x.strip()) if noise else None
    if quick:  # the preview's sizes, where the command line does not give its own
        given = {k for k in QUICK_PRR_MU if ctx.get_parameter_source(k) is not ParameterSource.DEFAULT}
        replicates = replicates if "replicates" in given else QUICK_PRR_MU["replicates"]
        max_links = max_links if "max_links" in given else QUICK_PRR_MU["max_links"]
        n_links = n_links if "n_links" in given else QUICK_PRR_MU["n_links"]
        n_slots = n_slots if "n_slots" in given else QUICK_PRR_MU["n_slots"]
    cfg = StudyConfig(
        quick=quick,
        dataset=ds,
        traces_dir=traces_dir,
        fmt=fmt,
        profile=profile,
        replicates=replicates,
        seed=seed,
        ack_path=ack_path,
        tcp_profile=tcp_profile,
        tcp_variant=tcp_variant,
        rto_backoff_reset=rto_backoff_reset,
        prr_range=tuple(prr_range),  # type: ignore[arg-type]
        fit_range=tuple(fit_range),  # type: ignore[arg-type]
        folds=folds,
        n_links=n_links,
        n_slots=n_slots,
        max_links=max_links,
        rutgers_noise=noise_list if ds == "rutgers" else None,
        tossim_noise_files=noise_list if ds == "tossim" else None,
        traces_expected=expected,
        traces_drop_beyond=drop_beyond,
        traces_one_means=one_means,
        subsample=subsample,
        tossim_targets=_floats(targets, "--targets"),
        tossim_signal_dbm=_floats(signal_dbm, "--signal-dbm"),
        tossim_segment=segment or None,
        timing=timing,
    )
    out_dir = out or f"results/prr-mu-{ds}"
    res = run_study(cfg, out_dir, workers=workers, cluster=cluster, progress=not no_progress, log=lambda s: click.echo(s, err=True),
                    formats=("png", "pdf") if pdf else ("png",))
    click.echo(f"{res.ran} simulations run, {res.skipped} reused from the store, {res.elapsed_s:.1f} s")

    def e(v: float) -> str:
        return "-" if v != v else f"{100 * v:.2f}"  # NaN: the fit was not made

    for r in res.fig13:
        click.echo(f"fit error ×1e-2 [{r['group']}]: PRR only {e(r['err_prr'])}, 2nd order {e(r['err_2nd'])}, 15 term {e(r['err_15'])} "
                   f"(CV: {e(r['cv_err_prr'])}, {e(r['cv_err_2nd'])}, {e(r['cv_err_15'])})")
    click.echo(f"claims of the paper: {claims_line(res.claims)} (report: claims table)")
    click.echo(f"report: {res.report_md.resolve()}")
    click.echo(f"report (HTML): {res.report_html.resolve()}")


def claims_line(claims: list[dict[str, Any]]) -> str:
    """The tally of a study's judged claims (:func:`burstlab.study.verdict.tally`'s sentence,
    from the rows of ``claims.csv``): reproduced / contradicted / inconclusive, calibration
    checks apart, "preview: not evidence" for a ``--quick`` run."""
    from burstlab.study.verdict import OUTCOMES, PREVIEW

    counts = {o: sum(1 for c in claims if c["verdict"] == o and not c["calibration"]) for o in OUTCOMES}
    cal = sum(1 for c in claims if c["calibration"])
    s = f"{sum(counts.values())} claims: " + ", ".join(f"{counts[o]} {o}" for o in OUTCOMES)
    s += f" (and {cal} calibration checks, not counted)" if cal else ""
    return s + (f" — {PREVIEW}" if any(c["preview"] for c in claims) else "")


def _run_cell_study(run_study: Any, config: Any, setup: Any, kw: dict[str, object], *, quick: bool, seeds: int | None, sweep_seeds: int | None,
                    seed: int, no_sweep: bool, out: str, workers: int | None, cluster: str | None, no_progress: bool, pdf: bool,
                    budget: int | None = None) -> None:  # fmt: skip
    """The common tail of ``error-models`` and ``tibet``: the configuration (``--quick``'s or
    the full one, the seeds given), the run, and what it printed."""
    kw = {"seed": seed, "sweep": not no_sweep, **kw}
    if seeds is not None:
        kw["seeds"] = seeds
    if sweep_seeds is not None:
        kw["sweep_seeds"] = sweep_seeds
    elif seeds is not None and not quick:
        kw["sweep_seeds"] = min(seeds, config().sweep_seeds)  # a sweep point has no more replicates than a default cell
    if budget is not None:
        if quick:
            raise click.UsageError("--budget has no effect with --quick (a preview never adds replicates)")
        kw["budget"] = budget or None
    cfg = config.quick_config(setup, **kw) if quick else config(setup=setup, **kw)
    res = run_study(cfg, out, workers=workers, cluster=cluster, progress=not no_progress, log=lambda s: click.echo(s, err=True),
                    formats=("png", "pdf") if pdf else ("png",))
    click.echo(f"{res.ran} simulations run, {res.skipped} reused from the store, {res.elapsed_s:.1f} s")
    click.echo(f"claims of the paper: {claims_line(res.claims)} (report: claims table)")
    click.echo(f"report: {res.report_md.resolve()}")
    click.echo(f"report (HTML): {res.report_html.resolve()}")


@study_group.command("error-models")
@click.option("--out", "out", type=click.Path(file_okay=False), default="results/error-models", show_default=True, help="Output folder.")
@_parallel
@click.option("--quick", is_flag=True, help="A preview (3 transfers per cell, 2 per sensitivity point, two values per open parameter): the same figures and report in seconds, every verdict marked 'preview: not evidence'.")
@click.option("--seeds", type=click.IntRange(min=2), default=None, help="Transfers per cell at the defaults (default 100; --quick 3; the paper: 10 batches).")
@click.option("--sweep-seeds", type=click.IntRange(min=2), default=None, help="Transfers per cell of every sensitivity point (default 20; --quick 2).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True, help="Study seed.")
@click.option("--no-sweep", is_flag=True, help="Only the defaults: no sensitivity sweeps (and no sub-cycle figure).")
@click.option("--budget", type=click.IntRange(min=0), default=None,
              help="While a claim is inconclusive and more transfers would likely decide it, add transfers per cell up to this many (default 400; 0: never).")
@settings.options(EM.Setup)
@settings.options(EM.StudyConfig)
@click.option("--pdf/--no-pdf", default=False, show_default=True, help="Also write every figure as PDF.")
@click.option("--no-progress", is_flag=True, help="No progress bar (one line per finished task instead).")
def error_models_cmd(out: str, workers: int | None, cluster: str | None, quick: bool, seeds: int | None, sweep_seeds: int | None, seed: int,
                     no_sweep: bool, budget: int | None, pdf: bool, no_progress: bool, **given: Any) -> None:  # fmt: skip
    """Pentikousis & Badr, "Error Modeling for TCP Simulations": rate-based vs temporal
    (VDDP) error models (Fig. 2) and synchronized vs not synchronized ACK losses (Table 1,
    Fig. 3), every open parameter swept; writes a results store, figures and a report with
    the paper's numbers beside ours and every claim judged."""
    from burstlab.experiments.error_models import Setup, StudyConfig, run_study

    setup = Setup(**settings.given(Setup, given))
    _run_cell_study(run_study, StudyConfig, setup, settings.given(StudyConfig, given), quick=quick, seeds=seeds, sweep_seeds=sweep_seeds, seed=seed,
                    no_sweep=no_sweep, out=out, workers=workers, cluster=cluster, no_progress=no_progress, pdf=pdf, budget=budget)  # fmt: skip


@study_group.command("tibet")
@click.option("--out", "out", type=click.Path(file_okay=False), default="results/tibet", show_default=True, help="Output folder.")
@_parallel
@click.option("--quick", is_flag=True, help="A preview (2 runs of 60 s per cell, fewer points per figure, two values per open parameter): the same figures and report in seconds, every verdict marked 'preview: not evidence'.")
@click.option("--seeds", type=click.IntRange(min=2), default=None, help="Runs per cell at the defaults (default 10; --quick 2).")
@click.option("--sweep-seeds", type=click.IntRange(min=2), default=None, help="Runs per cell of every sensitivity point (default 4; --quick 2).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True, help="Study seed.")
@click.option("--no-sweep", is_flag=True, help="Only the defaults: no sensitivity sweeps.")
@click.option("--budget", type=click.IntRange(min=0), default=None,
              help="While a claim is inconclusive and more runs would likely decide it, add runs per cell up to this many (default 40; 0: never).")
@settings.options(TB.Setup)
@click.option("--pdf/--no-pdf", default=False, show_default=True, help="Also write every figure as PDF.")
@click.option("--no-progress", is_flag=True, help="No progress bar (one line per finished task instead).")
def tibet_cmd(out: str, workers: int | None, cluster: str | None, quick: bool, seeds: int | None, sweep_seeds: int | None, seed: int, no_sweep: bool,
              budget: int | None, pdf: bool, no_progress: bool, **given: Any) -> None:  # fmt: skip
    """Martignon & Capone, "TCP with Bandwidth Estimation over Wireless Networks": TIBET's
    fairness towards TCP Reno (Figs. 2-3), goodput against random loss (Figs. 4-5), RTT
    (Fig. 6) and correlated loss (Fig. 8) beside TCP Reno, the Ideal TCP, Westwood+ and
    Vegas, and the Ideal TCP against the paper's model (Figs. 9, 11-12), every open
    parameter swept; writes a results store, figures and a report with the paper's results
    beside ours and every claim judged."""
    from burstlab.experiments.tibet import QUICK_DURATION, Setup, StudyConfig, run_study

    setup = Setup(**{"duration": QUICK_DURATION if quick else Setup().duration, **settings.given(Setup, given)})
    _run_cell_study(run_study, StudyConfig, setup, {}, quick=quick, seeds=seeds, sweep_seeds=sweep_seeds, seed=seed, no_sweep=no_sweep, out=out,
                    workers=workers, cluster=cluster, no_progress=no_progress, pdf=pdf, budget=budget)  # fmt: skip


@study_group.command("hybrid")
@click.pass_context
@click.option("--dataset", type=click.Choice(["synthetic", "rutgers", "tossim"]), default=None,
              help="Raw channels: the built-in synthetic set (default), the Rutgers 802.11 links, or links derived from the TOSSIM noise traces.")
@click.option("--traces", "traces_dir", type=click.Path(file_okay=False), default=None, help="A folder of raw channel traces in time (e.g. Ttem files) instead.")
@click.option("--format", "fmt", type=FORMAT, default=None, help="Trace format for --traces (default: detected; .ttem = Ttem, 1 = bad).")
@click.option("--expected", type=click.IntRange(min=1), default=None, help="--traces seqlist files: frames sent per trace.")
@click.option("--one-means", type=click.Choice(["received", "lost"]), default="received", show_default=True, help="--traces bits/string files: what a 1 means.")
@click.option("--noise", default=None, help="--dataset rutgers: comma-separated noise levels (e.g. dbm0,dbm-5).")
@click.option("--slot", type=TIME, default=0.005, show_default="5ms", help="Channel interval of traces without timing (Ttem's 5 ms).")
@click.option("--fer-range", nargs=2, type=float, default=(0.01, 0.5), show_default=True, help="Raw FER range of the traces used.")
@click.option("--max-traces", type=click.IntRange(min=1), default=None, help="At most this many traces, spread evenly over their FERs (default: 8 for real data, all synthetic ones).")
@click.option("--out", "out", type=click.Path(file_okay=False), default=None, help="Output folder (default: results/hybrid-<dataset>).")
@_parallel
@click.option("--quick", is_flag=True, help="A reduced study (300-s runs, 2 per cell, 3 synthetic traces, two values per open parameter): the same figures and report in under a minute.")
@click.option("--runs", type=click.IntRange(min=2), default=None, help="Runs per cell at the defaults (default 10, the paper's; --quick 2).")
@click.option("--sweep-seeds", type=click.IntRange(min=2), default=None, help="Runs per cell of every sensitivity point (default 5; --quick 2).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True, help="Study seed.")
@click.option("--no-sweep", is_flag=True, help="Only the defaults: no sensitivity sweeps.")
@click.option("--duration", type=TIME, default=None, help="Run length (default 2000 s, the paper's; --quick 300 s).")
@click.option("--warmup", type=TIME, default=None, help="Discarded start of each run (default 200 s, the paper's; --quick 60 s).")
@click.option("--fit-slots", type=click.IntRange(min=100), default=None, help="Iterative fits (EM: Gilbert-Elliott, VDDP, HMM; Viterbi: HSMM) use the first N slots of a trace (default 100000; --quick 10000).")
@click.option("--table1-only", is_flag=True, help="Only Table I's models (a)-(d), not every other model burstlab fits.")
@click.option("--tcp", "variant", type=click.Choice(["tahoe", "reno", "newreno", "sack"]), default="reno", show_default=True, help="TCP variant (Padhye's formula describes Reno).")
@click.option("--delayed-ack/--no-delayed-ack", default=False, show_default=True, help="Delayed ACKs (ns-2's TCPSink has none).")
@click.option("--rto-min", type=TIME, default=1.0, show_default="1s", help="Minimum RTO (ns-2.29's).")
@click.option("--rwnd", type=click.IntRange(min=1), default=None, help="Receiver window in segments (default: unlimited).")
@click.option("--mss", type=click.IntRange(1, 65_495), default=1000, show_default=True, help="Segment payload (bytes; the paper's 1000-byte packets).")
@click.option("--retry-limit", type=click.IntRange(1, 255), default=7, show_default=True, help="802.11 ARQ retry limit (the paper's 7).")
@click.option("--counts", type=click.Choice(["attempts", "retries"]), default="attempts", show_default=True,
              help="What the retry limit counts: attempts (dot11ShortRetryLimit) or retries after the first attempt.")
@click.option("--backoff", type=click.Choice(["dcf", "none"]), default="dcf", show_default=True, help="802.11b binary exponential backoff between attempts.")
@click.option("--wifi-buffer", type=click.IntRange(min=1), default=100, show_default=True, help="Wi-Fi interface queue (packets).")
@click.option("--sat-buffer", type=SIZE, default=150_000, show_default="150kB", help="Satellite router buffer (bytes; C·RTT).")
@click.option("--wifi-acks", type=click.Choice(["lossless", "channel"]), default="lossless", show_default=True,
              help="TCP ACKs over the Wi-Fi hop: error-free, or as frames on the same half-duplex channel and ARQ.")
@click.option("--synthetic-alpha", type=float, default=1.5, show_default=True, help="Synthetic set: Pareto shape of the error gaps.")
@click.option("--synthetic-burst", type=float, default=2.0, show_default=True, help="Synthetic set: mean error burst at FER 10 % (slots).")
@click.option("--synthetic-burst-exp", type=float, default=0.5, show_default=True, help="Synthetic set: mean burst ∝ (FER odds)^exp (0: the same at every FER).")
@click.option("--pdf/--no-pdf", default=False, show_default=True, help="Also write every figure as PDF.")
@click.option("--no-progress", is_flag=True, help="No progress bar (one line per finished task instead).")
def hybrid_cmd(ctx: click.Context, dataset: str | None, traces_dir: str | None, fmt: str | None, expected: int | None, one_means: str, noise: str | None,
               slot: float, fer_range: tuple[float, float], max_traces: int | None, out: str | None, workers: int | None, cluster: str | None, quick: bool,
               runs: int | None, sweep_seeds: int | None, seed: int, no_sweep: bool, duration: float | None, warmup: float | None, fit_slots: int | None,
               table1_only: bool, variant: str, delayed_ack: bool, rto_min: float, rwnd: int | None, mss: int, retry_limit: int, counts: str, backoff: str,
               wifi_buffer: int, sat_buffer: int, wifi_acks: str, synthetic_alpha: float, synthetic_burst: float, synthetic_burst_exp: float, pdf: bool,
               no_progress: bool) -> None:  # fmt: skip
    """Barsocchi, Oligeri, Potortì, "Packet loss in TCP hybrid wireless networks": TCP over a
    satellite link and an 802.11 hop whose ARQ meets a raw channel trace in time (Ttem).
    Fig. 2 (error gaps), Fig. 3 (Padhye vs simulation), Fig. 4 and Table I (goodput for
    Bernoulli and bistable models against the trace, and every model burstlab fits, ranked),
    every open parameter swept; writes a results store, figures and a report."""
    from click.core import ParameterSource

    from burstlab.experiments.hybrid import Setup, StudyConfig, run_study

    if traces_dir and dataset:
        raise click.UsageError("give either --dataset or --traces, not both")
    ds = "traces" if traces_dir else (dataset or "synthetic")
    only = {"fmt": ("--format", "traces"), "expected": ("--expected", "traces"), "one_means": ("--one-means", "traces"), "noise": ("--noise", "rutgers"),
            "synthetic_alpha": ("--synthetic-alpha", "synthetic"), "synthetic_burst": ("--synthetic-burst", "synthetic"),
            "synthetic_burst_exp": ("--synthetic-burst-exp", "synthetic")}  # fmt: skip
    wrong = [opt for name, (opt, d) in only.items() if d != ds and ctx.get_parameter_source(name) is not ParameterSource.DEFAULT]
    if wrong:
        raise click.UsageError(f"{', '.join(wrong)} {'has' if len(wrong) == 1 else 'have'} no effect with {_input_name(ds)}")
    setup = Setup(variant=variant, delayed_ack=delayed_ack, rto_min=rto_min, rwnd=rwnd, mss=mss, retry_limit=retry_limit, counts=counts, backoff=backoff,
                  wifi_buffer=wifi_buffer, sat_buffer=int(sat_buffer), wifi_acks=wifi_acks, synth_alpha=synthetic_alpha, synth_burst=synthetic_burst,
                  synth_burst_exp=synthetic_burst_exp)  # fmt: skip
    kw: dict[str, object] = {"seed": seed, "sweep": not no_sweep, "dataset": ds, "traces_dir": traces_dir, "fmt": fmt, "traces_one_means": one_means,
                             "traces_expected": expected, "slot": slot, "fer_range": tuple(fer_range), "all_models": not table1_only,
                             "rutgers_noise": tuple(x.strip() for x in noise.split(",") if x.strip()) if noise else None}  # fmt: skip
    if max_traces is not None or ds != "synthetic":
        kw["max_traces"] = max_traces or 8
    for name, v in (("runs", runs), ("sweep_seeds", sweep_seeds), ("duration", duration), ("warmup", warmup), ("fit_slots", fit_slots)):
        if v is not None:
            kw[name] = v
    cfg = StudyConfig.quick_config(setup, **kw) if quick else StudyConfig(setup=setup, **kw)  # type: ignore[arg-type]
    res = run_study(cfg, out or f"results/hybrid-{ds}", workers=workers, cluster=cluster, progress=not no_progress, log=lambda s: click.echo(s, err=True),
                    formats=("png", "pdf") if pdf else ("png",))
    click.echo(f"{res.ran} simulations run, {res.skipped} reused from the store, {res.elapsed_s:.1f} s")
    click.echo(f"claims of the paper: {claims_line(res.claims)}" + (" (on synthetic traces)" if ds == "synthetic" else "") + " (report: claims table)")
    click.echo(f"report: {res.report_md.resolve()}")
    click.echo(f"report (HTML): {res.report_html.resolve()}")


@study_group.command("link-transport")
@click.option("--out", "out", type=click.Path(file_okay=False), default="results/link-transport", show_default=True, help="Output folder.")
@_parallel
@click.option("--quick", is_flag=True, help="A reduced study (2 runs of 40 s per cell, fewer error rates, two values of three open parameters): the same figures and report in under a minute.")
@click.option("--seeds", type=click.IntRange(min=2), default=None, help="Runs per cell at the defaults (default 10; --quick 2).")
@click.option("--sweep-seeds", type=click.IntRange(min=2), default=None, help="Runs per cell of every sensitivity point (default 4; --quick 2).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True, help="Study seed.")
@click.option("--no-sweep", is_flag=True, help="Only the defaults: no sensitivity sweeps.")
@click.option("--traces", "traces", type=click.Path(file_okay=False), default=None,
              help="Folder of the Rutgers ORBIT noise traces (holding data/dbm<noise>/...; default: the registered dataset rutgers-noise, docs/datasets.md).")
@click.option("--noise", "noise", default=None, help="Comma-separated noise levels of the traces to use (e.g. -10,-5; default: all).")
@click.option("--alive-prr", type=click.FloatRange(0, 1, min_open=True), default=0.5, show_default=True,
              help="Trace links making the raw channels: PRR at the quietest level at least this.")
@click.option("--trace-mode", type=click.Choice(["time", "packet"]), default="time", show_default=True,
              help="Trace replay: each entry lasts --trace-slot and units are lost when their air time meets a lost entry, or one entry per unit.")
@click.option("--trace-slot", type=TIME, default=1e-3, show_default="1ms", help="Time of one trace entry (--trace-mode time).")
@click.option("--example-noise", type=int, default=-5, show_default=True, help="Noise level of Fig. 7 and slides 9-10.")
@click.option("--attempt-min", type=TIME, default=0.3e-3, show_default="0.3ms", help="ORBIT hop: shortest ARQ attempt (uniform law, slide 8).")
@click.option("--attempt-max", type=TIME, default=2e-3, show_default="2ms", help="ORBIT hop: longest ARQ attempt.")
@click.option("--orbit-delay", type=TIME, default=0.001, show_default="1ms", help="ORBIT hop: one-way propagation delay.")
@click.option("--recovery", type=click.Choice(["sack", "newreno", "reno", "prr"]), default="sack", show_default=True, help="ORBIT hop: the TCP's loss recovery.")
@click.option("--link-rate", type=RATE, default=10e6, show_default="10Mbit", help="Simulations: every hop's rate.")
@click.option("--overhead", type=TIME, default=100e-6, show_default="100us", help="Simulations: time per link-layer attempt beyond the air time (802.11a DIFS, PLCP, SIFS, ACK).")
@click.option("--hop-delay", type=TIME, default=0.01, show_default="10ms", help="Simulations: one-way delay per hop.")
@click.option("--persistence", type=click.IntRange(1, 255), default=15, show_default=True, help="LL-ARQ: attempts per frame.")
@click.option("--harq-attempts", type=click.IntRange(1, 16), default=2, show_default=True, help="LL-HARQ: attempts (first + reactive FEC rounds).")
@click.option("--harq-sizing", type=click.Choice(["quantile", "mean"]), default="quantile", show_default=True, help="LL-HARQ: FEC sizing rule.")
@click.option("--harq-target", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.99, show_default=True, help="LL-HARQ: decoding probability the quantile rule aims at.")
@click.option("--fragment-bytes", type=click.IntRange(1, 65_535), default=100, show_default=True, help="LL-HARQ: fragment payload.")
@click.option("--error-unit", type=click.Choice(["unit", "frame", "ber", "snr"]), default="unit", show_default=True,
              help="Synthetic error rate per channel unit (ARQ frame, HARQ fragment) or per frame, fragments then by bit errors "
                   "(frame: the study's conversion; ber: the channel's bit errors per unit; snr: 802.11a 12 Mb/s curve at a constant SNR).")
@click.option("--table1-tcp", type=click.Choice(["sack", "lt-tcp"]), default="sack", show_default=True, help="Table 1: the transport of its 10 flows.")
@click.option("--buffer", type=click.IntRange(1, 1_000_000), default=100, show_default=True, help="DropTail buffer of every hop (packets).")
@click.option("--ltcp-buffer", type=click.IntRange(1, 1_000_000), default=250, show_default=True, help="Slides 19-20: buffer behind RED (packets).")
@click.option("--rto-min", type=TIME, default=0.2, show_default="0.2s", help="Minimum RTO (Linux's, ns-2's).")
@click.option("--mss", type=click.IntRange(1, 65_495), default=1000, show_default=True, help="Segment payload (bytes).")
@click.option("--duration", type=TIME, default=None, help="Length of every run (default 100s, the slides'; --quick 40s).")
@click.option("--pdf/--no-pdf", default=False, show_default=True, help="Also write every figure as PDF.")
@click.option("--no-progress", is_flag=True, help="No progress bar (one line per finished task instead).")
def link_transport_cmd(out: str, workers: int | None, cluster: str | None, quick: bool, seeds: int | None, sweep_seeds: int | None, seed: int,
                       no_sweep: bool, traces: str | None, noise: str | None, alive_prr: float, trace_mode: str, trace_slot: float, example_noise: int, attempt_min: float,
                       attempt_max: float, orbit_delay: float, recovery: str, link_rate: float, overhead: float, hop_delay: float, persistence: int,
                       harq_attempts: int, harq_sizing: str, harq_target: float, fragment_bytes: int, error_unit: str, table1_tcp: str, buffer: int,
                       ltcp_buffer: int, rto_min: float, mss: int, duration: float | None, pdf: bool, no_progress: bool) -> None:  # fmt: skip
    """Subramanian, Ramakrishnan, Kalyanaraman, "Experimental Study of Link and Transport
    Protocols in Interference-Prone WLAN Environments": ARQ persistence against residual loss,
    MAC throughput, latency and TCP (Figs. 1, 4, 7, slides 9-10) over raw channels from the
    Rutgers ORBIT noise traces and uniform loss; LL-ARQ vs LL-HARQ under TCP-SACK and LT-TCP
    on 1 and 4 hops (slides 15-18), Table 1, TCP-SACK vs LT-TCP (slides 19-20); every open
    parameter swept; writes a results store, figures and a report with the slides' numbers
    beside ours."""
    from burstlab.experiments.link_transport import QUICK_DURATION, Setup, StudyConfig, run_study

    if duration is None:
        duration = QUICK_DURATION if quick else Setup().duration
    levels = None
    if noise is not None:
        try:
            levels = tuple(int(x.strip().removeprefix("dbm")) for x in noise.split(",") if x.strip())
        except ValueError:
            raise click.BadParameter(f"expected comma-separated noise levels in dBm (e.g. -10,-5), got {noise!r}", param_hint="--noise") from None
    setup = Setup(attempt_min=attempt_min, attempt_max=attempt_max, orbit_delay=orbit_delay, recovery=recovery, example_noise=example_noise,
                  link_rate=link_rate, overhead=overhead, hop_delay=hop_delay, persistence=persistence, harq_attempts=harq_attempts,
                  harq_sizing=harq_sizing, harq_target=harq_target, fragment_bytes=fragment_bytes, error_unit=error_unit, table1_tcp=table1_tcp,
                  buffer=buffer, rto_min=rto_min, mss=mss, duration=duration, alive_prr=alive_prr, trace_mode=trace_mode, trace_slot=trace_slot,
                  ltcp_buffer=ltcp_buffer)  # fmt: skip
    kw: dict[str, object] = {"traces": traces, "noise_levels": levels}
    if sweep_seeds is None and seeds is not None and not quick:
        kw["sweep_seeds"] = min(seeds, StudyConfig().sweep_seeds)
    _run_cell_study(run_study, StudyConfig, setup, kw, quick=quick, seeds=seeds, sweep_seeds=sweep_seeds, seed=seed, no_sweep=no_sweep, out=out,
                    workers=workers, cluster=cluster, no_progress=no_progress, pdf=pdf)  # fmt: skip


COMMANDS = [study_group]
