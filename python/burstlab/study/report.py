"""The report library every study uses: a report is a list of blocks — ``("h1", text)``,
``("h2", text)``, ``("p", text)``, ``("ul", [text, …])``, ``("table", (head, rows))``,
``("img", (path, alt, pdf))`` — rendered to Markdown and to one self-contained HTML page
(figures embedded), and its tables written as CSV and as tables of the results store.
"""

from __future__ import annotations

import base64
import html as htmlmod
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from burstlab._util import json_safe
from burstlab.io import atomic_write

if TYPE_CHECKING:
    from burstlab.store import ResultStore

Block = tuple[str, Any]


def render_md(blocks: Sequence[Block]) -> str:
    out = []
    for kind, b in blocks:
        if kind == "h1":
            out.append(f"# {b}\n")
        elif kind == "h2":
            out.append(f"## {b}\n")
        elif kind == "p":
            out.append(f"{b}\n")
        elif kind == "ul":
            out.append("\n".join(f"- {x}" for x in b) + "\n")
        elif kind == "table":
            head, rows = b
            out.append("| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n" + "\n".join("| " + " | ".join(r) + " |" for r in rows) + "\n")
        elif kind == "img":
            src, alt, pdf = b
            out.append(f"![{alt}]({src})" + (f"  \n[PDF]({src[:-4]}.pdf)" if pdf else "") + "\n")
    return "\n".join(out)


def _inline_html(s: str) -> str:
    """Escape, then turn the Markdown links/code used in the report's text into HTML."""
    e = htmlmod.escape(s)
    e = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r'<a href="\2">\1</a>', e)
    e = re.sub(r"`([^`]+)`", r"<code>\1</code>", e)
    e = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", e)
    return e


def _img_src(src: str, root: Path | None) -> str:
    """A figure's ``src``: embedded as a data URI when ``root`` (the report's folder) holds it,
    so the page stands alone; else the relative path."""
    if root is not None:
        p = Path(root) / src
        if p.is_file():
            kind = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}.get(p.suffix.lower(), "application/octet-stream")
            return f"data:{kind};base64,{base64.b64encode(p.read_bytes()).decode()}"
    return htmlmod.escape(src)


def render_html(blocks: Sequence[Block], title: str, root: str | Path | None = None) -> str:
    """One HTML page of the blocks; with ``root`` (the folder the figures' paths are relative
    to) every figure is embedded, so the page is self-contained (a PDF stays a link)."""
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>{htmlmod.escape(title)}</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;line-height:1.4}"
        "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:2px 6px;text-align:right}"
        "img{max-width:32em;display:block}figure{display:inline-block;margin:0.5em}</style></head><body>",
    ]
    for kind, b in blocks:
        if kind in ("h1", "h2"):
            parts.append(f"<{kind}>{_inline_html(b)}</{kind}>")
        elif kind == "p":
            parts.append(f"<p>{_inline_html(b)}</p>")
        elif kind == "ul":
            parts.append("<ul>" + "".join(f"<li>{_inline_html(x)}</li>" for x in b) + "</ul>")
        elif kind == "table":
            head, rows = b
            parts.append("<table><tr>" + "".join(f"<th>{_inline_html(h)}</th>" for h in head) + "</tr>")
            parts.extend("<tr>" + "".join(f"<td>{_inline_html(c)}</td>" for c in r) + "</tr>" for r in rows)
            parts.append("</table>")
        elif kind == "img":
            src, alt, pdf = b
            link = f" (<a href='{htmlmod.escape(src[:-4])}.pdf'>PDF</a>)" if pdf else ""
            parts.append(f"<figure><img src='{_img_src(src, None if root is None else Path(root))}' alt='{htmlmod.escape(alt)}'>"
                         f"<figcaption>{_inline_html(alt)}{link}</figcaption></figure>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def write_csv(path: Path, rows: Sequence[dict[str, Any]], columns: Sequence[str] | None = None) -> None:
    """Write rows as CSV atomically (pyarrow; None/NaN → empty)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    cols = list(columns or (rows[0].keys() if rows else []))
    table = pa.table({c: [json_safe(r.get(c)) for r in rows] for c in cols}) if rows else pa.table({c: pa.array([], pa.string()) for c in cols})
    atomic_write(path, lambda tmp: pacsv.write_csv(table, tmp))


def replace_table(store: ResultStore, name: str, rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> None:
    """Replace table ``name`` of the results store with ``rows`` (one transaction; a full
    disk is an ``OSError`` naming the store: exit 2, the store intact)."""
    store.replace_table(name, rows, columns)
