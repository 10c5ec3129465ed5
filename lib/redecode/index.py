"""Record indexes: which records of which files a run reads, from a CDX, CDXJ or columnar index.

Contract. :func:`read_index` reads one or more indexes and gives an :class:`Index`: for each
file the index names, the records selected in it as :class:`redecode.record.Spans` (offset,
length; sorted by offset, each record once), in file-name order, ready to be read by
:func:`redecode.archive.read_records_at`. Nothing here opens an archive.

Index formats (told from the bytes, never the name; gzip, also as many members as Common Crawl's
and pywb's ZipNum shards are, is inflated first):

- **CDXJ** (pywb, Common Crawl's ``cdx-*.gz``, a WACZ's ``indexes/``): ``SURT TIMESTAMP {JSON}``
  per line; the JSON's ``filename``, ``offset`` and ``length`` locate the record (OpenWayback's
  and pywb's "CDXJ" format; the key names pywb's indexer writes).
- **CDX** (the IA/OpenWayback 9- and 11-field formats): space-separated fields named by the
  header line `` CDX N b a m s k r M S V g`` (``g`` file name, ``V`` offset, ``S`` length; without
  a header: 11 fields as above, 9 fields ``N b a m s k r V g``, no length).
- **Parquet** with the columns of Common Crawl's columnar index (``warc_filename``,
  ``warc_record_offset``, ``warc_record_length``; the others optional), a file or a directory of
  them (Hive-style partition folders such as ``crawl=CC-MAIN-2024-10/subset=warc/`` become columns).

Lines starting ``!`` (pywb's ``!meta``) and blank lines are skipped; a ZipNum secondary index
(``.idx``: lines locating blocks, no file names) is refused with what to give instead. An index
may be a local path or a URL (:mod:`redecode.storage`), a file or a directory (searched
recursively for :data:`INDEX_SUFFIXES`).

Where the records are: ``prefix`` (``--prefix``) is prepended to each file name as written
(``s3://commoncrawl/`` before Common Crawl's ``crawl-data/...``); then a relative name is relative
to the index file's folder, as an ``@LIST``'s lines are (:func:`redecode.inputs.list_entry`). A
WACZ given as the index is read through its own index (``indexes/``), whose file names are those
of its ``archive/`` (:mod:`redecode.wacz`: ``CRAWL.wacz#archive/NAME``).

``where`` (``--where``): an SQL condition over the index's columns (Common Crawl's names; a
CDX(J) index has them too: ``url_surtkey``, ``fetch_time`` (the 14-digit timestamp as text),
``url``, ``content_mime_type``, ``content_mime_detected``, ``fetch_status``, ``content_digest``,
``content_charset``, ``content_languages``, ``warc_filename``, ``warc_record_offset``,
``warc_record_length``, and any other JSON key with ``-`` written ``_``), evaluated by DuckDB in
:func:`redecode.query.select_index` before any archive is opened. Only that function imports
DuckDB; an index read without ``where`` never does.

Deviations: a record named twice (the same file and offset) is read once; ``entries`` counts both.
"""

from __future__ import annotations

import gzip
import io
import itertools
import json
import os
from array import array
from collections.abc import Iterator

from . import storage, wacz
from .dataclass_code import dataclass
from .inputs import list_entry
from .record import Spans

__all__ = ["CDX_FIELDS", "INDEX_SUFFIXES", "Index", "IndexError_", "LOCATION_COLUMNS", "read_index"]

#: File name endings a directory of indexes is searched for (and Common Crawl's ``cdx-NNNNN.gz``).
INDEX_SUFFIXES = (".cdx", ".cdxj", ".cdx.gz", ".cdxj.gz", ".parquet")

#: The columns that locate a record, as Common Crawl's columnar index names them.
LOCATION_COLUMNS = ("warc_filename", "warc_record_offset", "warc_record_length")

