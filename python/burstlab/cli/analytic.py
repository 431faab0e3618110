"""``burstlab predict`` (closed-form throughput), ``burstlab fit-throughput`` (Srinivasan et al.
Fig. 13 from a results table) and ``burstlab validate padhye`` (Barsocchi et al. §V)."""

from __future__ import annotations

import json
import math
from typing import Any

import click

from burstlab._core import ParameterError
from burstlab._util import json_safe
from burstlab.cli.options import SEED, SEED_MAX, count
from burstlab.units import DURATION, RATE, TIME


# --------------------------------------------------------------------------- predict


@click.command("predict")
@click.option("--prr", type=float, default=None, help="Packet reception ratio; the loss probability is p = 1 - PRR.")
@click.option("--p", "p_loss", type=float, default=None, help="Loss probability p (instead of --prr).")
@click.option("--mu", type=float, default=None, help="Burstiness μ = 1 - g - b (used by the Gilbert-Elliott figures only).")
@click.option("--rtt", type=DURATION, required=True, help="Round-trip time, e.g. 100ms.")
@click.option("--mss", type=int, default=1000, show_default=True, help="Segment payload in bytes.")
@click.option("--t0", type=DURATION, default=None, help="Padhye's initial timeout T0 [default: max(1 s, 4·RTT)].")
@click.option("--b", "acked", type=float, default=2.0, show_default=True, help="Padhye's b: packets acknowledged per ACK.")
@click.option("--wmax", type=float, default=None, help="Window limit in packets [default: none].")
@click.option("--mathis-c", default="1.3", show_default=True, help="Mathis' constant: a number, sqrt(3/2), 1.3 or 1.31.")
@click.option("--strict", is_flag=True, help="Fail when any model is outside its regime.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def predict_cmd(
    prr: float | None,
    p_loss: float | None,
    mu: float | None,
    rtt: float,
    mss: int,
    t0: float | None,
    acked: float,
    wmax: float | None,
    mathis_c: str,
    strict: bool,
    as_json: bool,
) -> None:
    """Every applicable closed-form TCP throughput for a link.

    Mathis, Padhye and TIBET take the loss probability p only (p = 1 - PRR); μ feeds the
    Gilbert-Elliott figure of Srinivasan et al. §6.2 (two consecutive successes against an
    independent link with the same PRR). Models outside their regime are printed with the
    regime named."""
    from burstlab import analytic as an

    if (prr is None) == (p_loss is None):
        raise click.UsageError("give exactly one of --prr and --p")
    if prr is not None:
        if not 0.0 < prr < 1.0:
            raise ParameterError(f"invalid --prr = {prr!r}: expected a reception ratio in (0, 1)")
        p = float(f"{1.0 - prr:.12g}")  # 1 - 0.98 is 0.020000000000000018 in binary; p = 0.02 is meant
        if p <= 0.0:
            raise ParameterError(f"invalid --prr = {prr!r}: expected a reception ratio below 1 − 10⁻¹² (1 − PRR rounds to 0)")
        given = f"--prr = {prr!r} (p = 1 − PRR = {p:g})"
    else:
        assert p_loss is not None
        p = p_loss
        given = f"--p = {p_loss!r}"
    try:
        ests = [
            an.mathis(p, rtt, mss, c=mathis_c, wmax=wmax, strict=strict),
            an.padhye(p, rtt, t0, acked, wmax, mss, strict=strict),
            an.padhye_approx(p, rtt, t0, acked, wmax, mss, strict=strict),
            an.tibet_ideal(p, rtt, mss, strict=strict),
            an.tibet_reno(p, rtt, mss, strict=strict),
        ]
    except ParameterError as e:
        # the models name their argument p; name the option the user gave instead
        msg = str(e)
        if msg.startswith(f"invalid p = {p!r}"):
            msg = f"invalid {given}" + msg[len(f"invalid p = {p!r}") :]
        elif f"p = {p:g}" in msg and prr is not None:
            msg = msg.replace(f"p = {p:g}", given, 1)
        raise type(e)(msg) from None
    ge = None
    if mu is not None:
        ge = an.ge_two_successes(1.0 - p, mu)
    if as_json:
        click.echo(json.dumps(json_safe({"p": p, "rtt": rtt, "mss": mss, "models": [e.to_dict() for e in ests], "gilbert_elliott": ge.to_dict() if ge else None}), indent=2, allow_nan=False))
        return
    pp = ests[1].params
    click.echo(f"p = {p:.6g} (PRR = {1 - p:.6g}), RTT = {rtt * 1000:g} ms, MSS = {mss} bytes")
    click.echo(
        f"Padhye: b = {pp['b']:g} packets/ACK, T0 = {pp['t0']:g} s, "
        f"Wmax = {'none' if pp['wmax'] is None else format(pp['wmax'], 'g') + ' packets'}; Mathis C = {ests[0].params['c']:g}"
    )
    click.echo(f"{'model':18} {'pkts/s':>11} {'bits/s':>13}  {'regime':14} notes")
    for est in ests:
        notes = "; ".join(est.outside) if est.outside else "in regime"
        click.echo(f"{est.model:18} {est.pps:>11.4g} {est.bps:>13.4g}  {est.regime:14} {notes}")
    if ge is not None:
        click.echo(
            f"Gilbert-Elliott (Srinivasan et al. §6.2), PRR = {ge.prr:g}, μ = {ge.mu:g}: b = {ge.b:.4g}, g = {ge.g:.4g}, "
            f"P(two consecutive successes) = {ge.bursty:.4g} vs {ge.independent:.4g} independent (×{ge.ratio:.3g}); "
            f"mean loss burst {1 / ge.g if ge.g > 0 else math.inf:.3g}, mean success run {1 / ge.b if ge.b > 0 else math.inf:.3g} packets"
        )
    else:
        click.echo("note: give --mu for the Gilbert-Elliott figures; the closed forms above use p only", err=True)


