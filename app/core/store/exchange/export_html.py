"""Export: conversations as one self-contained HTML page (Qt-free).

The current branch of each conversation, with roles, times and each reply's
facts (model, tokens, speed), the Markdown rendered the way the view renders
it (``app.core.render.markdown``: raw HTML escaped, no images, http(s) links
only), code highlighted in the theme's colours, and TeX math as inline SVG
(``app.core.render.mathsvg``; typeset ahead on every core,
``app.core.render.mathbatch``) in the theme's text colour; a formula that
cannot be typeset shows its source in code style, with the reason as its
title. One file: no script, no remote resource, no image file; a
Content-Security-Policy forbids anything but the page's own styles. A reply's
thinking is left out, as it is from Copy.

``html_page`` gives the whole page for an export, one conversation at a time
(``write_html`` streams it to a file); the PDF export prints the same page
(``app.ui.services.pdf_export``).
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TextIO

from app.core.base.i18n import translate
from app.core.conversation.model import Message, MessageStatus, Role, current_path
from app.core.render.markdown import code_css, render_markdown_math, render_user_text
from app.core.render.mathbatch import AheadTypesetter, formulas_in
from app.core.render.mathsvg import BASE_PX, Formula
from app.core.store.exchange.export_json import StoreReader, resolve_conversations
from app.core.store.exchange.export_markdown import Described
from app.core.text.thinking import strip_thinking

__all__ = ["DARK", "LIGHT", "HtmlTheme", "conversation_html", "html_page", "write_html"]

_IMG = re.compile(r'<img src="rill-math:([0-9a-f]{16})" class="(inline|display)" alt="([^"]*)"[^>]*>')
_CODE_TITLE = re.compile(r'<code title="rill-math:([0-9a-f]{16})">')
_SVG_OPEN = re.compile(r"<svg ")
_SIZE = re.compile(r'width="[\d.]+" height="[\d.]+"')
_CSP = "default-src 'none'; style-src 'unsafe-inline'"
#: Formulas typeset ahead at a time (well within mathsvg's cache).
_AHEAD = 512


@dataclass(frozen=True)
class HtmlTheme:
    """The colours of an export (the app's light and dark themes)."""

    name: str
    text: str
    background: str
    muted: str
    user_bg: str
    link: str
    code_bg: str
    pygments_style: str


LIGHT = HtmlTheme("light", "#1f2328", "#ffffff", "#57606a", "#f3f6fa", "#0969da", "#f6f8fa", "default")
DARK = HtmlTheme("dark", "#e6edf3", "#0d1117", "#9198a1", "#151b23", "#4493f8", "#161b22", "github-dark")


def _style(theme: HtmlTheme) -> str:
    return (
        f"body {{ font-family: system-ui, sans-serif; color: {theme.text}; background: {theme.background};"
        " max-width: 50em; margin: 2em auto; padding: 0 1em; line-height: 1.5; }\n"
        f"a {{ color: {theme.link}; }}\n"
        f".facts {{ color: {theme.muted}; font-size: 0.85em; }}\n"
        f"section.user {{ background: {theme.user_bg}; padding: 0.2em 1em; border-radius: 6px; }}\n"
        "section h2 { font-size: 1em; margin-bottom: 0.2em; }\n"
        "pre.code { padding: 0.6em; border-radius: 6px; overflow-x: auto; }\n"
        "table { border-collapse: collapse; }\n"
        ".math-display { display: block; text-align: center; overflow-x: auto; margin: 0.5em 0; }\n"
        ".math-inline svg { vertical-align: var(--depth); }\n"
        "svg { max-width: 100%; height: auto; }\n"
        f"{code_css(theme.pygments_style, theme.code_bg)}"
    )


def _local_time(ts: float) -> str:
    try:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(float(ts)))
    except (OverflowError, OSError, ValueError):
        return translate("Export", "unknown date")


def _svg(formula: Formula, color: str) -> str:
    """The formula's SVG in ``color``, sized in em (it follows the page's
    font size), with its source as its accessible name and title."""
    svg = formula.svg.replace('"#000000"', f'"{html.escape(color, quote=True)}"')
    size = f'width="{formula.width / BASE_PX:.3f}em" height="{formula.height / BASE_PX:.3f}em"'
    svg = _SIZE.sub(lambda _m: size, svg, count=1)
    label = f'<svg role="img" aria-label="{html.escape(formula.source, quote=True)}" '
    svg = _SVG_OPEN.sub(lambda _m: label, svg, count=1)
    return svg.replace(">", f"><title>{html.escape(formula.source, quote=False)}</title>", 1)


def _with_math(body: str, formulas: dict[str, Formula], color: str, keep: dict[str, Formula] | None) -> str:
    """Rendered HTML with its formula images swapped for inline SVG (or,
    with ``keep``, left as ``rill-math:`` images and collected there: the
    PDF export draws them through QTextDocument resources)."""
    if not formulas:
        return body

    def image(m: re.Match[str]) -> str:
        formula = formulas.get(m.group(1))
        if formula is None or not formula.ok:
            return f"<code>{m.group(3)}</code>"
        if m.group(2) == "display":
            return f'<span class="math-display">{_svg(formula, color)}</span>'
        depth = formula.height - formula.ascent
        return f'<span class="math-inline" style="--depth:-{depth / BASE_PX:.3f}em">{_svg(formula, color)}</span>'

    def broken(m: re.Match[str]) -> str:
        formula = formulas.get(m.group(1))
        reason = formula.reason() if formula is not None else ""
        return f'<code class="math-error" title="{html.escape(reason, quote=True)}">'

    if keep is not None:
        keep.update(formulas)
        return _CODE_TITLE.sub(broken, body)
    return _CODE_TITLE.sub(broken, _IMG.sub(image, body))


