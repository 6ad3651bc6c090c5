"""Model › Servers… and the Model menu: adding and validating servers, keys
in the keyring (never the settings file), Test off the GUI thread, and
choosing a server's model from the menu."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator

import keyring
import keyring.core
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail
from PyQt6 import sip
from PyQt6.QtCore import QObject, Qt, QTimer
from PyQt6.QtWidgets import QApplication, QLineEdit

import app.application
from app.core.backends.base import BackendError
from app.core.backends.remote import servers as servers_module
from app.core.backends.remote.servers import ServerConfig, load_servers, save_servers
from app.core.backends.scripted import ScriptedBackend
from app.core.base import settings
from app.core.factory import remote_factory
from app.ui.dialogs import server_calls
from app.ui.dialogs.servers import ServersDialog
from app.ui.services import model_lists
from app.ui.services.background import BackgroundCalls, join_background_threads
from tests.helpers.keyring import MemoryKeyring

SECRET = "sk-test-0123456789abcdef"


def use_keyring(monkeypatch: pytest.MonkeyPatch, backend: KeyringBackend) -> None:
    monkeypatch.setattr(keyring.core, "_keyring_backend", keyring.core._keyring_backend)  # restored after
    keyring.set_keyring(backend)
    monkeypatch.setattr(servers_module, "_SECRETS", None)  # a fresh SecretStore sees it


@pytest.fixture
def ring(monkeypatch: pytest.MonkeyPatch) -> MemoryKeyring:
    backend = MemoryKeyring()
    use_keyring(monkeypatch, backend)
    return backend


@pytest.fixture
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    use_keyring(monkeypatch, fail.Keyring())


@pytest.fixture(autouse=True)
def no_leaked_background_threads() -> Iterator[None]:
    yield
    assert join_background_threads(5.0), "background threads still running after the test"


@pytest.fixture
def open_dialog(qtbot) -> Callable[..., ServersDialog]:
    def make(**kwargs: object) -> ServersDialog:
        dialog = ServersDialog(**kwargs)
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitUntil(lambda: dialog.keys_loaded, timeout=5000)
        return dialog

    return make


class BlockingLister:
    """A list_models that blocks until the test releases it."""

    def __init__(self, models: list[str] | None = None, error: str = "") -> None:
        self.models = models or []
        self.error = error
        self.entered = threading.Event()
        self.release = threading.Event()
        self.threads: list[threading.Thread] = []
        self.keys: list[str] = []

    def __call__(self, server: ServerConfig, api_key: str = "", timeout: float = 10.0,
                 cancel: threading.Event | None = None) -> list[str]:
        self.threads.append(threading.current_thread())
        self.keys.append(api_key)
        self.entered.set()
        assert self.release.wait(10), "the test never released the fake server"
        if self.error:
            raise BackendError(self.error.format(key=api_key))
        return list(self.models)


def retype(qtbot, edit: QLineEdit, text: str) -> None:
    """Replace the field's text as a user does (textEdited fires)."""
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClick(edit, Qt.Key.Key_Delete)
    if text:
        qtbot.keyClicks(edit, text)


def settings_text() -> str:
    path = settings.settings_path()
    return path.read_text(encoding="utf-8") if path.exists() else ""


# ------------------------------------------------------------------ adding and validating


