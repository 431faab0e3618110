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
