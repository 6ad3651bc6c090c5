"""Every keyboard shortcut of Rill, in one table.

The actions take their keys from here (``bind``), key handlers of widgets
ask ``matches`` and Help › Keyboard Shortcuts (``ShortcutsDialog``) lists
this table: a shortcut is written once. Standard keys come from Qt
(``QKeySequence.StandardKey``), so they are the platform's own.

Threading rule: GUI thread only.
"""

from __future__ import annotations

from dataclasses import dataclass

from PyQt6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PyQt6.QtGui import QAction, QKeyEvent, QKeySequence, QShortcut
from PyQt6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

__all__ = ["Shortcut", "SHORTCUTS", "bind", "bind_shortcut", "sequences", "matches", "ShortcutsDialog"]

_Std = QKeySequence.StandardKey
Key = _Std | str

SHORTCUT_PROPERTY = "rillShortcut"


@dataclass(frozen=True)
class Shortcut:
    """One entry: ``id`` (what code binds), the section and description as
    shown (English source; translated with the "Shortcuts" context) and the
    keys (Qt standard keys or portable strings such as "Ctrl+K")."""

    id: str
    section: str
    text: str
    keys: tuple[Key, ...]


_CHATS = QT_TRANSLATE_NOOP("Shortcuts", "Conversations")
_MESSAGE = QT_TRANSLATE_NOOP("Shortcuts", "Message box")
_EDIT = QT_TRANSLATE_NOOP("Shortcuts", "Reading and editing")
_VIEW = QT_TRANSLATE_NOOP("Shortcuts", "View")
_MODELS = QT_TRANSLATE_NOOP("Shortcuts", "Models and settings")
_HELP = QT_TRANSLATE_NOOP("Shortcuts", "Help")

SHORTCUTS: tuple[Shortcut, ...] = (
    Shortcut("new_chat", _CHATS, QT_TRANSLATE_NOOP("Shortcuts", "New chat"), (_Std.New,)),
    Shortcut("search", _CHATS, QT_TRANSLATE_NOOP("Shortcuts", "Search all conversations"), ("Ctrl+K",)),
    Shortcut("next_chat", _CHATS, QT_TRANSLATE_NOOP("Shortcuts", "Next conversation"), ("Ctrl+PgDown",)),
    Shortcut("previous_chat", _CHATS, QT_TRANSLATE_NOOP("Shortcuts", "Previous conversation"), ("Ctrl+PgUp",)),
    Shortcut("sidebar", _CHATS, QT_TRANSLATE_NOOP("Shortcuts", "Go to the conversation list"), ("Ctrl+Shift+L",)),
    Shortcut("rename", _CHATS, QT_TRANSLATE_NOOP("Shortcuts", "Rename the conversation"), ("F2",)),
    Shortcut(
        "delete_chat", _CHATS, QT_TRANSLATE_NOOP("Shortcuts", "Delete the conversation (in the list)"), (_Std.Delete,)
    ),
    Shortcut("print", _CHATS, QT_TRANSLATE_NOOP("Shortcuts", "Print the conversation"), (_Std.Print,)),
    Shortcut("quit", _CHATS, QT_TRANSLATE_NOOP("Shortcuts", "Quit Rill"), (_Std.Quit, "Ctrl+Q")),
    Shortcut("send", _MESSAGE, QT_TRANSLATE_NOOP("Shortcuts", "Send the message"), ("Return", "Enter")),
    Shortcut("newline", _MESSAGE, QT_TRANSLATE_NOOP("Shortcuts", "New line in the message"), ("Shift+Return",)),
    Shortcut("stop", _MESSAGE, QT_TRANSLATE_NOOP("Shortcuts", "Stop the reply"), ("Esc",)),
    Shortcut("focus_prompt", _MESSAGE, QT_TRANSLATE_NOOP("Shortcuts", "Go to the message box"), ("Ctrl+L",)),
    Shortcut("regenerate", _MESSAGE, QT_TRANSLATE_NOOP("Shortcuts", "Regenerate the last reply"), ("Ctrl+R",)),
    Shortcut("copy", _EDIT, QT_TRANSLATE_NOOP("Shortcuts", "Copy the selection"), (_Std.Copy,)),
    Shortcut("select_all", _EDIT, QT_TRANSLATE_NOOP("Shortcuts", "Select the whole conversation"), (_Std.SelectAll,)),
    Shortcut(
        "copy_chat", _EDIT, QT_TRANSLATE_NOOP("Shortcuts", "Copy the conversation as Markdown"), ("Ctrl+Shift+C",)
    ),
    Shortcut("find", _EDIT, QT_TRANSLATE_NOOP("Shortcuts", "Find in the conversation"), (_Std.Find,)),
    Shortcut("find_next", _EDIT, QT_TRANSLATE_NOOP("Shortcuts", "Next match"), (_Std.FindNext,)),
    Shortcut("find_previous", _EDIT, QT_TRANSLATE_NOOP("Shortcuts", "Previous match"), (_Std.FindPrevious,)),
    Shortcut("top", _EDIT, QT_TRANSLATE_NOOP("Shortcuts", "Start of the conversation"), ("Ctrl+Home",)),
    Shortcut("bottom", _EDIT, QT_TRANSLATE_NOOP("Shortcuts", "End of the conversation"), ("Ctrl+End",)),
    Shortcut("zoom_in", _VIEW, QT_TRANSLATE_NOOP("Shortcuts", "Larger text"), ("Ctrl+=", _Std.ZoomIn)),
    Shortcut("zoom_out", _VIEW, QT_TRANSLATE_NOOP("Shortcuts", "Smaller text"), (_Std.ZoomOut,)),
    Shortcut("zoom_reset", _VIEW, QT_TRANSLATE_NOOP("Shortcuts", "Normal text size"), ("Ctrl+0",)),
    Shortcut("stream_health", _VIEW, QT_TRANSLATE_NOOP("Shortcuts", "Show the stream health panel"), ("Ctrl+Shift+H",)),
    Shortcut("open_model", _MODELS, QT_TRANSLATE_NOOP("Shortcuts", "Open a model file"), (_Std.Open,)),
    Shortcut("manage_models", _MODELS, QT_TRANSLATE_NOOP("Shortcuts", "Manage models"), ("Ctrl+Shift+M",)),
    Shortcut("settings", _MODELS, QT_TRANSLATE_NOOP("Shortcuts", "Settings"), ("Ctrl+,",)),
    Shortcut("shortcuts", _HELP, QT_TRANSLATE_NOOP("Shortcuts", "Keyboard shortcuts"), ("Ctrl+/",)),
)
BY_ID: dict[str, Shortcut] = {s.id: s for s in SHORTCUTS}


