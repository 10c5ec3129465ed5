"""The benchmark's answer key: the text each HTML response should decode to (issue 9).

``bench_truth.jsonl`` (written by ``../shared/bench/make_bench_warc.py``) gives, per HTML response, the
Python codec that produced its bytes (``codec``) and how its charset was declared (``mode``). The right
text of a page is what a browser shows when the page declares its encoding, and the author's text when
it does not:

* ``header_wrong`` pages: the header names the wrong encoding and a browser follows the header (the
  transport layer beats the meta). A legacy page served as ``charset=utf-8`` is shown as the UTF-8
  decode of its bytes, U+FFFD included; a UTF-8 page served as ``ISO-8859-1`` is shown as windows-1252
  (Encoding Standard: the label ``iso-8859-1`` is windows-1252).
* every other page: the Encoding Standard decode of the payload under its true encoding (a UTF-8 BOM
  removed, as the "decode" algorithm does).

Choice: the expected text is computed with an independent reference implementation of the Encoding
Standard's decoders written here from the spec's prose ("Shift_JIS decoder", "EUC-KR decoder", "Big5
decoder", "gb18030 decoder", "single-byte decoder"), driven by the WHATWG index files vendored in
``tests/data/whatwg/indexes.json``, not with the project's ``redecode.decode`` (the code under test)
and not with Python's codecs, whose tables differ from the Encoding Standard's (e.g. Python's ``big5``
is not Big5-HKSCS, ``cp1252`` leaves 0x81/0x8D/0x8F/0x90/0x9D undefined, ``gbk`` lacks 0x80 = U+20AC).
UTF-8 uses CPython's decoder with ``errors="replace"``, which inserts one U+FFFD per maximal subpart
as the Encoding Standard's UTF-8 decoder does. ``run.py`` reports how many pages the Python codec
named in the truth file would decode differently (the table differences the choice matters for).

Texts are compared through a 16-byte BLAKE2b digest of their UTF-8 (surrogates passed through), so the
key for a 300 MB crawl is a few hundred KB and can be cached beside the crawl.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import os
from functools import lru_cache

#: Bump when the expected texts or the key's fields change (run.py rebuilds cached keys).
KEY_VERSION = 2

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INDEXES = os.path.join(REPO, "tests", "data", "whatwg", "indexes.json")

#: truth-file codec (a Python codec name) -> Encoding Standard encoding of the page.
TRUTH_CODEC_TO_WHATWG = {
    "utf-8": "UTF-8",
    "ascii": "windows-1252",  # redirect stubs: ASCII, served as iso-8859-1
    "cp1252": "windows-1252",
    "cp1251": "windows-1251",
    "cp932": "Shift_JIS",
    "gbk": "GBK",
    "cp949": "EUC-KR",
    "big5": "Big5",
}


@lru_cache(maxsize=1)
def _indexes() -> dict:
    with open(INDEXES, encoding="utf-8") as fh:
        return json.load(fh)


@lru_cache(maxsize=None)
def _single_byte_table(name: str) -> dict[int, int]:
    """Translation table latin-1 text -> the encoding's code points (index pointer = byte - 0x80)."""
    index = _indexes()[name]
    return {0x80 + i: (cp if cp is not None else 0xFFFD) for i, cp in enumerate(index)}


def decode_single_byte(data: bytes, name: str) -> str:
    """Encoding Standard "single-byte decoder" (windows-1252, windows-1251 ...)."""
    return data.decode("latin-1").translate(_single_byte_table(name))


