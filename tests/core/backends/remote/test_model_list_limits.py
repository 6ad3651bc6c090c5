"""Model lists from hostile servers (issue #17, items 4 and 13): an endless
body, a gzip bomb, a list of 200,000 models, a list that trickles in; each
stops at its limit with a message naming the limit, over real sockets."""

from __future__ import annotations

import gzip
import json
import zlib

import pytest

from app.core.backends.base import BackendError
from app.core.backends.remote import base as remote_base
from app.core.backends.remote.client import list_models
from app.core.backends.remote.servers import ServerConfig
from app.core.base import limits
from tests.helpers.hostile_server import Exchange, HostileServer, gzip_zeros

KINDS = ["openai", "ollama"]


def config(url: str, kind: str, stall_s: float = 60.0) -> ServerConfig:
    return ServerConfig(name="Hostile", kind=kind, base_url=url, stall_s=stall_s)


def listing(kind: str, names: list[str]) -> bytes:
    if kind == "openai":
        return json.dumps({"object": "list", "data": [{"id": n, "object": "model"} for n in names]}).encode()
    return json.dumps({"models": [{"name": n, "model": n} for n in names]}).encode()


def endless_body(ex: Exchange) -> None:
    ex.head(200, [("Content-Type", "application/json")])  # no length: the body ends when the server closes
    ex.send(b'{"data": [')
    item = b'{"id": "model-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},' * 1000
    while True:
        ex.send(item)


@pytest.mark.parametrize("kind", KINDS)
def test_an_endless_model_list_stops_at_the_byte_limit(kind: str) -> None:
    with HostileServer(endless_body) as server:
        with pytest.raises(BackendError, match=r"model list larger than 16 MB, Rill's limit") as caught:
            list_models(config(server.url, kind))
        assert server.client_gone.wait(5)  # the connection was dropped, not read to the end
    assert "Hostile (" in str(caught.value) and "127.0.0.1" in str(caught.value)


def gzip_bomb(ex: Exchange) -> None:
    ex.head(200, [("Content-Type", "application/json"), ("Content-Encoding", "gzip")])
    for piece in gzip_zeros():
        ex.send(piece)


@pytest.mark.parametrize("kind", KINDS)
def test_a_gzip_bomb_stops_at_the_unpacked_limit(kind: str) -> None:
    """Rill asks for identity; a server that gzips anyway is unpacked with the
    same 4 MB cap on what comes out (the bomb unpacks to gigabytes)."""
    with HostileServer(gzip_bomb) as server:
        with pytest.raises(BackendError, match=r"compressed model list that unpacks to more than 16 MB"):
            list_models(config(server.url, kind))
        assert server.client_gone.wait(5)


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "raw-deflate"])
def test_a_small_compressed_list_is_still_read(encoding: str) -> None:
    body = listing("openai", ["alpha", "beta"])
    if encoding == "gzip":
        packed = gzip.compress(body)
    elif encoding == "deflate":
        packed = zlib.compress(body)
    else:
        packer = zlib.compressobj(wbits=-15)
        packed = packer.compress(body) + packer.flush()

    def handler(ex: Exchange) -> None:
        ex.head(200, [("Content-Type", "application/json"), ("Content-Length", str(len(packed))),
                      ("Content-Encoding", encoding.replace("raw-", ""))])
        ex.send(packed)

    with HostileServer(handler) as server:
        assert list_models(config(server.url, "openai")) == ["alpha", "beta"]


def test_an_unknown_compression_is_refused_by_name() -> None:
    def handler(ex: Exchange) -> None:
        ex.head(200, [("Content-Type", "application/json"), ("Content-Length", "4"), ("Content-Encoding", "br")])
        ex.send(b"\x00\x01\x02\x03")

    with HostileServer(handler) as server, pytest.raises(BackendError, match=r"compressed as br"):
        list_models(config(server.url, "openai"))


@pytest.mark.parametrize("kind", KINDS)
def test_200000_models_keep_the_first_10000_and_count_the_rest(kind: str) -> None:
    names = [f"m{i:06d}" for i in range(200_000)]
    body = listing(kind, names)
    assert len(body) < limits.MAX_MODEL_LIST_BYTES  # the byte limit is not what stops this one

    def handler(ex: Exchange) -> None:
        ex.head(200, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        ex.send(body)

    with HostileServer(handler) as server:
        models = list_models(config(server.url, kind))
    assert list(models) == names[: limits.MAX_MODELS]
    assert models.dropped == 200_000 - limits.MAX_MODELS


def test_names_that_are_too_long_or_not_text_are_dropped_and_counted() -> None:
    models = remote_base.cap_models(["ok", "x" * (limits.MAX_MODEL_NAME_CHARS + 1), " ok ", "", 7, "b"])
    assert list(models) == ["ok", "b"] and models.dropped == 1


@pytest.mark.parametrize("kind", KINDS)
def test_a_trickling_list_stops_at_the_whole_list_time_limit_and_says_it(kind: str) -> None:
    """One byte every 0.2 s: each read is quick, so only a limit on the whole
    list ends it; the message states the limit actually used (1.5 s here,
    from timeout=1.5), not the server's 60 s stall timeout."""
    body = listing(kind, ["a"])

    def handler(ex: Exchange) -> None:
        ex.head(200, [("Content-Type", "application/json"), ("Content-Length", str(len(body) + 200))])
        for i in range(len(body) + 200):
            ex.send(body[i:i + 1] or b" ")
            ex.wait(0.2)

    with HostileServer(handler) as server:
        with pytest.raises(BackendError) as caught:
            list_models(config(server.url, kind, stall_s=60.0), timeout=1.5)
        assert server.client_gone.wait(5)
    message = str(caught.value)
    assert "did not send its model list within 1.5 s" in message, message
    assert "60 s" not in message


def test_the_time_limit_of_a_list_at_load_is_the_one_in_the_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(remote_base, "LIST_TIMEOUT_S", 1.0)

    def handler(ex: Exchange) -> None:
        ex.head(200, [("Content-Type", "application/json"), ("Content-Length", "1000")])
        while True:
            ex.send(b" ")
            ex.wait(0.2)

    from app.core.backends.remote.client import make_backend

    with HostileServer(handler) as server:
        backend = make_backend(config(server.url, "openai", stall_s=30.0))
        try:
            with pytest.raises(BackendError, match=r"within 1 s"):
                backend.load()
        finally:
            backend.close()


def test_a_deeply_nested_list_is_bad_data_not_a_crash() -> None:
    body = b"[" * 100_000 + b"]" * 100_000

    def handler(ex: Exchange) -> None:
        ex.head(200, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        ex.send(body)

    with HostileServer(handler) as server, pytest.raises(BackendError, match="not JSON"):
        list_models(config(server.url, "openai"))
