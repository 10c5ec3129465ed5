"""What users run today, reproduced for the benchmark (issue 9). Not part of the library.

Each task reads the benchmark shards and prints one JSON line on stdout; ``run.py`` starts every task
in its own process and reads that process's rusage (CPU seconds, peak RSS), so the figures include
interpreter start-up and imports, as a user's script would pay them (a few tenths of a second, about
2% of a 300 MB run).

Tasks (``python tests/benchmarks/baselines.py TASK OUTDIR SHARD...``):

``gzip-zlib`` / ``gzip-isal``
    The inflate floor: every gzip member of every shard through CPython's :mod:`zlib` (or ISA-L's
    ``isal_zlib``, when the ``isal`` package is installed), read in 64 KiB chunks. Reports the uncompressed byte count, the
    denominator of every MB/s figure.
``warcio`` / ``fastwarc``
    Read every record and its whole payload (HTTP headers parsed, payload bytes read), nothing else.
``baseline-a``
    warcio + the seed article's ``decode_html`` + pyarrow zstd Parquet of the text.
``baseline-b``
    FastWARC + Resiliparse's ``bytes_to_str`` + the same Parquet writer.
``floor``
    What any such job pays at least: FastWARC, one codec decode per text record (the header's
    charset when Python knows it, else UTF-8 with replacement; no decision, not scored) and Parquet
    of the text as the job writes it (zstd level 1, no dictionary and no statistics for ``text``,
    the column built from one UTF-8 buffer, a valid UTF-8 body used as it is).

Both baselines decode the same records as ``redecode run``: ``response`` records whose Content-Type is
``text/*``, ``application/xhtml+xml``, ``application/xml`` or ``+xml`` (the issue "The re-decode job
end to end"); every other record is read and dropped. Their Parquet has ``record_id``, ``target_uri``,
``encoding``, ``text``, written with pyarrow's defaults plus zstd (what a user writes), in row groups
of about 32 MiB of text, as the job does.

Baseline A, ``decode_html`` (the article the project started from; also the rules ``seed-2026.10``):
BOM (UTF-8, UTF-16) -> a ``charset=`` regex on the Content-Type header -> a ``<meta ... charset=``
regex over the first 1024 bytes -> the label map below, else ``codecs.lookup`` -> strict UTF-8 ->
charset_normalizer's best guess -> cp1252. A declared codec decodes with ``errors="replace"`` (the
article trusts a declaration); a label Python does not know falls through to the next step.

Baseline B follows Resiliparse's documented recipe: FastWARC's ``record.http_charset`` (the header's
charset) remapped with ``map_encoding_to_html5``, else ``detect_encoding(body, from_html_meta=True)``
(meta in the first 1024 bytes, else uchardet), then ``bytes_to_str(body, encoding)`` (which falls
back to UTF-8 and windows-1252 when the bytes do not decode, and strips a BOM).
"""

from __future__ import annotations

import codecs
import json
import os
import re
import sys
import time

ROW_GROUP_TEXT_BYTES = 32 * 1024 * 1024

# --------------------------------------------------------------------------------------------
# shared: which records are text, and the Parquet writer both baselines use
# --------------------------------------------------------------------------------------------


def is_text_mime(content_type: str | None) -> bool:
    """True for the media types the job decodes (text/*, xhtml, xml, +xml)."""
    if not content_type:
        return False
    essence = content_type.split(";", 1)[0].strip().lower()
    return (
        essence.startswith("text/")
        or essence in ("application/xhtml+xml", "application/xml")
        or essence.endswith("+xml")
    )


class TextParquet:
    """pyarrow zstd Parquet of (record_id, target_uri, encoding, text), row groups by text bytes."""

    def __init__(self, path: str) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        self._pa = pa
        self.schema = pa.schema(
            [
                ("record_id", pa.string()),
                ("target_uri", pa.string()),
                ("encoding", pa.string()),
                ("text", pa.string()),
            ]
        )
        self.writer = pq.ParquetWriter(path, self.schema, compression="zstd")
        self.cols: tuple[list, list, list, list] = ([], [], [], [])
        self.size = 0
        self.rows = 0

    def write(self, record_id: str, uri: str, encoding: str, text: str) -> None:
        for col, value in zip(self.cols, (record_id, uri, encoding, text)):
            col.append(value)
        self.size += len(text)
        if self.size >= ROW_GROUP_TEXT_BYTES:
            self.flush()

    def flush(self) -> None:
        if self.cols[0]:
            arrays = [self._pa.array(c, type=self._pa.string()) for c in self.cols]
            self.writer.write_table(self._pa.Table.from_arrays(arrays, schema=self.schema))
            self.rows += len(self.cols[0])
            self.cols = ([], [], [], [])
            self.size = 0

    def close(self) -> None:
        self.flush()
        self.writer.close()


