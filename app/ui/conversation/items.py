"""The view's data: one ``Item`` per message or notice, its ``UnitSlot``s
(a rendered unit and, near the viewport, its document), its thinking
(``ThoughtsState``), the id → index map (``ItemIndex``), places in the text
(``Pos``), and the layout constants every helper of the view shares.

Pure data plus small Qt-text helpers; GUI thread only (documents).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from PyQt6.QtCore import QUrl
from PyQt6.QtGui import QAbstractTextDocumentLayout, QTextCursor, QTextDocument

from app.core.conversation.model import Message, Role
from app.core.render.blocks import Unit
from app.core.render.markdown import BlockScanner
from app.core.text.textbreak import DisplayBreaker
from app.core.text.thinking import ThinkingSpans, ThinkingSplitter, strip_thinking
from app.core.util.fenwick import Fenwick

ALLOWED_LINK_SCHEMES = ("http", "https")
BREAK_LIMIT = 1000          # longest displayed paragraph of the streaming tail
COMMIT_SCAN_S = 0.05        # completed Markdown blocks are looked for at most this often
SLICE_BUDGET_S = 0.003      # one slice of document building
LIVE_ABOVE = 1.0            # screens above the viewport that hold documents
LIVE_BELOW = 2.0            # screens below
KEEP_MARGIN = 2.0           # documents further than this (screens) are dropped
LAZY_COPY_ITEMS = 200       # a selection over more messages is copied lazily
SYNC_HISTORY = 300          # history messages shown at once; earlier ones are made in time-sliced steps
THOUGHTS_PIECE = 1000       # characters of thoughts put into their document per work step
WORDS_EXACT_LIMIT = 100_000  # longer thoughts get an estimated word count (counting would stall)

PAD_X = 16.0
PAD_Y = 10.0
HEADER_GAP = 4.0
UNIT_GAP = 6.0
FOOTER_GAP = 4.0
SOURCES_GAP = 4.0  # between a reply's sources line and its footer line
ITEM_GAP = 6.0
TEXT_PX = 14                # body text size at zoom 1.0 (pixels)
SMALL_PX = 12               # headers' thinking row and footers
CHAR_W = 7.5                # average character width at zoom 1.0, for height estimates
COLUMN_CHARS = 75           # the reading column's width in average characters (0: the whole viewport)
BUBBLE_PAD = 12.0           # a user message's bubble reaches this far left and right of its text

def layout_of(doc: QTextDocument) -> QAbstractTextDocumentLayout:
    """A document's layout (Qt always gives one; the stubs say it may be None)."""
    layout = doc.documentLayout()
    assert layout is not None
    return layout


class UnitDocument(QTextDocument):
    """A unit's document: never loads a resource (images, local files...)."""

    def loadResource(self, type_: int, name: QUrl) -> object:
        return None


def collapse_leading_block(doc: QTextDocument) -> None:
    """A table alone in a document gets an empty paragraph in front of its
    frame (removing it would take the table along): give it no height. The
    shown text drops it too (``doc_text``)."""
    first = doc.begin()
    if first.isValid() and first.length() == 1:
        fmt = first.blockFormat()
        fmt.setLineHeight(0, 2)  # QTextBlockFormat.LineHeightTypes.FixedHeight
        fmt.setTopMargin(0)
        fmt.setBottomMargin(0)
        cursor = QTextCursor(first)
        cursor.setBlockFormat(fmt)
        char = cursor.blockCharFormat()
        char.setFontPointSize(1)
        cursor.setBlockCharFormat(char)


def utf16_prefix(item: Item, upto: int, doc_chars: int) -> int:
    """Document positions count UTF-16 units: the tail's first ``doc_chars``
    characters (source [tail_start, upto) plus break separators) in them."""
    assert item.message is not None
    text = item.message.content[item.tail_start : upto]
    astral = sum(1 for ch in text if ord(ch) > 0xFFFF) if not text.isascii() else 0
    return doc_chars + astral