#: CDX field letters (the header line `` CDX N b a m s k r M S V g``) -> column.
CDX_FIELDS = {
    "N": "url_surtkey", "b": "fetch_time", "a": "url", "m": "content_mime_type", "s": "fetch_status",
    "k": "content_digest", "r": "redirect", "M": "robot_flags", "S": "warc_record_length",
    "V": "warc_record_offset", "g": "warc_filename",
}
#: CDXJ JSON keys (pywb's, Common Crawl's) -> column; other keys keep their name, ``-`` as ``_``.
CDXJ_KEYS = {
    "url": "url", "mime": "content_mime_type", "mime-detected": "content_mime_detected",
    "status": "fetch_status", "digest": "content_digest", "length": "warc_record_length",
    "offset": "warc_record_offset", "filename": "warc_filename", "charset": "content_charset",
    "languages": "content_languages",
}
_HEADERLESS = {11: "N b a m s k r M S V g".split(), 9: "N b a m s k r V g".split()}
_INTEGER_COLUMNS = ("warc_record_offset", "warc_record_length", "fetch_status")


class IndexError_(ValueError):  # noqa: N801 - IndexError is Python's own
    """An index that cannot be read: the message names the file, the line and what to do."""


@dataclass(frozen=True, slots=True)
class Index:
    """What :func:`read_index` read: ``files``, ``(path, spans)`` per file named, by path (the
    prefix applied, relative names resolved); ``entries`` the index lines or rows selected (after
    ``where``, repeats included); ``sources`` the index files read; ``where``, ``prefix`` and
    ``given`` (the index locations: files, directories, WACZs, URLs) as given."""

    files: tuple[tuple[str, Spans], ...]
    entries: int
    sources: tuple[str, ...]
    where: str | None = None
    prefix: str | None = None
    given: tuple[str, ...] = ()

    @property
    def selected(self) -> int:
        """Records selected: each (file, offset) once."""
        return sum(len(spans) for _, spans in self.files)

    def to_json(self) -> dict:
        """The manifest's ``index``: sources (the first 100), their count, ``where``, ``prefix``,
        ``entries``, ``selected``, ``files`` (how many)."""
        return {"sources": list(self.sources[:100]), "source_count": len(self.sources), "where": self.where,
                "prefix": self.prefix, "entries": self.entries, "selected": self.selected,
                "files": len(self.files)}


def read_index(index: str | list[str], *, prefix: str | None = None, where: str | None = None) -> Index:
    """Read the index (or indexes) ``index`` (see the module docstring): local paths or URLs,
    files or directories. ``prefix`` is prepended to every file name the index holds; ``where``
    selects rows by an SQL condition (DuckDB, :func:`redecode.query.select_index`).

    Raises :class:`FileNotFoundError` for an index that does not exist (or a directory holding
    none), :class:`IndexError_` for one that cannot be read (its file and line in the message),
    :class:`IndexError_` too for a ``where`` DuckDB refuses (its words in the message).
    """
    specs = [index] if isinstance(index, str) else list(index)
    sources = [src for spec in specs for src in _expand(spec)]
    texts, parquet = [], []
    for src in sources:
        with storage.open_input(src) as fh:
            magic = fh.read(4)
        if magic == b"PAR1":
            parquet.append(src)
        else:
            texts.append((src, _text_rows(src)))
    if where is not None:
        from .query import QueryError, select_index  # noqa: PLC0415 - DuckDB, for --where only

        try:
            batches = select_index(where, parquet=parquet, tables=[_text_table(src, rows) for src, rows in texts])
            files, entries = _group_batches(batches, prefix)
        except QueryError as exc:
            raise IndexError_(str(exc)) from None
    elif parquet:
        batches = itertools.chain((_location_batch(_text_table(src, rows)) for src, rows in texts),
                                  (batch for src in parquet for batch in _parquet_locations(src)))
        files, entries = _group_batches(batches, prefix)
    else:
        # text indexes alone: grouped here, without Arrow's compute functions (their import alone
        # costs more than reading a small index)
        files, entries = _group_rows(texts, prefix), sum(len(rows) for _, rows in texts)
    return Index(files=files, entries=entries, sources=tuple(sources), where=where, prefix=prefix,
                 given=tuple(specs))


# ---------------------------------------------------------------------------------------------
# finding and reading the index files


