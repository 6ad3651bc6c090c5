"""The HTML export: one self-contained page, math as inline SVG, hostile text inert."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from app.core.conversation.model import Message, MessageMeta
from app.core.store import ConversationInfo, Store
from app.core.store.exchange.export_html import DARK, LIGHT, html_page, write_html

T0 = 1_700_000_000.0
REPLY = (
    "<think>private</think>The roots are $x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}$, for $5 and $10.\n\n"
    "$$\n\\begin{cases} 1 & x > 0 \\\\ 0 & \\text{otherwise} \\end{cases}\n$$\n\n"
    "Broken: \\(\\foo{x}\\).\n\n```python\nprint('$x$')\n```\n\n"
    "<script>alert(1)</script> <img src=\"https://evil.example/x.png\"> [link](javascript:alert(1))"
)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Any]:
    result = Store.open(tmp_path / "x.db")
    assert result.store is not None
    s = result.store
    s.create_conversation(ConversationInfo(id="c" * 32, title="Quadratic <b>", created_at=T0, updated_at=T0,
                                           pinned=False, model="m", system_prompt="", params={}, current_leaf=None))
    s.add_message("c" * 32, Message("user", "Solve <it> & show", id="u1", created_at=T0 + 1))
    s.add_message("c" * 32, Message("assistant", REPLY, id="a1", created_at=T0 + 2, parent_id="u1",
                                    meta=MessageMeta(model="Qwen3", tokens=321, tokens_per_s=45.6, ttft_ms=120.0)))
    s.update_conversation("c" * 32, current_leaf="a1", updated_at=T0 + 3)
    yield s
    s.close()


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _page(store: Any, theme: Any = LIGHT) -> str:
    out = io.StringIO()
    assert write_html(store, None, out, theme) == (1, 2)
    return out.getvalue()


def test_the_page_is_self_contained_with_math_as_svg(store: Any) -> None:
    page = _page(store)
    parser = _Tags()
    parser.feed(page)
    tags = [t for t, _ in parser.tags]
    assert "script" not in tags and "img" not in tags and "iframe" not in tags and "link" not in tags
    assert all(not (a.get("src") or "") for _, a in parser.tags)
    assert all((a.get("href") or "").startswith(("http://", "https://")) for t, a in parser.tags if t == "a")
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert tags.count("svg") == 2  # the inline formula and the cases
    assert '<span class="math-display">' in page and 'class="math-inline"' in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "private" not in page  # the thinking is left out
    assert "for $5 and $10" in page
    assert "$x$" in page.split('<pre class="code"', 1)[1].split("</pre>", 1)[0]  # code keeps its dollars


def test_broken_tex_is_code_with_the_reason(store: Any) -> None:
    page = _page(store)
    assert '<code class="math-error" title="Unknown command \\foo.">\\(\\foo{x}\\)</code>' in page


def test_roles_times_and_facts(store: Any) -> None:
    page = _page(store)
    assert "<h1>Quadratic &lt;b&gt;</h1>" in page
    assert "<h2>You</h2>" in page and "<h2>Rill</h2>" in page
    assert "Solve &lt;it&gt; &amp; show" in page
    assert "Qwen3 · 321 tokens · 45.6 tok/s · first token after 120 ms" in page


def test_theme_colours_go_into_math_and_code(store: Any) -> None:
    light, dark = _page(store, LIGHT), _page(store, DARK)
    assert f'fill="{LIGHT.text}"' in light and f'fill="{DARK.text}"' in dark
    assert 'fill="#000000"' not in light
    assert DARK.code_bg in dark and DARK.background in dark


def test_progress_is_reported_per_message(store: Any) -> None:
    seen: list[float] = []
    pieces = list(html_page(store, None, LIGHT, progress=seen.append))
    assert seen == [0.5, 1.0, 1.0]
    assert pieces[0].startswith("<!DOCTYPE html>") and pieces[-1].endswith("</html>\n")
    assert re.search(r"<title>Quadratic &lt;b&gt;</title>", pieces[0])
