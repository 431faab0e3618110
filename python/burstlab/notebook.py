"""How burstlab's objects show themselves in a notebook (Jupyter's ``_repr_html_``):
a trace as its statistics and run-length CCDFs, a loss model as its settings and fitted
parameters, a simulation result as its figures with units (and its cwnd if it recorded
series), a network result as its flow and link tables, a link report as the page itself.
Figures are PNG embedded in the HTML (``data:`` URIs), so a saved notebook keeps them.
Each class's ``_repr_html_`` calls one function here; matplotlib is imported only to draw."""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Sequence
from typing import Any

#: Figures are drawn this wide (inches) at this resolution: readable in a notebook cell.
WIDTH, DPI = 7.5, 90


def _cell(v: Any) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "–"
    if isinstance(v, float):
        return f"{v:.4g}"
    return html.escape(str(v))


def table(heads: Sequence[str], rows: Sequence[Sequence[Any]], caption: str | None = None) -> str:
    """An HTML table: the first column left-aligned (names), the others right (numbers)."""
    cap = f"<caption style='text-align:left'>{html.escape(caption)}</caption>" if caption else ""
    th = "".join(f"<th style='text-align:{'left' if i == 0 else 'right'}'>{html.escape(h)}</th>" for i, h in enumerate(heads))
    trs = "".join("<tr>" + "".join(f"<td style='text-align:{'left' if i == 0 else 'right'}'>{_cell(c)}</td>" for i, c in enumerate(r)) + "</tr>"
                  for r in rows)  # fmt: skip
    return f"<table>{cap}<thead><tr>{th}</tr></thead><tbody>{trs}</tbody></table>"


def figure_html(fig: Any, alt: str) -> str:
    """A matplotlib figure as an ``<img>`` with the PNG inside."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f"<img alt='{html.escape(alt)}' style='max-width:100%' src='data:image/png;base64,{data}'>"


def _new_figure(h: float, ncols: int = 1) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(WIDTH, h), layout="constrained")
    return fig, fig.subplots(1, ncols)


def trace_html(trace: Any) -> str:
    """A trace: name, length, timing, PRR, g, b, μ, runs; the run-length CCDFs on log axes."""
    st = trace.stats(warn=False)
    timing = f"{1000 * trace.interval:g} ms per entry" if trace.interval else ("timestamped" if trace.timestamps is not None else "no timing")
    rows: list[list[Any]] = [["entries", len(trace)], ["timing", timing], ["PRR", st.prr], ["g = P(success after a loss)", st.g],
            ["b = P(loss after a success)", st.b], ["μ = 1 − g − b", st.mu if st.mu is not None else st.mu_undefined],
            ["loss bursts: mean / longest", f"{_cell(st.loss_bursts.mean if st.loss_bursts.n_runs else None)} / {st.loss_bursts.max}"],
            ["success runs: mean / longest", f"{_cell(st.success_runs.mean if st.success_runs.n_runs else None)} / {st.success_runs.max}"]]  # fmt: skip
    out = [f"<b>Trace {html.escape(str(trace.name or ''))}</b>", table(["statistic", "value"], rows)]
    runs = [(d, what) for d, what in ((st.loss_bursts, "loss burst"), (st.success_runs, "success run")) if d.n_runs]
    if runs:
        fig, axes = _new_figure(2.6, len(runs))
        for ax, (d, what) in zip(axes if len(runs) > 1 else [axes], runs):
            ax.step(d.lengths, d.ccdf(), where="post", color="black")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel(f"{what} length (entries)")
            ax.set_ylabel("P(L ≥ x)")
            ax.grid(True, which="both", alpha=0.3)
        out.append(figure_html(fig, "run-length CCDFs"))
    return "".join(out)


def model_html(model: Any) -> str:
    """A loss model: its kind, settings and (once fitted) its fitted parameters."""
    d = model.to_dict()
    rows = [[k, v] for k, v in d["settings"].items() if v is not None]
    out = [f"<b>{html.escape(type(model).__name__)}</b> (<code>{html.escape(d['model'])}</code>)", table(["setting", "value"], rows) if rows else ""]
    fitted = {k: v for k, v in d["fitted"].items() if not (isinstance(v, str) and len(v) > 80)}
    if fitted:
        out.append(table(["fitted", "value"], [[k, v if not isinstance(v, list) or len(v) <= 6 else f"[{len(v)} values]"] for k, v in fitted.items()]))
    else:
        out.append("<p>not fitted</p>")
    return "".join(out)


#: The figures of one TCP run shown in a notebook: field, label, unit, scale.
_SIM_ROWS = (("goodput_bps", "goodput", "Mb/s", 1e6), ("goodput_pps", "goodput", "segments/s", 1.0),
             ("throughput_bps", "throughput (with retransmissions)", "Mb/s", 1e6), ("packets_sent", "data packets sent", "packets", 1.0),
             ("retransmissions", "retransmissions", "packets", 1.0), ("fast_retransmits", "fast retransmits", "events", 1.0),
             ("timeouts", "retransmission timeouts", "events", 1.0), ("completion_time", "completion time", "s", 1.0))  # fmt: skip


def sim_result_html(r: Any) -> str:
    """One TCP run: its main figures with units; cwnd and ssthresh if it recorded series."""
    rows = []
    for key, label, unit, scale in _SIM_ROWS:
        v = getattr(r, key, None)
        if v is not None:
            rows.append([label, unit, v / scale if isinstance(v, (int, float)) and scale != 1.0 else v])
    out = ["<b>TCP run</b>", table(["figure", "unit", "value"], rows)]
    s = getattr(r, "series", None)
    if s and "cwnd" in s and len(s["cwnd"]):
        fig, ax = _new_figure(2.6)
        t = s.get("time")
        if t is not None and len(t) == len(s["cwnd"]):
            import numpy as np

            mss = float(r.config.get("tcp", {}).get("mss") or 1)  # the series are in bytes
            cwnd = np.asarray(s["cwnd"], dtype=float) / mss
            ax.plot(t, cwnd, drawstyle="steps-post", label="cwnd")
            if "ssthresh" in s and len(s["ssthresh"]) == len(t):
                ss = np.asarray(s["ssthresh"], dtype=float) / mss
                ax.plot(t, np.where(ss <= 2 * cwnd.max(), ss, np.nan), drawstyle="steps-post", label="ssthresh (once set)", alpha=0.7)
            ax.set_xlabel("time (s)")
            ax.set_ylabel("segments")
            ax.legend(fontsize="small")
            out.append(figure_html(fig, "cwnd and ssthresh"))
    return "".join(out)


def network_result_html(r: Any) -> str:
    """A network run: one row per flow and per link."""
    flows = [[f.name, f.kind, f.goodput_bps / 1e6, f.retransmissions, f.timeouts] for f in r.flows.values()]
    links = [[x.name, x.capacity_bps / 1e6 if x.capacity_bps else None, x.utilisation, x.queue_drops, x.channel_losses] for x in r.links.values()]
    return ("<b>Network run</b>" + table(["flow", "kind", "goodput (Mb/s)", "retransmissions", "timeouts"], flows)
            + table(["link", "capacity (Mb/s)", "utilisation", "queue drops", "channel losses"], links)
            + f"<p>aggregate goodput {_cell(r.aggregate_goodput_bps / 1e6)} Mb/s, Jain's index {_cell(r.jain_index)}</p>")  # fmt: skip


__all__ = ["figure_html", "model_html", "network_result_html", "sim_result_html", "table", "trace_html"]