def _expand(spec: str) -> list[str]:
    """The index files ``spec`` names: itself, the files under a directory (prefix) whose names
    end in :data:`INDEX_SUFFIXES`, sorted, or a WACZ's own (:func:`redecode.wacz.index_members`)."""
    spec = storage.local_path(spec)
    if wacz.is_wacz(spec):
        try:
            found = wacz.index_members(spec)
        except ValueError as exc:
            raise IndexError_(f"--index {spec}: {exc}") from None
        if not found:
            raise IndexError_(f"--index {spec}: a WACZ without an index under {wacz.INDEX_FOLDER} "
                              "(run it in full: redecode run CRAWL.wacz)")
        return found
    if storage.is_remote(spec):
        if storage.isfile(spec):
            return [spec]
        found = sorted(u for u in storage.find(spec) if _is_index_name(u)) if storage.isdir(spec) else []
    elif os.path.isfile(spec):
        return [spec]
    elif os.path.isdir(spec):
        found = sorted(os.path.join(d, n) for d, _, names in os.walk(spec, followlinks=True)
                       for n in names if _is_index_name(n))
    else:
        raise FileNotFoundError(f"--index {spec}: no such file or directory")
    if not found:
        raise FileNotFoundError(f"--index {spec}: no index file in it (names ending in "
                                f"{', '.join(INDEX_SUFFIXES)})")
    return found


def _is_index_name(name: str) -> bool:
    base = name.rstrip("/").rsplit("/", 1)[-1].lower()
    if base.startswith(("_", ".")):
        return False
    # (Common Crawl names its CDXJ shards cdx-00000.gz ... cdx-00299.gz, beside cluster.idx)
    return base.endswith(INDEX_SUFFIXES) or (base.startswith("cdx-") and base.endswith(".gz"))


def _lines(src: str) -> Iterator[bytes]:
    """The lines of a text index, inflated when gzip (any number of members)."""
    with storage.open_input(src) as raw:
        head = raw.read(2)
        raw.seek(0)
        stream = gzip.GzipFile(fileobj=raw) if head == b"\x1f\x8b" else raw
        try:
            yield from io.BufferedReader(stream, 1 << 20) if stream is raw else stream
        except (OSError, EOFError) as exc:
            raise IndexError_(f"--index {src}: a gzip index that does not inflate ({exc})") from None


def _text_rows(src: str) -> list[dict]:
    """A CDX or CDXJ index's lines as dicts with Common Crawl's column names."""
    rows: list[dict] = []
    letters: list[str] | None = None
    for number, line in enumerate(_lines(src), 1):
        text = line.strip()
        if not text or text.startswith(b"!"):
            continue
        try:
            decoded = text.decode("utf-8")
        except UnicodeDecodeError:
            decoded = text.decode("latin-1")
        if decoded.startswith("CDX "):
            letters = decoded.split()[1:]
            continue
        first, _, rest = decoded.partition(" ")
        stamp, _, body = rest.partition(" ")
        if body.startswith("{"):
            rows.append(_cdxj_row(src, number, first, stamp, body))
        else:
            rows.append(_cdx_row(src, number, decoded.split(" "), letters))
    if not rows:
        raise IndexError_(f"--index {src}: no index line in it (a CDX or CDXJ index, or Parquet)")
    return rows


def _text_table(src: str, rows: list[dict]):
    """The rows of a CDX or CDXJ index (:func:`_text_rows`) as an Arrow table, plus ``_source``
    (the index file, for relative file names)."""
    import pyarrow as pa  # noqa: PLC0415

    names: dict[str, None] = dict.fromkeys(LOCATION_COLUMNS)  # (a 9-field CDX has no length)
    for row in rows:
        names.update(dict.fromkeys(row))
    columns = {}
    for name in names:
        values = [row.get(name) for row in rows]
        columns[name] = pa.array(values, pa.int64() if name in _INTEGER_COLUMNS else pa.string())
    columns["_source"] = pa.array([src] * len(rows), pa.string())
    return pa.table(columns)


def _integer(src: str, number: int, name: str, value) -> int | None:
    if value is None or value == "-" or value == "":
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise IndexError_(f"--index {src}: line {number}: {name} {value!r} is not a number") from None