# --------------------------------------------------------------------------------------------
# baseline A: the seed article's decode_html
# --------------------------------------------------------------------------------------------

_HEADER_CHARSET = re.compile(r"charset=[\"']?([\w.:-]+)", re.I)
_META_CHARSET = re.compile(rb"<meta[^>]*?charset=[\"']?([\w.:-]+)", re.I)
# The article's label map (as issue 3 lists it), applied before codecs.lookup.
_SEED_LABELS = {
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "ascii": "cp1252",
    "us-ascii": "cp1252",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "shift_jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "windows-31j": "cp932",
    "euc-kr": "cp949",
    "ks_c_5601-1987": "cp949",
    "big5": "big5hkscs",
}


def _seed_codec(label: str) -> str | None:
    label = label.strip().lower()
    label = _SEED_LABELS.get(label, label)
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def decode_html(body: bytes, content_type: str | None) -> tuple[str, str]:
    """The seed article's decoder: returns (text, Python codec name)."""
    if body.startswith(codecs.BOM_UTF8):
        return body[3:].decode("utf-8", "replace"), "utf-8"
    if body.startswith(codecs.BOM_UTF16_LE):
        return body[2:].decode("utf-16-le", "replace"), "utf-16-le"
    if body.startswith(codecs.BOM_UTF16_BE):
        return body[2:].decode("utf-16-be", "replace"), "utf-16-be"
    m = _HEADER_CHARSET.search(content_type or "")
    if m:
        codec = _seed_codec(m.group(1))
        if codec:
            return body.decode(codec, "replace"), codec
    m = _META_CHARSET.search(body[:1024])
    if m:
        codec = _seed_codec(m.group(1).decode("ascii", "replace"))
        if codec:
            return body.decode(codec, "replace"), codec
    try:
        return body.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    import charset_normalizer

    best = charset_normalizer.from_bytes(body).best()
    if best is not None:
        return str(best), best.encoding
    return body.decode("cp1252", "replace"), "cp1252"


def task_baseline_a(outdir: str, shards: list[str]) -> dict:
    from warcio.archiveiterator import ArchiveIterator

    n_records = n_text = 0
    for i, shard in enumerate(shards):
        out = TextParquet(os.path.join(outdir, f"part-{i:03d}.parquet"))
        with open(shard, "rb") as fh:
            for record in ArchiveIterator(fh):
                n_records += 1
                if record.rec_type != "response" or record.http_headers is None:
                    continue
                ct = record.http_headers.get_header("Content-Type")
                if not is_text_mime(ct):
                    continue
                body = record.content_stream().read()
                text, codec = decode_html(body, ct)
                out.write(
                    record.rec_headers.get_header("WARC-Record-ID"),
                    record.rec_headers.get_header("WARC-Target-URI"),
                    codec,
                    text,
                )
                n_text += 1
        out.close()
    return {"records": n_records, "text_records": n_text}


# --------------------------------------------------------------------------------------------
# baseline B: FastWARC + Resiliparse
# --------------------------------------------------------------------------------------------


def task_baseline_b(outdir: str, shards: list[str]) -> dict:
    from fastwarc.warc import ArchiveIterator, WarcRecordType
    from resiliparse.parse.encoding import bytes_to_str, detect_encoding, map_encoding_to_html5

    n_records = n_text = 0
    for i, shard in enumerate(shards):
        out = TextParquet(os.path.join(outdir, f"part-{i:03d}.parquet"))
        # Only responses, as FastWARC's documentation recommends (the filter skips the other
        # records without parsing them, so the baseline is as fast as users make it).
        for record in ArchiveIterator(shard, record_types=WarcRecordType.response):
            n_records += 1
            if not record.is_http:
                continue
            if not is_text_mime(record.http_content_type):
                continue
            body = record.reader.read()
            charset = record.http_charset
            if charset:
                encoding = map_encoding_to_html5(charset)
            else:
                encoding = detect_encoding(body, from_html_meta=True)
            text = bytes_to_str(body, encoding)
            out.write(record.record_id, record.headers.get("WARC-Target-URI"), encoding, text)
            n_text += 1
        out.close()
    return {"records": n_records, "text_records": n_text}


