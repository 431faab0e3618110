"""The report library (burstlab.study.report): Markdown and a self-contained HTML page from
the same blocks."""

from __future__ import annotations

import base64
from pathlib import Path

from burstlab.study.report import render_html, render_md

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def test_html_embeds_figures_when_given_the_folder(tmp_path: Path) -> None:
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "f.png").write_bytes(PNG)
    blocks = [("h1", "T"), ("p", "see **this** [`x.csv`](x.csv)"), ("table", (["a", "b"], [["1", "2"]])), ("img", ("figures/f.png", "a figure", True))]
    page = render_html(blocks, "T", tmp_path)
    assert f"src='data:image/png;base64,{base64.b64encode(PNG).decode()}'" in page
    assert "href='figures/f.pdf'" in page  # a PDF stays a link
    assert "<strong>this</strong>" in page and '<a href="x.csv"><code>x.csv</code></a>' in page
    assert "src='figures/f.png'" in render_html(blocks, "T")  # no folder: the path
    md = render_md(blocks)
    assert "![a figure](figures/f.png)" in md and "| 1 | 2 |" in md


def test_preamble_marks_a_quick_run_as_preview_and_links_the_store() -> None:
    from burstlab.study.blocks import preamble
    from burstlab.study.verdict import PREVIEW

    full = preamble("T", quick=None, numbers="N.", tables=("runs", "cells"), files=("cells.csv",))
    assert full[0] == ("h1", "T") and len(full) == 2 and PREVIEW not in str(full)
    assert "(tables `runs`, `cells`), [`cells.csv`](cells.csv)." in full[1][1] and full[1][1].startswith("burstlab ")
    quick = preamble("T", quick="2 runs per cell", numbers="N.")
    assert len(quick) == 3 and PREVIEW in quick[1][1] and "2 runs per cell" in quick[1][1] and "Store" not in quick[2][1]
    assert preamble("T", quick=None) == [("h1", "T")]


def test_replicates_sentence_states_the_counts() -> None:
    from burstlab.study.blocks import replicates_sentence

    s = replicates_sentence("transfers", 909, 40, 3, 2, 1)
    assert "909 transfers in 40 cells, study seed 3; 2 transfers per cell at the defaults, 1 per cell" in s and s.endswith("confidence interval")


def test_fixed_layout_places_the_axes_at_the_margins_and_gaps_in_inches() -> None:
    """The report figures' layout without tight_layout: margins and gaps in inches, whatever
    the figure's size and grid (the gaps shared evenly, width and height ratios kept)."""
    from matplotlib.figure import Figure

    from burstlab.experiments.common import fixed_layout

    for (w, h), (nrows, ncols), ratios in (((13.0, 6.6), (2, 3), None), ((12.0, 4.6), (1, 2), [1.3, 1.0]), ((8.0, 7.0), (3, 1), None)):
        fig = Figure(figsize=(w, h))
        axes = fig.subplots(nrows, ncols, squeeze=False, gridspec_kw={"width_ratios": ratios} if ratios else None)
        fixed_layout(fig, left=0.8, right=0.2, bottom=0.6, top=0.7, wspace=0.9, hspace=0.5)
        box = [[ax.get_position() for ax in row] for row in axes]  # figure fractions
        assert abs(box[0][0].x0 * w - 0.8) < 1e-9 and abs((1 - box[0][-1].x1) * w - 0.2) < 1e-9
        assert abs(box[-1][0].y0 * h - 0.6) < 1e-9 and abs((1 - box[0][0].y1) * h - 0.7) < 1e-9
        for c in range(ncols - 1):
            assert abs((box[0][c + 1].x0 - box[0][c].x1) * w - 0.9) < 1e-9
        for r in range(nrows - 1):
            assert abs((box[r][0].y0 - box[r + 1][0].y1) * h - 0.5) < 1e-9
        if ratios:
            assert abs(box[0][0].width / box[0][1].width - 1.3) < 1e-9
