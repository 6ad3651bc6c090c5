"""PDF files written by the tests themselves, byte by byte (no font files, no network).

``make_pdf(pages)`` writes a valid PDF whose page ``i`` shows the lines of
``pages[i]``. Latin lines use the standard Helvetica font (WinAnsi); a line
with any non-Latin-1 character is written with a Type0/Identity-H font whose
``ToUnicode`` CMap maps each 2-byte code to the same Unicode code point (BMP
only), so text extraction gives the characters back exactly — Chinese
included. A page given as ``None`` has no text layer (a "scanned" page: a
filled rectangle only).
"""

from __future__ import annotations

from collections.abc import Sequence

_TOUNICODE = (
    "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
    "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
    "/CMapName /Adobe-Identity-UCS def /CMapType 2 def\n"
    "1 begincodespacerange <0000> <FFFF> endcodespacerange\n"
    + "".join(
        f"{len(block)} beginbfrange\n" + "".join(f"<{hi:02X}00> <{hi:02X}FF> <{hi:02X}00>\n" for hi in block) + "endbfrange\n"
        for block in (range(0, 100), range(100, 200), range(200, 256))
    )
    + "endcmap CMapName currentdict /CMap defineresource pop end end\n"
)


def _latin_literal(text: str) -> bytes:
    raw = text.encode("latin-1")
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def _content(lines: Sequence[str] | None) -> bytes:
    if lines is None:
        return b"0.5 g 50 50 500 700 re f\n"
    out = [b"BT\n"]
    y = 780
    for line in lines:
        if all(ord(c) < 256 for c in line):
            out.append(b"/F1 11 Tf 1 0 0 1 40 %d Tm " % y + _latin_literal(line) + b" Tj\n")
        else:
            hexed = "".join(f"{ord(c):04X}" for c in line if ord(c) <= 0xFFFF)
            out.append(b"/F2 11 Tf 1 0 0 1 40 %d Tm <" % y + hexed.encode() + b"> Tj\n")
        y -= 14
        if y < 40:
            y = 780
    out.append(b"ET\n")
    return b"".join(out)


def make_pdf(pages: Sequence[Sequence[str] | None], *, info_title: str = "test", encrypted: bool = False) -> bytes:
    """A PDF with one page per item of ``pages`` (see the module docstring).
    ``encrypted``: it claims the standard security handler with a user
    password (its check values are random, so no password opens it)."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # 1, filled below
    pages_obj = add(b"")  # 2
    font1 = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    cmap_bytes = _TOUNICODE.encode()
    tounicode = add(b"<< /Length %d >>\nstream\n" % len(cmap_bytes) + cmap_bytes + b"\nendstream")
    descendant = add(
        b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /NotoSansCJK /CIDSystemInfo "
        b"<< /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor "
        b"<< /Type /FontDescriptor /FontName /NotoSansCJK /Flags 4 /FontBBox [0 0 1000 1000] /ItalicAngle 0 "
        b"/Ascent 880 /Descent -120 /CapHeight 700 /StemV 80 >> /DW 1000 >>"
    )
    font2 = add(
        b"<< /Type /Font /Subtype /Type0 /BaseFont /NotoSansCJK /Encoding /Identity-H "
        b"/DescendantFonts [%d 0 R] /ToUnicode %d 0 R >>" % (descendant, tounicode)
    )
    kids = []
    for lines in pages:
        content = _content(lines)
        stream = add(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        kids.append(add(
            b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 %d 0 R /F2 %d 0 R >> >> >>" % (pages_obj, stream, font1, font2)
        ))
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_obj
    objects[pages_obj - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    info = add(b"<< /Title " + _latin_literal(info_title) + b" >>")
    encrypt = b""
    if encrypted:
        secret = b"<" + b"7A" * 32 + b">"
        encrypt_obj = add(b"<< /Filter /Standard /V 1 /R 2 /O " + secret + b" /U " + secret + b" /P -3904 >>")
        encrypt = b" /Encrypt %d 0 R /ID [<00112233445566778899AABBCCDDEEFF> <00112233445566778899AABBCCDDEEFF>]" % encrypt_obj

    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, catalog, info, encrypt, xref)
    return bytes(out)


def filler_page(number: int, lines: int = 40) -> list[str]:
    """A page of ordinary, varied English prose (no needle in it)."""
    words = ("river", "stone", "ledger", "harbor", "meadow", "lantern", "copper", "orchard", "signal", "canal")
    return [
        f"Page {number} line {i}: the {words[(number + i) % 10]} and the {words[(number * 3 + i) % 10]} "
        f"were noted in section {number}.{i} of the annual survey."
        for i in range(lines)
    ]
