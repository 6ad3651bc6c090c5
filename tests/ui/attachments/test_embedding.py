"""Choosing the embedding model: the preference, Settings › Documents, the
window's attachment service taking it (off the GUI thread), a file that
cannot be loaded said plainly with keyword retrieval kept, and the chips
saying which mode is used (the real model: marked ``model``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PyQt6.QtWidgets import QDialogButtonBox

from app.core.backends.scripted import ScriptedBackend
from app.core.config.preferences import Preferences, load_preferences, save_preferences
from app.core.models.embedding import embedding_models, is_embedding_model
from app.core.models.gguf_info import GGUFInfo
from app.ui.attachments.embedding import EmbeddingChoice
from app.ui.dialogs.embedding_group import EmbeddingGroup
from app.ui.dialogs.settings import SettingsDialog
from app.ui.services.background import join_background_threads
from tests.helpers.gguf_files import tiny_model


def write_gguf(path: Path, arch: str, pooling: bool) -> Path:
    """A tiny GGUF file (its header is all that is read)."""
    return tiny_model(path, arch=arch, pooling=pooling, data_bytes=1024, template=None)


# -- the preference and the library ------------------------------------------------------------


def test_the_preference_round_trips_and_a_bad_one_is_none(tmp_path: Path) -> None:
    assert Preferences().embedding_model == ""
    chosen = Preferences(embedding_model=str(tmp_path / "bge-small.gguf"))
    assert save_preferences(chosen) and load_preferences() == chosen
    assert Preferences.from_dict({"embedding_model": 7}).embedding_model == ""
    assert Preferences.from_dict({"embedding_model": "a\x00b"}).embedding_model == ""
    assert "embedding_model" in Preferences(embedding_model="x" * 5000).validate()


def test_embedding_models_are_told_by_their_header(folder: Path) -> None:
    assert GGUFInfo("x", architecture="nomic-bert").is_embedding_model
    assert GGUFInfo("x", architecture="qwen3", metadata={"qwen3.pooling_type": 1}).is_embedding_model
    assert not GGUFInfo("x", architecture="llama").is_embedding_model
    embed = write_gguf(folder / "bge-small.gguf", "bert", pooling=True)
    chat = write_gguf(folder / "chat.gguf", "llama", pooling=False)
    assert is_embedding_model(embed) and not is_embedding_model(chat)
    assert embedding_models() == [embed]


# -- Settings › Documents ------------------------------------------------------------------------


def test_settings_lists_the_library_and_saves_the_choice(qtbot: Any, folder: Path) -> None:
    embed = write_gguf(folder / "bge-small.gguf", "bert", pooling=True)
    dialog = SettingsDialog(gpu_supported=False)
    qtbot.addWidget(dialog)
    group = dialog.documents
    assert isinstance(group, EmbeddingGroup) and group.title() == "Documents"
    assert group.combo.currentText() == "None — match by keywords" and group.path() == ""
    qtbot.waitUntil(lambda: group.listed, timeout=10000)
    index = group.combo.findData(str(embed))
    assert index > 0 and group.combo.itemText(index) == "bge-small.gguf"
    assert group.combo.itemText(group.combo.count() - 1) == "Browse…"
    group.combo.setCurrentIndex(index)
    with qtbot.waitSignal(dialog.preferences_applied) as applied:
        dialog.buttons.button(QDialogButtonBox.StandardButton.Apply).click()
    assert applied.args[0].embedding_model == str(embed) == load_preferences().embedding_model
    group.combo.setCurrentIndex(0)
    assert dialog.preferences().embedding_model == ""
    assert join_background_threads(5.0)


def test_a_browsed_chat_model_is_kept_with_a_note(qtbot: Any, tmp_path: Path) -> None:
    chat = write_gguf(tmp_path / "chat.gguf", "llama", pooling=False)
    group = EmbeddingGroup()
    qtbot.addWidget(group)
    group.show()
    with qtbot.waitSignal(group.changed):
        group.add_file(str(chat))
    assert group.path() == str(chat)
    qtbot.waitUntil(lambda: group.note.isVisible(), timeout=10000)
    assert "chat.gguf is not an embedding model" in group.note.text()
    qtbot.waitUntil(lambda: group.listed, timeout=10000)
    assert join_background_threads(5.0)


# -- the window ------------------------------------------------------------------------------------


def test_a_file_that_cannot_load_is_said_and_keywords_stay(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    service = window.attachments.service
    choice = service.embedding
    assert isinstance(choice, EmbeddingChoice) and choice.label() == "keywords" and service.embedder is None
    notes = tmp_path / "notes.md"
    notes.write_text("The meeting is on Tuesday.", encoding="utf-8")
    with qtbot.waitSignal(service.attachment_read, timeout=60000):
        window.attachments.attach([str(notes)])
    [chip] = window.attachments.tray.chips.values()
    assert chip.retrieval == "keywords"
    broken = tmp_path / "broken-embed.gguf"
    broken.write_bytes(b"not a model at all")
    with qtbot.waitSignal(choice.failed, timeout=60000) as failed:
        window.settings_wiring.apply_preferences(Preferences(embedding_model=str(broken)))
        # chosen at once (loading in the background): the chips say so
        assert service.embedder is not None and service.embedder.path == str(broken)
        assert chip.retrieval == "keywords + meaning (broken-embed)"
    assert "broken-embed.gguf could not be loaded" in failed.args[0] and "matched by keywords" in failed.args[0]
    assert "Traceback" not in failed.args[0]
    assert service.embedder is None and choice.path == "" and chip.retrieval == "keywords"
    assert "could not be loaded" in window.statusBar().currentMessage()
    window.settings_wiring.apply_preferences(Preferences())
    assert service.embedder is None and choice.error == ""
    assert join_background_threads(10.0)


@pytest.mark.model
def test_the_default_model_embeds_when_chosen(qtbot: Any, make_window: Any) -> None:
    from app.core.models.paths import package_model_path

    model = package_model_path()
    if model is None:
        pytest.skip("the default model is not installed")
    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    service = window.attachments.service
    with qtbot.waitSignal(service.embedding.mode_changed, timeout=5000):
        window.settings_wiring.apply_preferences(Preferences(embedding_model=str(model)))
    first = service.embedder
    assert first is not None and service.embedding.label().startswith("keywords + meaning (")
    assert join_background_threads(120.0)  # the load in the background succeeded: nothing failed
    assert service.embedder is first and service.embedding.error == ""
    assert first._llama is not None  # loaded on the worker
    window.settings_wiring.apply_preferences(Preferences())
    assert service.embedder is None and service.embedding.label() == "keywords"
    assert join_background_threads(30.0)  # closed off the GUI thread
    assert first._llama is None


@pytest.mark.model
def test_a_file_read_before_the_model_gets_vectors_at_the_next_question(
        qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    from app.core.models.paths import package_model_path
    from tests.helpers.pdfs import filler_page, make_pdf

    model = package_model_path()
    if model is None:
        pytest.skip("the default model is not installed")
    window = make_window(lambda: ScriptedBackend(rate=5000, n_tokens=3))
    service = window.attachments.service
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(make_pdf([filler_page(i) for i in range(1, 301)]))
    with qtbot.waitSignal(service.attachment_read, timeout=60000):
        window.attachments.attach([str(pdf)])  # read with keywords only: no vectors
    with qtbot.waitSignal(window.chat.reply_settled, timeout=20000):
        window.enter_prompt("What is on page 3?")
    window.settings_wiring.apply_preferences(Preferences(embedding_model=str(model)))
    assert join_background_threads(120.0)
    with qtbot.waitSignal(window.chat.reply_settled, timeout=120000):
        window.enter_prompt("And on page 4?")
    assert service.embedder is not None
    name = service.embedder.model
    counted: list[int] = []
    window.store.read(lambda store: store.conn.execute(
        "SELECT coalesce(sum(length(vectors) / (4 * dim)), 0) FROM blob_vectors WHERE model = ?",
        (name,)).fetchone()[0], counted.append)
    qtbot.waitUntil(lambda: bool(counted), timeout=10000)
    from app.core.base.limits import MAX_LAZY_EMBEDDED_CHUNKS

    assert counted[0] == MAX_LAZY_EMBEDDED_CHUNKS  # bounded: the rest with the next questions