def test_add_server_with_validation_messages(qtbot, open_dialog, ring) -> None:
    dialog = open_dialog()
    assert dialog.empty_label.isVisible() and not dialog.form.isVisible()
    qtbot.mouseClick(dialog.add_button, Qt.MouseButton.LeftButton)
    assert dialog.form.isVisible() and dialog.list.count() == 1
    assert dialog.form.name_edit.text() == "New server"
    assert dialog.form.url_edit.text() == "http://127.0.0.1:8080"
    assert dialog.form.stall_spin.value() == 60
    assert not dialog.form.error_label.isVisible()

    retype(qtbot, dialog.form.name_edit, "")
    assert dialog.form.error_label.isVisible() and dialog.form.error_label.text() == "A server needs a name."
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and "Not saved" in dialog.save_status.text()
    assert settings_text() == ""  # nothing written

    retype(qtbot, dialog.form.name_edit, "Desk")
    assert not dialog.form.error_label.isVisible()
    assert dialog.list.item(0).text() == "Desk"
    retype(qtbot, dialog.form.url_edit, "ftp://desk.local")
    assert "Only http:// and https://" in dialog.form.error_label.text()
    retype(qtbot, dialog.form.url_edit, "http://")
    assert "no host name" in dialog.form.error_label.text()
    retype(qtbot, dialog.form.url_edit, "")
    assert "needs a URL" in dialog.form.error_label.text()
    qtbot.mouseClick(dialog.form.test_button, Qt.MouseButton.LeftButton)  # Test refuses too, nothing starts
    assert "needs a URL" in dialog.form.status_label.text()

    retype(qtbot, dialog.form.url_edit, "desk.local:8080/v1")
    assert not dialog.form.error_label.isVisible()
    with qtbot.waitSignal(dialog.finished, timeout=5000):
        qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    [server] = load_servers()
    assert (server.name, server.kind, server.base_url) == ("Desk", "openai", "http://desk.local:8080/v1")
    assert server.api_root == "http://desk.local:8080/v1"


def test_two_servers_cannot_share_a_name(qtbot, open_dialog, ring) -> None:
    dialog = open_dialog()
    dialog.add_button.click()
    dialog.add_button.click()
    assert dialog.list.item(1).text() == "New server 2"
    retype(qtbot, dialog.form.name_edit, "new SERVER")
    assert "already named" in dialog.form.error_label.text()


def test_kind_suggests_its_default_url_only_over_a_default(qtbot, open_dialog, ring) -> None:
    dialog = open_dialog()
    dialog.add_button.click()
    dialog.form.kind_combo.setCurrentIndex(dialog.form.kind_combo.findData("ollama"))
    assert dialog.form.url_edit.text() == "http://127.0.0.1:11434"
    assert "Ollama" in dialog.form.url_note.text()
    retype(qtbot, dialog.form.url_edit, "http://gpu-box:9000")
    dialog.form.kind_combo.setCurrentIndex(dialog.form.kind_combo.findData("openai"))
    assert dialog.form.url_edit.text() == "http://gpu-box:9000"  # typed by the user: kept
    assert "/v1" in dialog.form.url_note.text()
    assert dialog.current_draft().kind == "openai"


# ------------------------------------------------------------------ keys


def test_save_writes_servers_to_settings_and_keys_to_the_keyring(qtbot, open_dialog, ring) -> None:
    dialog = open_dialog()
    dialog.add_button.click()
    assert not dialog.form.key_note.isVisible()  # a keyring: nothing to warn about
    retype(qtbot, dialog.form.name_edit, "Hosted")
    retype(qtbot, dialog.form.url_edit, "https://api.example.com/v1")
    assert dialog.form.key_edit.echoMode() == QLineEdit.EchoMode.Password
    retype(qtbot, dialog.form.key_edit, SECRET)
    dialog.form.show_key_button.click()
    assert dialog.form.key_edit.echoMode() == QLineEdit.EchoMode.Normal
    dialog.form.show_key_button.click()
    assert dialog.form.key_edit.echoMode() == QLineEdit.EchoMode.Password
    saved: list[list[ServerConfig]] = []
    dialog.servers_saved.connect(saved.append)
    with qtbot.waitSignal(dialog.finished, timeout=5000):
        qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)

    [server] = load_servers()
    assert server.name == "Hosted" and saved and saved[0][0].id == server.id
    text = settings_text()
    assert "Hosted" in text and SECRET not in text and "sk-test" not in text
    assert ring.data[("rill", server.id)] == SECRET
    assert ring.writes == 1

    # Opened again: the key is read back (off the GUI thread) and, unchanged, not rewritten.
    again = open_dialog()
    assert again.form.key_edit.text() == SECRET
    with qtbot.waitSignal(again.finished, timeout=5000):
        again.save_button.click()
    assert ring.writes == 1

    # Removed: its key goes too.
    third = open_dialog()
    third.remove_button.click()
    assert third.list.count() == 0 and third.undo_button.isVisible()
    with qtbot.waitSignal(third.finished, timeout=5000):
        third.save_button.click()
    assert load_servers() == []
    assert ("rill", server.id) not in ring.data