def decode_utf8(data: bytes) -> str:
    """Encoding Standard "UTF-8 decode": BOM removed, U+FFFD per maximal subpart (CPython agrees)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", "replace")


def _lookup(index: list, pointer: int | None) -> int | None:
    if pointer is None or pointer >= len(index):
        return None
    return index[pointer]


def decode_shift_jis(data: bytes) -> str:
    """Encoding Standard "Shift_JIS decoder" with replacement error mode."""
    jis = _indexes()["jis0208"]
    out: list[str] = []
    lead = 0
    i, n = 0, len(data)
    while i < n:
        b = data[i]
        i += 1
        if lead:
            offset = 0x40 if b < 0x7F else 0x41
            lead_offset = 0x81 if lead < 0xA0 else 0xC1
            pointer = None
            if 0x40 <= b <= 0x7E or 0x80 <= b <= 0xFC:
                pointer = (lead - lead_offset) * 188 + b - offset
            lead = 0
            if pointer is not None and 8836 <= pointer <= 10715:
                out.append(chr(0xE000 - 8836 + pointer))
                continue
            cp = _lookup(jis, pointer)
            if cp is not None:
                out.append(chr(cp))
                continue
            if b < 0x80:
                i -= 1  # restore the ASCII byte to the stream
            out.append("\ufffd")
            continue
        if b <= 0x80:
            out.append(chr(b))
        elif 0xA1 <= b <= 0xDF:
            out.append(chr(0xFF61 - 0xA1 + b))
        elif 0x81 <= b <= 0x9F or 0xE0 <= b <= 0xFC:
            lead = b
        else:
            out.append("\ufffd")
    if lead:
        out.append("\ufffd")
    return "".join(out)


def decode_euc_kr(data: bytes) -> str:
    """Encoding Standard "EUC-KR decoder" with replacement error mode."""
    index = _indexes()["euc-kr"]
    out: list[str] = []
    lead = 0
    i, n = 0, len(data)
    while i < n:
        b = data[i]
        i += 1
        if lead:
            pointer = (lead - 0x81) * 190 + (b - 0x41) if 0x41 <= b <= 0xFE else None
            lead = 0
            cp = _lookup(index, pointer)
            if cp is not None:
                out.append(chr(cp))
                continue
            if b < 0x80:
                i -= 1
            out.append("\ufffd")
            continue
        if b < 0x80:
            out.append(chr(b))
        elif 0x81 <= b <= 0xFE:
            lead = b
        else:
            out.append("\ufffd")
    if lead:
        out.append("\ufffd")
    return "".join(out)


_BIG5_SPECIAL = {1133: "\u00ca\u0304", 1135: "\u00ca\u030c", 1164: "\u00ea\u0304", 1166: "\u00ea\u030c"}


def decode_big5(data: bytes) -> str:
    """Encoding Standard "Big5 decoder" (Big5-HKSCS index) with replacement error mode."""
    index = _indexes()["big5"]
    out: list[str] = []
    lead = 0
    i, n = 0, len(data)
    while i < n:
        b = data[i]
        i += 1
        if lead:
            offset = 0x40 if b < 0x7F else 0x62
            pointer = None
            if 0x40 <= b <= 0x7E or 0xA1 <= b <= 0xFE:
                pointer = (lead - 0x81) * 157 + (b - offset)
            lead = 0
            if pointer in _BIG5_SPECIAL:
                out.append(_BIG5_SPECIAL[pointer])
                continue
            cp = _lookup(index, pointer)
            if cp is not None:
                out.append(chr(cp))
                continue
            if b < 0x80:
                i -= 1
            out.append("\ufffd")
            continue
        if b < 0x80:
            out.append(chr(b))
        elif 0x81 <= b <= 0xFE:
            lead = b
        else:
            out.append("\ufffd")
    if lead:
        out.append("\ufffd")
    return "".join(out)


@lru_cache(maxsize=1)
def _gb_ranges() -> tuple[list[int], list[int]]:
    ranges = _indexes()["gb18030-ranges"]
    return [p for p, _ in ranges], [c for _, c in ranges]


def _gb18030_ranges_code_point(pointer: int) -> int | None:
    """Encoding Standard "index gb18030 ranges code point"."""
    if (39419 < pointer < 189000) or pointer > 1237575:
        return None
    if pointer == 7457:
        return 0xE7C7
    pointers, cps = _gb_ranges()
    k = bisect.bisect_right(pointers, pointer) - 1
    return cps[k] + pointer - pointers[k]


def decode_gb18030(data: bytes) -> str:
    """Encoding Standard "gb18030 decoder" (also the GBK decoder) with replacement error mode."""
    index = _indexes()["gb18030"]
    out: list[str] = []
    first = second = third = 0
    pending: list[int] = []  # bytes "prepended to the stream"
    i, n = 0, len(data)
    while i < n or pending:
        if pending:
            b = pending.pop(0)
        else:
            b = data[i]
            i += 1
        if third:
            if not 0x30 <= b <= 0x39:
                pending[:0] = [second, third, b]
                first = second = third = 0
                out.append("\ufffd")
                continue
            cp = _gb18030_ranges_code_point(
                (((first - 0x81) * 10 + second - 0x30) * 126 + third - 0x81) * 10 + b - 0x30
            )
            first = second = third = 0
            out.append("\ufffd" if cp is None else chr(cp))
            continue
        if second:
            if 0x81 <= b <= 0xFE:
                third = b
                continue
            pending[:0] = [second, b]
            first = second = 0
            out.append("\ufffd")
            continue
        if first:
            if 0x30 <= b <= 0x39:
                second = b
                continue
            lead, first = first, 0
            offset = 0x40 if b < 0x7F else 0x41
            pointer = None
            if 0x40 <= b <= 0x7E or 0x80 <= b <= 0xFE:
                pointer = (lead - 0x81) * 190 + (b - offset)
            cp = _lookup(index, pointer)
            if cp is not None:
                out.append(chr(cp))
                continue
            if b < 0x80:
                pending[:0] = [b]
            out.append("\ufffd")
            continue
        if b < 0x80:
            out.append(chr(b))
        elif b == 0x80:
            out.append("\u20ac")
        elif 0x81 <= b <= 0xFE:
            first = b
        else:
            out.append("\ufffd")
    if first or second or third:
        out.append("\ufffd")
    return "".join(out)


def whatwg_decode(data: bytes, encoding: str) -> str:
    """Reference Encoding Standard "decode" (BOM sniffing included) for the benchmark's encodings."""
    if data.startswith(b"\xef\xbb\xbf"):
        return decode_utf8(data)
    if encoding == "UTF-8":
        return decode_utf8(data)
    if encoding in ("windows-1252", "windows-1251"):
        return decode_single_byte(data, encoding)
    if encoding == "Shift_JIS":
        return decode_shift_jis(data)
    if encoding == "EUC-KR":
        return decode_euc_kr(data)
    if encoding == "Big5":
        return decode_big5(data)
    if encoding in ("GBK", "gb18030"):
        return decode_gb18030(data)
    raise ValueError(f"no reference decoder for {encoding!r}")


