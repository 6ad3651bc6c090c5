"""ServerForm: one server's fields. Filling it from a draft changes nothing;
what the user edits goes into the draft, an edit that makes a Test under way
stale drops its answer, and each edit is said once."""

from __future__ import annotations

from typing import Any

from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QLineEdit

from app.core.backends.remote.servers import DEFAULT_URLS, OLLAMA, OPENAI
from app.ui.dialogs.server_drafts import ServerDraft
from app.ui.dialogs.server_form import ServerForm


def make_form(qtbot: Any) -> tuple[ServerForm, list[str]]:
    form = ServerForm()
    qtbot.addWidget(form)
    form.show()
    said: list[str] = []
    form.draft_edited.connect(lambda: said.append("draft_edited"))
    form.test_requested.connect(lambda: said.append("test_requested"))
    form.refresh_requested.connect(lambda: said.append("refresh_requested"))
    return form, said


def test_filling_from_a_draft_changes_nothing(qtbot: Any) -> None:
    form, said = make_form(qtbot)
    draft = ServerDraft(id="x", name="Box", kind=OLLAMA, base_url=DEFAULT_URLS[OLLAMA], model="llama3.2",
                        stall_s=42.4, key="k", models=["qwen", "llama3.2"])
    form.fill(draft)
    form.set_key("other")
    assert said == [] and form.draft is draft
    assert (draft.key, draft.stall_s, draft.model) == ("k", 42.4, "llama3.2")
    assert (form.name_edit.text(), form.kind_combo.currentData(), form.stall_spin.value()) == ("Box", OLLAMA, 42)
    assert form.model_combo.currentText() == "llama3.2" and form.model_combo.count() == 2
    assert "Ollama server's address" in form.url_note.text()
    other = ServerDraft(id="y", kind=OPENAI)
    form.fill(other)
    assert "/v1" in form.url_note.text() and said == [] and other == ServerDraft(id="y", kind=OPENAI)
    form.fill(None)
    form.name_edit.setFocus()
    qtbot.keyClicks(form.name_edit, "x")
    assert said == [] and other.name == ""  # nothing shown: nothing edited


def test_user_edits_go_into_the_draft(qtbot: Any) -> None:
    form, said = make_form(qtbot)
    draft = ServerDraft(id="x", name="Box", kind=OPENAI, base_url=DEFAULT_URLS[OPENAI], key="")
    form.fill(draft)
    form.name_edit.setFocus()
    qtbot.keyClicks(form.name_edit, "!")
    form.stall_spin.setValue(30)
    form.model_combo.setEditText("qwen")
    assert (draft.name, draft.stall_s, draft.model) == ("Box!", 30.0, "qwen")
    token = draft.start_fetch("Testing…")
    form.kind_combo.setCurrentIndex(form.kind_combo.findData(OLLAMA))  # stale: the answer is dropped
    assert draft.kind == OLLAMA and draft.base_url == DEFAULT_URLS[OLLAMA] and form.url_edit.text() == draft.base_url
    assert draft.token != token and not draft.busy and draft.status == ("", "")
    form.key_edit.setFocus()
    qtbot.keyClicks(form.key_edit, "sk")
    assert draft.key == "sk"
    qtbot.mouseClick(form.test_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(form.refresh_button, Qt.MouseButton.LeftButton)
    assert said == ["draft_edited"] * 6 + ["test_requested", "refresh_requested"]


def test_a_key_not_read_yet_is_left_alone(qtbot: Any) -> None:
    form, said = make_form(qtbot)
    draft = ServerDraft(id="x", key=None)
    form.fill(draft)
    form.key_edit.setReadOnly(False)
    form.key_edit.setFocus()
    qtbot.keyClicks(form.key_edit, "sk")
    assert draft.key is None and said == []


def test_the_key_field_states_and_the_show_button(qtbot: Any) -> None:
    form, _ = make_form(qtbot)
    unread = ServerDraft(id="x", key=None)
    form.show_key_state(unread, saving=False)
    assert form.key_edit.isReadOnly() and form.key_edit.placeholderText() == "Reading the keyring…"
    read = ServerDraft(id="x", key="")
    form.show_key_state(read, saving=False)
    assert not form.key_edit.isReadOnly()
    form.show_key_state(read, saving=True)
    assert form.key_edit.isReadOnly()
    assert form.key_edit.echoMode() == QLineEdit.EchoMode.Password
    form.show_key_button.click()
    assert form.key_edit.echoMode() == QLineEdit.EchoMode.Normal and form.show_key_button.text() == "Hide"
    form.show_problem("A server needs a name.")
    assert form.error_label.isVisible() and form.error_label.text() == "A server needs a name."
    form.show_problem("")
    assert not form.error_label.isVisible()
    form.show_status(ServerDraft(id="x", status=("Connected — 2 models", "ok")))
    assert form.status_label.text() == "Connected — 2 models" and form.status_label.property("tone") == "success"
