"""The benchmark's answer key: the text each HTML response should decode to (issue 9).

``bench_truth.jsonl`` (written by ``$REDECODE_SHARED/bench/make_bench_warc.py``, default ``../shared``) gives, per HTML response, the
Python codec that produced its bytes (``codec``) and how its charset was declared (``mode``). The right
text of a page is the author's text: the Encoding Standard decode of the payload under its true
encoding (a UTF-8 BOM removed, as the "decode" algorithm does), whatever the page declares; this is
what the default rules (``author-2026.12``) aim at. The key also holds what a browser shows
(``browser_digest``), which differs on ``header_wrong`` pages only: the header names the wrong
encoding and a browser follows it (the transport layer beats the meta), so a legacy page served as
``charset=utf-8`` is shown as the UTF-8 decode of its bytes, U+FFFD included, and a UTF-8 page served
as ``ISO-8859-1`` as windows-1252 (the label ``iso-8859-1`` is windows-1252). Until issue 16 (key
version 2) the key held the browser's text for those pages.

Choice: the expected text is computed with the project's reference implementation of the Encoding
Standard's decoders (``RefDecoder`` in tools/make_sample_warcs.py, written from the spec's prose and
checked there against encoding_rs' vectors), driven by the WHATWG index tables vendored in
``tests/data/whatwg/indexes.json``, not with the
project's ``redecode.decode`` (the code under test) and not with Python's codecs, whose tables
differ from the Encoding Standard's (e.g. Python's ``big5`` is not Big5-HKSCS, ``cp1252`` leaves
0x81/0x8D/0x8F/0x90/0x9D undefined, ``gbk`` lacks 0x80 = U+20AC). ``run.py`` reports how many pages the Python codec
named in the truth file would decode differently (the table differences the choice matters for).

Texts are compared through a 16-byte BLAKE2b digest of their UTF-8 (surrogates passed through), so the
key for a 300 MB crawl is a few hundred KB and can be cached beside the crawl.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path

#: Bump when the expected texts or the key's fields change (run.py rebuilds cached keys).
KEY_VERSION = 3

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
#: The folder holding bench/ (the crawl generator) and corpus/: $REDECODE_SHARED, default ../shared
#: beside the repository.
SHARED = os.path.abspath(os.environ.get("REDECODE_SHARED") or os.path.join(os.path.dirname(REPO), "shared"))
#: The WHATWG index tables: the repository's vendored copy (tests/data/whatwg/indexes.json, the
#: same revision's tables as the index-*.txt files, keyed by index name); the shared corpus's
#: index-*.txt files only if that copy is missing.
VENDORED_WHATWG_DIR = os.path.join(REPO, "tests", "data", "whatwg")
WHATWG_DIR = (VENDORED_WHATWG_DIR if os.path.isfile(os.path.join(VENDORED_WHATWG_DIR, "indexes.json"))
              else os.path.join(SHARED, "corpus", "whatwg-encoding"))

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
def _reference():
    """The project's one reference implementation of the Encoding Standard's decoders, kept apart
    from the code under test: ``RefDecoder`` of tools/make_sample_warcs.py (the sample's answer
    key uses it too), reading the normative index tables vendored in tests/data/whatwg/
    (:data:`WHATWG_DIR`)."""
    import sys

    sys.path.insert(0, os.path.join(REPO, "tools"))
    from make_sample_warcs import RefDecoder  # noqa: PLC0415

    if not os.path.isdir(WHATWG_DIR):
        raise SystemExit(f"the benchmark's answer key needs the WHATWG index tables: neither "
                         f"{VENDORED_WHATWG_DIR}/indexes.json nor {WHATWG_DIR} (set REDECODE_SHARED "
                         f"to the folder holding corpus/whatwg-encoding/) is there")
    return RefDecoder(Path(WHATWG_DIR))


def whatwg_decode(data: bytes, encoding: str) -> str:
    """Reference Encoding Standard "decode": a UTF-8 BOM wins and is removed (the benchmark's pages
    carry no UTF-16 BOM), then the encoding's decoder with replacement."""
    if data.startswith(b"\xef\xbb\xbf"):
        data, encoding = data[3:], "UTF-8"
    return _reference().decode(data, encoding)[0]


def expected_encoding(truth: dict) -> str:
    """The encoding whose decode is the author's text of this page: its true encoding."""
    return TRUTH_CODEC_TO_WHATWG[truth["codec"]]


def browser_encoding(truth: dict) -> str:
    """The encoding a browser decodes this page with (see the module docstring)."""
    if truth["mode"] == "header_wrong":
        return "UTF-8" if truth["legacy"] else "windows-1252"
    return expected_encoding(truth)


def text_digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def norm_id(record_id: str) -> str:
    return record_id.strip().strip("<>")


def build_key(warc_paths: list[str], truth_path: str) -> dict:
    """{record_id: {"digest", "browser_digest", "category", "encoding", "browser_encoding", "mode",
    "python_differs", "http_status"}} for every HTML response (``digest``: the author's text).

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
            benc = browser_encoding(t)
            browser_text = text if benc == enc else whatwg_decode(body, benc)
            if t["mode"] == "none":
                category = "undeclared-legacy" if t["legacy"] else "undeclared-utf8"
            else:
                category = "declared"
            # Would Python's codec for the true encoding have given another text? (documentation)
            py = body.decode(t["codec"], "replace")
            if py.startswith("\ufeff"):
                py = py[1:]
            key[rid] = {
                "digest": text_digest(text),
                "browser_digest": text_digest(browser_text),
                "browser_encoding": benc,
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