def _facts(msg: Message) -> str:
    meta = msg.meta
    facts = [_local_time(msg.created_at)]
    if msg.role == Role.ASSISTANT.value:
        if meta.model:
            facts.append(meta.model)
        if meta.tokens:
            facts.append(translate("Export", "{n} tokens").format(n=meta.tokens))
        if meta.tokens_per_s:
            facts.append(translate("Export", "{rate:.1f} tok/s").format(rate=meta.tokens_per_s))
        if meta.ttft_ms is not None:
            facts.append(translate("Export", "first token after {ms:.0f} ms").format(ms=meta.ttft_ms))
    status = MessageStatus(msg.status)
    if status is not MessageStatus.COMPLETE:
        facts.append(status.value)
    return html.escape(" · ".join(facts), quote=False)


def _message_html(msg: Message, theme: HtmlTheme, keep: dict[str, Formula] | None) -> str:
    user = msg.role == Role.USER.value
    who = translate("Export", "You") if user else translate("Export", "Rill")
    if user:
        body = render_user_text(msg.content)
    else:
        rendered, formulas = render_markdown_math(strip_thinking(msg.content))
        body = _with_math(rendered, formulas, theme.text, keep)
    error = ""
    if msg.error:
        error = f'<p class="facts">{html.escape(translate("Export", "Error: {error}").format(error=msg.error))}</p>'
    role = "user" if user else "assistant"
    return (
        f'<section class="{role}"><h2>{html.escape(who)}</h2>\n{body}\n{error}'
        f'<p class="facts">{_facts(msg)}</p></section>\n'
    )


def _typeset_ahead(ahead: AheadTypesetter, path: Sequence[Message], start: int) -> int:
    """Typeset the formulas of ``path[start:]``'s next messages (at most
    ``_AHEAD`` formulas, at least one message) ahead; the window's end (1-based)."""
    wanted: list[tuple[str, str, bool]] = []
    end = start
    while end < len(path):
        msg = path[end]
        found = [] if msg.role == Role.USER.value else formulas_in(strip_thinking(msg.content))
        if wanted and len(wanted) + len(found) > _AHEAD:
            break
        wanted += found
        end += 1
    ahead.ahead(wanted)
    return end


def conversation_html(
    info: Described,
    messages: Sequence[Message],
    theme: HtmlTheme = LIGHT,
    keep: dict[str, Formula] | None = None,
    each: Callable[[int, int], None] | None = None,
    ahead: AheadTypesetter | None = None,
) -> str:
    """One conversation (its current branch) as an ``<article>`` (``keep``:
    see ``html_page``); ``each(done, total)`` after each message; ``ahead``
    typesets the next messages' formulas on every core first."""
    path = current_path(messages, info.current_leaf)
    title = " ".join(str(info.title or "").split()) or translate("Export", "Untitled conversation")
    facts = [_local_time(info.created_at)] + ([info.model] if info.model else [])
    parts = [f"<article><h1>{html.escape(title)}</h1>\n<p class=\"facts\">{html.escape(' · '.join(facts))}</p>\n"]
    window_end = 0
    for n, msg in enumerate(path, 1):
        if ahead is not None and n > window_end:
            window_end = _typeset_ahead(ahead, path, n - 1)
        parts.append(_message_html(msg, theme, keep))
        if each is not None:
            each(n, len(path))
    parts.append("</article>\n")
    return "".join(parts)


def html_page(
    store: StoreReader,
    conversation_ids: Iterable[str] | None,
    theme: HtmlTheme = LIGHT,
    progress: Callable[[float], None] | None = None,
    shown: list[int] | None = None,
    keep: dict[str, Formula] | None = None,
) -> Iterator[str]:
    """The export page in pieces: the head, one ``<article>`` per conversation,
    the end. ``progress(fraction)`` after each message (0 < fraction <= 1:
    conversations done, and the messages of the current one); ``shown``
    gets the number of messages of each conversation's current branch.
    ``keep``: formulas stay ``rill-math:`` images (Qt's HTML has no SVG) and
    are collected there by key."""
    infos = resolve_conversations(store, conversation_ids)
    title = infos[0].title if len(infos) == 1 and infos[0].title else translate("Export", "Rill conversations")
    yield (
        "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
        f"<meta name=\"color-scheme\" content=\"{theme.name}\">\n"
        f"<title>{html.escape(' '.join(title.split()))}</title>\n<style>\n{_style(theme)}</style>\n</head>\n<body>\n"
    )
    with AheadTypesetter() as ahead:
        for n, info in enumerate(infos, 1):
            messages = store.load_messages(info.id)
            if shown is not None:
                shown.append(len(current_path(messages, info.current_leaf)))
            each = None
            if progress is not None:
                def each(done: int, total: int, n: int = n, report: Callable[[float], None] = progress) -> None:
                    report((n - 1 + done / max(1, total)) / len(infos))
            yield conversation_html(info, messages, theme, keep, each, ahead)
            if progress is not None:
                progress(n / len(infos))
    yield "</body>\n</html>\n"


def write_html(
    store: StoreReader,
    conversation_ids: Iterable[str] | None,
    out: TextIO,
    theme: HtmlTheme = LIGHT,
    progress: Callable[[float], None] | None = None,
) -> tuple[int, int]:
    """Write the HTML export to ``out``; returns (conversations, messages shown)."""
    shown: list[int] = []
    for piece in html_page(store, conversation_ids, theme, progress, shown=shown):
        out.write(piece)
    return len(shown), sum(shown)
