#!/usr/bin/env python3
"""Build ``sample_warcs/``: a small crawl-like WARC sample with an answer key.

Usage::

    python tools/make_sample_warcs.py [--corpus ../shared/corpus] [--out sample_warcs]

What it writes into OUT (the same bytes on every run with the same Python, zlib and pyarrow):

- ``sample-crawl-0000{0,1,2}.warc.gz``: WARC/1.0, one gzip member per record (zlib level 9, gzip
  header mtime 0). Each file opens with a ``warcinfo`` record; each capture is a ``request``, a
  ``response`` (or ``revisit``/``resource``) and a ``metadata`` record. WARC-Date values are fixed
  (2026-11-01 plus a per-capture offset); WARC-Record-IDs are uuid5 of the file name, the capture key,
  the record type and the sha1 of the record block.
- ``raw_responses.parquet``: the raw-response table input kind (columns ``url``, ``content_type``,
  ``body`` binary, ``fetch_time``).
- ``expected.jsonl``: the answer key, one line per response/resource/revisit record and per Parquet
  row.
- ``LICENSES/``: the licence texts of the sources, copied from the corpus.

Where the expected values come from (never from this project's decoder):

- ``encoding`` and ``source`` are stated per capture below, from the standards (Encoding Standard,
  HTML "determining the character encoding" as Chromium implements it, the decision order of issue 3)
  and, for undeclared pages, from the page's true encoding (the corpus folder it came from, or the
  encoding the generator itself encoded it in). The generator asserts the byte-level facts each
  expectation relies on (a BOM is there, no meta in the first 1024 bytes, the payload is or is not
  valid UTF-8, is ASCII only, the GBK-only / UHC / 81 60 bytes are present...).
- ``text_sha256`` is the sha256 of the UTF-8 bytes of the expected text (no BOM). The text is
  computed by the small reference decoder below, which implements the Encoding Standard decoders
  directly from ``whatwg-encoding/index-*.txt``. Where a page was built from a Unicode string, the
  reference decode of the bytes is asserted equal to that string.

Deviations: none known. Python codecs are used only to *encode* transformed text into UTF-8, never
to compute expected text from legacy bytes.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import gzip
import hashlib
import io
import json
import re
import shutil
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus"
DEFAULT_OUT = ROOT / "sample_warcs"

NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "warc-redecode/sample_warcs")
BASE_DATE = dt.datetime(2026, 11, 1, 0, 0, 0, tzinfo=dt.timezone.utc)
WARC_FILES = ("sample-crawl-00000.warc.gz", "sample-crawl-00001.warc.gz", "sample-crawl-00002.warc.gz")
PARQUET_NAME = "raw_responses.parquet"
USER_AGENT = "Mozilla/5.0 (compatible; redecode-sample/1.0; +https://example.org/redecode)"


# --------------------------------------------------------------------------------------------------
# Reference decoder: Encoding Standard decoders read straight from the WHATWG index files.
# --------------------------------------------------------------------------------------------------


class RefDecoder:
    """Encoding Standard decoders ("decode" without BOM sniffing), error mode replacement.

    Implements the decoders of: UTF-8, UTF-16LE/BE (shared UTF-16 decoder), the single-byte
    encodings, gb18030 (used for GBK), Big5, EUC-JP, Shift_JIS, EUC-KR. Index data is read from
    ``whatwg-encoding/index-<name>.txt``, or, in a directory without them, from the same
    revision's ``indexes.json`` (the same tables keyed by index name, as vendored in
    ``tests/data/whatwg/``). Returns ``(text, error_count)``.
    """

    SINGLE_BYTE = {
        "windows-1252": "windows-1252", "windows-1251": "windows-1251", "KOI8-R": "koi8-r",
        "KOI8-U": "koi8-u", "windows-1250": "windows-1250", "ISO-8859-2": "iso-8859-2",
        "ISO-8859-5": "iso-8859-5", "IBM866": "ibm866", "windows-874": "windows-874",
    }

    def __init__(self, whatwg_dir: Path):
        self.dir = whatwg_dir
        self._cache: dict[str, dict[int, int]] = {}

    def index(self, name: str) -> dict[int, int]:
        if name not in self._cache:
            table: dict[int, int] = {}
            txt = self.dir / f"index-{name}.txt"
            if not txt.exists() and (self.dir / "indexes.json").exists():
                # indexes.json: a list of code points by pointer (null: no code point), except
                # gb18030-ranges, a list of [pointer, code point] pairs.
                data = json.loads((self.dir / "indexes.json").read_text(encoding="utf-8"))[name]
                pairs = data if name == "gb18030-ranges" else enumerate(data)
                table = {int(pointer): int(cp) for pointer, cp in pairs if cp is not None}
            else:
                # split("\n"), not splitlines(): the ISO-8859-x files' comments hold U+0085
                # (a line boundary for splitlines), which would cut their lines in two.
                for line in txt.read_text(encoding="utf-8").split("\n"):
                    if not line.strip() or line.startswith("#"):
                        continue
                    pointer, cp = line.split("\t")[:2]
                    table[int(pointer)] = int(cp, 16)
            self._cache[name] = table
        return self._cache[name]

    def _ranges(self) -> list[tuple[int, int]]:
        return sorted(self.index("gb18030-ranges").items())

    def decode(self, data: bytes, encoding: str) -> tuple[str, int]:
        if encoding in self.SINGLE_BYTE:
            return self._single_byte(data, self.SINGLE_BYTE[encoding])
        fn = {
            "UTF-8": self._utf8, "UTF-16LE": lambda d: self._utf16(d, False),
            "UTF-16BE": lambda d: self._utf16(d, True), "GBK": self._gb18030, "gb18030": self._gb18030,
            "Big5": self._big5, "EUC-JP": self._euc_jp, "Shift_JIS": self._shift_jis,
            "EUC-KR": self._euc_kr,
        }[encoding]
        return fn(data)

    def _single_byte(self, data: bytes, name: str) -> tuple[str, int]:
        idx = self.index(name)
        out, errors = [], 0
        for b in data:
            if b < 0x80:
                out.append(chr(b))
            elif (b - 0x80) in idx:
                out.append(chr(idx[b - 0x80]))
            else:
                out.append("\ufffd")
                errors += 1
        return "".join(out), errors

    @staticmethod
    def _utf8(data: bytes) -> tuple[str, int]:
        out, errors = [], 0
        cp = needed = seen = 0
        lower, upper = 0x80, 0xBF
        i, n = 0, len(data)
        while i < n:
            b = data[i]
            if needed == 0:
                i += 1
                if b <= 0x7F:
                    out.append(chr(b))
                elif 0xC2 <= b <= 0xDF:
                    needed, cp = 1, b & 0x1F
                elif 0xE0 <= b <= 0xEF:
                    if b == 0xE0:
                        lower = 0xA0
                    if b == 0xED:
                        upper = 0x9F
                    needed, cp = 2, b & 0xF
                elif 0xF0 <= b <= 0xF4:
                    if b == 0xF0:
                        lower = 0x90
                    if b == 0xF4:
                        upper = 0x8F
                    needed, cp = 3, b & 0x7
                else:
                    out.append("\ufffd")
                    errors += 1
                continue
            if not (lower <= b <= upper):
                # The byte is not consumed: it is re-read as the start of a new sequence.
                cp = needed = seen = 0
                lower, upper = 0x80, 0xBF
                out.append("\ufffd")
                errors += 1
                continue
            i += 1
            lower, upper = 0x80, 0xBF
            cp = (cp << 6) | (b & 0x3F)
            seen += 1
            if seen == needed:
                out.append(chr(cp))
                cp = needed = seen = 0
        if needed:
            out.append("\ufffd")
            errors += 1
        return "".join(out), errors

    @staticmethod
    def _utf16(data: bytes, be: bool) -> tuple[str, int]:
        out, errors = [], 0
        lead_surrogate = None
        n = len(data)
        for i in range(0, n - 1, 2):
            unit = (data[i] << 8 | data[i + 1]) if be else (data[i + 1] << 8 | data[i])
            if lead_surrogate is not None:
                lead = lead_surrogate
                lead_surrogate = None
                if 0xDC00 <= unit <= 0xDFFF:
                    out.append(chr(0x10000 + ((lead - 0xD800) << 10) + (unit - 0xDC00)))
                    continue
                out.append("\ufffd")
                errors += 1
                # the unit is processed again below
            if 0xD800 <= unit <= 0xDBFF:
                lead_surrogate = unit
            elif 0xDC00 <= unit <= 0xDFFF:
                out.append("\ufffd")
                errors += 1
            else:
                out.append(chr(unit))
        if lead_surrogate is not None or n % 2:
            out.append("\ufffd")
            errors += 1
        return "".join(out), errors

    def _gb18030(self, data: bytes) -> tuple[str, int]:
        idx = self.index("gb18030")
        ranges = self._ranges()
        out, errors = [], 0
        first = second = third = 0
        stack: list[int] = []
        pos, n = 0, len(data)

        def ranges_cp(pointer: int) -> int | None:
            if (39419 < pointer < 189000) or pointer > 1237575:
                return None
            if pointer == 7457:
                return 0xE7C7
            off, cp_off = 0, 0
            for p, c in ranges:
                if p > pointer:
                    break
                off, cp_off = p, c
            return cp_off + pointer - off

        while True:
            if stack:
                b = stack.pop()
            elif pos < n:
                b = data[pos]
                pos += 1
            else:
                if first or second or third:
                    out.append("\ufffd")
                    errors += 1
                break
            if third:
                if not (0x30 <= b <= 0x39):
                    stack.extend([b, third, second])  # popped in order second, third, b
                    first = second = third = 0
                    out.append("\ufffd")
                    errors += 1
                    continue
                cp = ranges_cp((((first - 0x81) * 10 + second - 0x30) * 126 + third - 0x81) * 10 + b - 0x30)
                first = second = third = 0
                if cp is None:
                    out.append("\ufffd")
                    errors += 1
                else:
                    out.append(chr(cp))
                continue
            if second:
                if 0x81 <= b <= 0xFE:
                    third = b
                    continue
                stack.extend([b, second])
                first = second = 0
                out.append("\ufffd")
                errors += 1
                continue
            if first:
                if 0x30 <= b <= 0x39:
                    second = b
                    continue
                lead, first = first, 0
                offset = 0x40 if b < 0x7F else 0x41
                cp = None
                if 0x40 <= b <= 0x7E or 0x80 <= b <= 0xFE:
                    cp = idx.get((lead - 0x81) * 190 + (b - offset))
                if cp is not None:
                    out.append(chr(cp))
                    continue
                if b < 0x80:
                    stack.append(b)
                out.append("\ufffd")
                errors += 1
                continue
            if b < 0x80:
                out.append(chr(b))
            elif b == 0x80:
                out.append("\u20ac")
            elif 0x81 <= b <= 0xFE:
                first = b
            else:
                out.append("\ufffd")
                errors += 1
        return "".join(out), errors

    def _big5(self, data: bytes) -> tuple[str, int]:
        idx = self.index("big5")
        special = {1133: "\u00ca\u0304", 1135: "\u00ca\u030c", 1164: "\u00ea\u0304", 1166: "\u00ea\u030c"}
        out, errors = [], 0
        lead = 0
        i, n = 0, len(data)
        while i < n:
            b = data[i]
            i += 1
            if lead:
                l, lead = lead, 0
                offset = 0x40 if b < 0x7F else 0x62
                pointer = None
                if 0x40 <= b <= 0x7E or 0xA1 <= b <= 0xFE:
                    pointer = (l - 0x81) * 157 + (b - offset)
                if pointer in special:
                    out.append(special[pointer])
                    continue
                cp = idx.get(pointer) if pointer is not None else None
                if cp is not None:
                    out.append(chr(cp))
                    continue
                if b < 0x80:
                    i -= 1
                out.append("\ufffd")
                errors += 1
                continue
            if b < 0x80:
                out.append(chr(b))
            elif 0x81 <= b <= 0xFE:
                lead = b
            else:
                out.append("\ufffd")
                errors += 1
        if lead:
            out.append("\ufffd")
            errors += 1
        return "".join(out), errors

    def _euc_jp(self, data: bytes) -> tuple[str, int]:
        j208, j212 = self.index("jis0208"), self.index("jis0212")
        out, errors = [], 0
        lead, jis0212 = 0, False
        i, n = 0, len(data)
        while i < n:
            b = data[i]
            i += 1
            if lead == 0x8E and 0xA1 <= b <= 0xDF:
                lead = 0
                out.append(chr(0xFF61 - 0xA1 + b))
                continue
            if lead == 0x8F and 0xA1 <= b <= 0xFE:
                jis0212, lead = True, b
                continue
            if lead:
                l, lead = lead, 0
                cp = None
                if 0xA1 <= l <= 0xFE and 0xA1 <= b <= 0xFE:
                    cp = (j212 if jis0212 else j208).get((l - 0xA1) * 94 + b - 0xA1)
                jis0212 = False
                if cp is not None:
                    out.append(chr(cp))
                    continue
                if b < 0x80:
                    i -= 1
                out.append("\ufffd")
                errors += 1
                continue
            if b < 0x80:
                out.append(chr(b))
            elif b in (0x8E, 0x8F) or 0xA1 <= b <= 0xFE:
                lead = b
            else:
                out.append("\ufffd")
                errors += 1
        if lead:
            out.append("\ufffd")
            errors += 1
        return "".join(out), errors

    def _shift_jis(self, data: bytes) -> tuple[str, int]:
        idx = self.index("jis0208")
        out, errors = [], 0
        lead = 0
        i, n = 0, len(data)
        while i < n:
            b = data[i]
            i += 1
            if lead:
                l, lead = lead, 0
                offset = 0x40 if b < 0x7F else 0x41
                lead_offset = 0x81 if l < 0xA0 else 0xC1
                pointer = None
                if 0x40 <= b <= 0x7E or 0x80 <= b <= 0xFC:
                    pointer = (l - lead_offset) * 188 + b - offset
                if pointer is not None and 8836 <= pointer <= 10715:
                    out.append(chr(0xE000 - 8836 + pointer))
                    continue
                cp = idx.get(pointer) if pointer is not None else None
                if cp is not None:
                    out.append(chr(cp))
                    continue
                if b < 0x80:
                    i -= 1
                out.append("\ufffd")
                errors += 1
                continue
            if b <= 0x80:
                out.append(chr(b))
            elif 0xA1 <= b <= 0xDF:
                out.append(chr(0xFF61 - 0xA1 + b))
            elif 0x81 <= b <= 0x9F or 0xE0 <= b <= 0xFC:
                lead = b
            else:
                out.append("\ufffd")
                errors += 1
        if lead:
            out.append("\ufffd")
            errors += 1
        return "".join(out), errors

    def _euc_kr(self, data: bytes) -> tuple[str, int]:
        idx = self.index("euc-kr")
        out, errors = [], 0
        lead = 0
        i, n = 0, len(data)
        while i < n:
            b = data[i]
            i += 1
            if lead:
                l, lead = lead, 0
                cp = idx.get((l - 0x81) * 190 + (b - 0x41)) if 0x41 <= b <= 0xFE else None
                if cp is not None:
                    out.append(chr(cp))
                    continue
                if b < 0x80:
                    i -= 1
                out.append("\ufffd")
                errors += 1
                continue
            if b < 0x80:
                out.append(chr(b))
            elif 0x81 <= b <= 0xFE:
                lead = b
            else:
                out.append("\ufffd")
                errors += 1
        if lead:
            out.append("\ufffd")
            errors += 1
        return "".join(out), errors


# --------------------------------------------------------------------------------------------------
# Byte-level facts the expectations rely on (asserted, so a wrong expectation cannot be written).
# --------------------------------------------------------------------------------------------------

BOMS = {b"\xef\xbb\xbf": "UTF-8", b"\xfe\xff": "UTF-16BE", b"\xff\xfe": "UTF-16LE"}


def bom_of(data: bytes) -> str | None:
    for bom, name in BOMS.items():
        if data.startswith(bom):
            return name
    return None


def strip_bom(data: bytes) -> bytes:
    for bom in BOMS:
        if data.startswith(bom):
            return data[len(bom):]
    return data


def is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8", "strict")
    except UnicodeDecodeError:
        return False
    return True


def meta_charset_offsets(data: bytes) -> list[int]:
    """Offsets of ``<meta`` tags mentioning ``charset`` (a coarse check for the generator's asserts)."""
    return [m.start() for m in re.finditer(rb"<meta[^>]*charset", data, re.I)]


def gbk_only_pairs(data: bytes) -> int:
    """Two-byte GBK sequences outside the GB2312 (EUC-CN) area: lead 81-A0 or trail 40-A0."""
    n = i = 0
    while i < len(data):
        b = data[i]
        if 0x81 <= b <= 0xFE and i + 1 < len(data):
            if b < 0xA1 or data[i + 1] < 0xA1:
                n += 1
            i += 2
        else:
            i += 1
    return n


def uhc_pairs(data: bytes) -> int:
    """EUC-KR (WHATWG, i.e. UHC) pairs outside KS X 1001's A1-FE x A1-FE area."""
    return gbk_only_pairs(data)


# --------------------------------------------------------------------------------------------------
# Page transformations (byte-level, so real legacy bytes are kept as they were).
# --------------------------------------------------------------------------------------------------

_TAG = re.compile(rb"<[^>]*>")
_WS = re.compile(rb"[ \t\r\n]+")


def _clean_field(raw: bytes) -> bytes:
    """Text of one feed field: CDATA unwrapped, escaped markup unescaped then removed, spaces collapsed.

    Byte-safe for every ASCII-compatible encoding used here: ``<``, ``>`` and ``&`` (0x3C, 0x3E, 0x26)
    are never trail bytes in Shift_JIS, EUC-JP, EUC-KR, Big5 or GBK.
    """
    raw = raw.replace(b"<![CDATA[", b"").replace(b"]]>", b"")
    raw = raw.replace(b"&lt;", b"<").replace(b"&gt;", b">").replace(b"&quot;", b'"').replace(b"&#39;", b"'")
    raw = _TAG.sub(b" ", raw)
    raw = raw.replace(b"<", b"&lt;").replace(b">", b"&gt;")
    return _WS.sub(b" ", raw).strip()


def feed_source_url(feed: bytes) -> str:
    """The feed's site directory (the feed URL in its ``Source:`` comment, last path segment dropped)."""
    m = re.search(rb"Source:\s*(\S+)", feed)
    assert m, "feed without a Source: comment"
    url = m.group(1).decode("ascii").split("?")[0]
    return url[: url.rindex("/") + 1]


def feed_to_html(feed: bytes, *, head_extra: bytes = b"", max_items: int = 12, prolog: bytes = b"<!DOCTYPE html>\n",
                 html_attrs: bytes = b"") -> bytes:
    """An HTML page made from an RSS/Atom/RDF feed's channel title and item titles and descriptions.

    The feed's bytes are kept (no decode/re-encode): ``<h1>`` channel title, then per item ``<h2>``
    title and ``<p>`` description/content/summary, tags stripped. ``head_extra`` goes first in the head.
    """
    channel_title = re.search(rb"<title[^>]*>(.*?)</title>", feed, re.S)
    title = _clean_field(channel_title.group(1)) if channel_title else b""
    items = re.findall(rb"<(item|entry)\b[^>]*>(.*?)</\1>", feed, re.S)[:max_items]
    parts = [prolog, b"<html" + html_attrs + b">\n<head>\n", head_extra, b"<title>", title, b"</title>\n",
             b"</head>\n<body>\n<h1>", title, b"</h1>\n"]
    for _, item in items:
        t = re.search(rb"<title[^>]*>(.*?)</title>", item, re.S)
        d = re.search(rb"<(description|content[^>]*|summary[^>]*)>(.*?)</(description|content|summary)>", item, re.S)
        if t:
            parts += [b"<h2>", _clean_field(t.group(1)), b"</h2>\n"]
        if d:
            parts += [b"<p>", _clean_field(d.group(2)), b"</p>\n"]
    parts.append(b"</body>\n</html>\n")
    return b"".join(parts)


# --------------------------------------------------------------------------------------------------
# Captures
# --------------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Capture:
    key: str
    warc: str  # file name, or PARQUET_NAME
    url: str
    case: str
    origin: str  # corpus path (and what it is)
    transform: str
    body: bytes  # the payload (content codings removed)
    content_type: str | None
    status_line: str = "200 OK"
    content_encoding: str | None = None
    extra_headers: tuple[tuple[str, str], ...] = ()
    record_type: str = "response"  # response / resource / revisit
    refers_to: str | None = None  # revisit: key of the original capture
    via: str | None = None  # metadata record: the page that linked or embedded this one
    hops: str = ""  # metadata record: Heritrix hop path letter(s) from the seed ("" for seeds)
    # expectations
    encoding: str | None = None
    source: str | None = None
    status: str = "decoded"
    skip_reason: str | None = None
    equivalent: tuple[str, ...] = ()  # other encodings that decode this payload to the same text
    from_legacy: tuple[bytes, str] | None = None  # (legacy bytes, encoding): body = their text as UTF-8
    text: str | None = None  # filled by finish()
    decode_errors: int | None = None


def servo_payloads(corpus: Path) -> dict[str, tuple[str, list[tuple[str, str]], bytes]]:
    """(status line, HTTP headers, payload with content codings removed) of the servo captures used."""
    from warcio.archiveiterator import ArchiveIterator

    wanted = {
        "qq": ("https://www.qq.com/",),
        "Sina": ("https://www.sina.com.cn/",),
        "VK": ("https://www.vk.com/", "https://vk.com/", "https://vk.com/css/al/index.css?19303733413",
               "https://vk.com/js/lang3_0.js?3941", "https://vk.com/js/al/index.js?356147149",
               "https://vk.com/images/login/platforms.png"),
        "Taobao": ("https://www.taobao.com/", "https://world.taobao.com/"),
        "Wikipedia": ("https://www.wikipedia.org/",),
    }
    found: dict[str, tuple[str, list[tuple[str, str]], bytes]] = {}
    for site, urls in sorted(wanted.items()):
        for path in sorted((corpus / "warcs" / "servo-warc-tests" / site / "archive").glob("*.warc.gz")):
            with path.open("rb") as fh:
                for rec in ArchiveIterator(fh):
                    uri = rec.rec_headers.get_header("WARC-Target-URI")
                    if rec.rec_type != "response" or uri not in urls or uri in found:
                        continue
                    body = rec.content_stream().read()  # warcio removes chunking and gzip
                    found[uri] = (rec.http_headers.statusline, list(rec.http_headers.headers), body)
    # the JSON response: the first small application/json one from Taobao
    json_url = None
    for path in sorted((corpus / "warcs" / "servo-warc-tests" / "Taobao" / "archive").glob("*.warc.gz")):
        with path.open("rb") as fh:
            for rec in ArchiveIterator(fh):
                if rec.rec_type != "response" or rec.http_headers is None:
                    continue
                ct = rec.http_headers.get_header("Content-Type") or ""
                uri = rec.rec_headers.get_header("WARC-Target-URI")
                if ct.startswith("application/json") and uri.startswith("https://h5api.m.taobao.com/") and json_url is None:
                    json_url = uri
                    found[uri] = (rec.http_headers.statusline, list(rec.http_headers.headers),
                                  rec.content_stream().read())
    assert json_url
    found["json"] = found[json_url] + (json_url,)  # type: ignore[assignment]
    return found


def header(headers: list[tuple[str, str]], name: str) -> str | None:
    for k, v in headers:
        if k.lower() == name.lower():
            return v
    return None


def build_captures(corpus: Path) -> list[Capture]:
    def read(rel: str) -> bytes:
        return (corpus / rel).read_bytes()

    servo = servo_payloads(corpus)
    W0, W1, W2 = WARC_FILES
    caps: list[Capture] = []

    def servo_cap(key, url, case, **kw) -> Capture:
        status, hdrs, body = servo[url]
        ct = kw.pop("content_type", header(hdrs, "Content-Type"))
        extra = []
        for name in ("Server", "Location"):
            v = header(hdrs, name)
            if v:
                extra.append((name, v))
        return Capture(key=key, warc=kw.pop("warc", W0), url=url, case=case,
                       origin=kw.pop("origin"), transform=kw.pop("transform", "none (payload as captured)"),
                       body=kw.pop("body", body), content_type=ct, status_line=status,
                       extra_headers=tuple(extra), **kw)

    # ---- sample-crawl-00000: real 2018 home-page captures (servo/servo-warc-tests) ----------------
    caps.append(servo_cap(
        "qq-gb2312-gbk-only", "https://www.qq.com/",
        "gb2312-labelled (header and meta) page using GBK-only characters; Content-Encoding gzip",
        origin="warcs/servo-warc-tests/qq/archive/rec-20180222114434301946-paragon.warc.gz",
        content_encoding="gzip", encoding="GBK", source="transport"))
    caps.append(servo_cap(
        "sina-utf8-meta-only", "https://www.sina.com.cn/",
        "UTF-8 declared only in <meta> (header text/html without charset); Content-Encoding gzip",
        origin="warcs/servo-warc-tests/Sina/archive/rec-20180808064152840331-anjiadeMacBook-Pro.local.warc.gz",
        content_encoding="gzip", encoding="UTF-8", source="prescan"))
    caps.append(servo_cap(
        "vk-redirect", "https://www.vk.com/", "redirect (302) with an empty body",
        origin="warcs/servo-warc-tests/VK/archive/rec-20180405000401368619-userland.warc.gz",
        status="skipped", skip_reason="no-payload"))
    caps.append(servo_cap(
        "vk-windows-1251-header", "https://vk.com/", "windows-1251 in the header (and meta)",
        via="https://www.vk.com/", hops="R",
        origin="warcs/servo-warc-tests/VK/archive/rec-20180405000401368619-userland.warc.gz",
        encoding="windows-1251", source="transport"))
    caps.append(servo_cap(
        "vk-css", "https://vk.com/css/al/index.css?19303733413",
        "non-HTML text: text/css without charset, starting with a UTF-8 BOM (otherwise ASCII)",
        via="https://vk.com/", hops="RE",
        origin="warcs/servo-warc-tests/VK/archive/rec-20180405000401368619-userland.warc.gz",
        encoding="UTF-8", source="bom"))
    caps.append(servo_cap(
        "vk-js-windows-1251", "https://vk.com/js/lang3_0.js?3941",
        "non-HTML text: text/javascript; charset=windows-1251",
        via="https://vk.com/", hops="RE",
        origin="warcs/servo-warc-tests/VK/archive/rec-20180405000401368619-userland.warc.gz",
        encoding="windows-1251", source="transport"))
    caps.append(servo_cap(
        "vk-js-not-text", "https://vk.com/js/al/index.js?356147149",
        "non-text media type: application/x-javascript",
        via="https://vk.com/", hops="RE",
        origin="warcs/servo-warc-tests/VK/archive/rec-20180405000401368619-userland.warc.gz",
        status="skipped", skip_reason="not-text"))
    caps.append(servo_cap(
        "vk-png", "https://vk.com/images/login/platforms.png", "image: image/png",
        via="https://vk.com/", hops="RE",
        origin="warcs/servo-warc-tests/VK/archive/rec-20180405000401368619-userland.warc.gz",
        status="skipped", skip_reason="not-text"))
    caps.append(servo_cap(
        "taobao-redirect", "https://www.taobao.com/",
        "redirect (302) with a small pure-ASCII HTML body, no declaration (default, .com)",
        origin="warcs/servo-warc-tests/Taobao/archive/rec-20180404234925145940-userland.warc.gz",
        encoding="windows-1252", source="default"))
    json_url = servo["json"][3]  # type: ignore[misc]
    caps.append(servo_cap(
        "taobao-json", json_url, "JSON: application/json;charset=UTF-8 (not a text type for the job)",
        via="https://www.taobao.com/", hops="RE",
        origin="warcs/servo-warc-tests/Taobao/archive/rec-20180404234925145940-userland.warc.gz",
        status="skipped", skip_reason="not-text"))
    caps.append(servo_cap(
        "wikipedia-utf8-meta", "https://www.wikipedia.org/", "UTF-8 declared only in <meta> at byte 55",
        origin="warcs/servo-warc-tests/Wikipedia/archive/rec-20180220120751277617-PUCHE.warc.gz",
        encoding="UTF-8", source="prescan"))
    caps.append(servo_cap(
        "wikipedia-revisit", "https://www.wikipedia.org/", "revisit record (identical payload digest)",
        origin="warcs/servo-warc-tests/Wikipedia/archive/rec-20180220120751277617-PUCHE.warc.gz",
        transform="a second capture one day later, written as a revisit of wikipedia-utf8-meta",
        record_type="revisit", refers_to="wikipedia-utf8-meta", status="skipped", skip_reason="revisit"))

    # ---- sample-crawl-00001: East Asian pages (.jp .kr .cn .tw) ------------------------------------
    rel = "chardet-tests/SHIFT_JIS/_chromium_Shift-JIS_with_no_encoding_specified.html"
    caps.append(Capture(
        key="sjis-undeclared", warc=W1, url="http://undeclared-shift-jis.redecode-sample.jp/",
        case="undeclared Shift_JIS page on .jp (detector)", origin=rel, transform="none",
        body=read(rel), content_type="text/html", encoding="Shift_JIS", source="detector"))
    rel = "html-samples/wpull/mojibake.html"
    caps.append(Capture(
        key="sjis-undeclared-tiny", warc=W1, url="http://mojibake.redecode-sample.jp/",
        case="undeclared Shift_JIS page of 127 bytes on .jp (detector on little evidence)", origin=rel,
        transform="none", body=read(rel), content_type="text/html", encoding="Shift_JIS", source="detector"))
    rel = "chardet-tests/SHIFT_JIS/moon-light.ne.jp.xml"
    feed = read(rel)
    caps.append(Capture(
        key="sjis-fullwidth-tilde", warc=W1, url=feed_source_url(feed),
        case="Shift_JIS page (meta) with fullwidth tildes: bytes 81 60 -> U+FF5E", origin=rel,
        transform="feed_to_html with <meta http-equiv=Content-Type content=\"text/html; charset=Shift_JIS\">; feed bytes kept",
        body=feed_to_html(feed, html_attrs=b' lang="ja"',
                          head_extra=b'<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">\n'),
        content_type="text/html", encoding="Shift_JIS", source="prescan"))
    rel = "html-samples/wpull/videogame_top.htm"
    caps.append(Capture(
        key="sjis-meta-nec-row13", warc=W1, url="http://www.geocities.jp/gamehouse_grindcrusher2/videogame_top.htm",
        case="Shift_JIS meta on a page using NEC row-13 characters (87 55 -> U+2161): no errors in WHATWG Shift_JIS,"
             " which Python's strict shift_jis codec rejects", origin=rel,
        transform="none", body=read(rel), content_type="text/html", encoding="Shift_JIS", source="prescan"))
    rel = "chardet-tests/EUC-JP/azito.under.jp.xml"
    feed = read(rel)
    caps.append(Capture(
        key="eucjp-xml-declaration", warc=W1, url=feed_source_url(feed),
        case="XML declaration only (<?xml ... encoding=\"EUC-JP\"?> at offset 0, text/html, no meta)", origin=rel,
        transform="feed_to_html with the prolog <?xml version=\"1.0\" encoding=\"EUC-JP\"?> + XHTML doctype; feed bytes kept",
        body=feed_to_html(feed, prolog=b'<?xml version="1.0" encoding="EUC-JP"?>\n<!DOCTYPE html PUBLIC '
                          b'"-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n',
                          html_attrs=b' xmlns="http://www.w3.org/1999/xhtml" xml:lang="ja"'),
        content_type="text/html", encoding="EUC-JP", source="xml-declaration"))
    rel = "chardet-tests/CP949/ricanet.com.xml"
    feed = read(rel)
    caps.append(Capture(
        key="euckr-uhc", warc=W1, url="http://ricanet.com/",
        case="euc-kr-labelled (header) page with syllables outside KS X 1001 (UHC extension)", origin=rel,
        transform="feed_to_html (all items); feed bytes kept; header charset=euc-kr (the feed's own label)",
        body=feed_to_html(feed, max_items=100, html_attrs=b' lang="ko"'),
        content_type="text/html; charset=euc-kr", encoding="EUC-KR", source="transport"))
    rel = "chardet-tests/EUC-KR/_chromium_windows-949_with_no_encoding_specified.html"
    caps.append(Capture(
        key="euckr-undeclared", warc=W1, url="http://undeclared-euc-kr.redecode-sample.kr/",
        case="undeclared EUC-KR page on .kr (detector)", origin=rel, transform="none",
        body=read(rel), content_type="text/html", encoding="EUC-KR", source="detector"))
    rel = "chardet-tests/Big5/coolloud.org.tw.xml"
    feed = read(rel)
    caps.append(Capture(
        key="big5-meta", warc=W1, url="http://www.coolloud.org.tw/",
        case="Big5 declared in <meta charset> on .tw", origin=rel,
        transform="feed_to_html with <meta charset=\"big5\">; feed bytes kept",
        body=feed_to_html(feed, html_attrs=b' lang="zh-TW"', head_extra=b'<meta charset="big5">\n'),
        content_type="text/html", encoding="Big5", source="prescan"))
    rel = "chardet-tests/Big5/myblog.pchome.com.tw.xml"
    feed = read(rel)
    big5_page = feed_to_html(feed, html_attrs=b' lang="zh-TW"',
                             head_extra=b'<meta http-equiv="Content-Type" content="text/html; charset=big5">\n')
    caps.append(Capture(
        key="conflict-header-utf8-meta-big5", warc=W1, url="http://myblog.pchome.com.tw/remembergod/",
        case="header charset=utf-8, meta big5, page really UTF-8 (header wins; conflict recorded)", origin=rel,
        transform="feed_to_html with a Big5 meta, decoded as Big5 by the reference decoder, encoded as UTF-8",
        body=b"", from_legacy=(big5_page, "Big5"), content_type="text/html; charset=utf-8", encoding="UTF-8",
        source="transport"))
    rel = "chardet-tests/utf-8/_chromium_UTF-8_with_no_encoding_specified.html"
    caps.append(Capture(
        key="utf8-undeclared", warc=W1, url="http://undeclared-utf-8.redecode-sample.cn/",
        case="undeclared UTF-8 page (utf8-valid)", origin=rel, transform="none",
        body=read(rel), content_type="text/html", encoding="UTF-8", source="utf8-valid"))
    rel = "chardet-tests/GB2312/w3cn.org.xml"
    feed = read(rel)
    caps.append(Capture(
        key="gb2312-meta", warc=W1, url="http://www.w3cn.org/",
        case="gb2312 declared in a http-equiv meta on .cn (GBK decoder)", origin=rel,
        transform="feed_to_html with <meta http-equiv=Content-Type content=\"text/html; charset=gb2312\">; feed bytes kept",
        body=feed_to_html(feed, html_attrs=b' lang="zh-CN"',
                          head_extra=b'<meta http-equiv="Content-Type" content="text/html; charset=gb2312">\n'),
        content_type="text/html", encoding="GBK", source="prescan"))
    rel = "chardet-tests/EUC-JP/artifact-jp.com.xml"
    feed = read(rel)
    caps.append(Capture(
        key="feed-eucjp-rss-xml", warc=W1, url=re.search(rb"Source:\s*(\S+)", feed).group(1).decode("ascii"),
        case="RSS feed served as application/rss+xml (XML rules): its XML declaration says EUC-JP", origin=rel,
        transform="none", body=feed, content_type="application/rss+xml", encoding="EUC-JP",
        source="xml-declaration"))
    rel = "html-samples/wpull/kcna.html"
    caps.append(Capture(
        key="utf16le-bom-vs-header", warc=W1, url="http://kcna.co.jp/",
        case="UTF-16LE BOM with a contradicting header (charset=Shift_JIS) and meta (x-sjis): BOM wins", origin=rel,
        transform="none (header charset=Shift_JIS added, matching the page's own meta)",
        body=read(rel), content_type="text/html; charset=Shift_JIS", encoding="UTF-16LE", source="bom"))

    # ---- sample-crawl-00002: .ru .de .com, constructed cases ---------------------------------------
    rel = "chardet-tests/windows-1251-russian/aif.ru.health.xml"
    feed = read(rel)
    caps.append(Capture(
        key="ru-windows-1251-undeclared", warc=W2, url=feed_source_url(feed),
        case="undeclared windows-1251 Russian page on .ru (detector)", origin=rel,
        transform="feed_to_html, no declaration; feed bytes kept", body=feed_to_html(feed, html_attrs=b' lang="ru"'),
        content_type="text/html", encoding="windows-1251", source="detector"))
    rel = "chardet-tests/windows-1251-russian/money.rin.ru.xml"
    feed = read(rel)
    caps.append(Capture(
        key="ru-unknown-header-label", warc=W2, url=feed_source_url(feed),
        case="header charset=win-1251 (no such label: ignored) and a windows-1251 meta (prescan)", origin=rel,
        transform="feed_to_html with <meta http-equiv=Content-Type content=\"text/html; charset=windows-1251\">; "
                  "feed bytes kept; header charset=win-1251",
        body=feed_to_html(feed, html_attrs=b' lang="ru"',
                          head_extra=b'<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">\n'),
        content_type="text/html; charset=win-1251", encoding="windows-1251", source="prescan"))
    rel = "chardet-tests/KOI8-R/_chromium_KOI8-R_with_no_encoding_specified.html"
    caps.append(Capture(
        key="ru-koi8r-undeclared", warc=W2, url="http://undeclared-koi8-r.redecode-sample.ru/",
        case="undeclared KOI8-R page on .ru (detector; KOI8-U gives the same text)", origin=rel, transform="none",
        body=read(rel), content_type="text/html", encoding="KOI8-R", source="detector", equivalent=("KOI8-U",)))
    rel = "chardet-tests/ascii/_chromium_iso-8859-1_with_no_encoding_specified.html"
    caps.append(Capture(
        key="ascii-undeclared-de", warc=W2, url="http://ascii-only.redecode-sample.de/",
        case="pure-ASCII undeclared page on .de (default: windows-1252)", origin=rel, transform="none",
        body=read(rel), content_type="text/html", encoding="windows-1252", source="default"))
    rel = "html-samples/wpull/soup.html"
    caps.append(Capture(
        key="ascii-undeclared-jp", warc=W2, url="http://ascii-only.redecode-sample.jp/",
        case="pure-ASCII undeclared page on .jp (default: Shift_JIS)", origin=rel, transform="none",
        body=read(rel), content_type="text/html", encoding="Shift_JIS", source="default"))
    rel = "chardet-tests/windows-1252/_mozilla_bug421271_text.html"
    src = read(rel)
    assert src.count(b"\xa3") >= 1 and b"\x80" not in src
    caps.append(Capture(
        key="latin1-label-euro", warc=W2, url="http://euro-sign.redecode-sample.de/",
        case="ISO-8859-1-labelled (header) page with a euro sign: 0x80 -> U+20AC (windows-1252)", origin=rel,
        transform="every pound sign byte 0xA3 replaced by 0x80; header charset=ISO-8859-1",
        body=src.replace(b"\xa3", b"\x80"), content_type="text/html; charset=ISO-8859-1",
        encoding="windows-1252", source="transport"))
    rel = "chardet-tests/utf-8/_mozilla_bug426271_text-utf-8.html"
    caps.append(Capture(
        key="utf8-bom", warc=W2, url="http://utf-8-bom.redecode-sample.com/",
        case="UTF-8 with a BOM (header text/html without charset)", origin=rel,
        transform="UTF-8 BOM EF BB BF prepended", body=b"\xef\xbb\xbf" + read(rel), content_type="text/html",
        encoding="UTF-8", source="bom"))
    rel = "chardet-tests/utf-8-sig/_ude_4.txt"
    caps.append(Capture(
        key="utf8-bom-vs-header-text", warc=W2, url="http://utf-8-bom.redecode-sample.com/readme.txt",
        case="text/plain with a UTF-8 BOM and a contradicting header charset=windows-1252: BOM wins", origin=rel,
        transform="none (header charset=windows-1252 added)", body=read(rel),
        content_type="text/plain; charset=windows-1252", encoding="UTF-8", source="bom"))
    wiki = servo["https://www.wikipedia.org/"][2]
    meta = b'<meta charset="utf-8">\n'
    assert wiki.count(meta) == 1 and wiki.count(b"</head>") == 1
    late = wiki.replace(meta, b"", 1).replace(b"</head>", meta + b"</head>", 1)
    caps.append(Capture(
        key="late-meta-head", warc=W2, url="http://late-meta-in-head.redecode-sample.com/",
        case="UTF-8 meta after byte 1024, still in the head (head-scan)",
        origin="warcs/servo-warc-tests/Wikipedia/archive/rec-20180220120751277617-PUCHE.warc.gz (https://www.wikipedia.org/)",
        transform="the line <meta charset=\"utf-8\"> moved from byte 55 to just before </head>",
        body=late, content_type="text/html", encoding="UTF-8", source="head-scan"))
    world = servo["https://world.taobao.com/"][2]
    meta = b'<meta charset="utf-8"/>'
    assert world.count(meta) == 1
    m = re.search(rb"<body[^>]*>", world)
    assert m
    without = world.replace(meta, b"", 1)
    m = re.search(rb"<body[^>]*>", without)
    in_body = without[:m.end()] + b"\n" + meta + without[m.end():]
    caps.append(Capture(
        key="late-meta-body", warc=W2, url="http://late-meta-in-body.redecode-sample.com/",
        case="meta after byte 1024 inside <body>: not honoured; page is valid UTF-8 (utf8-valid)",
        origin="warcs/servo-warc-tests/Taobao/archive/rec-20180404234925145940-userland.warc.gz (https://world.taobao.com/)",
        transform="<meta charset=\"utf-8\"/> moved from byte 805 to just after the <body> start tag; header charset removed",
        body=in_body, content_type="text/html", encoding="UTF-8", source="utf8-valid"))
    rel = "html-samples/wpull/xkcd_1.html"
    caps.append(Capture(
        key="xml-declaration-utf8", warc=W2, url="http://xkcd.com/1/",
        case="XHTML page served as text/html whose only declaration is <?xml ... encoding=\"UTF-8\"?>", origin=rel,
        transform="none", body=read(rel), content_type="text/html", encoding="UTF-8", source="xml-declaration"))
    rel = "html-samples/wpull/xkcd_1_evil.html"
    caps.append(Capture(
        key="xml-declaration-utf8-corrupt", warc=W2, url="http://corrupted-copy.redecode-sample.com/1/",
        case="the same page with corrupted bytes (0x81, 0xFF): UTF-8 with U+FFFD", origin=rel,
        transform="none", body=read(rel), content_type="text/html", encoding="UTF-8", source="xml-declaration"))
    rel = "chardet-tests/utf-8/_ude_he1.txt"
    caps.append(Capture(
        key="resource-text-utf8", warc=W2, url="http://resource.redecode-sample.com/he1.txt",
        case="resource record (no HTTP headers), text/plain, undeclared UTF-8 Hebrew", origin=rel,
        transform="none", body=read(rel), content_type="text/plain", record_type="resource",
        encoding="UTF-8", source="utf8-valid"))
    rel = "html-samples/wpull/mojibake.css"
    caps.append(Capture(
        key="css-sjis-undeclared", warc=W2, url="http://mojibake.redecode-sample.jp/mojibake.css",
        case="non-HTML text: text/css without charset, Shift_JIS comments (detector)", via="http://mojibake.redecode-sample.jp/", hops="E",
        origin=rel,
        transform="none", body=read(rel), content_type="text/css", encoding="Shift_JIS", source="detector"))

    # ---- raw_responses.parquet ---------------------------------------------------------------------
    P = PARQUET_NAME
    rel = "chardet-tests/utf-8/_mozilla_bug426271_text-utf-8.html"
    caps.append(Capture(
        key="pq-utf8-header", warc=P, url="http://raw-table.redecode-sample.jp/utf-8.html",
        case="UTF-8 in the Content-Type column", origin=rel, transform="none", body=read(rel),
        content_type="text/html; charset=utf-8", encoding="UTF-8", source="transport"))
    rel = "chardet-tests/EUC-JP/_mozilla_bug426271_text-euc-jp.html"
    caps.append(Capture(
        key="pq-eucjp-undeclared", warc=P, url="http://raw-table.redecode-sample.jp/euc-jp.html",
        case="undeclared EUC-JP on .jp (detector)", origin=rel, transform="none", body=read(rel),
        content_type="text/html", encoding="EUC-JP", source="detector"))
    rel = "chardet-tests/windows-1251-russian/_chromium_windows-1251_with_no_encoding_specified.html"
    caps.append(Capture(
        key="pq-windows-1251-header", warc=P, url="http://raw-table.redecode-sample.ru/",
        case="windows-1251 in the Content-Type column", origin=rel, transform="none", body=read(rel),
        content_type="text/html; charset=windows-1251", encoding="windows-1251", source="transport"))
    rel = "html-samples/wpull/xhtml.html"
    caps.append(Capture(
        key="pq-no-content-type", warc=P, url="http://raw-table.redecode-sample.com/xhtml.html",
        case="no Content-Type (null): sniffed as text/html; pure ASCII (default on .com)", origin=rel,
        transform="none", body=read(rel), content_type=None, encoding="windows-1252", source="default"))
    caps.append(Capture(
        key="pq-png", warc=P, url="http://raw-table.redecode-sample.com/platforms.png", case="image/png",
        origin="warcs/servo-warc-tests/VK/archive/rec-20180405000401368619-userland.warc.gz (https://vk.com/images/login/platforms.png)",
        transform="none", body=servo["https://vk.com/images/login/platforms.png"][2], content_type="image/png",
        status="skipped", skip_reason="not-text"))
    return caps


def finish(caps: list[Capture], ref: RefDecoder) -> None:
    """Resolve constructed bodies, compute the expected text, and assert the facts each case needs."""
    encodings = json.loads((ref.dir / "encodings.json").read_text(encoding="utf-8"))
    labels = frozenset(label for group in encodings for e in group["encodings"] for label in e["labels"])
    for c in caps:
        if c.from_legacy is not None:
            legacy, enc = c.from_legacy
            text, errors = ref.decode(legacy, enc)
            assert errors == 0, (c.key, errors)
            c.body = text.encode("utf-8")
            c.text, c.decode_errors = text, 0
            assert ref.decode(c.body, "UTF-8") == (text, 0)
        if c.status == "skipped":
            continue
        payload = strip_bom(c.body) if c.source == "bom" else c.body
        text, errors = ref.decode(payload, c.encoding)
        if c.text is not None:
            assert text == c.text, c.key
        c.text, c.decode_errors = text, errors
        for other in c.equivalent:
            assert ref.decode(payload, other) == (text, errors), (c.key, other)
        check_case(c, labels)


def header_charset(content_type: str | None) -> str | None:
    """The first ``charset`` parameter of a single Content-Type value (enough for the values used here)."""
    for param in (content_type or "").split(";")[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            return value.strip().strip('"')
    return None


def check_case(c: Capture, labels: frozenset[str]) -> None:
    """Byte-level facts behind each expectation. ``labels``: every label of ``encodings.json``."""
    body, ct = c.body, (c.content_type or "").lower()
    label = header_charset(c.content_type)
    has_charset = label is not None and label.strip().lower() in labels
    k = c.key
    if c.source == "bom":
        assert bom_of(body) == c.encoding, k
    else:
        assert bom_of(body) is None, k
    if c.source == "transport":
        assert has_charset, k
    if c.source in ("prescan", "head-scan", "xml-declaration", "utf8-valid", "detector", "default"):
        assert not has_charset, k
    metas = meta_charset_offsets(body)
    if c.source == "prescan":
        assert metas and metas[0] < 1024, k
    if c.source == "head-scan":
        assert metas and metas[0] > 1024, k
        assert body.lower().index(b"</head>") > metas[0], k
    if c.source in ("xml-declaration", "utf8-valid", "detector", "default"):
        assert not metas or metas[0] > body.lower().find(b"<body"), k
    if k == "ru-unknown-header-label":
        assert label is not None and not has_charset
    if c.source == "xml-declaration":
        assert body.startswith(b'<?xml version="1.0" encoding="' + c.encoding.encode()) or \
            body.startswith(b'<?xml version="1.0" encoding="' + c.encoding.encode() + b'" ?>'), k
    else:
        assert not body.startswith(b"<?xml"), k
    if c.source in ("utf8-valid",):
        assert is_utf8(body) and any(b > 0x7F for b in body), k
    if c.source == "detector":
        assert not is_utf8(body), k
    if c.source == "default":
        assert all(b < 0x80 for b in body), k
    if k == "qq-gb2312-gbk-only":
        assert gbk_only_pairs(body) > 0 and c.decode_errors == 0 and "gb2312" in ct
    if k == "euckr-uhc":
        assert uhc_pairs(body) > 0 and c.decode_errors == 0
    if k == "sjis-fullwidth-tilde":
        assert b"\x81\x60" in body and "\uff5e" in c.text and c.decode_errors == 0
    if k == "latin1-label-euro":
        assert "\u20ac" in c.text and c.decode_errors == 0
    if k == "late-meta-body":
        assert metas[0] > 1024 and metas[0] > body.find(b"<body")
    if k == "conflict-header-utf8-meta-big5":
        assert metas and b"big5" in body[metas[0]:metas[0] + 100]
    if k == "sjis-meta-nec-row13":
        assert b"\x87\x55" in body and "\u2161" in c.text
    if k == "xml-declaration-utf8-corrupt":
        assert c.decode_errors > 0, k
    elif c.status == "decoded":
        assert c.decode_errors == 0, (k, c.decode_errors)


# --------------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------------


def http_date(when: dt.datetime) -> str:
    return when.strftime("%a, %d %b %Y %H:%M:%S GMT")


def warc_date(when: dt.datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def record_id(*parts: str) -> str:
    return f"<urn:uuid:{uuid.uuid5(NAMESPACE, '|'.join(parts))}>"


def sha1_digest(data: bytes) -> str:
    import base64

    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode("ascii")


def gzip_bytes(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9, mtime=0)


def write_warc(name: str, caps: list[Capture], out: Path, capture_times: dict[str, dt.datetime],
               ids: dict[str, str]) -> None:
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    buf = io.BytesIO()
    writer = WARCWriter(buf, gzip=True, warc_version="1.0")
    info = (
        "software: warc-redecode tools/make_sample_warcs.py\r\n"
        "format: WARC File Format 1.0\r\n"
        "conformsTo: http://bibnum.bnf.fr/WARC/WARC_ISO_28500_version1_latestdraft.pdf\r\n"
        "isPartOf: redecode-sample-crawl\r\n"
        "description: home pages and assets in the style of a .jp .kr .cn .ru .tw .de .com crawl; "
        "see sample_warcs/README.md for each page's source, licence and transformation\r\n"
        f"http-header-user-agent: {USER_AGENT}\r\n"
    ).encode("utf-8")
    first = capture_times[caps[0].key] - dt.timedelta(seconds=1)
    writer.write_record(writer.create_warc_record(
        "", "warcinfo", payload=io.BytesIO(info), length=len(info),
        warc_headers_dict={"WARC-Record-ID": record_id(name, "warcinfo"), "WARC-Date": warc_date(first),
                           "WARC-Filename": name, "Content-Type": "application/warc-fields"}))
    for c in caps:
        when = capture_times[c.key]
        wdate = warc_date(when)
        from urllib.parse import urlsplit

        parts = urlsplit(c.url)
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        if c.record_type == "resource":
            rid = record_id(name, c.key, "resource", hashlib.sha1(c.body).hexdigest())
            ids[c.key] = rid
            writer.write_record(writer.create_warc_record(
                c.url, "resource", payload=io.BytesIO(c.body), length=len(c.body),
                warc_headers_dict={"WARC-Record-ID": rid, "WARC-Date": wdate, "Content-Type": c.content_type}))
            continue
        req = (f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nUser-Agent: {USER_AGENT}\r\n"
               "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n"
               "Accept-Encoding: gzip\r\nConnection: close\r\n\r\n").encode("ascii")
        wire = gzip_bytes(c.body) if c.content_encoding == "gzip" else c.body
        hdrs = [("Date", http_date(when))]
        hdrs += list(c.extra_headers)
        if c.content_type is not None:
            hdrs.append(("Content-Type", c.content_type))
        if c.content_encoding:
            hdrs.append(("Content-Encoding", c.content_encoding))
        hdrs.append(("Content-Length", str(len(wire))))
        http = StatusAndHeaders(c.status_line, hdrs, protocol="HTTP/1.1")
        if c.record_type == "revisit":
            orig = next(o for o in caps if o.key == c.refers_to)
            rid = record_id(name, c.key, "revisit", hashlib.sha1(c.body).hexdigest())
            http = StatusAndHeaders(c.status_line, [h for h in hdrs if h[0] != "Content-Length"] +
                                    [("Content-Length", str(len(orig.body)))], protocol="HTTP/1.1")
            rec = writer.create_revisit_record(
                c.url, sha1_digest(orig.body), orig.url, warc_date(capture_times[orig.key]), http_headers=http,
                warc_headers_dict={"WARC-Record-ID": rid, "WARC-Date": wdate,
                                   "WARC-Refers-To": ids[orig.key]})
        else:
            rid = record_id(name, c.key, "response", hashlib.sha1(wire).hexdigest())
            rec = writer.create_warc_record(
                c.url, "response", payload=io.BytesIO(wire), length=len(wire), http_headers=http,
                warc_headers_dict={"WARC-Record-ID": rid, "WARC-Date": wdate})
        ids[c.key] = rid
        req_id = record_id(name, c.key, "request", hashlib.sha1(req).hexdigest())
        writer.write_record(writer.create_warc_record(
            c.url, "request", payload=io.BytesIO(req), length=len(req),
            warc_headers_dict={"WARC-Record-ID": req_id, "WARC-Date": wdate, "WARC-Concurrent-To": rid}))
        writer.write_record(rec)
        fields = []
        if c.via:
            fields.append(f"via: {c.via}")
        fields.append(f"hopsFromSeed: {c.hops}" if c.hops else "seed: true")
        fields.append(f"fetchTimeMs: {100 + int(hashlib.sha1(c.key.encode()).hexdigest()[:4], 16) % 900}")
        for hname, hvalue in c.extra_headers:
            if hname == "Location":
                fields.append(f"outlink: {hvalue} R location:")
        meta = "".join(f + "\r\n" for f in fields).encode("utf-8")
        meta_id = record_id(name, c.key, "metadata", hashlib.sha1(meta).hexdigest())
        writer.write_record(writer.create_warc_record(
            c.url, "metadata", payload=io.BytesIO(meta), length=len(meta),
            warc_headers_dict={"WARC-Record-ID": meta_id, "WARC-Date": wdate, "WARC-Concurrent-To": rid,
                               "Content-Type": "application/warc-fields"}))
    (out / name).write_bytes(buf.getvalue())


def write_parquet(caps: list[Capture], out: Path, capture_times: dict[str, dt.datetime]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("url", pa.string()), ("content_type", pa.string()), ("body", pa.binary()),
                        ("fetch_time", pa.timestamp("us", tz="UTC"))])
    table = pa.table({
        "url": [c.url for c in caps],
        "content_type": [c.content_type for c in caps],
        "body": [c.body for c in caps],
        "fetch_time": [capture_times[c.key] for c in caps],
    }, schema=schema)
    pq.write_table(table, out / PARQUET_NAME, compression="zstd", compression_level=3)


def write_expected(caps: list[Capture], out: Path, ids: dict[str, str]) -> None:
    lines = []
    # ``row``: the 0-based row index in raw_responses.parquet (written from the Parquet captures in
    # this order by write_parquet), which the job reports as ``warc_offset``; not the line number.
    parquet_rows = {c.key: i for i, c in enumerate(x for x in caps if x.warc == PARQUET_NAME)}
    for c in caps:
        entry = {
            "input": c.warc,
            "row": parquet_rows.get(c.key),
            "record_id": ids.get(c.key) if c.warc != PARQUET_NAME else None,
            "record_type": c.record_type if c.warc != PARQUET_NAME else None,
            "target_uri": c.url,
            "case": c.key,
            "encoding": c.encoding,
            "equivalent_encodings": list(c.equivalent),
            "source": c.source,
            "status": c.status,
            "skip_reason": c.skip_reason,
            "decode_errors": c.decode_errors,
            "text_sha256": hashlib.sha256(c.text.encode("utf-8")).hexdigest() if c.text is not None else None,
        }
        lines.append(json.dumps(entry, ensure_ascii=False, sort_keys=False))
    (out / "expected.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def copy_licences(corpus: Path, out: Path) -> None:
    lic = out / "LICENSES"
    lic.mkdir(exist_ok=True)
    for src, dst in (("chardet-tests/LICENSE", "chardet-tests-LGPL-2.1.txt"),
                     ("chardet-tests/README.txt", "chardet-tests-README.txt"),
                     ("html-samples/wpull/LICENSE.txt", "wpull-GPL-3.0.txt"),
                     ("html-samples/wpull/README.rst", "wpull-samples-README.rst"),
                     ("warcs/servo-warc-tests/LICENSE", "servo-warc-tests-MPL-2.0.txt")):
        shutil.copyfile(corpus / src, lic / dst)


LICENCES = {
    "chardet/chardet": ("LGPL-2.1", "LICENSES/chardet-tests-LGPL-2.1.txt"),
    "ArchiveTeam/wpull": ("GPL-3.0", "LICENSES/wpull-GPL-3.0.txt"),
    "servo/servo-warc-tests": ("MPL-2.0", "LICENSES/servo-warc-tests-MPL-2.0.txt"),
}
STEPS = ("bom", "transport", "prescan", "head-scan", "xml-declaration", "utf8-valid", "detector", "default")


def provenance(corpus: Path) -> dict[str, tuple[str, str, str]]:
    """corpus path -> (repository, commit, original path), from the corpus' FILES.tsv."""
    out = {}
    for line in (corpus / "FILES.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        cols = line.split("\t")
        out[cols[0]] = (cols[1], cols[2], cols[3])
    return out


def _md_cell(text: str) -> str:
    """Markdown table cell: pipes escaped, tags shown as code rather than rendered."""
    if "`" not in text:
        text = re.sub(r"(<[^>]*>)", r"`\1`", text)
    return text.replace("|", "\\|")


def requests_text(body: bytes, content_type: str) -> str:
    """What ``requests`` 2.32's ``Response.text`` returns for a text/* response (Python codecs).

    ``requests.utils.get_encoding_from_headers``: the ``charset`` parameter (quotes stripped), else
    ISO-8859-1 when the type contains "text"; then ``str(content, encoding, errors="replace")``, or
    ``str(content, errors="replace")`` (UTF-8) on an unknown codec name. Only used for the README's
    headline, never for the answer key.
    """
    params = [p.strip() for p in content_type.split(";")[1:]]
    enc = None
    for p in params:
        if "=" in p:
            k, v = p.split("=", 1)
            if k.strip().lower() == "charset":
                enc = v.strip().strip("'\"")
                break
    if enc is None:
        assert "text" in content_type
        enc = "ISO-8859-1"
    try:
        return str(body, enc, errors="replace")
    except LookupError:
        return str(body, errors="replace")


def write_readme(caps: list[Capture], out: Path, corpus: Path, ids: dict[str, str]) -> None:
    prov = provenance(corpus)
    sizes = {n: (out / n).stat().st_size for n in (*WARC_FILES, PARQUET_NAME)}
    L: list[str] = []
    w = L.append
    w("# sample_warcs: a small crawl sample with an answer key")
    w("")
    w("<!-- Generated by tools/make_sample_warcs.py; edit the generator, not this file. -->")
    w("")
    w("Three WARC files (one gzip member per record) and one raw-response Parquet table that look like a crawl")
    w("of home pages on .jp .kr .cn .ru .tw .de and .com: per capture a `request`, a `response` (or `revisit`,")
    w("or a `resource`) and a `metadata` record, after one `warcinfo` per file. The page bodies are real pages")
    w("from `../shared/corpus/` (see the table for each page's repository, path, licence and the transformation")
    w("applied, if any). The answer key `expected.jsonl` says, per record, what a browser-exact re-decode must")
    w("produce.")
    w("")
    w("| file | bytes | records with an answer |")
    w("|---|---:|---:|")
    for n in (*WARC_FILES, PARQUET_NAME):
        w(f"| `{n}` | {sizes[n]:,} | {sum(1 for c in caps if c.warc == n)} |")
    w(f"| total | {sum(sizes.values()):,} | {len(caps)} |")
    w("")
    w("## Run the job on it")
    w("")
    w("```sh")
    w("redecode run sample_warcs --out out")
    w("python -c \"import duckdb; print(duckdb.sql(\\\"select encoding, source, count(*) from 'out/*.parquet' group by all order by all\\\"))\"")
    w("```")
    w("")
    w("`tests/test_sample_answer_key.py` runs the job on this directory and checks every row against the key.")
    w("")
    w("## The answer key: `expected.jsonl`")
    w("")
    w("One JSON object per `response`/`resource`/`revisit` record and per Parquet row:")
    w("")
    w("- `input`: the file; `row`: the 0-based row index in the Parquet file, which the job writes as")
    w("  `warc_offset` (null for WARC records): a Parquet row is matched by `input` and `row`;")
    w("- `record_id`: the WARC-Record-ID as written (`<urn:uuid:...>`; null for Parquet rows, whose id the job")
    w("  synthesises); `record_type`; `target_uri`; `case`: the short name used below;")
    w("- `encoding`: the expected WHATWG encoding name (null when skipped); `equivalent_encodings`: other")
    w("  encodings that decode this payload to exactly the same text (checked by the generator; used only")
    w("  where a detector may name a superset, e.g. KOI8-U for a KOI8-R page without the letters that differ);")
    w("- `source`: the expected deciding step (`bom`, `transport`, `prescan`, `head-scan`, `xml-declaration`,")
    w("  `utf8-valid`, `detector`, `default`), null when skipped;")
    w("- `status` (`decoded`/`skipped`) and `skip_reason`;")
    w("- `decode_errors`: U+FFFD the decoder must insert; `text_sha256`: sha256 of the UTF-8 bytes of the")
    w("  expected text (without BOM).")
    w("")
    w("Where the expected values come from: the encoding and step from the Encoding Standard and the HTML")
    w("Standard's \"determining the character encoding\" as Chromium implements it (the order of issue 3), and")
    w("for undeclared pages from the page's true encoding (the chardet test folder it comes from, or the")
    w("encoding the generator itself wrote). The text is decoded by a small reference decoder inside the")
    w("generator that reads `whatwg-encoding/index-*.txt` directly (it reproduces encoding_rs' decode test")
    w("vectors for Big5, EUC-KR, gb18030, EUC-JP and Shift_JIS exactly); pages built from Unicode text are")
    w("checked against that text. The job's own decoder is never used. The generator also asserts the byte")
    w("facts each expectation relies on (the BOM is there, the meta is before or after byte 1024, the payload")
    w("is or is not valid UTF-8, is pure ASCII, contains GBK-only or UHC pairs or 81 60...).")
    w("")
    w("Skip reasons follow the job's order (issue 2): a revisit is `revisit`; a status that has no content by")
    w("HTTP (1xx, 204, 205, 304) is `http-status`; other statuses with a body are decoded like 200 (a redirect or")
    w("error page is text too); an empty body is `no-payload`; a non-text media type is `not-text`.")
    w("")
    w("## Pages")
    w("")
    w("Host names under `redecode-sample.<tld>` are made up (nothing was fetched; the TLD is what the")
    w("decision uses). The other URLs are the pages' real origins.")
    w("")
    w("| case | file | target URI | what it shows | expected | source (repository @ commit: path) | licence | transformation |")
    w("|---|---|---|---|---|---|---|---|")
    for c in caps:
        corpus_path = c.origin.split(" ")[0]
        repo, commit, orig = prov[corpus_path]
        lic, lic_file = LICENCES[repo]
        exp = f"{c.encoding} / {c.source}" if c.status == "decoded" else f"skipped: {c.skip_reason}"
        if c.decode_errors:
            exp += f" ({c.decode_errors} U+FFFD)"
        extra = c.origin[len(corpus_path):].strip()
        where = f"{repo} @ {commit[:10]}: `{orig}`" + (f" {extra}" if extra else "")
        cells = [f"`{c.key}`", f"`{c.warc.replace('sample-crawl-', '').replace('.warc.gz', '')}`"
                 if c.warc != PARQUET_NAME else f"parquet row {[x for x in caps if x.warc == PARQUET_NAME].index(c)}",
                 c.url, c.case, exp, where, f"[{lic}]({lic_file})", c.transform]
        w("| " + " | ".join(_md_cell(x) for x in cells) + " |")
    w("")
    w("`feed_to_html` (in the generator): an HTML page made from a chardet test feed, keeping the feed's bytes:")
    w("the channel title as `<title>` and `<h1>`, then per item (up to 12 unless stated) the title as `<h2>` and")
    w("the description/content/summary as `<p>`, with CDATA unwrapped, escaped markup unescaped and tags")
    w("removed. This is byte-safe in the legacy encodings used (`<`, `>`, `&` are never trail bytes).")
    w("")
    w("## Coverage of the decision steps")
    w("")
    w("| step | cases |")
    w("|---|---|")
    for step in STEPS:
        keys = [c.key for c in caps if c.source == step]
        assert keys, f"no case for step {step}"
        w(f"| `{step}` | " + ", ".join(f"`{k}`" for k in keys) + " |")
    skipped = [c for c in caps if c.status == "skipped"]
    w(f"| skipped | " + ", ".join(f"`{c.key}` ({c.skip_reason})" for c in skipped) + " |")
    w("")
    w("## The study's headline, on this sample")
    w("")
    html = [c for c in caps if c.status == "decoded" and c.content_type and c.content_type.startswith("text/html")
            and c.warc != PARQUET_NAME]
    utf8 = [c for c in html if c.encoding == "UTF-8"]
    legacy = [c for c in html if c.encoding != "UTF-8"]
    meta_only = [c for c in utf8 if c.source in ("prescan", "head-scan")]
    late = [c for c in html if c.source == "head-scan"]
    boms = [c for c in html if c.source == "bom"]
    garbled = [c for c in html if requests_text(c.body, c.content_type) != c.text]
    g_utf8 = [c for c in garbled if c.encoding == "UTF-8"]
    w("The sample is built to cover every case, so legacy pages are over-represented next to the study")
    w(f"(9 of 193). Of its {len(html)} decoded text/html WARC responses, {len(utf8)} are UTF-8 and {len(legacy)} are")
    w(f"legacy ({', '.join(sorted(set(c.encoding for c in legacy)))}); {len(meta_only)} UTF-8 pages declare their")
    w(f"encoding only in a `<meta>` ({len(late)} of them after byte 1024); {len(boms)} start with a BOM; one declares")
    w("UTF-8 in the header and Big5 in the meta.")
    w("")
    w(f"`requests`' `.text` (header charset with Python's codec, else ISO-8859-1 for `text/*`) garbles {len(garbled)}")
    w(f"of the {len(html)}: {len(g_utf8)} UTF-8 pages without a charset in the header ("
      + ", ".join(f"`{c.key}`" for c in g_utf8) + "), and")
    w(", ".join(f"`{c.key}`" for c in garbled if c.encoding != "UTF-8") + ".")
    w("(Computed by the generator from `requests`' documented rule with Python codecs, for this README only.)")
    w("To measure it with the job, compare two runs:")
    w("")
    w("```sh")
    w("redecode run sample_warcs --out out-browser")
    w("redecode run sample_warcs --out out-requests --rules requests-2.32")
    w("redecode diff out-requests out-browser")
    w("```")
    w("")
    w("## Licences")
    w("")
    w("The page bodies keep their sources' licences; the licence texts are in `LICENSES/`: chardet's test")
    w("pages LGPL-2.1 (chardet/chardet; each feed is copyright its publisher, see")
    w("`LICENSES/chardet-tests-README.txt`), wpull's sample pages GPL-3.0 (ArchiveTeam/wpull), the 2018 home")
    w("page captures MPL-2.0 (servo/servo-warc-tests; the pages are copyright their publishers). The")
    w("generator, the WARC/HTTP framing and the answer key are part of this project (Apache-2.0).")
    w("")
    w("## Rebuilding")
    w("")
    w("```sh")
    w(".venv/bin/python tools/make_sample_warcs.py            # reads ../shared/corpus, writes sample_warcs/")
    w(".venv/bin/python tools/make_sample_warcs.py --out /tmp/x --list")
    w("```")
    w("")
    w("The output is byte-identical on every run with the same Python/zlib/pyarrow: inputs are read in a fixed")
    w("order, WARC-Date values are fixed, record ids are uuid5 of the file name, case, record type and the")
    w("sha1 of the block, gzip members are written at level 9 with mtime 0, and the Parquet file is written")
    w("from an explicit schema with zstd level 3.")
    w("")
    w("## Not covered")
    w("")
    w("- UTF-16BE pages, ISO-2022-JP, x-user-defined, the `replacement` encoding, gb18030 four-byte sequences.")
    w("- XML media types other than one `application/rss+xml` feed with an XML declaration; a repeated")
    w("  `Content-Type` header.")
    w("- Transfer-Encoding chunked, Content-Encoding br/deflate/zstd, truncated or corrupt records (see the")
    w("  broken-input fixtures in `tests/data/`).")
    w("- A windows-1252 page in German on .de: the corpus' shared half has no German page.")
    (out / "README.md").write_text("\n".join(L) + "\n", encoding="utf-8")


def build(corpus: Path, out: Path) -> list[Capture]:
    ref = RefDecoder(corpus / "whatwg-encoding")
    caps = build_captures(corpus)
    finish(caps, ref)
    keys = [c.key for c in caps]
    assert len(set(keys)) == len(keys)
    out.mkdir(parents=True, exist_ok=True)
    capture_times = {c.key: BASE_DATE + dt.timedelta(minutes=3 * i) for i, c in enumerate(caps)}
    # the revisit is a capture one day after its original
    for c in caps:
        if c.record_type == "revisit":
            capture_times[c.key] = capture_times[c.refers_to] + dt.timedelta(days=1)
    ids: dict[str, str] = {}
    for name in WARC_FILES:
        write_warc(name, [c for c in caps if c.warc == name], out, capture_times, ids)
    write_parquet([c for c in caps if c.warc == PARQUET_NAME], out, capture_times)
    write_expected(caps, out, ids)
    copy_licences(corpus, out)
    write_readme(caps, out, corpus, ids)
    return caps


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="the shared corpus directory")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory (default: sample_warcs/)")
    p.add_argument("--list", action="store_true", help="print one line per capture")
    args = p.parse_args(argv)
    if not (args.corpus / "MANIFEST.md").exists():
        print(f"corpus not found at {args.corpus}; pass --corpus", file=sys.stderr)
        return 2
    caps = build(args.corpus, args.out)
    if args.list:
        for c in caps:
            print(f"{c.warc:28} {c.key:34} {len(c.body):>8} {c.encoding or '-':13} {c.source or c.skip_reason}")
    total = sum((args.out / n).stat().st_size for n in (*WARC_FILES, PARQUET_NAME))
    print(f"wrote {len(caps)} captures, {total} bytes of WARC/Parquet into {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
