"""app.core.backends.remote.errors: plain words for every server failure,
naming the server and never an API key."""

from __future__ import annotations

import httpx
import pytest

from app.core.backends.base import BackendError
from app.core.backends.remote import errors
from app.core.backends.remote.servers import ServerConfig

SERVER = ServerConfig(name="Lab", kind="openai", base_url="http://user:pw@lab.local:8080/v1", stall_s=30)


@pytest.mark.parametrize(("exc", "words"), [
    (httpx.ConnectTimeout("slow"), "no answer within 15 s"),  # the connect timeout used: min(stall, 15 s)
    (httpx.ReadTimeout("quiet"), "nothing arrived for 30 s"),
    (httpx.ConnectError("[Errno 111] Connection refused"), "refused the connection"),
    (httpx.ConnectError("[Errno -2] Name or service not known"), "Unknown host"),
    (httpx.ConnectError("[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed"), "secure (TLS) connection"),
    (httpx.RemoteProtocolError("peer closed"), "closed the connection"),
    (httpx.UnsupportedProtocol("ftp"), "must start with http:// or https://"),
    (ValueError("odd"), "ValueError"),
])
def test_transport_errors_name_the_server_in_plain_words(exc: Exception, words: str) -> None:
    error = errors.transport_error(SERVER, exc)
    assert isinstance(error, BackendError)
    assert words in str(error) and "Lab (" in str(error)
    assert "pw" not in str(error)  # credentials in the URL are never shown


def test_a_read_timeout_during_the_reply_says_so() -> None:
    assert "during the reply" in str(errors.transport_error(SERVER, httpx.ReadTimeout("x"), during_reply=True))


@pytest.mark.parametrize(("code", "words"), [(401, "rejected the API key"), (403, "refused access"),
                                             (404, "does not know the model"), (500, "internal error"),
                                             (418, "answered 418")])
def test_status_errors_carry_the_code_and_redact_the_key(code: int, words: str) -> None:
    response = httpx.Response(code, headers={"retry-after": "7"})
    body = b'{"error": {"message": "bad key sk-SECRET123"}}'
    error = errors.status_error(SERVER, response, body, model="m", key="sk-SECRET123")
    assert words in str(error) and error.status == code  # set by status_error
    assert "sk-SECRET123" not in str(error) and "bad key" in str(error)


def test_rate_limits_say_when_to_try_again() -> None:
    error = errors.status_error(SERVER, httpx.Response(429, headers={"retry-after": "7"}), b"")
    assert "Try again in 7 s." in str(error)
    assert "Try again shortly." in str(errors.status_error(SERVER, httpx.Response(429), b""))


def test_stream_errors_and_bad_data() -> None:
    assert "reported an error during the reply: overloaded" in str(
        errors.stream_error(SERVER, {"message": "overloaded"}))
    assert "no details" in str(errors.stream_error(SERVER, ""))
    assert "sent data Rill cannot read: a line" in str(errors.bad_data(SERVER, "a line"))
    long_body = ("x" * 2000).encode()
    quoted = str(errors.status_error(SERVER, httpx.Response(500), long_body))
    assert len(quoted) < errors.MAX_QUOTED + 200


def test_an_empty_reason_phrase_gets_the_standard_one_or_none() -> None:
    teapot = httpx.Response(418, extensions={"reason_phrase": b""})
    assert str(errors.status_error(SERVER, teapot, b"")).endswith("answered 418 I'm a Teapot.")
    odd = httpx.Response(499, extensions={"reason_phrase": b""})
    assert str(errors.status_error(SERVER, odd, b"")).endswith("answered 499.")