# --------------------------------------------------------------------------- fit-throughput


@click.command("fit-throughput")
@click.argument("results", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option("--demo", is_flag=True, help="Fit 100 synthetic Gilbert-Elliott links run through burstlab's simulator instead of a file.")
@click.option("--demo-links", type=count(1, 10_000), default=100, show_default=True,
              help="Links of the --demo population (each one a simulation of 1000 s; at most 10000).")
@click.option("--link-pps", type=float, default=None, help="Link-layer packets/s normaliser [default: the link_pps column, else 100 (Mirage); Roofnet: 500].")
@click.option("--folds", type=int, default=5, show_default=True, help="k of the k-fold cross-validation.")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True, help="Shuffle seed of the folds (and seed of the --demo population).")
@click.option("--prr-min", type=float, default=0.0, show_default=True, help="Keep links with PRR ≥ this (Srinivasan et al. §7 uses 0.2).")
@click.option("--prr-max", type=float, default=1.0, show_default=True, help="Keep links with PRR ≤ this (Srinivasan et al. §7 uses 0.6).")
@click.option("--no-const-15", is_flag=True, help="Fit the literal 15-term expression without a constant.")
@click.option("--coef", "show_coef", is_flag=True, help="Print the fitted coefficients too.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def fit_throughput_cmd(
    results: str | None,
    demo: bool,
    demo_links: int,
    link_pps: float | None,
    folds: int,
    seed: int,
    prr_min: float,
    prr_max: float,
    no_const_15: bool,
    show_coef: bool,
    as_json: bool,
) -> None:
    """Least-L1 fits of throughput on PRR and μ (Srinivasan et al. §7) and the Fig. 13 table.

    RESULTS is a CSV, Parquet or DuckDB file (table ``results``) with columns prr, mu,
    throughput_pps, and optionally group (one row of the table per group) and link_pps.
    Links with PRR = 1 or an undefined μ (NaN) are left out and counted. ``--demo`` fits a
    synthetic population of Gilbert-Elliott links (PRR 0.6-0.95, μ 0-0.8) that burstlab's
    simulator runs NewReno over (Srinivasan et al. §3.1 Mirage settings)."""
    import numpy as np

    from burstlab import fits

    if demo == (results is not None):
        raise click.UsageError("give a RESULTS file or --demo (not both)")
    if not (0.0 <= prr_min <= prr_max <= 1.0):  # NaN fails too
        raise ParameterError(f"invalid --prr-min = {prr_min!r} / --prr-max = {prr_max!r}: expected 0 ≤ prr-min ≤ prr-max ≤ 1")
    if demo:
        from burstlab.experiments.fit_demo import simulate_ge_links

        click.echo(f"simulating {demo_links} Gilbert-Elliott links (TCP NewReno over each; Srinivasan et al. §3.1 Mirage settings)...", err=True)
        cols = simulate_ge_links(n_links=demo_links, seed=seed, progress=lambda i: click.echo(f"  {i}/{demo_links} links", err=True))
        results = f"(demo: {demo_links} synthetic Gilbert-Elliott links, simulated)"
    else:
        assert results is not None
        cols = fits.read_results(results)
    prr, mu, y = cols["prr"], cols["mu"], cols["throughput_pps"]
    groups = cols.get("group")
    if link_pps is not None:
        if not (math.isfinite(link_pps) and link_pps > 0):
            raise ParameterError(f"invalid --link-pps = {link_pps!r}: expected a positive packet rate")
        lp: Any = link_pps
    elif "link_pps" in cols:
        lp = cols["link_pps"]
    else:
        lp = 100.0
    lp_arr = np.broadcast_to(np.asarray(lp, dtype=np.float64), y.shape)
    bad_y = np.flatnonzero(~np.isfinite(y))
    if bad_y.size:
        i = int(bad_y[0])
        raise ParameterError(f"{results}: row {i + 1}: throughput_pps = {float(y[i])!r} is not a finite number")
    undefined = ~np.isfinite(mu) | ~np.isfinite(prr) | (prr >= 1.0) | (mu >= 1.0)
    keep = ~undefined & (prr >= prr_min) & (prr <= prr_max)
    n_undef = int(undefined.sum())
    n_range = int((~undefined & ~keep).sum())
    if not keep.any():
        raise ParameterError(f"{results}: no rows left to fit ({n_undef} with PRR = 1 or μ undefined, {n_range} outside PRR range [{prr_min}, {prr_max}])")
    fsets = ("prr", "fifteen_noconst" if no_const_15 else "fifteen", "second_order")
    rows = fits.fig13_table(
        prr[keep], mu[keep], y[keep], None if groups is None else groups[keep], lp_arr[keep], folds, seed, fsets
    )
    if as_json:
        click.echo(json.dumps(json_safe({"file": results, "excluded_undefined": n_undef, "excluded_prr_range": n_range, "rows": [r.to_dict() for r in rows]}), indent=2, allow_nan=False))
        return
    click.echo(fits.format_fig13(rows))
    if n_undef or n_range:
        click.echo(f"note: left out {n_undef} rows with PRR = 1 or μ undefined/≥ 1, {n_range} outside PRR [{prr_min}, {prr_max}]", err=True)
    if show_coef:
        for r in rows:
            for fs, c in r.coef.items():
                if not c:  # a fit the table shows as '-' (too few links for its coefficients)
                    click.echo(f"{r.group} {fs}: not fitted")
                    continue
                names = fits.features([0.5], [0.5], fs)[1]
                click.echo(f"{r.group} {fs}: " + " + ".join(f"{v:.5g}*{n}" if n != "1" else f"{v:.5g}" for v, n in zip(c, names, strict=True)))


