"""ExportProcess: `rill export` as a child process, its result as one sentence."""

from __future__ import annotations

from pathlib import Path

from app.ui.dialogs.export_process import ExportProcess, rill_command


def test_a_failing_export_says_why_in_one_sentence(qtbot, tmp_path: Path) -> None:
    process = ExportProcess()
    said: list[str] = []
    with qtbot.waitSignal(process.finished, timeout=60000) as blocker:
        assert process.start(tmp_path / "missing.db", tmp_path / "out.html", ["nope"], said.append, "html")
        assert not process.start(tmp_path / "x.db", tmp_path / "y.html", None)  # one at a time
    message = blocker.args[0]
    assert message.startswith("Export failed: ") and "Traceback" not in message
    assert said == [message] and not process.running
    assert not (tmp_path / "out.html").exists()


def test_the_command_is_this_python_running_the_app() -> None:
    assert rill_command()[1:] == ["-m", "app"]