def copy_source(message: Message) -> str:
    """What copying a whole message gives: its Markdown source, the answer
    only (a reply's thinking is left out, as it is from prompts)."""
    content = message.content
    return strip_thinking(content) if message.role == Role.ASSISTANT.value else content


def gap_after(units: list[UnitSlot], n: int) -> float:
    """Space after unit n: none before a continuation piece of the same code block."""
    return 0.0 if n + 1 < len(units) and units[n + 1].unit.cont else UNIT_GAP


def is_table_piece(unit: Unit) -> bool:
    """A later piece of a table shown in pieces (``blocks.TABLE_PIECE_ROWS``):
    its text goes on from the piece before, with no line between."""
    return unit.kind == "html" and unit.cont


def joined_unit_texts(parts: Iterable[tuple[Unit | None, str]]) -> str:
    """Units' texts (unit None: the tail or the thoughts) joined as the view
    shows them: a line between, except that a split table's later piece goes
    on from the piece before (whose text ends its row)."""
    out: list[str] = []
    for unit, text in parts:
        if out and unit is not None and is_table_piece(unit):
            out[-1] += text
        else:
            out.append(text)
    return "\n".join(out)


def doc_text(unit: Unit, doc: QTextDocument) -> str:
    text = doc.toPlainText()
    if unit.body.startswith("<table") and text.startswith("\n"):
        text = text[1:]
    return text


class ItemIndex:
    """Item id → index in the view's list. Ids map to sequence numbers with
    a movable base, so putting k items in front costs O(k), not O(n)."""

    __slots__ = ("_base", "_seq")

    def __init__(self) -> None:
        self._seq: dict[str, int] = {}
        self._base = 0

    def get(self, key: str, default: int | None = None) -> int | None:
        seq = self._seq.get(key)
        return default if seq is None else seq - self._base

    def __getitem__(self, key: str) -> int:
        return self._seq[key] - self._base

    def __setitem__(self, key: str, index: int) -> None:
        self._seq[key] = index + self._base

    def __contains__(self, key: object) -> bool:
        return key in self._seq

    def prepend(self, keys: list[str]) -> None:
        """``keys`` now come first (indices 0..k-1); every other index grows by k."""
        self._base -= len(keys)
        self._seq.update(zip(keys, range(self._base, self._base + len(keys)), strict=True))  # at C speed

    def prepend_positions(self, positions: dict[str, int]) -> None:
        """As ``prepend``, from the keys' positions made beforehand (key →
        0..k-1; the dict becomes this index's own): O(the keys already
        here), whatever k. (26,000 earlier messages: ~0.1 ms, not 4.)"""
        k = len(positions)
        base = self._base
        positions.update(zip(self._seq, map((k - base).__add__, self._seq.values()), strict=True))
        self._seq, self._base = positions, 0


@dataclass(slots=True)
class UnitSlot:
    unit: Unit
    doc: QTextDocument | None = None
    height: float = 0.0
    measured_width: float = -1.0
    #: What an estimated ``height`` was made for (``Metrics.estimate_key``): not made again per tick.
    estimated_for: tuple[float, float, float] | None = None


@dataclass(eq=False, slots=True)
class ThoughtsState:
    """An assistant message's thinking: offsets into its content, and the
    document showing it when unfolded (built only then, dropped with the
    item's other documents)."""

    start: int                    # content offset of the thoughts' first character
    end: int                      # just past the thoughts known so far
    answer: int                   # content offset of the answer (-1: not known yet)
    closed: bool
    words: int = -1               # -1: not counted yet (counted when first shown)
    expanded: bool = False
    doc: QTextDocument | None = None
    cursor: QTextCursor | None = None
    breaker: DisplayBreaker | None = None
    filling: bool = False         # the document is being filled in work slices
    pending: list[str] = field(default_factory=list)  # streamed meanwhile
    shown: bool = False           # the document holds a non-space character
    height: float = 0.0
    measured_width: float = -1.0
    find_key: str = ""            # cached count of find matches in the source
    find_count: int = 0

    @classmethod
    def of(cls, spans: ThinkingSpans) -> ThoughtsState:
        return cls(spans.thoughts_start, spans.thoughts_end, spans.answer_start, spans.closed)

    @property
    def ready(self) -> bool:
        """Shown as a document (unfolded, built, filled)."""
        return self.expanded and self.doc is not None and not self.filling


