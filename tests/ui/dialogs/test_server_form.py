"""ServerForm: one server's fields. Filling it from a draft says nothing;
what the user edits is said once, as the draft's terms (a kind id, seconds)."""

from __future__ import annotations

from typing import Any

from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QLineEdit

from app.core.backends.remote.servers import DEFAULT_URLS, OLLAMA, OPENAI
from app.ui.dialogs.server_drafts import ServerDraft
from app.ui.dialogs.server_form import ServerForm


def make_form(qtbot: Any) -> tuple[ServerForm, list[tuple[str, object]]]:
    form = ServerForm()
    qtbot.addWidget(form)
    form.show()
    said: list[tuple[str, object]] = []
    for name in ("name_edited", "kind_changed", "url_edited", "key_edited", "model_edited", "stall_changed"):
        getattr(form, name).connect(lambda value, name=name: said.append((name, value)))
    form.test_requested.connect(lambda: said.append(("test_requested", None)))
    form.refresh_requested.connect(lambda: said.append(("refresh_requested", None)))
    return form, said


def test_filling_from_a_draft_says_nothing(qtbot: Any) -> None:
    form, said = make_form(qtbot)
    draft = ServerDraft(id="x", name="Box", kind=OLLAMA, base_url=DEFAULT_URLS[OLLAMA], model="llama3.2",
                        stall_s=42.4, key="k", models=["qwen", "llama3.2"])
    form.fill(draft)
    form.set_key("other")
    form.set_url("http://nas.local:11434")
    assert said == []
    assert (form.name_edit.text(), form.kind_combo.currentData(), form.stall_spin.value()) == ("Box", OLLAMA, 42)
    assert form.model_combo.currentText() == "llama3.2" and form.model_combo.count() == 2
    assert "Ollama server's address" in form.url_note.text()
    form.fill(ServerDraft(id="y", kind=OPENAI))
    assert "/v1" in form.url_note.text() and said == []


def test_user_edits_are_said_in_the_drafts_terms(qtbot: Any) -> None:
    form, said = make_form(qtbot)
    form.fill(ServerDraft(id="x", name="Box", kind=OPENAI))
    form.name_edit.setFocus()
    qtbot.keyClicks(form.name_edit, "!")
    form.kind_combo.setCurrentIndex(form.kind_combo.findData(OLLAMA))
    form.stall_spin.setValue(30)
    form.model_combo.setEditText("qwen")
    qtbot.mouseClick(form.test_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(form.refresh_button, Qt.MouseButton.LeftButton)
    assert said == [
        ("name_edited", "Box!"), ("kind_changed", OLLAMA), ("stall_changed", 30.0), ("model_edited", "qwen"),
        ("test_requested", None), ("refresh_requested", None),
    ]


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