def test_a_key_that_cannot_be_sent_is_named_as_it_is_typed(qtbot, open_dialog, ring) -> None:
    dialog = open_dialog()
    dialog.add_button.click()
    problem = dialog.form.key_problem
    retype(qtbot, dialog.form.key_edit, "sk-abc def")
    assert problem.isVisible() and "contains a space" in problem.text()
    assert "abc" not in problem.text(), "the message never quotes the key"
    QApplication.clipboard().setText("sk-abc\u201cdef")  # pasted with a typographic quote, as users do
    dialog.form.key_edit.selectAll()
    dialog.form.key_edit.paste()
    assert "not plain ASCII" in problem.text()
    retype(qtbot, dialog.form.key_edit, "sk-abcdef")
    assert not problem.isVisible()


def test_a_kept_url_login_is_shown_and_can_be_forgotten(qtbot, open_dialog, ring) -> None:
    server = ServerConfig("Proxy", "openai", "http://alice:s3cret-pass@127.0.0.1:9/v1")
    assert save_servers([server])
    assert servers_module.url_login_ids() == {server.id}
    assert any("s3cret-pass" in v for v in ring.data.values())
    dialog = open_dialog()
    assert dialog.form.login_row.isVisible(), "the dialog says a login is kept"
    assert "s3cret" not in dialog.form.url_edit.text() and "alice" not in dialog.form.url_edit.text()
    dialog.form.forget_login_button.click()
    assert "forgotten when you save" in dialog.form.login_note.text()
    with qtbot.waitSignal(dialog.finished, timeout=5000):
        dialog.save_button.click()
    assert not any("s3cret-pass" in v for v in ring.data.values()), "gone from the keyring"
    assert servers_module.url_login_ids() == set()
    [loaded] = load_servers()
    assert servers_module.with_login(loaded).base_url == loaded.base_url, "never sent again"
    again = open_dialog()
    assert not again.form.login_row.isVisible()


def test_remove_is_undoable_and_cancel_changes_nothing(qtbot, open_dialog, ring) -> None:
    a = ServerConfig("A", "openai", "http://a:1").validated()
    b = ServerConfig("B", "ollama", "http://b:2").validated()
    save_servers([a, b])
    ring.set_password("rill", a.id, SECRET)
    before = settings_text()
    dialog = open_dialog()
    assert [dialog.list.item(i).text() for i in range(dialog.list.count())] == ["A", "B"]
    dialog.remove_button.click()
    assert dialog.list.count() == 1 and "Removed “A”" in dialog.undo_label.text()
    dialog.undo_button.click()
    assert [dialog.list.item(i).text() for i in range(dialog.list.count())] == ["A", "B"]
    assert not dialog.undo_button.isVisible()
    dialog.remove_button.click()
    dialog.reject()
    assert settings_text() == before and ring.data[("rill", a.id)] == SECRET


def test_without_a_keyring_the_dialog_says_keys_last_this_session(qtbot, open_dialog, no_keyring) -> None:
    dialog = open_dialog()
    dialog.add_button.click()
    assert dialog.form.key_note.isVisible()
    assert "this session only" in dialog.form.key_note.text()
    retype(qtbot, dialog.form.key_edit, SECRET)
    with qtbot.waitSignal(dialog.finished, timeout=5000):
        dialog.save_button.click()
    [server] = load_servers()
    assert SECRET not in settings_text()
    assert servers_module.secrets().get(server.id) == SECRET  # for this session


# ------------------------------------------------------------------ Test (off the GUI thread)


