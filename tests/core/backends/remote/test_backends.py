"""The remote backends over real sockets, against the fault-injecting server:
exact text under byte-level splits, every fault a clear message naming the
server with the partial reply kept, and Stop that cuts the connection."""

from __future__ import annotations

import dataclasses
import socket
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core.backends.base import BackendError, CancelEvent, ChatMessage, FinishReason, GenerationRequest, LoadCancelled
from app.core.backends.remote.client import list_models, make_backend
from app.core.backends.remote.servers import ServerConfig
from app.core.text.thinking import split_thinking
from tests.helpers.fault_server import DEFAULT_TEXT, RETRY_AFTER_S, FaultServer, Scenario

KINDS = ["openai", "ollama"]
REQUEST = GenerationRequest(1, (ChatMessage("user", "hi"),))


def server_config(url: str, kind: str, **kw) -> ServerConfig:
    return ServerConfig(name="Fault box", kind=kind, base_url=url, **kw)


def run(backend, cancel: threading.Event | None = None) -> tuple[str, FinishReason | None, BackendError | None]:
    """Drive generate() like the worker does: the text so far, the finish reason, the error."""
    cancel = cancel or CancelEvent()
    pieces: list[str] = []
    gen = backend.generate(REQUEST, cancel)
    try:
        while True:
            pieces.append(next(gen))
    except StopIteration as stop:
        return "".join(pieces), stop.value, None
    except BackendError as exc:
        return "".join(pieces), None, exc
    finally:
        gen.close()


@pytest.fixture
def fault():
    with FaultServer() as server:
        yield server


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("sizes", [(1,), (2, 3, 5), (7,)])
def test_exact_text_through_byte_splits(fault: FaultServer, kind: str, sizes: tuple[int, ...]) -> None:
    fault.scenario = Scenario(write_sizes=sizes, comments=True, newline="\r\n")
    backend = make_backend(server_config(fault.url, kind), "fault-model")
    text, reason, error = run(backend)
    backend.close()
    assert error is None
    assert reason is FinishReason.STOP
    assert text == DEFAULT_TEXT


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sizes=st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=6),
       kind=st.sampled_from(KINDS), multiline=st.booleans(), newline=st.sampled_from(["\n", "\r\n", "\r"]))
def test_every_write_split_gives_the_same_text(fault: FaultServer, sizes, kind, multiline, newline) -> None:
    fault.scenario = Scenario(write_sizes=tuple(sizes), multiline_data=multiline, newline=newline, reasoning="思考 🤔 ok")
    backend = make_backend(server_config(fault.url, kind), "fault-model")
    text, reason, error = run(backend)
    backend.close()
    assert error is None and reason is FinishReason.STOP
    split = split_thinking(text)
    assert split.thoughts == "思考 🤔 ok"
    assert split.answer == DEFAULT_TEXT


@pytest.mark.parametrize("kind", KINDS)
def test_load_picks_the_first_model_and_list_models(fault: FaultServer, kind: str) -> None:
    backend = make_backend(server_config(fault.url + ("/v1" if kind == "openai" else ""), kind))
    info = backend.load()
    assert backend.model.startswith("fault-model")
    assert "Fault box" in info.name
    assert [m.split(":")[0] for m in list_models(server_config(fault.url, kind))] == ["fault-model", "fault-model-large"]
    backend.close()


