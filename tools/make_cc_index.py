#!/usr/bin/env python3
"""Build a Common Crawl-shaped record index of WARC files: CDXJ lines and a columnar Parquet table.

For tests and benchmarks of ``redecode run --index`` (issue 26): the same records in the formats
Common Crawl publishes, so a selection can be made from either and compared.

- CDXJ (``--cdxj OUT[.gz]``), one line per response, revisit and resource record, in Common
  Crawl's line format: ``SURT TIMESTAMP {"url", "mime", "mime-detected", "status", "digest",
  "length", "offset", "filename", "charset", "languages"}``, sorted by SURT and timestamp as a
  CDX index is.
- Parquet (``--parquet DIR``): ``DIR/crawl=<crawl>/subset=warc/part-00000.parquet`` with the
  columns of Common Crawl's columnar index (cc-index-table's schema) that this tool can fill:
  ``url_surtkey``, ``url``, ``url_host_name``, ``url_host_tld``, ``url_protocol``, ``url_path``,
  ``url_query``, ``fetch_time`` (timestamp), ``fetch_status`` (int16), ``content_digest``,
  ``content_mime_type``, ``content_mime_detected``, ``content_charset``, ``content_languages``,
  ``warc_filename``, ``warc_record_offset``, ``warc_record_length`` (int32, as Common Crawl's),
  ``warc_segment``; ``crawl`` and ``subset`` are the Hive-style partition folders.

Where the values come from, independent of redecode: offsets and lengths from warcio's indexer
(``ArchiveIterator.get_record_offset``/``get_record_length``, what ``warcio index`` and
``cdxj-indexer`` write); ``content_charset`` is the Content-Type ``charset`` parameter, else the
first ``<meta ... charset=`` in the first 1024 bytes, upper-cased as Common Crawl's are (Common
Crawl detects it; any deterministic value serves a selection); ``content_languages`` the
``<html lang>`` as ISO 639-3 (``en`` -> ``eng``; Common Crawl runs CLD2); ``content_mime_detected``
is the declared type's essence. ``warc_filename`` is the file's path relative to ``--root``
(default: its folder), as Common Crawl's are relative to its bucket.

Usage::

    python tools/make_cc_index.py WARC... [--root DIR] [--crawl CC-MAIN-2026-44]
        [--cdxj OUT.cdxj.gz] [--parquet DIR] [--every N]

``--every N`` keeps every N-th record only (a selection of 1/N of the records, the same in both
formats). Needs warcio and pyarrow (the job's own dependencies).
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import hashlib
import json
import os
import re
import sys
from urllib.parse import urlsplit

from warcio.archiveiterator import ArchiveIterator

INDEXED_TYPES = ("response", "revisit", "resource")
_META_CHARSET = re.compile(rb"<meta[^>]*?charset\s*=\s*[\"']?\s*([A-Za-z0-9._:-]+)", re.I)
_HTML_LANG = re.compile(rb"<html[^>]*?\slang\s*=\s*[\"']?([A-Za-z]{2,3})", re.I)
#: ISO 639-1 -> 639-3 for the languages of the benchmark crawl and the sample (CLD2 writes 639-3)
ISO639_3 = {"en": "eng", "de": "deu", "fr": "fra", "es": "spa", "pt": "por", "it": "ita", "pl": "pol",
            "tr": "tur", "vi": "vie", "ru": "rus", "ja": "jpn", "zh": "zho", "ko": "kor", "ar": "ara",
            "hi": "hin", "uk": "ukr", "cs": "ces", "el": "ell", "he": "heb", "th": "tha", "nl": "nld"}


def surt(url: str) -> str:
    """The SURT form of ``url`` as CDX indexes key it (host reversed, ``www.`` dropped, lower case):
    ``http://www.Example.com/a?b`` -> ``com,example)/a?b``."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if host.startswith("www."):
        host = host[4:]
    key = ",".join(reversed(host.split("."))) + ")" + (parts.path or "/").lower()
    return key + ("?" + parts.query.lower() if parts.query else "")


def _charset(content_type: str | None, body: bytes) -> str | None:
    if content_type:
        for param in content_type.split(";")[1:]:
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "charset" and value.strip().strip("\"'"):
                return value.strip().strip("\"'").upper()
    m = _META_CHARSET.search(body[:1024])
    return m.group(1).decode("ascii").upper() if m else None


