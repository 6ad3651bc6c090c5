"""Every format and every bad input of issue #21 through ``extract`` (Qt-free)."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from app.core.attachments import pdf as pdf_mod
from app.core.attachments.docx import read_docx
from app.core.attachments.extract import extract
from app.core.attachments.html_text import html_to_text
from app.core.attachments.kinds import kind_of, kind_of_name
from app.core.attachments.record import AttachmentError, AttachmentKind, Extracted
from app.core.attachments.textfile import binary_share, clean_text, read_text
from app.core.base import limits

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    p = tmp_path / name
    p.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return p


def docx_bytes(body_xml: str, *, extra: dict[str, bytes] | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("word/document.xml",
                   f'<?xml version="1.0"?><w:document xmlns:w="{W}"><w:body>{body_xml}</w:body></w:document>')
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    return buf.getvalue()


def para(text: str) -> str:
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>"


@pytest.mark.parametrize(("name", "content", "kind", "expect"), [
    ("notes.txt", "hello world\nsecond line", AttachmentKind.TEXT, "second line"),
    ("README.md", "# Title\n\nSome *markdown*.", AttachmentKind.TEXT, "*markdown*"),
    ("main.py", "def f():\n    return 42\n", AttachmentKind.TEXT, "return 42"),
    ("data.csv", "a,b\n1,2\n", AttachmentKind.CSV, "1,2"),
    ("data.json", json.dumps({"key": "数据"}, ensure_ascii=False), AttachmentKind.JSON, "数据"),
    ("page.html", "<html><head><title>x</title><style>p{}</style></head><body><p>Visible &amp; kept</p>"
     "<script>hidden()</script></body></html>", AttachmentKind.HTML, "Visible & kept"),
])
def test_text_formats(tmp_path: Path, name: str, content: str, kind: AttachmentKind, expect: str) -> None:
    att, ext = extract(write(tmp_path, name, content))
    assert att.ok, att.error
    assert att.kind is kind
    assert ext is not None and expect in ext.text
    assert att.chars == len(ext.text) and att.tokens > 0 and att.pages == 1
    assert len(att.sha256) == 64
    assert "hidden()" not in ext.text and "p{}" not in ext.text


def test_docx_paragraphs_and_tables(tmp_path: Path) -> None:
    body = para("First paragraph.") + para("第二段。") + (
        f"<w:tbl><w:tr><w:tc>{para('cell A')}</w:tc><w:tc>{para('cell B')}</w:tc></w:tr></w:tbl>")
    att, ext = extract(write(tmp_path, "doc.docx", docx_bytes(body)))
    assert att.ok and att.kind is AttachmentKind.DOCX
    assert ext is not None
    assert "First paragraph." in ext.text and "第二段。" in ext.text and "cell A" in ext.text
    assert read_docx(io.BytesIO(docx_bytes(para("direct")))).text == "direct"


def test_docx_bomb_is_refused_within_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_DOCX_XML_BYTES", 2 * limits.MB)
    # 8 MB of markup compresses to a few KB: the reader stops at 2 MB inflated.
    body = "<w:p>" + "<w:r><w:t>a</w:t></w:r>" * (8 * limits.MB // 24) + "</w:p>"
    data = docx_bytes(body)
    assert len(data) < 200_000
    att, ext = extract(write(tmp_path, "bomb.docx", data))
    assert ext is None and "ZIP bomb" in att.error


def test_docx_entities_and_garbage_are_refused(tmp_path: Path) -> None:
    laughs = f'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaa">]><w:document xmlns:w="{W}"/>'
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("word/document.xml", laughs)
    att, _ = extract(write(tmp_path, "laughs.docx", buf.getvalue()))
    assert "entities" in att.error
    att, _ = extract(write(tmp_path, "fake.docx", b"not a zip at all"))
    assert "not a readable DOCX" in att.error
    att, _ = extract(write(tmp_path, "empty.docx", docx_bytes("")))
    assert "no text" in att.error


def test_binary_named_txt_is_refused(tmp_path: Path) -> None:
    att, ext = extract(write(tmp_path, "photo.txt", bytes(range(256)) * 100))
    assert ext is None and "not text" in att.error
    # ...but a PDF named .txt is read as a PDF (its first bytes say so)
    assert kind_of("report.txt", b"%PDF-1.7\n") is AttachmentKind.PDF


def test_latin1_and_utf16_text(tmp_path: Path) -> None:
    att, ext = extract(write(tmp_path, "old.txt", "café naïve".encode("cp1252")))
    assert att.ok and ext is not None and ext.text == "café naïve"
    att, ext = extract(write(tmp_path, "wide.txt", "中文 text".encode("utf-16")))
    assert att.ok and ext is not None and ext.text == "中文 text"


def test_large_file_is_refused_without_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "huge.txt"
    with open(p, "wb") as f:
        f.truncate(500 * limits.MB)  # sparse: costs no disk
    att, ext = extract(p)
    assert ext is None and "500 MB" in att.error and "256 MB" in att.error


def test_text_is_read_in_pieces_and_cut_with_a_notice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "ATTACH_READ_PIECE_BYTES", 1000)
    monkeypatch.setattr(limits, "MAX_ATTACH_CHARS", 5000)

    class Counting(io.BytesIO):
        reads: list[int] = []

        def read(self, n: int | None = -1) -> bytes:
            self.reads.append(n if n is not None else -1)
            return super().read(n)

    f = Counting(("x" * 99 + "\n").encode() * 1000)
    ext = read_text(f, 100_000)
    assert len(ext.text) == 5000 and "5,000" in ext.notice
    assert max(f.reads) == 1000 and len(f.reads) <= 6


def test_missing_file_and_folder(tmp_path: Path) -> None:
    att, ext = extract(tmp_path / "gone.pdf")
    assert ext is None and "no longer there" in att.error
    att, _ = extract(tmp_path)
    assert "folder" in att.error


def test_unknown_formats_are_named(tmp_path: Path) -> None:
    assert kind_of_name("sheet.xlsx") is AttachmentKind.UNKNOWN
    att, _ = extract(write(tmp_path, "sheet.xlsx", b"PK\x03\x04"))
    assert "cannot read this kind" in att.error


def test_images_are_identified_not_decoded(tmp_path: Path) -> None:
    att, ext = extract(write(tmp_path, "shot.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 100))
    assert att.ok and att.kind is AttachmentKind.IMAGE and ext is None and att.sha256
    assert kind_of("anim.gif", b"GIF89a....") is AttachmentKind.IMAGE
    assert kind_of("a.webp", b"RIFF\x00\x00\x00\x00WEBPVP8 ") is AttachmentKind.IMAGE


def test_clean_text_normalises_pdf_compatibility_forms() -> None:
    # U+2F42 KANGXI RADICAL SCRIPT and U+F900 compatibility ideograph, as pdf fonts give them; ligature ﬁ
    assert clean_text("\u2f42\uf900 \ufb01le", compatibility=True) == "文豈 file"
    assert clean_text("full-width ＡＢ stays", compatibility=False) == "full-width ＡＢ stays"
    assert clean_text("a\r\nb\x00c") == "a\nbc"
    assert binary_share(b"") == 0.0 and binary_share(b"\x00a") == 0.5


def test_html_blocks_become_paragraphs() -> None:
    text = html_to_text("<h1>T</h1><ul><li>one</li><li>two</li></ul><pre>a\n  b</pre>")
    assert text.splitlines()[0] == "T" and "one\ntwo" in text and "a\n  b" in text


class FakePdf:
    def __init__(self, pages: list[str]) -> None:
        self.pages = pages
        self.closed = False

    def page_count(self) -> int:
        return len(self.pages)

    def page_text(self, index: int) -> str:
        return self.pages[index]

    def close(self) -> None:
        self.closed = True


def test_pdf_pages_limits_and_messages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(write(tmp_path, "r.pdf", b"%PDF-1.7\n"))
    docs: list[FakePdf] = []

    def opener(pages: list[str]):  # type: ignore[no-untyped-def]
        def open_(_: str) -> FakePdf:
            docs.append(FakePdf(pages))
            return docs[-1]
        return open_

    att, ext = extract(path, pdf_opener=opener(["page one text", "page two \u2f42"]))
    assert att.ok and att.pages == 2 and ext is not None
    assert ext.text[ext.page_starts[1]:] == "page two 文" and ext.page_at(ext.page_starts[1]) == 2
    assert docs[-1].closed
    att, _ = extract(path, pdf_opener=opener([]))
    assert "no pages" in att.error
    att, _ = extract(path, pdf_opener=opener(["", " ", "\n"] * 10))
    assert "no text layer" in att.error and docs[-1].closed

    monkeypatch.setattr(limits, "MAX_ATTACH_PAGES", 5)
    att, ext = extract(path, pdf_opener=opener([f"page {i} words" for i in range(10_000)]))
    assert att.ok and att.pages == 5 and "5 of 10,000" in att.notice

    def encrypted(_: str) -> FakePdf:
        raise AttachmentError(pdf_mod.encrypted_message())

    att, _ = extract(path, pdf_opener=encrypted)
    assert "password" in att.error
    att, _ = extract(path)  # no reader here
    assert att.error


def test_a_reader_bug_becomes_a_message(tmp_path: Path) -> None:
    def broken(_: str) -> FakePdf:
        raise ZeroDivisionError

    att, _ = extract(write(tmp_path, "r.pdf", b"%PDF-1.7\n"), pdf_opener=broken)
    assert "could not be read" in att.error


def test_extracted_from_pages() -> None:
    ext = Extracted.from_pages(["ab", "cd", "ef"])
    assert ext.text == "ab\n\ncd\n\nef" and ext.page_starts == (0, 4, 8)
    assert [ext.page_at(i) for i in (0, 3, 4, 8, 10)] == [1, 1, 2, 3, 3]