def test_test_runs_off_the_gui_thread_and_fills_the_models(qtbot, open_dialog, ring, monkeypatch) -> None:
    fake = BlockingLister(["qwen2.5-7b", "llama-3.2-3b"])
    monkeypatch.setattr(server_calls, "list_models", fake)
    dialog = open_dialog()
    dialog.add_button.click()
    retype(qtbot, dialog.form.key_edit, SECRET)
    try:
        qtbot.mouseClick(dialog.form.test_button, Qt.MouseButton.LeftButton)
        assert dialog.form.status_label.text() == "Testing…"
        assert not dialog.form.test_button.isEnabled()
        qtbot.waitUntil(fake.entered.is_set, timeout=5000)
        # The fake server is blocked, and the GUI thread still runs its event loop.
        ticked: list[bool] = []
        QTimer.singleShot(0, lambda: ticked.append(True))
        qtbot.waitUntil(lambda: bool(ticked), timeout=2000)
        retype(qtbot, dialog.form.name_edit, "Still typing")  # the dialog is usable meanwhile
        assert dialog.list.item(0).text() == "Still typing"
        assert dialog.form.status_label.text() == "Testing…" and not fake.release.is_set()
        assert fake.threads[0] is not threading.main_thread()
        with qtbot.waitSignal(dialog.models_fetched, timeout=5000) as fetched:
            fake.release.set()
    finally:
        fake.release.set()
    qtbot.waitUntil(lambda: dialog.form.status_label.text() == "Connected — 2 models", timeout=5000)
    assert fetched.args[1] == ["qwen2.5-7b", "llama-3.2-3b"]
    assert fake.keys == [SECRET]  # the key as typed, not yet saved
    assert [dialog.form.model_combo.itemText(i) for i in range(dialog.form.model_combo.count())] == ["qwen2.5-7b", "llama-3.2-3b"]
    assert dialog.form.test_button.isEnabled()
    dialog.form.model_combo.setCurrentIndex(1)
    with qtbot.waitSignal(dialog.finished, timeout=5000):
        dialog.save_button.click()
    assert load_servers()[0].model == "llama-3.2-3b"


def test_test_failure_shows_the_message_without_the_key(qtbot, open_dialog, ring, monkeypatch) -> None:
    fake = BlockingLister(error="Cannot connect to New server at http://127.0.0.1:8080: connection refused (key {key})")
    fake.release.set()
    monkeypatch.setattr(server_calls, "list_models", fake)
    dialog = open_dialog()
    dialog.add_button.click()
    retype(qtbot, dialog.form.key_edit, SECRET)
    dialog.form.test_button.click()
    qtbot.waitUntil(lambda: "connection refused" in dialog.form.status_label.text(), timeout=5000)
    text = dialog.form.status_label.text()
    assert text.startswith("Cannot connect to New server") and SECRET not in text and "***" in text
    assert "Traceback" not in text
    assert dialog.isVisible() and dialog.form.test_button.isEnabled() and dialog.save_button.isEnabled()
    # Still usable: fix it and save.
    retype(qtbot, dialog.form.url_edit, "http://127.0.0.1:8081")
    assert dialog.form.status_label.text() == ""  # the old answer was for another URL
    with qtbot.waitSignal(dialog.finished, timeout=5000):
        dialog.save_button.click()
    assert load_servers()[0].base_url == "http://127.0.0.1:8081"


def test_an_answer_after_the_dialog_closed_is_harmless(qtbot, open_dialog, ring, monkeypatch) -> None:
    fake = BlockingLister(["m"])
    monkeypatch.setattr(server_calls, "list_models", fake)
    dialog = open_dialog()
    dialog.add_button.click()
    fetched: list[object] = []
    dialog.models_fetched.connect(lambda *a: fetched.append(a))
    try:
        dialog.form.test_button.click()
        qtbot.waitUntil(fake.entered.is_set, timeout=5000)
        dialog.reject()
    finally:
        fake.release.set()
    assert join_background_threads(5.0)
    QApplication.processEvents()  # the late answer is delivered now: and dropped
    assert fetched == [] and dialog.form.status_label.text() == "Testing…"