def expected_encoding(truth: dict) -> str:
    """The encoding whose decode is the right text of this page (see the module docstring)."""
    if truth["mode"] == "header_wrong":
        return "UTF-8" if truth["legacy"] else "windows-1252"
    return TRUTH_CODEC_TO_WHATWG[truth["codec"]]


def text_digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def norm_id(record_id: str) -> str:
    return record_id.strip().strip("<>")


def build_key(warc_paths: list[str], truth_path: str) -> dict:
    """{record_id: {"digest", "category", "encoding", "python_differs"}} for every HTML response.

    ``category``: ``declared`` (any declaration: header, meta, late meta, BOM, wrong header),
    ``undeclared-legacy`` or ``undeclared-utf8``.
    """
    from fastwarc.warc import ArchiveIterator, WarcRecordType

    truth: dict[str, dict] = {}
    with open(truth_path, encoding="utf-8") as fh:
        for line in fh:
            t = json.loads(line)
            truth[norm_id(t["record_id"])] = t
    key: dict[str, dict] = {}
    for path in warc_paths:
        for record in ArchiveIterator(path, record_types=WarcRecordType.response):
            rid = norm_id(record.record_id)
            t = truth.get(rid)
            if t is None:
                continue
            body = record.reader.read()
            enc = expected_encoding(t)
            text = whatwg_decode(body, enc)
            if t["mode"] == "none":
                category = "undeclared-legacy" if t["legacy"] else "undeclared-utf8"
            else:
                category = "declared"
            # Would Python's codec for the true encoding have given another text? (documentation)
            if t["mode"] == "header_wrong":
                py = body.decode("utf-8", "replace") if t["legacy"] else body.decode("cp1252", "replace")
            else:
                py = body.decode(t["codec"], "replace")
                if py.startswith("\ufeff"):
                    py = py[1:]
            key[rid] = {
                "digest": text_digest(text),
                "category": category,
                "encoding": enc,
                "mode": t["mode"],
                "python_differs": py != text,
                "http_status": t.get("status"),
            }
    missing = set(truth) - set(key)
    if missing:
        raise RuntimeError(f"{len(missing)} truth records not found in the crawl, e.g. {next(iter(missing))}")
    return key
