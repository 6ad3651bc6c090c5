"""The PDF export drawn in this process (the CLI's and the File menu's child process's code)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.core.conversation.model import Message
from app.core.store import ConversationInfo, Store
from app.ui.services.pdf_export import write_pdf


@pytest.fixture
def store(tmp_path: Path) -> Any:
    result = Store.open(tmp_path / "p.db")
    assert result.store is not None
    s = result.store
    s.create_conversation(ConversationInfo(id="d" * 32, title="Print me", created_at=1.7e9, updated_at=1.7e9,
                                           pinned=False, model="", system_prompt="", params={}, current_leaf=None))
    s.add_message("d" * 32, Message("user", "roots?", id="u", created_at=1.7e9))
    reply = "Roots $x = \\frac{-b}{2a}$ here.\n\n" + "\n\n".join(f"Line {k} with $x_{{{k}}}$." for k in range(80))
    s.add_message("d" * 32, Message("assistant", reply, id="a", created_at=1.7e9, parent_id="u"))
    s.update_conversation("d" * 32, current_leaf="a", updated_at=1.7e9)
    yield s
    s.close()


def test_a_pdf_with_pages_text_and_no_temp_file(qapp, store: Any, tmp_path: Path) -> None:
    from PyQt6.QtPdf import QPdfDocument

    target = tmp_path / "out.pdf"
    seen: list[float] = []
    assert write_pdf(store, None, target, seen.append) == (1, 2)
    assert seen[-1] == 1.0 and seen == sorted(seen)
    doc = QPdfDocument(None)
    doc.load(str(target))
    assert doc.pageCount() >= 2  # 80 paragraphs do not fit one A4 page
    text = doc.getAllText(0).text()
    assert "Print me" in text and "Roots" in text and "here." in text
    assert "\\frac" not in text  # the formula is an image, not its source
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".part") == []


def test_an_unwritable_folder_raises_oserror(qapp, store: Any, tmp_path: Path) -> None:
    with pytest.raises(OSError):
        write_pdf(store, None, tmp_path / "missing" / "out.pdf")
