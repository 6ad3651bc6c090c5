"""Write resources/i18n/rill_en.ts: the English forms of every plural message.

Rill's source strings are English, but a source string holds one form: "%n
page(s)", "%n matches". Qt gives a number its right form through a
translation for the source language that holds only the plural ("numerus")
messages (Qt's "Handling plurals"; lupdate's -pluralonly, which pylupdate6
lacks). This reads the messages pylupdate6 extracted into a .ts, keeps the
plural ones and writes each one's singular and plural:

* "(s)" / "(es)" after a word: "page" / "pages", "match" / "matches";
* otherwise the first plural noun after %n is made singular from SINGULAR
  ("%n words" -> "%n word"). A plural message none of these fits stops the
  script with its text: add its noun to SINGULAR.

    python scripts/english_plurals.py EXTRACTED.ts resources/i18n/rill_en.ts

scripts/translations.sh runs it; tests/ui/misc/test_translations.py checks
that every plural message of the code has its English forms.
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET

SINGULAR = {
    "messages": "message",
    "words": "word",
    "times": "time",
    "threads": "thread",
    "matches": "match",
}
_OPTIONAL = re.compile(r"\((e?s)\)")
_AFTER_N = re.compile(r"%n((?:\s+\w+)*?)\s+(" + "|".join(SINGULAR) + r")\b")
_NO_NOUN = re.compile(r"%n more\b")


def forms(source: str) -> tuple[str, str]:
    """(singular, plural) of one plural message; ValueError if unknown."""
    if _OPTIONAL.search(source):
        return _OPTIONAL.sub("", source), _OPTIONAL.sub(r"\1", source)
    match = _AFTER_N.search(source)
    if match:
        one = source[: match.start(2)] + SINGULAR[match.group(2)] + source[match.end(2):]
        return one, source
    if _NO_NOUN.search(source):
        return source, source
    raise ValueError(f"no English singular known for the plural message {source!r}: add its noun to SINGULAR")


def main(extracted: str, target: str) -> int:
    root = ET.parse(extracted).getroot()
    out = ET.Element("TS", {"version": "2.1", "language": "en", "sourcelanguage": "en"})
    count = 0
    for context in root.iter("context"):
        messages = [m for m in context.iter("message") if m.get("numerus") == "yes"]
        if not messages:
            continue
        ctx = ET.SubElement(out, "context")
        ET.SubElement(ctx, "name").text = context.findtext("name") or ""
        for message in messages:
            source = message.findtext("source") or ""
            try:
                one, many = forms(source)
            except ValueError as e:
                print(e, file=sys.stderr)
                return 1
            m = ET.SubElement(ctx, "message", {"numerus": "yes"})
            ET.SubElement(m, "source").text = source
            comment = message.findtext("comment")
            if comment:
                ET.SubElement(m, "comment").text = comment
            translation = ET.SubElement(m, "translation")
            ET.SubElement(translation, "numerusform").text = one
            ET.SubElement(translation, "numerusform").text = many
            count += 1
    ET.indent(out, space="    ")
    with open(target, "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n')
        f.write(ET.tostring(out, encoding="unicode"))
        f.write("\n")
    print(f"{target}: {count} plural messages")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:3]))
