"""`rill search-models` and `rill pull` as a user runs them: separate
processes pointed at the fake Hub by HF_ENDPOINT, no Qt, resumable, exit 0
only with a verified file."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.hub_cli import HUB_COMMANDS, _bar
from tests.core.hub.conftest import GATED, MMPROJ, MODEL, MODEL_Q8, REPO
from tests.helpers.fake_hub import FakeHub, Fault
from tests.helpers.terminal import read_terminal

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    data = tmp_path / "data"
    data.mkdir()
    yield data


def env_for(hub: FakeHub, home: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, XDG_DATA_HOME=str(home), HF_ENDPOINT=hub.url, PYTHONIOENCODING="ascii",
               PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring")
    env.update(extra)
    for name in ("QT_QPA_PLATFORM", "HF_TOKEN", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        if name not in extra:
            env.pop(name, None)
    return env


def rill(hub: FakeHub, home: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app.cli", *args], cwd=ROOT, capture_output=True, timeout=120,
                          env=env_for(hub, home, **extra), text=True, encoding="utf-8", stdin=subprocess.DEVNULL)


def models(home: Path) -> Path:
    return home / "rill" / "models"


def test_search_models_text_and_json(hub: FakeHub, home: Path) -> None:
    proc = rill(hub, home, "search-models", "tiny")
    assert proc.returncode == 0, proc.stderr
    assert REPO in proc.stdout and "1,234 downloads" in proc.stdout and "apache-2.0" in proc.stdout
    as_json = rill(hub, home, "search-models", "GGUF", "--json")
    assert as_json.returncode == 0, as_json.stderr
    found = json.loads(as_json.stdout)
    assert [r["repo"] for r in found] == [REPO, GATED]     # most downloaded first
    assert found[1]["gated"] is True
    none = rill(hub, home, "search-models", "zzz")
    assert none.returncode == 0 and "No GGUF repositories" in none.stderr


def test_pull_picks_q4_k_m_and_verifies(hub: FakeHub, home: Path) -> None:
    proc = rill(hub, home, "pull", REPO)
    assert proc.returncode == 0, proc.stderr
    path = Path(proc.stdout.strip())
    assert path == models(home) / MODEL and path.read_bytes() == hub.repos[REPO].files[MODEL]
    assert "sha256 verified" in proc.stderr and "100%" in proc.stderr and "\r" not in proc.stderr
    assert "llama" in proc.stderr and "ChatML" in proc.stderr   # the header, read from the file
    again = rill(hub, home, "pull", REPO)
    assert again.returncode == 0 and "already" in again.stderr


def test_pull_by_quant_file_and_list(hub: FakeHub, home: Path) -> None:
    q8 = rill(hub, home, "pull", REPO, "--quant", "q8_0")
    assert q8.returncode == 0, q8.stderr
    assert Path(q8.stdout.strip()).name == MODEL_Q8
    missing = rill(hub, home, "pull", REPO, "--quant", "Q2_K")
    assert missing.returncode == 1 and "Q4_K_M, Q8_0" in missing.stderr and "Traceback" not in missing.stderr
    nofile = rill(hub, home, "pull", REPO, "--file", "nope.gguf")
    assert nofile.returncode == 1 and MODEL in nofile.stderr
    listed = rill(hub, home, "pull", REPO, "--list")
    assert listed.returncode == 0
    lines = listed.stdout.splitlines()
    assert lines[0].startswith(MODEL) and "Q4_K_M" in lines[0] and ("Fits" in lines[0] or "slow" in lines[0])
    assert any(line.startswith(MMPROJ) and "[mmproj]" in line for line in lines)


def test_pull_resumes_when_run_again(hub: FakeHub, home: Path) -> None:
    assert hub.cdn is not None
    hub.cdn.faults += [Fault("drop", n=1024 * 1024)] + [Fault("drop", n=64 * 1024) for _ in range(3)]
    first = rill(hub, home, "pull", REPO)
    assert first.returncode == 1
    assert "lost" in first.stderr and "kept: run the same command again" in first.stderr
    partial = models(home) / (MODEL + ".partial")
    kept = partial.stat().st_size
    assert kept >= 1024 * 1024 and not (models(home) / MODEL).exists()
    sent = hub.cdn.body_bytes
    second = rill(hub, home, "pull", REPO)
    assert second.returncode == 0, second.stderr
    assert "resuming" in second.stderr and "sha256 verified" in second.stderr
    assert hub.cdn.body_bytes - sent == len(hub.repos[REPO].files[MODEL]) - kept   # nothing fetched twice
    assert not partial.exists()


def test_pull_gated_needs_a_token(hub: FakeHub, home: Path) -> None:
    denied = rill(hub, home, "pull", GATED)
    assert denied.returncode == 1 and "token" in denied.stderr and "Traceback" not in denied.stderr
    allowed = rill(hub, home, "pull", GATED, HF_TOKEN=hub.token)
    assert allowed.returncode == 0, allowed.stderr
    assert hub.token not in allowed.stderr + allowed.stdout + denied.stderr


def test_pull_wrong_checksum_fails_and_leaves_nothing(hub: FakeHub, home: Path) -> None:
    hub.repos[REPO].wrong_sha = True
    proc = rill(hub, home, "pull", REPO)
    assert proc.returncode == 1 and "checksum" in proc.stderr
    assert not any(models(home).iterdir())


def test_pull_not_found_and_unreachable(hub: FakeHub, home: Path) -> None:
    missing = rill(hub, home, "pull", "nobody/nothing")
    assert missing.returncode == 1 and "not found" in missing.stderr
    down = subprocess.run([sys.executable, "-m", "app.cli", "search-models", "x"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env=env_for(hub, home, HF_ENDPOINT="http://127.0.0.1:9"))
    assert down.returncode == 1 and "Cannot reach 127.0.0.1" in down.stderr


def test_pull_shows_a_progress_bar_on_a_terminal(hub: FakeHub, home: Path) -> None:
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "pull", REPO], cwd=ROOT, env=env_for(hub, home),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    written = read_terminal(leader)
    out, _ = proc.communicate(timeout=60)
    os.close(leader)
    text = written.decode("utf-8", "replace")
    assert proc.returncode == 0, text
    assert "\r  [" in text and "100.0%" in text and "sha256 verified" in text
    assert out.decode().strip().endswith(MODEL)


def test_the_bar_and_the_command_names() -> None:
    assert HUB_COMMANDS == ("search-models", "pull")
    bar = _bar(512, 1024, 2048.0, 65.0)
    assert bar.startswith("\r  [") and "50.0%" in bar and "1:05 left" in bar
    assert "--:-- left" in _bar(0, 1024, 0.0, None)


def test_the_proxy_from_the_environment_is_used(hub: FakeHub, home: Path) -> None:
    """HTTP_PROXY names the fake Hub; the Hub's address does not even resolve:
    every request (search, file list, the file, its CDN redirect) goes through the proxy."""
    proc = rill(hub, home, "pull", REPO, HF_ENDPOINT="http://hub.invalid", HTTP_PROXY=hub.url, NO_PROXY="")
    assert proc.returncode == 0, proc.stderr
    assert any(r.path.startswith("http://hub.invalid/api/models/") for r in hub.requests)
    assert any(r.path.startswith("http://hub.invalid/" + REPO + "/resolve/") for r in hub.requests)


def test_ctrl_c_keeps_the_partial_file_and_says_how_to_resume(hub: FakeHub, home: Path) -> None:
    import signal

    assert hub.cdn is not None
    hub.cdn.faults.append(Fault("trickle", n=64 * 1024, delay=0.05))
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "pull", REPO], cwd=ROOT, env=env_for(hub, home),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    partial = models(home) / (MODEL + ".partial")
    try:
        while not (partial.exists() and partial.stat().st_size >= 128 * 1024):
            assert proc.poll() is None, proc.communicate()
            try:
                proc.wait(0.02)
            except subprocess.TimeoutExpired:
                pass
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130
    assert "stopped" in err and "run the same command again" in err.lower() and "Traceback" not in err
    assert partial.stat().st_size >= 128 * 1024 and (models(home) / (MODEL + ".partial.json")).exists()
