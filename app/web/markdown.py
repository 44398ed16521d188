"""A small Markdown subset for a requester's instructions and consent text, rendered
safely: every character of the file is escaped first, so raw HTML shows as text; only the
marks below become tags, and links only to http(s) and mailto addresses.

Blocks: `#`, `##`, `###` headings, paragraphs (blank-line separated), `-`/`*` lists and
`1.` lists. Inline: `**bold**`, `*italic*` or `_italic_`, `` `code` ``, `[text](url)`.
Our own (no dependency): the page needs this much and no more.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

_LINK = re.compile(r"\[([^\]\n]{1,300})\]\(((?:https?://|mailto:)[^\s()<>\"']{1,2000})\)")
_INLINE = [
    (re.compile(r"`([^`\n]{1,500})`"), r"<code>\1</code>"),
    (re.compile(r"\*\*([^*\n]{1,500})\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"(?<![\w*])\*([^*\n]{1,500})\*(?![\w*])"), r"<em>\1</em>"),
    (re.compile(r"(?<![\w_])_([^_\n]{1,500})_(?![\w_])"), r"<em>\1</em>"),
]
_BULLET = re.compile(r"[-*+]\s+(.*)")
_NUMBER = re.compile(r"\d{1,3}[.)]\s+(.*)")


def inline(text: str) -> str:
    """One line of text, escaped, with its inline marks made tags."""
    out = str(escape(text))
    for pattern, tag in _INLINE:
        out = pattern.sub(tag, out)
    return _LINK.sub(lambda m: f'<a href="{m.group(2)}" rel="noopener noreferrer" '
                     f'target="_blank">{m.group(1)}</a>', out)


def render(source: str) -> Markup:
    """The Markdown subset of `source` as HTML (empty for an empty text)."""
    blocks: list[str] = []
    lines: list[str] = []
    kind = ""

    def flush() -> None:
        nonlocal lines, kind
        if lines:
            if kind in ("ul", "ol"):
                items = "".join(f"<li>{inline(line)}</li>" for line in lines)
                blocks.append(f"<{kind}>{items}</{kind}>")
            else:
                blocks.append("<p>" + "<br>".join(inline(line) for line in lines) + "</p>")
        lines, kind = [], ""

    for raw in source.replace("\r\n", "\n").split("\n"):
        line = raw.strip()
        heading = re.fullmatch(r"(#{1,3})\s+(.*)", line)
        bullet, number = _BULLET.fullmatch(line), _NUMBER.fullmatch(line)
        if not line or heading:
            flush()
            if heading:
                level = len(heading.group(1)) + 1  # the page's own title is the h1
                blocks.append(f"<h{level}>{inline(heading.group(2))}</h{level}>")
            continue
        wanted = "ul" if bullet else "ol" if number else "p"
        if wanted != kind and not (kind in ("ul", "ol") and wanted == "p"):
            flush()
            kind = wanted
        if kind in ("ul", "ol") and wanted == "p" and lines:
            lines[-1] += " " + line  # a list item's text going on
        else:
            marked = bullet or number
            lines.append(marked.group(1) if marked else line)
    flush()
    return Markup("\n".join(blocks))
