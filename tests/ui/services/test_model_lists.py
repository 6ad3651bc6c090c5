"""app.ui.services.model_lists against a real hostile server: a list of
200,000 models arrives capped, with the count of the rest, off the GUI thread."""

from __future__ import annotations

import json
from typing import Any

from app.core.backends.remote.servers import ServerConfig
from app.core.base import limits
from app.ui.services.model_lists import ModelListCache, fetch_model_list, list_models
from tests.helpers.hostile_server import Exchange, HostileServer

NAMES = [f"m{i:06d}" for i in range(200_000)]
BODY = json.dumps({"data": [{"id": n, "object": "model"} for n in NAMES]}).encode()


def listing(ex: Exchange) -> None:
    ex.head(200, [("Content-Type", "application/json"), ("Content-Length", str(len(BODY)))])
    ex.send(BODY)


def test_fetch_model_list_keeps_the_count_of_the_models_not_kept() -> None:
    with HostileServer(listing) as server:
        models, message = fetch_model_list(list_models, ServerConfig("Zoo", "openai", server.url), "")
    assert message == "" and len(models) == limits.MAX_MODELS
    assert models.dropped == len(NAMES) - limits.MAX_MODELS  # type: ignore[attr-defined]  # a ModelNames


def test_the_cache_records_what_was_dropped(qtbot: Any) -> None:
    cache = ModelListCache()
    with HostileServer(listing) as server:
        config = ServerConfig("Zoo", "openai", server.url, id="zoo")
        with qtbot.waitSignal(cache.changed, timeout=20000, check_params_cb=lambda sid: not cache.is_fetching(sid)):
            assert cache.fetch(config)
    entry = cache.get(config)
    assert entry is not None and entry.error == ""
    assert list(entry.models) == NAMES[: limits.MAX_MODELS] and entry.dropped == len(NAMES) - limits.MAX_MODELS
    cache.cancel_all()


def test_a_failed_refresh_keeps_the_last_list_and_its_count(qtbot: Any) -> None:
    cache = ModelListCache()

    def refused(ex: Exchange) -> None:
        ex.head(500, [("Content-Length", "0")], reason="Internal Server Error")

    with HostileServer(refused) as server:
        config = ServerConfig("Zoo", "openai", server.url, id="zoo")
        cache.store(config, ["a", "b"], dropped=3)
        with qtbot.waitSignal(cache.changed, timeout=20000, check_params_cb=lambda sid: not cache.is_fetching(sid)):
            cache.fetch(config)
    entry = cache.get(config)
    assert entry is not None and "internal error (500)" in entry.error
    assert entry.models == ("a", "b") and entry.dropped == 3