def index_rows(path: str, filename: str, segment: str | None = None) -> list[dict]:
    """One dict per indexed record of the WARC ``path`` (Common Crawl's columnar names),
    ``filename`` as its ``warc_filename``."""
    rows = []
    with open(path, "rb") as fh:
        it = ArchiveIterator(fh)
        for record in it:
            if record.rec_type not in INDEXED_TYPES:
                continue
            uri = record.rec_headers.get_header("WARC-Target-URI") or ""
            date = record.rec_headers.get_header("WARC-Date") or ""
            ct = record.http_headers.get_header("Content-Type") if record.http_headers else None
            status = record.http_headers.get_statuscode() if record.http_headers else None
            body = record.content_stream().read(1 << 16) if record.rec_type != "revisit" else b""
            offset = it.get_record_offset()
            it.read_to_end(record)
            length = it.get_record_length()
            lang = _HTML_LANG.search(body[:4096])
            mime = (ct or "").split(";")[0].strip().lower() or None
            parts = urlsplit(uri)
            when = dt.datetime.strptime(date[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=dt.timezone.utc) if date else None
            rows.append({
                "url_surtkey": surt(uri),
                "url": uri,
                "url_host_name": parts.hostname,
                "url_host_tld": (parts.hostname or "").rsplit(".", 1)[-1] or None,
                "url_protocol": parts.scheme,
                "url_path": parts.path,
                "url_query": parts.query or None,
                "fetch_time": when,
                "fetch_status": int(status) if status and status.isdigit() else None,
                "content_digest": (record.rec_headers.get_header("WARC-Payload-Digest") or "").removeprefix("sha1:") or None,
                "content_mime_type": mime if record.rec_type != "revisit" else "warc/revisit",
                "content_mime_detected": mime,
                "content_charset": _charset(ct, body) if record.rec_type == "response" else None,
                "content_languages": ISO639_3.get(lang.group(1).decode().lower()[:2]) if lang else None,
                "warc_filename": filename,
                "warc_record_offset": offset,
                "warc_record_length": length,
                "warc_segment": segment,
            })
    return rows


def build(paths: list[str], *, root: str | None = None, every: int = 1) -> list[dict]:
    """The rows of every WARC of ``paths`` (``warc_filename`` relative to ``root``; every
    ``every``-th record of each file kept), sorted as a CDX index: by SURT, then time."""
    rows = []
    for path in paths:
        name = os.path.relpath(path, root) if root else os.path.basename(path)
        seg = name.split("/segments/")[1].split("/")[0] if "/segments/" in name else None
        rows.extend(index_rows(path, name.replace(os.sep, "/"), seg)[::every])
    rows.sort(key=lambda r: (r["url_surtkey"], r["fetch_time"] or dt.datetime.min.replace(tzinfo=dt.timezone.utc),
                             r["warc_filename"], r["warc_record_offset"]))
    return rows


def cdxj_line(row: dict) -> str:
    """Common Crawl's CDXJ line of a row."""
    fields = {"url": row["url"], "mime": row["content_mime_type"], "mime-detected": row["content_mime_detected"],
              "status": None if row["fetch_status"] is None else str(row["fetch_status"]),
              "digest": row["content_digest"], "length": str(row["warc_record_length"]),
              "offset": str(row["warc_record_offset"]), "filename": row["warc_filename"],
              "charset": row["content_charset"], "languages": row["content_languages"]}
    stamp = row["fetch_time"].strftime("%Y%m%d%H%M%S") if row["fetch_time"] else "-"
    return f"{row['url_surtkey']} {stamp} {json.dumps({k: v for k, v in fields.items() if v is not None})}"


def write_cdxj(rows: list[dict], out: str) -> None:
    """The rows as CDXJ, gzip when ``out`` ends in ``.gz``."""
    text = "".join(cdxj_line(r) + "\n" for r in rows).encode("utf-8")
    with open(out, "wb") as fh:
        fh.write(gzip.compress(text, mtime=0) if out.endswith(".gz") else text)


def write_parquet(rows: list[dict], directory: str, *, crawl: str = "CC-MAIN-2026-44", subset: str = "warc") -> str:
    """The rows as ``directory/crawl=<crawl>/subset=<subset>/part-00000.parquet``; returns its path."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([
        ("url_surtkey", pa.string()), ("url", pa.string()), ("url_host_name", pa.string()),
        ("url_host_tld", pa.string()), ("url_protocol", pa.string()), ("url_path", pa.string()),
        ("url_query", pa.string()), ("fetch_time", pa.timestamp("ms", tz="UTC")), ("fetch_status", pa.int16()),
        ("content_digest", pa.string()), ("content_mime_type", pa.string()), ("content_mime_detected", pa.string()),
        ("content_charset", pa.string()), ("content_languages", pa.string()), ("warc_filename", pa.string()),
        ("warc_record_offset", pa.int32()), ("warc_record_length", pa.int32()), ("warc_segment", pa.string()),
    ])
    folder = os.path.join(directory, f"crawl={crawl}", f"subset={subset}")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "part-00000.parquet")
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path, compression="zstd")
    return path


def selection_key(row: dict) -> int:
    """A deterministic number per record (SHA-256 of file name and offset), to pick a fraction."""
    digest = hashlib.sha256(f"{row['warc_filename']}#{row['warc_record_offset']}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("warcs", nargs="+")
    parser.add_argument("--root", default=None, help="warc_filename is the path relative to this folder")
    parser.add_argument("--crawl", default="CC-MAIN-2026-44")
    parser.add_argument("--cdxj", default=None, help="write CDXJ here (.gz: gzip)")
    parser.add_argument("--parquet", default=None, help="write the columnar table under this folder")
    parser.add_argument("--every", type=int, default=1, help="keep every N-th record of each file")
    args = parser.parse_args(argv)
    rows = build(args.warcs, root=args.root, every=args.every)
    if args.cdxj:
        write_cdxj(rows, args.cdxj)
    if args.parquet:
        write_parquet(rows, args.parquet, crawl=args.crawl)
    print(f"{len(rows)} records of {len(args.warcs)} file(s) indexed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
