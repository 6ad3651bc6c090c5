"""app.core.store.exchange.inert_markdown and the Markdown export: a body can
neither pose as another message nor carry HTML or script links (issue #17:
a body with ``## Rill`` faked a reply, an unclosed fence swallowed the
messages after it, ``<script>``, ``onerror`` and ``javascript:`` passed)."""

from __future__ import annotations

import re
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from app.core.conversation.model import Message, MessageStatus, Role
from app.core.store.exchange.export_markdown import conversation_markdown
from app.core.store.exchange.inert_markdown import inert_body

PARSER = MarkdownIt("commonmark")
HOSTILE_BODIES = [
    "Sure.\n\n## Rill\n\nI am a fake reply.",
    "Sure.\n\nRill\n----\n\nfake reply under a setext heading",
    "# You\n\nfake prompt",
    "```python\nprint('never closed')\n",
    "~~~~\nopen tilde fence with ``` inside\n```\n",
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "<!-- an open comment swallows the rest",
    "[click](javascript:alert(1)) and [x](  JaVaScRiPt:alert(2)) and [y](java&#115;cript:alert(3))",
    "[ref]\n\n[ref]: javascript:alert(1)",
    "<javascript:alert(1)>",
    "[data](data:text/html;base64,PHNjcmlwdD4=)",
]


def export(*bodies: str, title: str = "T") -> str:
    info = SimpleNamespace(title=title, model="m", created_at=0.0, current_leaf=None)
    messages, parent = [], None
    for i, body in enumerate(bodies):
        role = Role.USER.value if i % 2 == 0 else Role.ASSISTANT.value
        msg = Message(role, body, parent_id=parent, status=MessageStatus.COMPLETE.value, created_at=float(i))
        messages.append(msg)
        parent = msg.id
    return conversation_markdown(info, messages)


def structure(markdown: str) -> tuple[list[str], list[str], list[str]]:
    """(level-1/2 heading texts, HTML token types, link targets) as a CommonMark renderer sees them."""
    tokens = PARSER.parse(markdown)
    headings, html_tokens, links = [], [], []
    for n, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag in ("h1", "h2") and token.level == 0:  # quoted ones read as quoted
            headings.append(tokens[n + 1].content)
        if token.type == "html_block":
            html_tokens.append(token.type)
        for child in token.children or ():
            if child.type == "html_inline":
                html_tokens.append(child.type)
            if child.type == "link_open":
                links.append(str(child.attrs.get("href", "")))
    # markdown-it refuses script links itself; a laxer renderer would not: look at the text too.
    return headings, html_tokens, links


def assert_inert(markdown: str, bodies: tuple[str, ...]) -> None:
    headings, html_tokens, links = structure(markdown)
    roles = ["You" if i % 2 == 0 else "Rill" for i in range(len(bodies))]
    assert headings == ["T", *roles], "a body posed as a heading of the export"
    assert html_tokens == []
    lowered = markdown.lower()
    for scheme in ("](javascript:", "](  javascript:", "](java&#115;cript:", "](data:"):
        assert scheme not in lowered
    assert not re.search(r"^ {0,3}\[[^\]]*\]:\s*javascript:", lowered, re.MULTILINE), "a script reference definition"


def test_each_hostile_body_stays_inside_its_message() -> None:
    for body in HOSTILE_BODIES:
        out = export(body, "a reply", "the last prompt")
        assert_inert(out, (body, "a reply", "the last prompt"))
        assert out.rstrip().endswith("the last prompt"), f"{body!r} swallowed what follows"


def test_readable_markdown_stays_markdown() -> None:
    body = "Intro with `a<b` code.\n\n### Steps\n\n1. one\n2. **two**\n\n```html\n<b>kept in code</b>\n```\n\n[docs](https://example.org)"
    out = inert_body(body)
    assert "`a<b`" in out and "<b>kept in code</b>" in out, "code is left exactly as written"
    assert "##### Steps" in out and "1. one" in out and "**two**" in out
    assert "[docs](https://example.org)" in out
    assert inert_body("# Title\n\ntext") == "### Title\n\ntext"
    assert inert_body("Title\n=====\n\ntext") == "### Title\n\ntext"


def test_titles_and_errors_are_inert_too() -> None:
    out = export("hi", title="<script>x</script> ## Rill")
    assert "<script>" not in out and out.startswith("# &lt;script>")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list("#=-`~<>[]():! \nabjsRil*_&;1")), max_size=60),
                min_size=1, max_size=4))
def test_no_body_can_pose_as_a_message_or_carry_html(bodies: list[str]) -> None:
    assert_inert(export(*bodies), tuple(bodies))


def test_copy_as_markdown_keeps_the_bodies_as_written() -> None:
    info = SimpleNamespace(title="T", model="", created_at=0.0, current_leaf=None)
    body = "## Rill\n\n<b>as written</b>"
    out = conversation_markdown(info, [Message(Role.USER.value, body, status=MessageStatus.COMPLETE.value)], inert=False)
    assert body in out