@dataclass(eq=False, slots=True)
class Item:
    id: str
    kind: str                     # "user" | "assistant" | "notice"
    message: Message | None       # None for notices
    label: str = ""
    units: list[UnitSlot] = field(default_factory=list)
    rendered_len: int = -1        # content length the units were made from (-1: none yet)
    render_asked: int = -1        # content length of the last render request
    # streaming
    streaming: bool = False
    committed: int = 0            # source chars covered by units
    commit_asked: int = 0         # source chars sent to the render thread so far
    tail: QTextDocument | None = None
    tail_cursor: QTextCursor | None = None
    breaker: DisplayBreaker | None = None
    tail_height: float = 0.0
    tail_start: int = 0           # source offset of the tail's first character
    tail_end: int = 0             # source offset just past the tail's last character
    tail_breaks: list[int] = field(default_factory=list)  # source offsets of display breaks in the tail
    last_scan: float = 0.0        # when completed blocks were last looked for
    scan: BlockScanner | None = None  # the block cuts of the streamed answer, found as it grows
    plain_block: bool = False     # the open block is too long to render: committed in plain pieces
    final_pending: bool = False
    splitter: ThinkingSplitter | None = None  # streaming, until the answer starts (or no thinking)
    think: ThoughtsState | None = None   # thinking shown folded above the answer
    # footer
    note: str = ""
    note_kind: str = "info"
    facts: str = ""
    sources: str = ""  # "Sources: report.pdf p. 217" (a line of its own above the footer's)
    # geometry
    height: float = 0.0
    measured_width: float = -1.0
    live: bool = False
    doc_span: range | None = None  # the units that should hold documents (None: all; ``UnitWindow``)
    doc_window: tuple[int, int, int] | None = None  # (span start, stop, unit count) last windowed

    @property
    def docs_ready(self) -> bool:
        think = self.think
        units = self.units if self.doc_span is None else self.units[self.doc_span.start : self.doc_span.stop]
        return all(u.doc is not None for u in units) and (think is None or not think.expanded or think.ready)


@dataclass(frozen=True, order=True)
class Pos:
    """A place in the view's text: item index, unit index (len(units) = the
    streaming tail, -1 = the unfolded thoughts), character position in that
    unit's document."""

    item: int
    unit: int
    char: int


class ItemList:
    """The view's items in order, the id → index map and the Fenwick tree
    of their heights (item height + ``ITEM_GAP`` each): what the view's
    helpers share. Tops and the item at a y are O(log n)."""

    __slots__ = ("heights", "index", "items")

    def __init__(self) -> None:
        self.items: list[Item] = []
        self.index = ItemIndex()
        self.heights = Fenwick()

    def get(self, item_id: str) -> Item | None:
        index = self.index.get(item_id)
        return None if index is None else self.items[index]

    def top(self, index: int) -> float:
        """Content y of item ``index``."""
        return self.heights.prefix(index)

    def at_y(self, y: float) -> int:
        """Index of the item covering content y (clamped)."""
        return self.heights.find(y)

    def total(self) -> float:
        return self.heights.total()

    def reset(self) -> None:
        """No items (a new list: the old one is left to whoever holds it)."""
        self.items = []
        self.index = ItemIndex()
        self.heights = Fenwick()

    def reindex(self) -> None:
        """Rebuild the index and the heights from ``items`` (O(n))."""
        self.index = ItemIndex()
        for n, item in enumerate(self.items):
            self.index[item.id] = n
        self.heights.rebuild(item.height + ITEM_GAP for item in self.items)