def _cdxj_row(src: str, number: int, surt: str, stamp: str, body: str) -> dict:
    try:
        fields = json.loads(body)
    except ValueError as exc:
        raise IndexError_(f"--index {src}: line {number}: not a CDXJ line (its JSON: {exc})") from None
    if not isinstance(fields, dict):
        raise IndexError_(f"--index {src}: line {number}: not a CDXJ line (its JSON is not an object)")
    if "filename" not in fields:
        if "offset" in fields and "length" in fields:
            raise IndexError_(f"--index {src}: line {number}: a ZipNum secondary index (.idx: blocks, "
                              "no file names); give the .cdx.gz it locates blocks of")
        raise IndexError_(f"--index {src}: line {number}: no \"filename\" (the WARC file of the record)")
    row: dict = {"url_surtkey": surt, "fetch_time": stamp}
    for key, value in fields.items():
        column = CDXJ_KEYS.get(key, key.replace("-", "_"))
        if column in _INTEGER_COLUMNS:
            row[column] = _integer(src, number, key, value)
        else:
            row[column] = None if value is None else str(value)
    if row.get("warc_record_offset") is None:
        raise IndexError_(f"--index {src}: line {number}: no \"offset\" (where the record starts)")
    return row


def _cdx_row(src: str, number: int, fields: list[str], letters: list[str] | None) -> dict:
    names = letters or _HEADERLESS.get(len(fields))
    if names is None or len(fields) != len(names):
        want = f"{len(names)} fields (its header names them)" if names else "9 or 11 fields (no header line)"
        raise IndexError_(f"--index {src}: line {number}: {len(fields)} fields where the CDX format "
                          f"has {want}; a CDX index is `SURT TIMESTAMP ...` with a ` CDX ...` header")
    row: dict = {}
    for letter, value in zip(names, fields):
        column = CDX_FIELDS.get(letter, f"cdx_{letter}")
        if column in _INTEGER_COLUMNS:
            row[column] = _integer(src, number, letter, value)
        else:
            row[column] = None if value == "-" else value
    if row.get("warc_filename") is None or row.get("warc_record_offset") is None:
        raise IndexError_(f"--index {src}: line {number}: no file name (g) or offset (V) in this CDX line")
    return row


def _parquet_locations(src: str) -> Iterator:
    """The records a Parquet index file names, as record batches of ``warc_filename``,
    ``_source``, ``o`` and ``l`` (:func:`_group_batches`), a row group at a time."""
    import pyarrow.parquet as pq  # noqa: PLC0415

    with storage.open_input(src) as fh:
        pf = pq.ParquetFile(fh)
        missing = [c for c in LOCATION_COLUMNS[:2] if c not in pf.schema_arrow.names]
        if missing:
            raise IndexError_(f"--index {src}: a Parquet table without {', '.join(missing)} (Common Crawl's "
                              "columnar index columns warc_filename, warc_record_offset, warc_record_length)")
        columns = [c for c in LOCATION_COLUMNS if c in pf.schema_arrow.names]
        for batch in pf.iter_batches(columns=columns, batch_size=1 << 16):
            yield _location_batch(batch, src)