FAULT_MESSAGES = {
    "http401": r"rejected the API key \(401\)",
    "http403": r"refused access \(403\)",
    "http404": r"does not know .*\(404\)",
    "http429": rf"rate-limiting.*Try again in {RETRY_AFTER_S} s",
    "http500": r"internal error \(500\)",
    "error_event": r"reported an error during the reply: fault server: injected error",
    "malformed": r"malformed JSON",
    "close_mid": r"closed the connection",
    "end_mid": r"closed the connection before the reply was complete",
    "html": r"not a stream \(text/html\)",
    "empty_stream": r"without sending anything.*context window",
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fault_name", sorted(FAULT_MESSAGES))
def test_each_fault_is_a_clear_message_and_keeps_the_partial_reply(fault: FaultServer, kind: str, fault_name: str) -> None:
    fault.scenario = Scenario(fault=fault_name, fail_after=3, pieces=20)
    backend = make_backend(server_config(fault.url, kind), "fault-model", api_key="sk-secret-key-1234")
    text, reason, error = run(backend)
    backend.close()
    assert error is not None, (text, reason)
    message = str(error)
    assert "Fault box" in message and "127.0.0.1" in message
    assert "sk-secret" not in message
    assert "Traceback" not in message
    import re

    assert re.search(FAULT_MESSAGES[fault_name], message), message
    tokens = fault.scenario.content_tokens()
    if fault_name in ("error_event", "malformed", "close_mid", "end_mid"):
        assert text == "".join(tokens[:3])  # what arrived is kept, exactly
    else:
        assert text == ""


@pytest.mark.parametrize("kind", KINDS)
def test_a_complete_json_reply_is_read_whole(fault: FaultServer, kind: str) -> None:
    fault.scenario = Scenario(fault="not_stream")
    backend = make_backend(server_config(fault.url, kind), "fault-model")
    text, reason, error = run(backend)
    backend.close()
    assert error is None and reason is FinishReason.STOP and text == DEFAULT_TEXT


@pytest.mark.parametrize("kind", KINDS)
def test_a_stall_is_reported_after_the_stall_timeout(fault: FaultServer, kind: str) -> None:
    fault.scenario = Scenario(fault="stall", fail_after=2, pieces=10)
    backend = make_backend(server_config(fault.url, kind, stall_s=1.0), "fault-model")
    text, reason, error = run(backend)
    backend.close()
    assert error is not None and "stopped sending" in str(error) and "1 s" in str(error)
    assert text == "".join(fault.scenario.content_tokens()[:2])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("phase", ["slow_headers", "stall"])
def test_stop_cuts_the_connection_in_any_phase(fault: FaultServer, kind: str, phase: str) -> None:
    """Stop while the server is silent (reading a prompt: no headers yet; or
    between tokens): generate returns CANCELLED at once and the server sees
    the client go, long before any timeout (stall and header delays: 60 s)."""
    fault.scenario = Scenario(fault=phase, fail_after=2, headers_delay_s=60.0)
    backend = make_backend(server_config(fault.url, kind), "fault-model")
    cancel = CancelEvent()
    result: list = []
    started = threading.Event()

    def worker() -> None:
        gen = backend.generate(REQUEST, cancel)
        started.set()
        out = []
        try:
            while True:
                out.append(next(gen))
        except StopIteration as stop:
            result.append(("".join(out), stop.value))
        except BackendError as exc:  # pragma: no cover - a failure of the test
            result.append(("".join(out), exc))

    thread = threading.Thread(target=worker, daemon=True)
    thread.start()
    assert started.wait(10)
    assert fault.wait_for(lambda: fault.active_streams >= 1 or len(fault.requests) >= 1, timeout=10)
    if phase == "stall":
        assert fault.wait_for(lambda: fault.stalled, timeout=10) if hasattr(fault, "stalled") else True
    cancel.set()
    thread.join(10)
    assert not thread.is_alive()
    assert result and result[0][1] is FinishReason.CANCELLED
    assert fault.client_gone.wait(10)
    backend.close()


def test_connection_refused_and_unknown_host_and_tls() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for url, pattern in [
        (f"http://127.0.0.1:{port}", "refused the connection"),
        ("http://no-such-host.invalid:8080", "Unknown host"),
    ]:
        backend = make_backend(server_config(url, "openai"), "m")
        _, _, error = run(backend)
        backend.close()
        assert error is not None and pattern in str(error), str(error)
        with pytest.raises(BackendError, match=pattern):
            make_backend(server_config(url, "ollama"), "").load()


def test_tls_failure_is_named(fault: FaultServer) -> None:
    url = fault.url.replace("http://", "https://")
    backend = make_backend(server_config(url, "openai"), "m")
    _, _, error = run(backend)
    backend.close()
    assert error is not None and "secure (TLS) connection" in str(error), str(error)


def test_cancelled_load_raises_load_cancelled() -> None:
    """A server that accepts the connection and never answers (the kernel
    queues it: nobody calls accept): cancelling the load ends it at once."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        backend = make_backend(server_config(f"http://127.0.0.1:{silent.getsockname()[1]}", "openai"), "")
        cancel = CancelEvent()
        errors: list[BaseException] = []

        def load() -> None:
            try:
                backend.load(cancel)
            except BaseException as exc:  # noqa: BLE001 - handed to the test thread, which re-raises it
                errors.append(exc)

        thread = threading.Thread(target=load, daemon=True)
        thread.start()
        # Wait until the request is on its way (a connection is recorded).
        assert _wait(lambda: backend._http._backend is not None and backend._http._backend._sockets, 10)
        cancel.set()
        thread.join(10)
        assert not thread.is_alive() and errors and isinstance(errors[0], LoadCancelled), errors


def _wait(condition, timeout: float) -> bool:
    done = threading.Event()
    for _ in range(int(timeout / 0.01)):
        if condition():
            return True
        done.wait(0.01)
    return bool(condition())


def test_the_key_is_sent_as_a_bearer_token_and_prompt_fields(fault: FaultServer) -> None:
    backend = make_backend(server_config(fault.url, "openai"), "fault-model", api_key="sk-abc-9999")
    run(backend)
    backend.close()
    method, path, headers, body = fault.requests[-1]
    assert path == "/v1/chat/completions"
    assert {k.lower(): v for k, v in headers.items()}["authorization"] == "Bearer sk-abc-9999"
    assert body["stream"] is True and body["model"] == "fault-model"
    assert body["messages"] == [{"role": "user", "content": "hi"}]


def test_dataclass_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        server_config("http://x", "openai").name = "y"
