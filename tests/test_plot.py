"""burstlab.plot: log-axis tick labels in plain text instead of mathtext."""

from __future__ import annotations

import io

from burstlab import plot as P


def test_plain_math_known_answers() -> None:
    assert P.plain_math(r"$\mathdefault{10^{-2}}$") == "10⁻²"
    assert P.plain_math(r"$\mathdefault{10^{0}}$") == "10⁰"
    assert P.plain_math(r"$\mathdefault{6\times10^{1}}$") == "6×10¹"
    assert P.plain_math(r"$\mathdefault{-10^{3}}$") == "−10³"
    assert P.plain_math(r"$\mathdefault{0}$") == "0"
    assert P.plain_math("") == ""
    assert P.plain_math("0.5") == "0.5"  # not mathtext: as it is
    assert P.plain_math(r"$\mathdefault{2^{1.50}}$") == r"$\mathdefault{2^{1.50}}$"  # no plain form: as it is


def test_log_axes_are_labelled_without_mathtext_at_the_same_ticks() -> None:
    """The same tick positions and numbers as matplotlib's own labels, and mathtext's parser
    never runs."""
    import matplotlib.mathtext as mt
    from matplotlib.figure import Figure

    def draw(plain: bool) -> list[tuple[float, str]]:
        fig = Figure(figsize=(8, 3))
        a, b, c = fig.subplots(1, 3)
        a.plot([1e-3, 1e2], [1, 2])
        a.set_xscale("log")
        b.plot([0, 1, 100], [0, 1e-3, 1])
        b.set_yscale("symlog", linthresh=0.01)
        c.plot([2, 7], [1, 2])
        c.set_xscale("log")  # less than a decade: minor labels 2×10⁰ ...
        if plain:
            P.plain_log_labels(fig)
        fig.savefig(io.BytesIO(), format="png")
        return [(t.get_position()[0] if ax is not b else t.get_position()[1], t.get_text()) for ax, axis in ((a, a.xaxis), (b, b.yaxis), (c, c.xaxis))
                for t in axis.get_majorticklabels() + axis.get_minorticklabels() if t.get_text()]  # fmt: skip

    mathtext = draw(False)
    parses = [0]
    orig = mt.MathTextParser.parse

    def counted(self, *a, **k):  # type: ignore[no-untyped-def]
        parses[0] += 1
        return orig(self, *a, **k)

    mt.MathTextParser.parse = counted  # type: ignore[method-assign]
    try:
        plain = draw(True)
    finally:
        mt.MathTextParser.parse = orig  # type: ignore[method-assign]
    assert parses[0] == 0
    assert [x for x, _ in plain] == [x for x, _ in mathtext]
    assert [P.plain_math(s) for _, s in mathtext] == [s for _, s in plain]
    assert "2×10⁰" in [s for _, s in plain] and "10⁻²" in [s for _, s in plain]


def test_svg_figures_are_deterministic_text_as_text_and_embedded(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A study's SVG figure: the path of the first format returned, every format written,
    text kept as text (no glyph paths), no date, the same bytes for the same figure; the
    self-contained HTML report embeds it."""
    from matplotlib.figure import Figure

    from burstlab.study.report import render_html

    def fig() -> Figure:
        f = Figure(figsize=(4, 3))
        ax = f.subplots()
        ax.plot([1e-3, 1e2], [1, 2])
        ax.set_xscale("log")
        ax.set_title("a title")
        return f

    p = P.save_figure(fig(), tmp_path / "a", "f", ("svg", "pdf"))
    assert p == tmp_path / "a" / "f.svg" and (tmp_path / "a" / "f.pdf").stat().st_size > 500
    text = p.read_text()
    assert "a title" in text and "10⁻²" in text and "<dc:date>" not in text
    assert P.save_figure(fig(), tmp_path / "b", "f", ("svg",)).read_bytes() == p.read_bytes()
    assert P.save_figure(fig(), tmp_path / "c", "f", ("png",)) == tmp_path / "c" / "f.png"
    page = render_html([("img", ("a/f.svg", "a figure", False))], "T", tmp_path)
    assert "src='data:image/svg+xml;base64," in page
