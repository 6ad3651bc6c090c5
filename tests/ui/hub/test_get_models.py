"""Model › Get More Models… against the fake Hub: the recommended list, a
search, a file's header read by range, a download with pause and resume,
a gated model and its token, Load."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.core
import pytest
from PyQt6.QtWidgets import QTreeWidgetItem

from app.core.base.settings import user_models_dir
from app.core.hub.endpoint import TOKEN_KEYRING_USER
from app.core.hub.queue import DONE, DOWNLOADING, FAILED, PAUSED
from app.ui.dialogs.hub_settings import HubSettingsDialog
from app.ui.hub.dialog import GetModelsDialog
from app.ui.hub.downloads import job_status, time_left
from app.ui.hub.lines import header_line
from app.ui.services.background import join_background_threads
from app.ui.services.hub import HubService
from tests.helpers.fake_hub import FakeHub, FakeRepo, Fault
from tests.helpers.keyring import MemoryKeyring
from tests.ui.hub.conftest import GATED, MODEL, REPO

QWEN = "Qwen/Qwen2.5-0.5B-Instruct-GGUF"
QWEN_FILE = "qwen2.5-0.5b-instruct-q4_k_m.gguf"


@pytest.fixture
def ring(monkeypatch: pytest.MonkeyPatch) -> MemoryKeyring:
    backend = MemoryKeyring()
    monkeypatch.setattr(keyring.core, "_keyring_backend", keyring.core._keyring_backend)  # restored after
    keyring.set_keyring(backend)
    return backend


@pytest.fixture
def service(qtbot) -> Iterator[HubService]:
    s = HubService()
    yield s
    assert s.shutdown()
    assert join_background_threads(5.0)


@pytest.fixture
def dialog(qtbot, hub: FakeHub, service: HubService, ring: MemoryKeyring,
           monkeypatch: pytest.MonkeyPatch, gguf_blobs: dict[str, bytes]) -> GetModelsDialog:
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    hub.repos[QWEN] = FakeRepo({QWEN_FILE: gguf_blobs[MODEL]}, downloads=999)
    d = GetModelsDialog(service)
    qtbot.addWidget(d)
    d.show()
    qtbot.waitUntil(lambda: d.recommended_root.childCount() > 0, timeout=5000)
    return d


def child(root: QTreeWidgetItem, text: str) -> QTreeWidgetItem:
    for i in range(root.childCount()):
        if text in root.child(i).text(0) or text in root.child(i).toolTip(0):  # type: ignore[union-attr]
            return root.child(i)  # type: ignore[return-value]
    raise AssertionError(f"{text!r} not listed")


def test_recommended_first_with_the_machines_pick(dialog: GetModelsDialog) -> None:
    names = [dialog.recommended_root.child(i).text(0) for i in range(dialog.recommended_root.childCount())]  # type: ignore[union-attr]
    assert len(names) >= 6 and sum(n.startswith("★ ") for n in names) == 1
    assert dialog.repos.topLevelItem(0) is dialog.recommended_root


def test_recommended_model_header_download_and_load(qtbot, dialog: GetModelsDialog, hub: FakeHub) -> None:
    dialog.repos.setCurrentItem(child(dialog.recommended_root, QWEN))
    qtbot.waitUntil(lambda: dialog.files.rowCount() == 1, timeout=5000)
    assert dialog.selected_model() is not None and dialog.selected_model().path == QWEN_FILE  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: "ChatML" in (dialog.files.item(0, 4).text() if dialog.files.item(0, 4) else ""),
                    timeout=5000)
    header = dialog.files.item(0, 4).text()  # type: ignore[union-attr]
    assert "llama" in header and "KV cache" in header and "4,096" in header
    assert dialog.files.item(0, 3).text() in ("Fits", "May be slow")  # type: ignore[union-attr]
    assert hub.cdn is not None and hub.cdn.body_bytes < len(hub.repos[QWEN].files[QWEN_FILE])  # not downloaded
    dialog.download_button.click()
    qtbot.waitUntil(lambda: any(j.state == DONE for j in dialog.service.jobs()), timeout=10000)
    target = user_models_dir() / QWEN_FILE
    assert target.read_bytes() == hub.repos[QWEN].files[QWEN_FILE]
    row = next(iter(dialog.downloads.rows.values()))
    qtbot.waitUntil(lambda: row.load_button.isVisible(), timeout=5000)
    assert "verified" in row.status.text()
    with qtbot.waitSignal(dialog.model_open_requested, timeout=2000) as opened:
        row.load_button.click()
    assert opened.args == [str(target)]


def test_search_then_pause_and_resume(qtbot, dialog: GetModelsDialog, hub: FakeHub) -> None:
    assert hub.cdn is not None
    dialog.search_edit.setText("tiny")
    dialog.search_button.click()
    qtbot.waitUntil(lambda: dialog.results_root.childCount() == 1, timeout=5000)
    item = child(dialog.results_root, REPO)
    assert "1,234 downloads" in item.text(1) and "apache-2.0" in item.text(1)
    dialog.repos.setCurrentItem(item)
    qtbot.waitUntil(lambda: dialog.files.rowCount() == 3, timeout=5000)
    kinds = [dialog.files.item(r, 3).text() for r in range(3)]  # type: ignore[union-attr]
    assert kinds[-1] == "Vision projector"
    dialog.files.selectRow(0)
    assert "mmproj" in dialog.details_label.text()
    # The selection reads the file's header from the CDN: once it has, the
    # next file request there is the download's (the fault is for it).
    qtbot.waitUntil(lambda: bool(dialog.files.item(0, 4) and dialog.files.item(0, 4).text()),  # type: ignore[union-attr]
                    timeout=5000)
    held = Fault("hold", n=32 * 1024)  # 32 KB, then nothing until released: the Pause lands mid-download
    hub.cdn.faults.append(held)
    dialog.download_button.click()
    qtbot.waitUntil(lambda: bool(dialog.downloads.rows), timeout=5000)
    row = next(iter(dialog.downloads.rows.values()))
    qtbot.waitUntil(lambda: any(j.state == DOWNLOADING and j.progress and j.progress.done
                                for j in dialog.service.jobs()), timeout=5000)
    qtbot.waitUntil(row.pause_button.isVisible, timeout=2000)
    row.pause_button.click()
    qtbot.waitUntil(lambda: dialog.service.jobs()[0].state == PAUSED, timeout=5000)
    held.release.set()  # the cut connection's handler ends
    qtbot.waitUntil(row.resume_button.isVisible, timeout=2000)
    assert "Paused at" in row.status.text()
    partial = user_models_dir() / (MODEL + ".partial")
    assert partial.stat().st_size > 0
    row.resume_button.click()
    qtbot.waitUntil(lambda: dialog.service.jobs()[0].state == DONE, timeout=10000)
    assert hub.cdn.file_requests()[-1].headers.get("range", "").startswith("bytes=")


def test_gated_model_then_the_token_in_the_keyring(qtbot, dialog: GetModelsDialog, hub: FakeHub,
                                                   ring: MemoryKeyring) -> None:
    dialog.search_edit.setText("gated")
    dialog.search_button.click()
    qtbot.waitUntil(lambda: dialog.results_root.childCount() == 1, timeout=5000)
    dialog.repos.setCurrentItem(child(dialog.results_root, GATED))
    qtbot.waitUntil(lambda: dialog.files.rowCount() == 1, timeout=5000)
    dialog.download_button.click()
    qtbot.waitUntil(lambda: bool(dialog.service.jobs()) and dialog.service.jobs()[0].state == FAILED, timeout=5000)
    row = next(iter(dialog.downloads.rows.values()))
    # the job's state is the service's; the row hears of it by a queued signal
    qtbot.waitUntil(lambda: "token" in row.status.text() and row.resume_button.isVisible(), timeout=5000)
    settings = HubSettingsDialog(dialog)
    qtbot.addWidget(settings)
    settings.token_edit.setText(hub.token)
    with qtbot.waitSignal(settings.accepted, timeout=5000):
        settings.buttons.accepted.emit()
    assert ring.data[("rill", TOKEN_KEYRING_USER)] == hub.token
    row.resume_button.click()
    qtbot.waitUntil(lambda: dialog.service.jobs()[0].state == DONE, timeout=10000)
    assert hub.token not in row.status.text()


def test_a_hub_that_cannot_be_reached(qtbot, dialog: GetModelsDialog, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    dialog.search_edit.setText("x")
    dialog.search_button.click()
    qtbot.waitUntil(lambda: "Cannot reach" in dialog.status_label.text(), timeout=5000)


def test_status_words() -> None:
    assert time_left(42) == "42 s" and time_left(600) == "10 min" and time_left(3900) == "1 h 05 min"
    assert time_left(None) == ""
    from app.core.hub.download import DownloadRequest, Progress
    from app.core.hub.queue import Job

    job = Job(1, DownloadRequest("a/b", "m.gguf", "http://x/m.gguf", Path("/tmp"), 2048), DOWNLOADING,
              Progress(1024, 2048, 512.0, 2.0))
    assert job_status(job) == "1.0 KiB of 2.0 KiB · 512 B/s · 2 s left"


def test_the_model_menu_opens_it_and_the_shutdown_stops_its_thread(qtbot, make_window, hub: FakeHub,
                                                                   ring: MemoryKeyring,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from app.core.backends.scripted import ScriptedBackend

    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    window = make_window(lambda: ScriptedBackend(rate=2000))
    texts = [a.text() for a in window.model_menu.actions()]
    manage = texts.index(window.menus.manage_models_action.text())
    assert texts[manage + 1] == window.menus.get_models_action.text() == "&Get More Models…"
    window.menus.get_models_action.trigger()
    dialog = window.model_dialogs.hub_dialog
    assert dialog is not None and dialog.isVisible()
    service = window.services.hub()
    assert service is not None and service.worker_thread.isRunning()
    with qtbot.waitSignal(dialog.model_open_requested, timeout=2000):
        dialog.downloads.load_requested.emit("/nowhere/model.gguf")
    dialog.settings_button.click()
    hub_settings = dialog.findChild(HubSettingsDialog)
    assert hub_settings is not None and hub_settings.isVisible()
    hub_settings.reject()
    window.menus.settings_action.trigger()
    window.settings_dialog.hub_button.click()
    from_settings = window.settings_dialog.findChild(HubSettingsDialog)
    assert from_settings is not None and from_settings.isVisible()
    qtbot.waitUntil(lambda: "huggingface" not in from_settings.endpoint_edit.text(), timeout=2000)
    from_settings.endpoint_edit.setText("https://hf-mirror.com/")
    with qtbot.waitSignal(from_settings.accepted, timeout=5000):
        from_settings.buttons.accepted.emit()
    from app.core.base import settings as settings_module

    assert settings_module.load_settings()["hub_endpoint"] == "https://hf-mirror.com"
    window.settings_dialog.reject()
    window.close()
    assert window.services.wait(10000)
    assert service.worker_thread.isFinished()


def test_an_earlier_runs_unfinished_download_is_listed_paused(qtbot, hub: FakeHub, ring: MemoryKeyring) -> None:
    import hashlib

    from app.core.hub.download import DownloadRequest, FileDownload
    from app.core.hub.endpoint import HubError, file_url

    assert hub.cdn is not None
    blob = hub.repos[REPO].files[MODEL]
    request = DownloadRequest(REPO, MODEL, file_url(hub.url, REPO, MODEL), user_models_dir(), len(blob),
                              hashlib.sha256(blob).hexdigest())
    hub.cdn.faults.append(Fault("drop", n=1024 * 1024))
    with pytest.raises(HubError):
        FileDownload(request, retries=0).run()
    service = HubService()
    try:
        qtbot.waitUntil(lambda: len(service.jobs()) == 1, timeout=5000)
        (job,) = service.jobs()
        assert job.state == PAUSED and job.request.target == request.target
        panel_dialog = GetModelsDialog(service)
        qtbot.addWidget(panel_dialog)
        row = panel_dialog.downloads.rows[job.id]
        assert "Paused at" in row.status.text()
        row.resume_button.click()
        qtbot.waitUntil(lambda: service.jobs()[0].state == DONE, timeout=10000)
    finally:
        assert service.shutdown()
        assert join_background_threads(5.0)


def test_a_damaged_header_says_why() -> None:
    from app.core.models.gguf_info import GGUFInfo

    assert header_line(GGUFInfo("x.gguf", 5, error="The file is damaged."), 4096) == "The file is damaged."


def test_get_it_selects_and_downloads_the_recommended_model(qtbot, dialog: GetModelsDialog, hub: FakeHub) -> None:
    entry = next(e for e in dialog._recommended if e.repo == QWEN)
    dialog.select_recommended(entry, download=True)
    qtbot.waitUntil(lambda: any(j.state == DONE for j in dialog.service.jobs()), timeout=10000)
    assert dialog.selected_model() is not None and dialog.selected_model().path == QWEN_FILE  # type: ignore[union-attr]
    assert (user_models_dir() / QWEN_FILE).is_file()


def test_closing_the_window_cuts_a_header_read_from_a_silent_server(qtbot, dialog: GetModelsDialog,
                                                                   hub: FakeHub) -> None:
    import threading

    assert hub.cdn is not None
    held = Fault("hold", n=1024)  # the header's first KB, then nothing (read timeout: 20 s)
    hub.cdn.faults.append(held)
    dialog.search_edit.setText("tiny")
    dialog.search_button.click()
    qtbot.waitUntil(lambda: dialog.results_root.childCount() == 1, timeout=5000)
    dialog.repos.setCurrentItem(child(dialog.results_root, REPO))
    qtbot.waitUntil(lambda: dialog.files.rowCount() == 3, timeout=5000)

    def reading() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name == "rill-hub-header"]

    dialog.files.selectRow(0)
    qtbot.waitUntil(lambda: bool(reading()) and not hub.cdn.faults, timeout=5000)  # the read took the fault
    try:
        dialog.reject()
        qtbot.waitUntil(lambda: not reading(), timeout=3000)  # cut at once, not at the read timeout
    finally:
        held.release.set()
