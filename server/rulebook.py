"""The rule book, docs/rules.md, as a web page (`/rules`): rendered once with markdown-it (raw HTML in
the source is escaped, not passed through), each rule heading and each numbered rule given an anchor
named by its number (``id="R6.2"``), which score explanations link to.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from markdown_it import MarkdownIt

__all__ = ["RULES_SOURCE", "RuleBook", "rule_book"]

RULES_SOURCE = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
_SECTION = re.compile(r"^(R\d+)\b")


class RuleBook:
    """The rendered book: its HTML and the anchors it holds."""

    def __init__(self, html: str, anchors: frozenset[str]) -> None:
        self.html, self.anchors = html, anchors


@functools.cache
def rule_book(source: Path = RULES_SOURCE) -> RuleBook:
    """The rule book rendered from ``source`` (read once)."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(source.read_text(encoding="utf-8"))
    anchors: set[str] = set()
    section: str | None = None
    numbered = 0
    ordered = False
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h2":
            match = _SECTION.match(tokens[i + 1].content)
            section, numbered = (match.group(1) if match else None), 0
            if section is not None:
                token.attrSet("id", section)
                anchors.add(section)
        elif token.type in ("ordered_list_open", "bullet_list_open") and token.level == 0:
            ordered = token.type == "ordered_list_open"
        elif token.type in ("th_open", "td_open") and token.attrGet("style"):
            # A column's alignment comes as a style attribute, which the pages' CSP (style-src 'self')
            # blocks: a class in static/css/sparrow.css aligns it instead.
            align = str(token.attrGet("style")).removeprefix("text-align:")
            token.attrs.pop("style")
            token.attrSet("class", f"align-{align}")
        elif token.type == "list_item_open" and token.level == 1 and ordered and section is not None:
            # The numbered rules of a section are the items of its top-level ordered lists.
            numbered += 1
            anchor = f"{section}.{numbered}"
            token.attrSet("id", anchor)
            anchors.add(anchor)
    html = md.renderer.render(tokens, md.options, {})
    return RuleBook(html, frozenset(anchors))