def test_background_call_of_a_deleted_owner_is_dropped(qtbot) -> None:
    parent = QObject()
    calls = BackgroundCalls(parent)
    release = threading.Event()
    got: list[object] = []
    calls.run(lambda cancel: release.wait(5) and "late", lambda result, error: got.append(result))
    sip.delete(parent)  # e.g. a dialog closed with WA_DeleteOnClose
    release.set()
    assert join_background_threads(5.0)
    QApplication.processEvents()
    assert got == []
    # And a live owner gets its answer on the GUI thread.
    live = BackgroundCalls()
    threads: list[threading.Thread] = []
    live.run(lambda cancel: 42, lambda result, error: (got.append(result), threads.append(threading.current_thread())))
    qtbot.waitUntil(lambda: got == [42], timeout=5000)
    assert threads == [threading.main_thread()]


# ------------------------------------------------------------------ the Model menu


@pytest.fixture
def configured_server(ring) -> ServerConfig:
    server = ServerConfig("Desk", "openai", "http://desk.local:8080", "qwen2.5-7b").validated()
    save_servers([server])
    return server


@pytest.fixture
def fake_backends(monkeypatch: pytest.MonkeyPatch) -> None:
    """Choosing a model loads a scripted backend (same descriptions as the real factories)."""

    def fake_remote(server: ServerConfig, model: str = "", api_key: str | None = None):
        return (lambda: ScriptedBackend(rate=3000)), remote_factory(server, model)[1]

    monkeypatch.setattr(app.application, "remote_factory", fake_remote)
    monkeypatch.setattr(
        app.application, "local_factory",
        lambda path: ((lambda: ScriptedBackend(rate=3000)), str(path) if path else "the default model"),
    )


def menu_texts(menu) -> list[str]:
    return [a.text() for a in menu.actions()]


def test_model_menu_lists_server_models_and_choosing_one_loads_it(
    qtbot, make_window, configured_server, fake_backends, monkeypatch
) -> None:
    fake = BlockingLister(["qwen2.5-7b", "phi-4"])
    monkeypatch.setattr(model_lists, "list_models", fake)
    window = make_window(lambda: ScriptedBackend(rate=3000))
    menu = window.model_menu
    texts = menu_texts(menu)
    assert texts[0] == "&Local Model (Default)" and menu.actions()[1] is window.menus.open_model_action
    assert "Desk" in texts and "qwen2.5-7b (default)" in texts and texts[-1] == "&Servers…"
    try:
        menu.aboutToShow.emit()  # the list is fetched in the background, never waited for
        loading = next(a for a in menu.actions() if a.text() == "Loading models…")
        assert not loading.isEnabled()
        qtbot.waitUntil(fake.entered.is_set, timeout=5000)
        assert fake.threads[0] is not threading.main_thread()
    finally:
        fake.release.set()
    qtbot.waitUntil(lambda: "phi-4" in menu_texts(menu), timeout=5000)
    assert "Loading models…" not in menu_texts(menu)
    menu.aboutToShow.emit()  # fresh (< 60 s): not fetched again
    assert len(fake.threads) == 1

    phi = next(a for a in menu.actions() if a.text() == "phi-4")
    with qtbot.waitSignal(window.remote_model_requested, timeout=5000) as requested:
        with qtbot.waitSignal(window.chat.model_ready, timeout=10000):
            phi.trigger()
    server, model = requested.args
    assert (server.id, model) == (configured_server.id, "phi-4")
    qtbot.waitUntil(lambda: any(a.text() == "phi-4" and a.isChecked() for a in menu.actions()), timeout=5000)
    assert json.loads(settings_text())["last_backend"] == {
        "kind": "server", "server_id": configured_server.id, "model": "phi-4"
    }

    # The next start begins with it, while the server is still configured.
    choice = app.application.startup_choice()
    assert choice is not None and choice.backend["model"] == "phi-4"
    assert "phi-4 on Desk" in choice.description

    # Back to the local model: remembered once it has loaded.
    with qtbot.waitSignal(window.local_model_requested, timeout=5000):
        with qtbot.waitSignal(window.chat.model_ready, timeout=10000):
            menu.local_action.trigger()
    qtbot.waitUntil(lambda: menu.local_action.isChecked(), timeout=5000)
    assert json.loads(settings_text())["last_backend"] == {"kind": "local"}
    assert app.application.startup_choice() is None