# --------------------------------------------------------------------------- validate


@click.group("validate")
def validate_group() -> None:
    """Validation of burstlab's simulator against published models."""


@validate_group.command("padhye")
@click.option("--plot", "plot_dir", type=click.Path(file_okay=False), default=None, help="Write padhye.png, padhye.csv and padhye.json here.")
@click.option("--variants", default="reno,newreno", show_default=True, help="Comma-separated TCP variants.")
@click.option("--p", "ps", default=None, help="Comma-separated loss probabilities [default: 0.005..0.1, 7 values].")
@click.option("--seeds", type=int, default=5, show_default=True, help="Runs per point.")
@click.option("--duration", type=DURATION, default=600.0, show_default=True, help="Simulated time per run, e.g. 600s, 10min.")
@click.option("--warmup", type=TIME, default=100.0, show_default=True, help="Time discarded at the start of each run, e.g. 100s.")
@click.option("--first-seed", type=SEED, default=1, show_default=True, help=f"Seed of the first run (then +1 per run; 0 to {SEED_MAX}).")
@click.option("--rtt", type=DURATION, default=0.1, show_default=True, help="Propagation RTT (two one-way delays), e.g. 100ms.")
@click.option("--rate", type=RATE, default=10e6, show_default=True, help="Link rate, e.g. 10Mbit (a bare number is bits/s).")
@click.option("--delayed-ack/--no-delayed-ack", default=True, show_default=True, help="Delayed ACKs (b = 2) or one ACK per segment (b = 1).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def validate_padhye_cmd(
    plot_dir: str | None,
    variants: str,
    ps: str | None,
    seeds: int,
    duration: float,
    warmup: float,
    first_seed: int,
    rtt: float,
    rate: float,
    delayed_ack: bool,
    as_json: bool,
) -> None:
    """Reno and NewReno over Bernoulli loss against Padhye's full model (Barsocchi et al. §V)."""
    from burstlab.experiments import padhye as ex

    kw: dict[str, Any] = {
        "variants": tuple(v.strip() for v in variants.split(",") if v.strip()),
        "seeds": seeds,
        "duration": duration,
        "warmup": warmup,
        "delay": rtt / 2.0,
        "rate": rate,
        "delayed_ack": delayed_ack,
        "first_seed": first_seed,
    }
    if ps is not None:
        try:
            kw["ps"] = tuple(float(x) for x in ps.split(",") if x.strip())
        except ValueError:
            raise ParameterError(f"invalid --p = {ps!r}: expected comma-separated numbers") from None
        if not kw["ps"]:
            raise ParameterError(f"invalid --p = {ps!r}: expected at least one loss probability")
    setup = ex.PadhyeSetup(**kw)
    setup.validate()
    if first_seed + max(0, seeds - 1) > SEED_MAX:
        raise ParameterError(f"invalid --first-seed = {first_seed}: with --seeds {seeds} the last seed passes 2^64 − 1")
    from burstlab.io import output_dir

    with output_dir(plot_dir):  # an unwritable --plot fails before the simulations
        rows = ex.run_comparison(setup, progress=None if as_json else lambda s: click.echo(s, err=True))
        if as_json:
            click.echo(json.dumps(json_safe([r.to_dict() for r in rows]), indent=2, allow_nan=False))
        else:
            click.echo(ex.format_table(rows))
        from burstlab.analytic import PADHYE_P_VALIDATED

        beyond = [p for p in setup.ps if p > PADHYE_P_VALIDATED]
        if beyond:
            click.echo(
                f"note: p = {', '.join(f'{p:g}' for p in beyond)} is beyond the loss rates Padhye's model has been checked "
                f"against a simulation at (Barsocchi et al. Fig. 3 goes to {PADHYE_P_VALIDATED:.0%}): outside its regime, "
                "read those rows as a model comparison, not a validation",
                err=True,
            )
        if plot_dir:
            for path in ex.write_outputs(rows, setup, plot_dir):
                click.echo(f"wrote {path}", err=True)


COMMANDS = [predict_cmd, fit_throughput_cmd, validate_group]
