"""`rill export`, `rill import` and `rill search` as a user runs them: separate
processes, a temporary data dir, no Qt loaded, plain messages on bad input."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from app.core.store import Store
from app.core.store.exchange import export_json
from tests.core.store.test_exchange import fill, valid_doc, without_exported_at

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())


@pytest.fixture
def data_home(tmp_path: Path) -> Path:
    home = tmp_path / "xdg-data"
    home.mkdir()
    return home


def rill(data_home: Path, *args: str, stdin: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, XDG_DATA_HOME=str(data_home), PYTHONIOENCODING="ascii")  # the CLI must not rely on it
    env.pop("QT_QPA_PLATFORM", None)
    return subprocess.run([sys.executable, "-m", "app.cli", *args], cwd=ROOT, capture_output=True, timeout=timeout,
                          env=env, input=None if stdin is None else stdin.encode(), text=False)


def out(proc: Any) -> str:
    return proc.stdout.decode("utf-8")


def err(proc: Any) -> str:
    return proc.stderr.decode("utf-8")


def make_db(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    result = Store.open(path)
    assert result.store is not None, result.notices
    fill(result.store)
    result.store.close()
    return path


def export_of(path: Path) -> str:
    result = Store.open(path)
    assert result.store is not None
    try:
        return export_json(result.store)
    finally:
        result.store.close()


@pytest.fixture
def default_db(data_home: Path) -> Path:
    """The database where `rill` looks without --db."""
    return make_db(data_home / "rill" / "rill.db")


# -- export ------------------------------------------------------------------------------


def test_export_json_to_stdout_from_the_default_database(data_home: Path, default_db: Path) -> None:
    proc = rill(data_home, "export", "--all", "--format", "json")
    assert proc.returncode == 0, err(proc)
    assert without_exported_at(out(proc)) == without_exported_at(export_of(default_db))
    assert "界面 design 👋" in out(proc)  # UTF-8, whatever the locale says
    assert err(proc) == ""


def test_export_markdown_to_a_file(data_home: Path, default_db: Path, tmp_path: Path) -> None:
    target = tmp_path / "chats.md"
    proc = rill(data_home, "export", "-o", str(target))  # format from the extension, all by default
    assert proc.returncode == 0, err(proc)
    assert out(proc) == ""
    assert "Exported 3 conversations" in err(proc)
    md = target.read_text(encoding="utf-8")
    assert md.startswith("# 界面 design 👋\n") and "## Rill (interrupted)" in md and "# Pinned" in md
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".chats")] == []  # no temp file left


def test_export_html_and_pdf_to_files(data_home: Path, default_db: Path, tmp_path: Path) -> None:
    page = tmp_path / "chats.html"
    proc = rill(data_home, "export", "--conversation", "c1c1", "-o", str(page))  # html from the extension
    assert proc.returncode == 0, err(proc)
    assert "Exported 1 conversation (4 messages on the current branches)" in err(proc)
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "<script" not in html and "界面 design 👋" in html
    dark = rill(data_home, "export", "--format", "html", "--theme", "dark")
    assert dark.returncode == 0 and "#0d1117" in out(dark) and "#0d1117" not in html
    pdf = tmp_path / "chats.pdf"
    proc = rill(data_home, "export", "--all", "-o", str(pdf), timeout=120)
    assert proc.returncode == 0, err(proc)
    assert "Exported 3 conversations" in err(proc)
    assert pdf.read_bytes().startswith(b"%PDF") and pdf.stat().st_size > 1000
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".chats")] == []


def test_export_pdf_needs_a_file(data_home: Path, default_db: Path) -> None:
    proc = rill(data_home, "export", "--format", "pdf")
    assert proc.returncode != 0 and "needs a file" in err(proc) and out(proc) == ""


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--printer", "no-such-printer"), "There is no printer named 'no-such-printer'"),
        (("--printer", "p", "--pages", "x-2"), "--pages wants FROM-TO"),
        (("--printer", "p", "--pages", "5-2"), "FROM before TO"),
        (("--printer", "p", "--copies", "0"), "--copies must be at least 1"),
        (("--printer", "p", "--format", "html"), "takes neither -o nor another --format"),
    ],
)
def test_printing_on_a_printer_that_is_not_there_fails_plainly(
    data_home: Path, default_db: Path, args: tuple[str, ...], said: str
) -> None:
    proc = rill(data_home, "export", "--all", *args, timeout=120)
    assert proc.returncode != 0 and said in err(proc), err(proc)
    assert "Traceback" not in err(proc) and out(proc) == ""


def test_export_one_conversation_by_id_prefix(data_home: Path, default_db: Path) -> None:
    proc = rill(data_home, "export", "--conversation", "c2c2", "--format", "json")
    assert proc.returncode == 0, err(proc)
    assert [c["id"] for c in json.loads(out(proc))["conversations"]] == ["c2" * 16]


def test_export_of_an_unknown_conversation_fails_plainly(data_home: Path, default_db: Path, tmp_path: Path) -> None:
    target = tmp_path / "x.json"
    proc = rill(data_home, "export", "--conversation", "nope", "-o", str(target))
    assert proc.returncode == 1
    assert "No conversation with id 'nope'" in err(proc) and "Traceback" not in err(proc)
    assert not target.exists()


def test_export_and_search_without_a_database(data_home: Path) -> None:
    for args in (["export", "--format", "md"], ["search", "x"]):
        proc = rill(data_home, *args)
        assert proc.returncode == 1
        assert "No conversation database at" in err(proc) and "Traceback" not in err(proc)
        assert not (data_home / "rill" / "rill.db").exists()  # looking creates nothing


def test_all_and_conversation_are_exclusive(data_home: Path) -> None:
    proc = rill(data_home, "export", "--all", "--conversation", "x")
    assert proc.returncode == 2 and "not allowed with" in err(proc)


# -- import ------------------------------------------------------------------------------


def test_cli_round_trip_into_a_new_database(data_home: Path, tmp_path: Path) -> None:
    src = make_db(tmp_path / "src.db")
    dump = tmp_path / "dump.json"
    assert rill(data_home, "export", "--db", str(src), "-o", str(dump)).returncode == 0
    proc = rill(data_home, "import", str(dump))  # into the default database, created for it
    assert proc.returncode == 0, err(proc)
    assert out(proc).startswith(f"Imported 3 conversations (8 messages) from {dump}.\n")
    assert f"  {'c1' * 16}  界面 design 👋  (6 messages)\n" in out(proc)
    db = data_home / "rill" / "rill.db"
    assert without_exported_at(export_of(db)) == without_exported_at(dump.read_text(encoding="utf-8"))

    again = rill(data_home, "import", str(dump))  # the same again: copies, nothing overwritten
    assert again.returncode == 0, err(again)
    assert out(again).count("[a copy: ") == 3 and f"[a copy: {'c1' * 16} already existed]" in out(again)


def test_import_from_stdin(data_home: Path, tmp_path: Path) -> None:
    db = tmp_path / "in.db"
    proc = rill(data_home, "import", "-", "--db", str(db), stdin=json.dumps(valid_doc()))
    assert proc.returncode == 0, err(proc)
    assert "Imported 2 conversations (5 messages) from standard input." in out(proc)


def test_malformed_import_names_the_place_and_imports_nothing(data_home: Path, tmp_path: Path) -> None:
    db = make_db(tmp_path / "keep.db")
    before = export_of(db)
    doc = valid_doc()
    doc["conversations"][1]["messages"][2]["role"] = "bot"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    proc = rill(data_home, "import", str(bad), "--db", str(db))
    assert proc.returncode == 1
    line = next(i for i, text in enumerate(bad.read_text().split("\n"), 1) if '"bot"' in text)
    expected = 'conversations[1].messages[2].role: expected "user" or "assistant", got "bot"'
    assert f"{bad}: line {line}, column 19: {expected}" in err(proc)
    assert "Nothing was imported." in err(proc) and "Traceback" not in err(proc)
    assert out(proc) == ""
    assert without_exported_at(export_of(db)) == without_exported_at(before)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'{"format": "rill.export",\n  "version": 1,\n  "conversations": [,]}',
         "line 3, column 21: not valid JSON: Expecting value"),
        (b'{"format": "rill.export", "version": 7, "conversations": []}', "newer Rill (format version 7)"),
        (b"\xff\xfe{}", "line 1, column 1: not UTF-8 text"),
        (b"", "the file is empty"),
    ],
)
def test_bad_files_fail_plainly_and_create_no_database(data_home: Path, tmp_path: Path, content: bytes,
                                                       expected: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    proc = rill(data_home, "import", str(bad))
    assert proc.returncode == 1 and expected in err(proc) and "Traceback" not in err(proc), err(proc)
    assert not (data_home / "rill" / "rill.db").exists()


def test_import_of_a_missing_file(data_home: Path, tmp_path: Path) -> None:
    proc = rill(data_home, "import", str(tmp_path / "gone.json"))
    assert proc.returncode == 1
    assert f"Cannot read {tmp_path / 'gone.json'}: No such file or directory." in err(proc)


def test_a_newer_database_is_refused_untouched(data_home: Path, tmp_path: Path) -> None:
    db = make_db(tmp_path / "future.db")
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA user_version = 999")
    conn.close()
    before = db.read_bytes()
    good = tmp_path / "good.json"
    good.write_text(json.dumps(valid_doc()), encoding="utf-8")
    for args in (["export", "--format", "json"], ["search", "hello"], ["import", str(good)]):
        proc = rill(data_home, *args, "--db", str(db))
        assert proc.returncode == 1, (args, out(proc), err(proc))
        assert "newer" in err(proc).lower() and "Traceback" not in err(proc)
        assert out(proc) == ""
    assert db.read_bytes() == before


# -- search ------------------------------------------------------------------------------


def test_search_plain_marks_the_matches(data_home: Path, default_db: Path) -> None:
    proc = rill(data_home, "search", "界面")
    assert proc.returncode == 0, err(proc)
    text = out(proc)
    assert f"界面 design 👋  (conversation {'c1' * 16})" in text
    assert "message u1:" in text and "[界面]" in text


def test_search_json(data_home: Path, default_db: Path) -> None:
    proc = rill(data_home, "search", "cut", "--json", "--limit", "5")
    assert proc.returncode == 0, err(proc)
    hits = json.loads(out(proc))
    assert hits and all(h.keys() == {"conversation_id", "conversation_title", "message_id", "role", "created_at",
                                     "snippet", "matches"} for h in hits)
    (hit,) = [h for h in hits if h["message_id"] == "v2"]
    assert hit["conversation_id"] == "c2" * 16 and hit["conversation_title"] == "Pinned" and hit["role"] == "assistant"
    assert [hit["snippet"][a:b].lower() for a, b in hit["matches"]] == ["cut"]
    assert json.loads(out(rill(data_home, "search", "zzzqqq", "--json"))) == []


def test_search_with_no_match_says_so(data_home: Path, default_db: Path) -> None:
    proc = rill(data_home, "search", "zzzqqq")
    assert proc.returncode == 0 and out(proc) == "" and "No messages match" in err(proc)


# -- no Qt, and fast ---------------------------------------------------------------------


def test_store_commands_never_import_qt(data_home: Path, default_db: Path, tmp_path: Path) -> None:
    dump = tmp_path / "d.json"
    code = textwrap.dedent(
        f"""
        import io, json, sys, time, contextlib
        start = time.perf_counter()
        from app.cli import main
        runs = [["export", "--format", "md"], ["export", "-o", {str(dump)!r}], ["search", "界面", "--json"],
                ["import", {str(dump)!r}, "--db", {str(tmp_path / "other.db")!r}]]
        codes = []
        for argv in runs:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                codes.append(main(argv))
        elapsed = time.perf_counter() - start
        print(json.dumps({{"codes": codes, "qt": sorted(m for m in sys.modules if m.startswith("PyQt6")),
                          "elapsed": elapsed}}))
        """
    )
    env = dict(os.environ, XDG_DATA_HOME=str(data_home))
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["codes"] == [0, 0, 0, 0]
    assert result["qt"] == []
    assert result["elapsed"] < 2.0  # in practice ~0.1 s: no Qt, no model, nothing heavy


# -- a crash leaves no lie on disk: a reply killed mid-stream reads as interrupted ------------

KILLED_CHILD = r"""
import sys, time
from app.core.store import Store, ConversationInfo
from app.core.conversation.model import Message, MessageStatus
path = sys.argv[1]
s = Store.open(path, recover=False).store
s.create_conversation(ConversationInfo(id="k" * 32, title="killed"))
user = Message("user", "tell me a story", id="ku")
s.add_message("k" * 32, user)
live = Message("assistant", "Once upon a zebra", MessageStatus.STREAMING, id="kr", parent_id=user.id)
s.add_message("k" * 32, live)
s.save_message(live)
print("ready", flush=True)
time.sleep(60)
"""


def kill_mid_reply(db: Path) -> None:
    """A process streaming a reply into ``db``, killed with SIGKILL."""
    import signal

    proc = subprocess.Popen([sys.executable, "-c", KILLED_CHILD, str(db)], stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT)
    assert proc.stdout is not None
    try:
        assert proc.stdout.readline().strip() == "ready"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL


def stored_status(db: Path, message_id: str) -> str:
    conn = sqlite3.connect(f"{db.absolute().as_uri()}?mode=ro", uri=True)
    try:
        return str(conn.execute("SELECT status FROM messages WHERE id = ?", (message_id,)).fetchone()[0])
    finally:
        conn.close()


def exported_status(data_home: Path, message_id: str) -> str:
    proc = rill(data_home, "export", "--format", "json")
    assert proc.returncode == 0, err(proc)
    (conv,) = [c for c in json.loads(out(proc))["conversations"] if c["id"] == "k" * 32]
    return str(next(m["status"] for m in conv["messages"] if m["id"] == message_id))


def test_a_reply_killed_mid_stream_reads_as_interrupted_when_no_rill_runs(data_home: Path, default_db: Path) -> None:
    kill_mid_reply(default_db)
    assert exported_status(data_home, "kr") == "interrupted"
    md = out(rill(data_home, "export", "--format", "md", "--conversation", "k" * 32))
    assert "## Rill (interrupted)" in md and "streaming" not in md
    proc = rill(data_home, "search", "zebra", "--json")
    assert proc.returncode == 0, err(proc)
    assert [h["message_id"] for h in json.loads(out(proc))] == ["kr"]
    # read-only commands: the row itself is left for the next window to recover
    assert stored_status(default_db, "kr") == "streaming"


def test_a_streaming_reply_reads_as_streaming_while_a_rill_holds_the_data_dir(
    data_home: Path, default_db: Path
) -> None:
    from PyQt6.QtCore import QLockFile

    from app.ui.misc import single_instance

    kill_mid_reply(default_db)
    lock = QLockFile(single_instance.lock_path(default_db.parent))
    assert lock.tryLock(0)
    try:
        assert exported_status(data_home, "kr") == "streaming"
    finally:
        lock.unlock()
    assert exported_status(data_home, "kr") == "interrupted"


def test_the_core_names_the_same_lock_as_the_window(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.core.base import instance
    from app.ui.misc import single_instance

    for runtime in (None, str(tmp_path)):
        if runtime is None:
            monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
        else:
            monkeypatch.setenv("XDG_RUNTIME_DIR", runtime)
        for folder in (tmp_path / "a", tmp_path / "b" / ".." / "a", tmp_path / "c"):
            assert instance.lock_path(folder) == single_instance.lock_path(folder)
            assert instance.instance_key(folder) == single_instance.instance_key(folder)