def task_floor(outdir: str, shards: list[str]) -> dict:
    import array
    import itertools

    import pyarrow as pa
    import pyarrow.parquet as pq
    from fastwarc.warc import ArchiveIterator, WarcRecordType

    def text_array(values: list[bytes]) -> pa.StringArray:
        # as redecode's writer builds it: one UTF-8 buffer and its offsets, no per-str conversion
        offsets = array.array("i", [0])
        offsets.extend(itertools.accumulate(len(v) for v in values))
        return pa.StringArray.from_buffers(len(values), pa.py_buffer(offsets), pa.py_buffer(b"".join(values)))

    n_text = 0
    for i, shard in enumerate(shards):
        schema = pa.schema([("record_id", pa.string()), ("target_uri", pa.string()),
                            ("encoding", pa.string()), ("text", pa.string())])
        small = ["record_id", "target_uri", "encoding"]
        writer = pq.ParquetWriter(os.path.join(outdir, f"part-{i:03d}.parquet"), schema,
                                  compression="zstd", compression_level=1, use_dictionary=small,
                                  write_statistics=small)
        cols: tuple[list, list, list, list] = ([], [], [], [])
        size = 0

        def flush() -> None:
            arrays = [pa.array(c, pa.string()) for c in cols[:3]] + [text_array(cols[3])]
            writer.write_table(pa.Table.from_arrays(arrays, schema=schema))
            for c in cols:
                c.clear()

        for record in ArchiveIterator(shard, record_types=WarcRecordType.response):
            if not record.is_http or not is_text_mime(record.http_content_type):
                continue
            body = record.reader.read()
            codec = record.http_charset or "utf-8"
            try:
                text = body.decode(codec)
                # a valid UTF-8 body is its own UTF-8 text (the job's writer skips the re-encode too)
                raw = body if codecs.lookup(codec).name == "utf-8" else text.encode("utf-8")
            except (LookupError, UnicodeDecodeError) as exc:
                if isinstance(exc, LookupError):
                    codec = "utf-8"
                text = body.decode(codec, "replace")
                raw = text.encode("utf-8", "replace")
            for col, value in zip(cols, (record.record_id, record.headers.get("WARC-Target-URI"), codec, raw)):
                col.append(value)
            size += len(raw)
            n_text += 1
            if size >= ROW_GROUP_TEXT_BYTES:
                flush()
                size = 0
        flush()
        writer.close()
    return {"text_records": n_text}


def task_floor_parquet(outdir: str, shards: list[str]) -> dict:
    """The floor that counts: inflate every record (FastWARC), touch every payload byte of the
    records the job decodes, and write those payload bytes as the job's text column, in the job's
    Parquet: its schema (every column; those a record gives for free filled, the rest null), its
    codec and level, its dictionary and statistics settings, its data page version and its row-group budget
    (:class:`redecode.writer.PartWriter`'s, counted the same way). No decision, no decode, no
    check: any job that writes this Parquet from these records pays at least this."""
    import array
    import itertools

    import pyarrow as pa
    import pyarrow.parquet as pq
    from fastwarc.warc import ArchiveIterator, WarcRecordType
    from redecode.schema import COLUMNS, SCHEMA, TEXT_COLUMNS
    from redecode.writer import DATA_PAGE_VERSION, DEFAULT_COMPRESSION_LEVEL, DEFAULT_ROW_GROUP_BYTES, row_cost

    filled = ("record_id", "warc_path", "warc_offset", "target_uri", "warc_date", "http_status",
              "content_type", "payload_length", "payload_digest", "record_type", "status")
    index = {c: i for i, c in enumerate(filled)}
    small = [c for c in COLUMNS if c not in TEXT_COLUMNS]
    n_rows = n_text = 0
    for i, shard in enumerate(shards):
        writer = pq.ParquetWriter(os.path.join(outdir, f"part-{i:03d}.parquet"), SCHEMA, compression="zstd",
                                  compression_level=DEFAULT_COMPRESSION_LEVEL, use_dictionary=small,
                                  write_statistics=small, data_page_version=DATA_PAGE_VERSION)
        cols: list[list] = [[] for _ in filled]
        texts: list[bytes | None] = []
        size = 0

        def flush() -> None:
            n = len(texts)
            offsets = array.array("i", [0])
            offsets.extend(itertools.accumulate(len(t) if t is not None else 0 for t in texts))
            valid = pa.array([t is not None for t in texts], pa.bool_()).buffers()[1]  # (bool: also when empty)
            arrays = []
            for name, typ, in zip(SCHEMA.names, SCHEMA.types):
                if name == "text":
                    arrays.append(pa.StringArray.from_buffers(
                        n, pa.py_buffer(offsets), pa.py_buffer(b"".join(t for t in texts if t is not None)), valid))
                elif name in index:
                    arrays.append(pa.array(cols[index[name]], typ))
                else:
                    arrays.append(pa.nulls(n, typ))
            writer.write_table(pa.Table.from_arrays(arrays, schema=SCHEMA))
            for c in cols:
                c.clear()
            texts.clear()

        kinds = WarcRecordType.response | WarcRecordType.resource | WarcRecordType.revisit
        for record in ArchiveIterator(shard, record_types=kinds):
            body = record.reader.read()
            text = None
            if record.is_http and is_text_mime(record.http_content_type):
                body.count(0)  # every payload byte read once, as any decision or decoder must
                text = body
            h = record.headers
            for col, value in zip(cols, (record.record_id, shard, record.stream_pos, h.get("WARC-Target-URI"),
                                         h.get("WARC-Date"), record.http_headers.status_code if record.is_http else None,
                                         record.http_content_type, len(body), h.get("WARC-Payload-Digest"),
                                         h.get("WARC-Type"), "decoded" if text is not None else "skipped")):
                col.append(value)
            texts.append(text)
            n_rows += 1
            n_text += text is not None
            size += row_cost(len(text) if text is not None else 0)
            if size >= DEFAULT_ROW_GROUP_BYTES:
                flush()
                size = 0
        flush()
        writer.close()
    return {"rows": n_rows, "text_records": n_text}