def sequences(shortcut_id: str) -> list[QKeySequence]:
    """The key sequences of an entry (a standard key may have several)."""
    out: list[QKeySequence] = []
    for key in BY_ID[shortcut_id].keys:
        found = QKeySequence.keyBindings(key) if isinstance(key, _Std) else [QKeySequence(key)]
        out += [s for s in found if not s.isEmpty() and s not in out]
    return out


def bind(action: QAction, shortcut_id: str) -> QAction:
    """Give ``action`` the keys of ``shortcut_id`` (and remember which entry it is)."""
    action.setShortcuts(sequences(shortcut_id))
    action.setProperty(SHORTCUT_PROPERTY, shortcut_id)
    return action


def bind_shortcut(shortcut: QShortcut, shortcut_id: str) -> QShortcut:
    """Same for a QShortcut (keys that are not menu actions)."""
    shortcut.setKeys(sequences(shortcut_id))
    shortcut.setProperty(SHORTCUT_PROPERTY, shortcut_id)
    return shortcut


def matches(event: QKeyEvent, shortcut_id: str) -> bool:
    """Whether a key press is one of the entry's sequences (for key handlers)."""
    combined = QKeySequence(event.keyCombination())
    return any(combined.matches(s) == QKeySequence.SequenceMatch.ExactMatch for s in sequences(shortcut_id))


_FIRST_SPECIAL_KEY = 0x01000060  # Qt::Key_Back and after: media and "office" keys


def _on_keyboards(sequence: QKeySequence) -> bool:
    """Not a media or "office" key (Copy, Open, Zoom In...) that some
    platforms bind besides the usual keys: true for keys every keyboard has."""
    return all(sequence[i].key().value < _FIRST_SPECIAL_KEY for i in range(sequence.count()))


def keys_text(shortcut_id: str) -> str:
    """The entry's keys as shown to the user, in the platform's notation."""
    shown = [s for s in sequences(shortcut_id) if _on_keyboards(s)]
    return ", ".join(s.toString(QKeySequence.SequenceFormat.NativeText) for s in shown)


class ShortcutsDialog(QDialog):
    """Help › Keyboard Shortcuts: the table above, by section."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Keyboard Shortcuts"))
        self.resize(520, 620)
        self.table = QTableWidget(0, 2, self)
        self.table.setObjectName("shortcutsTable")
        self.table.setHorizontalHeaderLabels([self.tr("Action"), self.tr("Keys")])
        self.table.setAccessibleName(self.tr("Keyboard shortcuts"))
        vertical_header = self.table.verticalHeader()
        assert vertical_header is not None
        vertical_header.setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        assert header is not None
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self._fill()
        note = QLabel(self.tr("Every menu item also has an underlined letter: press Alt and that letter."))
        note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(note)
        layout.addWidget(buttons)

    def _fill(self) -> None:
        section = None
        for entry in SHORTCUTS:
            if entry.section != section:
                section = entry.section
                row = self.table.rowCount()
                self.table.insertRow(row)
                head = QTableWidgetItem(QCoreApplication.translate("Shortcuts", section))
                font = head.font()
                font.setBold(True)
                head.setFont(font)
                head.setFlags(Qt.ItemFlag.ItemIsEnabled)
                self.table.setItem(row, 0, head)
                self.table.setSpan(row, 0, 1, 2)
            row = self.table.rowCount()
            self.table.insertRow(row)
            self.table.setItem(row, 0, QTableWidgetItem(QCoreApplication.translate("Shortcuts", entry.text)))
            keys = QTableWidgetItem(keys_text(entry.id))
            keys.setData(Qt.ItemDataRole.UserRole, entry.id)
            self.table.setItem(row, 1, keys)

    def rows(self) -> list[tuple[str, str]]:
        """(description, keys) of every shortcut row, as shown."""
        out = []
        for row in range(self.table.rowCount()):
            keys = self.table.item(row, 1)
            if keys is not None:
                text = self.table.item(row, 0)
                out.append((text.text() if text is not None else "", keys.text()))
        return out
