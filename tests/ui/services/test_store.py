"""StoreService: jobs run on the store thread in order; results come back on the GUI thread."""

from __future__ import annotations

import threading
from typing import Any

from app.ui.services.store import StoreService


def test_jobs_run_in_order_on_the_store_thread(qtbot: Any, tmp_path: Any) -> None:
    service = StoreService(tmp_path / "h.db")
    try:
        with qtbot.waitSignal(service.opened, timeout=10000) as opened:
            pass
        assert opened.args[0] is True and service.available
        order: list[str] = []
        on: list[threading.Thread] = []

        def write(store: Any) -> None:
            on.append(threading.current_thread())
            order.append("write")

        def read(store: Any) -> int:
            order.append("read")
            return 42

        got: list[int] = []
        service.write(write)
        service.read(read, got.append)
        qtbot.waitUntil(lambda: got == [42], timeout=5000)
        assert order == ["write", "read"]
        assert on and on[0] is not threading.main_thread()
    finally:
        assert service.shutdown()
    assert service.is_finished()


def test_a_disabled_store_answers_none_and_drops_writes(qtbot: Any) -> None:
    service = StoreService(enabled=False)
    try:
        got: list[object] = []
        service.write(lambda store: 1 / 0)  # dropped: never run
        service.read(lambda store: 1, got.append)
        qtbot.waitUntil(lambda: got == [None], timeout=5000)
    finally:
        assert service.shutdown()


def test_jobs_after_request_stop_are_ignored(qtbot: Any, tmp_path: Any) -> None:
    service = StoreService(tmp_path / "h.db")
    service.request_stop()
    got: list[object] = []
    service.read(lambda store: 1, got.append)
    assert service.shutdown()
    assert got == []
