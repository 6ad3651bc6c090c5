"""ModelReader: the catalog's scan and the headers, off the GUI thread, a
few files per call, the one asked for first; cancel drops the rest."""

from __future__ import annotations

import threading
from typing import Any

from app.core.models.catalog import CatalogEntry
from app.core.models.gguf_info import GGUFInfo
from app.ui.dialogs import model_reading
from app.ui.dialogs.model_reading import ModelReader
from app.ui.services.background import join_background_threads


class Reads:
    """read_info that records the order and the threads of its reads."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.threads: set[threading.Thread] = set()

    def __call__(self, path: str) -> GGUFInfo:
        self.order.append(path)
        self.threads.add(threading.current_thread())
        return GGUFInfo(path, file_size=1)


def no_scan() -> list[CatalogEntry]:
    raise AssertionError("not scanned in this test")


def test_headers_are_read_in_batches_the_one_asked_for_first(qtbot: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(model_reading, "READ_BATCH", 2)
    monkeypatch.setattr(model_reading, "READ_BATCH_S", 60.0)  # batches by count only (a slow machine)
    reads = Reads()
    reader = ModelReader(no_scan, reads, lambda: 12345)
    batches: list[list[str]] = []
    reader.headers_read.connect(lambda done, available: batches.append([p for p, _ in done]))
    assert reader.idle
    with qtbot.waitSignal(reader.finished, timeout=5000):
        reader.read(["a", "b", "c", "d", "e"])
        reader.prioritize("e")  # selected while the first batch is read
        reader.prioritize("zzz")  # not queued: nothing happens
        assert not reader.idle
    assert batches == [["a", "b"], ["e", "c"], ["d"]] and reads.order == ["a", "b", "e", "c", "d"]
    assert threading.main_thread() not in reads.threads and reader.idle
    with qtbot.waitSignal(reader.finished, timeout=5000):
        reader.read_first("f")
    assert batches[-1] == ["f"]
    assert join_background_threads(5.0)


def test_the_scan_answers_with_the_entries_or_the_error(qtbot: Any, tmp_path: Any) -> None:
    entry = CatalogEntry(tmp_path / "m.gguf", ("folder",), True)
    reader = ModelReader(lambda: [entry], Reads(), lambda: None)
    with qtbot.waitSignal(reader.scanned, timeout=5000) as scanned:
        reader.scan()
    assert scanned.args == [[entry], None]

    def broken() -> list[CatalogEntry]:
        raise OSError("no folder")

    failing = ModelReader(broken, Reads(), lambda: None)
    with qtbot.waitSignal(failing.scan_failed, timeout=5000) as failed:
        failing.scan()
    assert failed.args == ["no folder"]
    assert join_background_threads(5.0)


def test_cancel_drops_what_is_on_its_way_and_what_is_queued(qtbot: Any, qapp: Any) -> None:
    release = threading.Event()
    reads = Reads()

    def slow(path: str) -> GGUFInfo:
        release.wait(5)
        return reads(path)

    reader = ModelReader(no_scan, slow, lambda: None)
    said: list[object] = []
    reader.headers_read.connect(said.append)
    reader.finished.connect(lambda: said.append("finished"))
    reader.read([f"p{i}" for i in range(20)])
    reader.cancel()
    release.set()
    assert join_background_threads(5.0)
    qapp.processEvents()
    assert said == [] and len(reads.order) <= model_reading.READ_BATCH
