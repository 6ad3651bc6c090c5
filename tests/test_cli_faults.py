"""`rill export` and `rill search` never change the data dir (a damaged, older
or newer database is left as it is, the command fails with a clear message),
and what the CLI prints cannot drive the terminal."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from app.core.base.limits import CUT_MARK, MAX_MESSAGE_CHARS
from app.core.text.display import without_controls
from tests.core.store.test_exchange import valid_doc
from tests.core.store.test_store import damage_inner_page, damage_text
from tests.test_cli_store import err, make_db, out, rill


@pytest.fixture
def data_home(tmp_path: Path) -> Path:
    home = tmp_path / "xdg-data"
    home.mkdir()
    return home


READ_ONLY_COMMANDS = (["export", "--format", "json"], ["export", "--format", "md"], ["search", "hello"])


def _state(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir()) if p.is_file()}


def _older(path: Path) -> None:
    make_db(path)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 2")
    conn.close()


@pytest.mark.parametrize(("prepare", "words"), [
    (damage_text, "is damaged"),
    (damage_inner_page, "is damaged"),
    (_older, "older format"),
])
def test_read_only_commands_leave_a_bad_database_as_it_is_and_fail(
    data_home: Path, tmp_path: Path, prepare: Callable[[Path], None], words: str
) -> None:
    db = tmp_path / "data" / "rill.db"
    db.parent.mkdir()
    prepare(db)
    before = _state(db.parent)
    for args in READ_ONLY_COMMANDS:
        proc = rill(data_home, *args, "--db", str(db))
        assert proc.returncode == 1, (args, err(proc))
        assert words in err(proc) and str(db) in err(proc) and "Traceback" not in err(proc)
        assert out(proc) == ""  # no empty export that looks like a rescued history
        assert _state(db.parent) == before  # nothing moved aside, created or written


def test_read_only_commands_change_nothing_in_the_data_dir(data_home: Path) -> None:
    db = make_db(data_home / "rill" / "rill.db")
    before = _state(db.parent)
    for args in READ_ONLY_COMMANDS:
        proc = rill(data_home, *args)
        assert proc.returncode == 0, err(proc)
        assert _state(db.parent) == before, args


HOSTILE_TITLE = "\x1b]0;pwned\x07Evil\x1b[2J \u202etxt.exe\u202c"


def test_titles_cannot_drive_the_terminal_through_import_or_search(data_home: Path, tmp_path: Path) -> None:
    doc = valid_doc()
    doc["conversations"][0]["title"] = HOSTILE_TITLE
    doc["conversations"][0]["messages"][0]["content"] = "hello \x1b[31mred\x1b[0m \u202eworld"
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    proc = rill(data_home, "import", str(path))
    assert proc.returncode == 0, err(proc)
    found = rill(data_home, "search", "hello")
    assert found.returncode == 0, err(found)
    for text in (out(proc), out(found)):
        assert not any(c in text for c in "\x1b\x07\u202e\u202c"), repr(text)
    assert "Evil" in out(proc) and "Evil" in out(found)


def test_a_title_stored_before_cleaning_is_still_printed_inert(data_home: Path) -> None:
    db = make_db(data_home / "rill" / "rill.db")
    with sqlite3.connect(db) as conn:  # an older Rill stored titles as they came
        conn.execute("UPDATE conversations SET title = ?", (HOSTILE_TITLE,))
    conn.close()
    proc = rill(data_home, "search", "界面")
    assert proc.returncode == 0, err(proc)
    assert "\x1b" not in out(proc) and "\u202e" not in out(proc) and "Evil" in out(proc)


def test_without_controls_keeps_text_and_drops_controls() -> None:
    assert without_controls("界面 😀 ok") == "界面 😀 ok"
    assert without_controls("a\tb\nc\x1b[2Jd\x9be\u2066f\ud800") == "a b c[2Jde" + "f\ufffd"
    assert without_controls("\x02hit\x03", keep="\x02\x03") == "\x02hit\x03"


def test_an_oversized_imported_message_is_cut_with_a_notice(data_home: Path, tmp_path: Path) -> None:
    doc = valid_doc()
    doc["conversations"][0]["messages"][1]["content"] = "y" * (MAX_MESSAGE_CHARS + 1000)
    path = tmp_path / "big.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    proc = rill(data_home, "import", str(path))
    assert proc.returncode == 0, err(proc)
    assert "1 message(s) of “ok” were longer than 4,194,304 characters" in err(proc)
    exported = rill(data_home, "export", "--format", "json")
    (conv,) = [c for c in json.loads(out(exported))["conversations"] if c["title"] == "ok"]
    content = conv["messages"][1]["content"]
    assert len(content) == MAX_MESSAGE_CHARS and content.endswith(CUT_MARK)
