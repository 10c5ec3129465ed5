"""Pages whose decisions the author's-text rules list for review (the report's "For review"), in one
WARC: declarations that lie within a script family, so that the rules override them with a sibling
(``overridden``, ``tentative``), and a UTF-8 page read in parts. Built at test time from the
stretch corpus' texts (``tests/data/stretches/texts.jsonl``: the UDHR's article 21, its licence in
that folder's README), each page's truth known: the text as written in :attr:`Page.encoding`.

Used by tests/test_review.py and tools/report_screenshot.py (``report-review.png``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

TEXTS = Path(__file__).resolve().parent / "data" / "stretches" / "texts.jsonl"


@dataclass(frozen=True)
class Page:
    """One page: its URL, the encoding its bytes are written in, the charset its HTTP header
    declares (a lie where it is not that encoding's label), and its bytes."""

    uri: str
    encoding: str  # Python codec name of the bytes as written
    declared: str
    body: bytes


@cache
def _texts() -> dict[str, str]:
    out = {}
    with open(TEXTS, encoding="utf-8") as f:
        for line in f:
            t = json.loads(line)
            out[f"{t['lang']}:{t['id']}"] = t["text"]
    return out


def _html(lang: str, *parts: tuple[str, str]) -> bytes:
    """A page of *lang*: its heading and paragraphs, each ``(text, codec)`` encoded on its own."""
    body = b"<html><head><title>UDHR</title></head><body>"
    for i, (text, codec) in enumerate(parts):
        tag = b"h1" if i == 0 else b"p"
        body += b"<" + tag + b">" + text.encode(codec) + b"</" + tag + b">\n"
    return body + b"</body></html>"


def pages() -> list[Page]:
    """The pages, in WARC order: Russian in KOI8-R under ``windows-1251``, Polish in ISO-8859-2
    and Czech in windows-1250 under ``iso-8859-1``, a Russian UTF-8 page with a windows-1251
    paragraph declared ``utf-8``."""
    t = _texts()

    def article(lang: str, codec: str) -> tuple[tuple[str, str], ...]:
        return tuple((t[f"{lang}:udhr:21:{i}"], codec) for i in range(3))

    return [
        Page("http://example.ru/koi8-r", "koi8_r", "windows-1251", _html("ru", *article("ru", "koi8_r"))),
        Page("http://example.pl/iso-8859-2", "iso8859_2", "iso-8859-1", _html("pl", *article("pl", "iso8859_2"))),
        Page("http://example.cz/windows-1250", "cp1250", "iso-8859-1", _html("cs", *article("cs", "cp1250"))),
        Page("http://example.ru/mixed", "utf-8", "utf-8",
             _html("ru", (t["ru:udhr:21:0"], "utf-8"), (t["ru:udhr:21:1"], "utf-8"), (t["ru:udhr:21:2"], "cp1251"))),
    ]


def write_warc(path: Path | str) -> list[Page]:
    """Write :func:`pages` as uncompressed WARC/1.0 response records to *path*; return them."""
    records = []
    listed = pages()
    for i, p in enumerate(listed):
        block = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=" + p.declared.encode() + b"\r\n\r\n"
                 + p.body)
        records.append(b"WARC/1.0\r\nWARC-Type: response\r\n"
                       + f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{i:012d}>\r\n".encode()
                       + f"WARC-Target-URI: {p.uri}\r\nWARC-Date: 2026-12-05T00:00:00Z\r\n".encode()
                       + b"Content-Type: application/http; msgtype=response\r\n"
                       + f"Content-Length: {len(block)}\r\n\r\n".encode() + block + b"\r\n\r\n")
    Path(path).write_bytes(b"".join(records))
    return listed