# --------------------------------------------------------------------------------------------
# floors: inflate only, read only
# --------------------------------------------------------------------------------------------


def _inflate_all(shards: list[str], zlib_mod) -> dict:
    # 64 KiB reads: a member's leftover (``unused_data``) is copied into the next decompressor, so
    # with 1 MiB reads 60-67% of the row's instructions went to copying leftovers (issue 20), which
    # understated inflate speed ~2.5x; with 64 KiB reads the copies are a few percent.
    total = members = 0
    chunk = 1 << 16
    for shard in shards:
        with open(shard, "rb") as fh:
            d = zlib_mod.decompressobj(31)
            data = fh.read(chunk)
            while data:
                total += len(d.decompress(data))
                while d.eof:  # one gzip member per record: start the next one on the leftover
                    members += 1
                    rest = d.unused_data
                    d = zlib_mod.decompressobj(31)
                    if not rest:
                        break
                    total += len(d.decompress(rest))
                data = fh.read(chunk)
    return {"uncompressed_bytes": total, "gzip_members": members}


def task_gzip_zlib(outdir: str, shards: list[str]) -> dict:
    import zlib

    return _inflate_all(shards, zlib)


def task_gzip_isal(outdir: str, shards: list[str]) -> dict:
    from isal import isal_zlib

    return _inflate_all(shards, isal_zlib)


def task_warcio(outdir: str, shards: list[str]) -> dict:
    from warcio.archiveiterator import ArchiveIterator

    n = size = 0
    for shard in shards:
        with open(shard, "rb") as fh:
            for record in ArchiveIterator(fh):
                size += len(record.content_stream().read())
                n += 1
    return {"records": n, "payload_bytes": size}


def task_fastwarc(outdir: str, shards: list[str]) -> dict:
    from fastwarc.warc import ArchiveIterator

    n = size = 0
    for shard in shards:
        for record in ArchiveIterator(shard):
            size += len(record.reader.read())
            n += 1
    return {"records": n, "payload_bytes": size}


TASKS = {
    "gzip-zlib": task_gzip_zlib,
    "gzip-isal": task_gzip_isal,
    "warcio": task_warcio,
    "fastwarc": task_fastwarc,
    "baseline-a": task_baseline_a,
    "baseline-b": task_baseline_b,
    "floor": task_floor,
    "floor-parquet": task_floor_parquet,
}


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[0] not in TASKS:
        print(f"usage: baselines.py {{{','.join(TASKS)}}} OUTDIR SHARD...", file=sys.stderr)
        return 2
    task, outdir, shards = argv[0], argv[1], argv[2:]
    os.makedirs(outdir, exist_ok=True)
    t0 = time.perf_counter()
    result = TASKS[task](outdir, shards)
    result["task_wall_s"] = time.perf_counter() - t0
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