def test_startup_choice_forgets_a_removed_server(configured_server) -> None:
    data = settings.load_settings()
    data["last_backend"] = {"kind": "server", "server_id": configured_server.id, "model": ""}
    settings.save_settings(data)
    choice = app.application.startup_choice()
    assert choice is not None and "qwen2.5-7b on Desk" in choice.description
    save_servers([])
    assert app.application.startup_choice() is None


def test_servers_dialog_from_the_menu_chats_with_the_chosen_server(
    qtbot, make_window, configured_server, fake_backends
) -> None:
    window = make_window(lambda: ScriptedBackend(rate=3000))
    window.menus.servers_action.trigger()
    dialog = window.servers_dialog
    assert dialog is not None and dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.keys_loaded, timeout=5000)
    qtbot.mouseClick(dialog.add_button, Qt.MouseButton.LeftButton)
    retype(qtbot, dialog.form.name_edit, "Ollama box")
    dialog.form.kind_combo.setCurrentIndex(dialog.form.kind_combo.findData("ollama"))
    dialog.form.model_combo.setEditText("llama3.2")
    with qtbot.waitSignal(window.remote_model_requested, timeout=5000) as requested:
        with qtbot.waitSignal(window.chat.model_ready, timeout=10000):
            qtbot.mouseClick(dialog.use_button, Qt.MouseButton.LeftButton)
    server, model = requested.args
    assert (server.name, server.kind, model) == ("Ollama box", "ollama", "llama3.2")
    assert [s.name for s in window.model_menu.servers] == ["Desk", "Ollama box"]
    assert "llama3.2 (default)" in menu_texts(window.model_menu)
    qtbot.waitUntil(lambda: sip.isdeleted(dialog) or not dialog.isVisible(), timeout=5000)


# ------------------------------------------------------------------ end to end (a real HTTP server)


def test_test_and_chat_against_a_real_server(qtbot, make_window, ring) -> None:
    """No fake list_models: the real client against the stdlib fault server,
    a wrong key (401, named without the key), then the right one, then a chat."""
    from tests.helpers.fault_server import FaultServer, Scenario

    with FaultServer(Scenario(fault="http401", fault_listing=True, models=("alpha", "beta"))) as server:
        window = make_window(lambda: ScriptedBackend(rate=3000))
        window.menus.servers_action.trigger()
        dialog = window.servers_dialog
        qtbot.waitUntil(lambda: dialog.keys_loaded, timeout=5000)
        dialog.add_button.click()
        retype(qtbot, dialog.form.name_edit, "Fault box")
        retype(qtbot, dialog.form.url_edit, server.url)
        retype(qtbot, dialog.form.key_edit, SECRET)
        dialog.form.test_button.click()
        assert dialog.form.status_label.text() == "Testing…"
        qtbot.waitUntil(lambda: dialog.form.test_button.isEnabled(), timeout=10000)
        assert "Fault box" in dialog.form.status_label.text() and SECRET not in dialog.form.status_label.text()
        assert dialog.form.status_label.text() != "Testing…"

        server.scenario = Scenario(models=("alpha", "beta"))
        dialog.form.test_button.click()
        qtbot.waitUntil(lambda: dialog.form.status_label.text() == "Connected — 2 models", timeout=10000)
        dialog.form.model_combo.setCurrentIndex(1)
        with qtbot.waitSignal(window.chat.model_ready, timeout=15000):
            dialog.use_button.click()
        assert ring.data[("rill", load_servers()[0].id)] == SECRET
        assert "beta (default)" in menu_texts(window.model_menu) and "alpha" in menu_texts(window.model_menu)
        qtbot.waitUntil(lambda: window.model_menu.current is not None, timeout=5000)
        assert window.model_menu.current["model"] == "beta"
        assert SECRET not in settings_text()
        with qtbot.waitSignal(window.chat.reply_settled, timeout=15000):
            window.enter_prompt("Hello")
        chats = [r for r in server.requests if r.method == "POST"]
        assert chats and chats[-1].body["model"] == "beta"
        assert all(r.headers.get("authorization") == f"Bearer {SECRET}" for r in server.requests)