def _location_batch(table, source: str | None = None):
    """``table``'s location columns (a CDX(J) index's table, with its ``_source``; a Parquet
    index's batch, of ``source``) as the batch :func:`_group_batches` takes: ``warc_filename``,
    ``_source``, ``o``, ``l`` (-1 without a length)."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    n = table.num_rows
    names = table.column("warc_filename")
    lengths = (table.column("warc_record_length").cast(pa.int64()) if "warc_record_length" in table.column_names
               else pa.nulls(n, pa.int64()))
    sources = table.column("_source") if source is None else pa.array([source] * n, pa.string())
    arrays = [names, sources, table.column("warc_record_offset").cast(pa.int64()), pc.fill_null(lengths, -1)]
    arrays = [a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a for a in arrays]
    return pa.RecordBatch.from_arrays(arrays, names=["warc_filename", "_source", "o", "l"])


# ---------------------------------------------------------------------------------------------
# grouping per file


def _resolve(name: str, prefix: str | None, source: str) -> str:
    """The path or URL of file ``name`` of the index ``source`` (see the module docstring); the
    index of a WACZ names the WARC files under its ``archive/`` (``prefix`` does not apply)."""
    inside = storage.split_member(source)
    if inside is not None:
        return wacz.member_path(inside[0], wacz.WARC_FOLDER + name)
    found = list_entry(name, prefix, _folder(source))
    # a local path as a full run is given it: "cdxj/../warcs/x.warc.gz" is "warcs/x.warc.gz"
    return found if storage.is_remote(found) or found.startswith("file://") else os.path.normpath(found)


def _group_rows(texts: list[tuple[str, list[dict]]], prefix: str | None) -> tuple[tuple[str, Spans], ...]:
    """``(path, Spans)`` per file the rows of text indexes name, by path."""
    by_path: dict[str, list[tuple[int, int | None]]] = {}
    resolved: dict[tuple[str, str], str] = {}
    for src, rows in texts:
        for row in rows:
            name = row["warc_filename"]
            path = resolved.get((src, name))
            if path is None:
                path = resolved[(src, name)] = _resolve(name, prefix, src)
            by_path.setdefault(path, []).append((row["warc_record_offset"], row.get("warc_record_length")))
    return tuple((path, Spans.of(pairs)) for path, pairs in sorted(by_path.items()))


def _group_batches(batches, prefix: str | None) -> tuple[tuple[tuple[str, Spans], ...], int]:
    """``((path, Spans) per file, entries)`` from :func:`redecode.query.select_index`'s batches (in
    no order), a batch at a time: what is kept is 16 bytes per record (two ``array("q")`` per
    file), never a row per record; each file's records are sorted (and each offset kept once) at
    the end."""
    import pyarrow.compute as pc  # noqa: PLC0415

    found: dict[str, tuple[array, array]] = {}
    path_of: dict[str, str] = {}
    entries = 0
    for batch in batches:
        if batch.num_rows == 0:
            continue
        if batch.column(0).null_count or batch.column(2).null_count:
            raise IndexError_("--index: an index row without warc_filename or warc_record_offset")
        entries += batch.num_rows
        keys = pc.binary_join_element_wise(batch.column(1), batch.column(0), "\n")
        order = pc.sort_indices(keys)
        keys = pc.take(keys, order)
        offsets = pc.take(batch.column(2), order).cast("int64")
        lengths = pc.take(batch.column(3), order).cast("int64")
        change = pc.indices_nonzero(pc.not_equal(keys[1:], keys[:-1])).to_pylist()
        starts = [0] + [i + 1 for i in change]
        for a, b in zip(starts, starts[1:] + [batch.num_rows]):
            key = keys[a].as_py()
            path = path_of.get(key)
            if path is None:
                source, _, name = key.partition("\n")
                path = path_of[key] = _resolve(name, prefix, source)
            target = found.setdefault(path, (array("q"), array("q")))
            target[0].extend(_int64s(offsets.slice(a, b - a)))
            target[1].extend(_int64s(lengths.slice(a, b - a)))
    out = []
    for path in sorted(found):
        offs, lens = found.pop(path)
        if all(x < y for x, y in zip(offs, offs[1:])):
            out.append((path, Spans(offs, lens)))
        else:
            out.append((path, Spans.of(zip(offs, (None if n < 0 else n for n in lens)))))
    return tuple(out), entries


def _folder(source: str) -> str:
    if storage.is_remote(source):
        return source.rsplit("/", 1)[0]
    return os.path.dirname(storage.local_path(source))


def _int64s(values) -> array:
    """An Arrow int64 array (no nulls) as ``array("q")``, copied from its buffer."""
    buf = values.buffers()[1]
    out = array("q")
    out.frombytes(memoryview(buf)[values.offset * 8 : (values.offset + len(values)) * 8])
    if out.itemsize != 8 or array("q", [1]).tobytes()[0] != 1:  # pragma: no cover - big-endian
        out.byteswap()
    return out
