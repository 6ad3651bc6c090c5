"""HTML as plain text (Qt-free, stdlib ``html.parser``): the words a reader
sees, paragraphs and list items on their own lines, scripts and styles out.

Threading rule: any thread.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_BLOCKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "section",
           "article", "header", "footer", "table", "ul", "ol", "dl", "dt", "dd", "hr", "title", "figcaption"}
_HIDDEN = {"script", "style", "noscript", "template", "head", "svg"}
_SPACES = re.compile(r"[ \t\f\v\u00a0]+")
_BLANKS = re.compile(r"\n\s*\n\s*")
_PRE_SPACE, _PRE_LINE = "\x01", "\x02"


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0
        self.pre = 0
        self.title = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN and tag != "head":
            self.hidden += 1
        elif tag == "pre":
            self.pre += 1
        if tag in _BLOCKS:
            self.parts.append("\n\n" if tag not in ("br", "li", "tr", "dt", "dd") else "\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN and tag != "head" and self.hidden:
            self.hidden -= 1
        elif tag == "pre" and self.pre:
            self.pre -= 1
        if tag in _BLOCKS and tag not in ("br", "li", "tr", "dt", "dd"):  # those start a line already
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self.hidden:
            return
        if self.pre:  # kept as written: marked so the clean-up below leaves it alone
            self.parts.append(data.replace(" ", _PRE_SPACE).replace("\n", _PRE_LINE))
        else:
            self.parts.append(_SPACES.sub(" ", data.replace("\n", " ")))


def html_to_text(html: str) -> str:
    """The visible text of ``html``, one paragraph per block."""
    parser = _Text()
    parser.feed(html.replace(_PRE_SPACE, "").replace(_PRE_LINE, ""))
    parser.close()
    text = "".join(parser.parts)
    lines = [line.strip() if line.strip() else "" for line in text.split("\n")]
    text = _BLANKS.sub("\n\n", "\n".join(lines)).strip()
    return text.replace(_PRE_SPACE, " ").replace(_PRE_LINE, "\n")
