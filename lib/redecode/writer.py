"""Parquet part writer: explicit schema, zstd, row groups bounded by bytes, atomic rename
(:class:`PartWriter` for run parts, :class:`TableWriter` for other outputs of an explicit schema).

The only module that writes Parquet (through :func:`open_parquet`, pyarrow's writer). A part is written to
``.tmp-<name>.tmp`` (:func:`redecode.storage.temp_path`) in the output directory and renamed to its
final name only after the Parquet footer is written and the file is fsync'ed, so a part visible
under its final name is always complete, and ``DIR/*.parquet`` never matches a part being written
(a run killed with SIGKILL leaves at most a ``.tmp-*.tmp`` file, which the next run removes).
"""

from __future__ import annotations

import array
import itertools
import os
from collections.abc import Iterable

import pyarrow as pa

from .schema import COLUMN_INDEX, COLUMNS, PART_NAME_KEY, SCHEMA, TEXT_COLUMNS
from .storage import output_error, temp_path

#: Default row-group budget in bytes of (uncompressed) text; the text column dominates row size.
DEFAULT_ROW_GROUP_BYTES = 32 * 1024 * 1024
#: zstd level. Measured on the 30 MB benchmark crawl's output (29 MB of text): level 1 writes in
#: 0.16 s to 9.5 MB, level 3 in 0.26 s to 8.2 MB. The nightly job is CPU-bound, so level 1 (also
#: Arrow's default for zstd, and what the baselines use).
DEFAULT_COMPRESSION_LEVEL = 1

#: Parquet compression codecs a run can write with (pyarrow names). zstd at level 1 is the default;
#: lz4 and snappy take less CPU for larger parts (tests/benchmarks: the redecode-1w-lz4 row). Chosen
#: with the environment variable ``REDECODE_PARQUET_COMPRESSION`` (read when a part is opened).
COMPRESSIONS = ("zstd", "lz4", "snappy", "gzip", "none")
DEFAULT_COMPRESSION = "zstd"


def compression() -> str:
    """The codec parts are written with: ``REDECODE_PARQUET_COMPRESSION`` when set (one of
    :data:`COMPRESSIONS`), else :data:`DEFAULT_COMPRESSION`. Raises ``ValueError`` for another
    value."""
    codec = os.environ.get("REDECODE_PARQUET_COMPRESSION", "").strip().lower() or DEFAULT_COMPRESSION
    if codec not in COMPRESSIONS:
        raise ValueError(f"REDECODE_PARQUET_COMPRESSION={codec!r}: not one of {', '.join(COMPRESSIONS)}")
    return codec


#: Parquet data page format of the parts (pyarrow's ``data_page_version``). Version 2 pages
#: compress a column's values straight from the encoder's buffer; version 1 (pyarrow's default)
#: first copies levels and values into one more buffer, a third copy of a row group's text while it
#: is written (a record of 200 MB of windows-1251 is 350 MB of UTF-8: 1,050 MB instead of 700 MB,
#: issue 27). The rows read back are the same; every Parquet reader of this project's outputs
#: (pyarrow, DuckDB, Spark, pandas) reads both.
DATA_PAGE_VERSION = "2.0"
#: A text of at least this many UTF-8 bytes is its own chunk of the text column, its bytes the
#: Arrow buffer as they are, not copied into the buffer the row group's other texts are joined in.
OWN_BUFFER_BYTES = 1 << 20


def row_cost(text_length: int) -> int:
    """What one row adds to a row group's budget (``row_group_bytes``, bytes): 512 for its other
    columns and twice its text's length in code points (*text_length*: about the bytes its text
    holds while buffered); a row group is written once the buffered rows' costs reach the budget."""
    return 512 + 2 * text_length


#: Row key holding a row's text already encoded as UTF-8 (bytes), when the job has it for free (a
#: valid UTF-8 payload is its own UTF-8 text): the writer then skips re-encoding the str.
TEXT_UTF8_KEY = "_text_utf8"

#: A row as :meth:`PartWriter.write` takes it without a dict (:func:`redecode.row.record_values`):
#: a list of ``ROW_WIDTH`` values, those of :data:`redecode.schema.COLUMNS` in order, then at
#: ``TEXT_UTF8_SLOT`` what :data:`TEXT_UTF8_KEY` holds in a dict row (or None).
TEXT_UTF8_SLOT = len(COLUMNS)
ROW_WIDTH = len(COLUMNS) + 1
_TEXT, _TEXT_LENGTH, _NORMALIZED = COLUMN_INDEX["text"], COLUMN_INDEX["text_length"], COLUMN_INDEX["text_normalized"]


class PartWriter:
    """Write rows (dicts keyed by :data:`redecode.schema.COLUMNS`, or lists of their values, see
    :data:`TEXT_UTF8_SLOT`) to one Parquet part.

    ``path`` is the final name. Rows are buffered until about ``row_group_bytes`` bytes of text (and
    other strings) have accumulated (:func:`row_cost`), then written as one row group, so memory
    stays bounded by the row-group budget whatever the input size; the rows of a group are turned
    into Arrow columns in one go (no per-row conversion). The group is written right after the row
    that filled it, when the record it came from is gone (the readers keep no reference to a
    record's bytes while its row is made and written: :func:`redecode.job.process_records`), so a
    record of hundreds of MB is not in memory while its text is written. Memory while a group is
    written: its text once as the rows hold it (a row's UTF-8 text is its own Arrow buffer when it
    is large, :data:`OWN_BUFFER_BYTES`, never copied into a joined one) and once in Parquet's
    page encoder (data pages of :data:`DATA_PAGE_VERSION`), plus the compressed page; Arrow's
    memory pool gives what it freed back to the system after each group. ``drop``: a
    column left out of the file (a Hive-style partition column, which the part's folder names:
    :mod:`redecode.layout`). The file's metadata holds ``extra_metadata`` and its own name
    (:data:`redecode.schema.PART_NAME_KEY`). ``bytes_written``: the file's size after the last row group (bytes);
    ``rows_buffered``: rows not yet in one. Use as a context manager: on normal exit the file is
    completed and renamed; on an exception the temporary file is removed and the final name is not
    created.
    """

    def __init__(
        self,
        path: str,
        *,
        row_group_bytes: int = DEFAULT_ROW_GROUP_BYTES,
        compression_level: int = DEFAULT_COMPRESSION_LEVEL,
        extra_metadata: dict[str, str] | None = None,
        drop: str | None = None,
    ) -> None:
        self.path = path
        directory, name = os.path.split(path)
        self.tmp_path = temp_path(path)
        self.row_group_bytes = row_group_bytes
        schema = SCHEMA
        self._columns = COLUMNS
        if drop is not None:
            schema = schema.remove(schema.get_field_index(drop))
            self._columns = tuple(c for c in COLUMNS if c != drop)
        meta = dict(schema.metadata or {})
        meta.update({k.encode(): v.encode() for k, v in (extra_metadata or {}).items()})
        meta[PART_NAME_KEY] = os.fsencode(name)  # (its own name: a part copied over another is told)
        self.schema = schema = schema.with_metadata(meta)
        # (index in a value row, name, Arrow type) of each column the file holds, in its order
        self._kept = [(COLUMN_INDEX[c], c, SCHEMA.field(c).type) for c in self._columns]
        codec = compression()
        try:
            self._writer = open_parquet(
                self.tmp_path,
                schema,
                compression=codec,
                compression_level=compression_level if codec in ("zstd", "gzip") else None,
                # Dictionary encoding helps the low-cardinality provenance columns and costs time
                # for the text column without saving space (issue 9's measurement: -16% time).
                use_dictionary=[c for c in self._columns if c not in TEXT_COLUMNS],
                write_statistics=[c for c in self._columns if c not in TEXT_COLUMNS],
                data_page_version=DATA_PAGE_VERSION,
            )
        except OSError as exc:  # no inodes left, no space, no permission: the output's error
            _remove(self.tmp_path)
            raise output_error(exc, self.tmp_path) from exc
        self._buffer: list[list] = []
        self._buffered_bytes = 0
        self.rows_written = 0
        self.bytes_written = 0

    @property
    def rows_buffered(self) -> int:
        """Rows written but not yet in a row group."""
        return len(self._buffer)

    def write(self, row: dict | list) -> None:
        """Buffer one row; the buffered rows are written as a row group once the byte budget is
        reached (right after this row). A dict row may hold its text as UTF-8
        bytes under :data:`TEXT_UTF8_KEY` (``text`` then None or the same text, and
        ``text_length`` its length in code points); a list row at :data:`TEXT_UTF8_SLOT`."""
        if self._buffered_bytes >= self.row_group_bytes:
            self.flush()
        if type(row) is not list:
            row = [*map(row.get, COLUMNS), row.get(TEXT_UTF8_KEY)]
        self._buffer.append(row)
        text = row[_TEXT]
        # (a row may carry its text only as UTF-8 bytes: then text_length is its length)
        length = len(text) if text is not None else row[_TEXT_LENGTH] or 0
        self._buffered_bytes += row_cost(length)
        normalized = row[_NORMALIZED]
        if normalized is not None and normalized is not text:
            self._buffered_bytes += len(normalized) * 2
        if self._buffered_bytes >= self.row_group_bytes:
            self.flush()

    def write_many(self, rows: Iterable[dict]) -> None:
        for row in rows:
            self.write(row)

    def flush(self) -> None:
        """Write the buffered rows as one row group."""
        if not self._buffer:
            return
        columns = list(zip(*self._buffer))  # (the rows' values, column by column)
        raw = columns[TEXT_UTF8_SLOT]
        arrays = []
        for i, name, kind in self._kept:
            if name == "text":
                arrays.append(_text_array(columns[i], raw))
            elif name == "text_normalized":
                arrays.append(_normalized_array(columns[i], columns[_TEXT], raw))
            else:
                arrays.append(pa.array(columns[i], type=kind))
        table = pa.Table.from_arrays(arrays, schema=self.schema)
        columns = raw = arrays = None  # (only the table holds the values while it is written)
        try:
            self._writer.write_table(table, row_group_size=len(self._buffer))
            self.bytes_written = os.path.getsize(self.tmp_path)
        except OSError as exc:  # disk full, quota, I/O error
            raise output_error(exc, self.tmp_path) from exc
        finally:
            table = None
            pa.default_memory_pool().release_unused()  # (what the page encoder held, back to the system)
        self.rows_written += len(self._buffer)
        self._buffer.clear()
        self._buffered_bytes = 0

    def close(self) -> None:
        """Finish the file and rename it to its final name. Raises
        :class:`redecode.storage.OutputError` when the file system refuses (the caller's
        ``abort`` then removes the temporary file)."""
        self.flush()
        try:
            self._writer.close()
            with open(self.tmp_path, "rb") as f:
                os.fsync(f.fileno())
            os.replace(self.tmp_path, self.path)
        except OSError as exc:
            raise output_error(exc, self.tmp_path) from exc

    def abort(self) -> None:
        """Drop the temporary file; the final name is never created. Never raises: it runs while
        another error (a full disk, an interrupt) propagates, and must not replace it."""
        try:
            self._writer.close()
        except Exception:  # noqa: BLE001 - the file is dropped whatever its writer says
            pass
        finally:
            _remove(self.tmp_path)

    def __enter__(self) -> "PartWriter":  # noqa: D105
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            try:
                self.close()
            except BaseException:
                self.abort()
                raise
        else:
            self.abort()


class _FileWriter:
    """What :class:`pyarrow.parquet.ParquetWriter` is over its file writer,
    ``pyarrow._parquet.ParquetWriter``, for a file named by a path: ``write_table`` (a table of
    another schema raises ``ValueError``, as there) and ``close``."""

    __slots__ = ("_writer", "_schema", "_open")

    def __init__(self, writer, schema: pa.Schema) -> None:
        self._writer, self._schema, self._open = writer, schema, True

    def write_table(self, table: pa.Table, row_group_size: int | None = None) -> None:
        if not table.schema.equals(self._schema, check_metadata=False):
            raise ValueError(f"table schema {table.schema} does not match the file's {self._schema}")
        self._writer.write_table(table, row_group_size=row_group_size)

    def close(self) -> None:
        if self._open:
            self._open = False
            self._writer.close()


def open_parquet(path: str, schema: pa.Schema, *, compression: str, compression_level: int | None,
                 use_dictionary, write_statistics=True, data_page_version: str = "1.0"):
    """A Parquet writer of ``schema`` to the local file ``path`` (created or truncated): what
    ``pyarrow.parquet.ParquetWriter(path, schema, ...)`` gives with these options (its defaults
    for the rest: format version 2.6, writer engine V2), with ``write_table(table,
    row_group_size)`` and ``close()``. Raises ``OSError`` when the file cannot be created.

    ``pyarrow.parquet`` is made by ``pyarrow.parquet.ParquetWriter`` over pyarrow's file writer
    (``pyarrow._parquet.ParquetWriter``), and importing it imports ``pyarrow.fs`` with every
    remote file system (S3, GCS, HDFS, Azure) and ``ssl``, for a path this project always gives
    as a local file name: 22 M instructions of an empty run, 19 M of a small index selection
    (what the rest of a run does not import anyway), in each process that writes. So the file writer is made directly, with the
    arguments ``pyarrow.parquet.ParquetWriter`` passes it; where this pyarrow's file writer does
    not take them (``TypeError``) or is not there, ``pyarrow.parquet.ParquetWriter`` itself is
    used. tests/test_writer.py checks that both write the same bytes."""
    options = dict(compression=compression, compression_level=compression_level,
                   use_dictionary=use_dictionary, write_statistics=write_statistics,
                   data_page_version=data_page_version)
    try:
        from pyarrow._parquet import ParquetWriter as _Writer  # noqa: PLC0415
    except ImportError:
        _Writer = None
    if _Writer is not None:
        try:
            return _FileWriter(_Writer(path, schema, version="2.6", writer_engine_version="V2", **options), schema)
        except TypeError:
            pass  # (another pyarrow's arguments: its public writer knows them)
    import pyarrow.parquet as pq  # noqa: PLC0415

    return pq.ParquetWriter(path, schema, **options)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _text_array(texts: tuple, raw: tuple) -> pa.StringArray:
    """The text column as one Arrow string array built from a single buffer: *texts* the rows'
    ``text`` (str or None), *raw* their UTF-8 bytes where the row carries them (else None).

    Converting Python str objects one by one costs ~10x more than joining UTF-8 bytes and handing
    Arrow the offsets (measured: 0.21 s vs 0.02 s for 29 MB of text); rows carrying their UTF-8
    skip the encode entirely. Offsets are int32: a row group holds far less than 2 GiB of text (the
    budget is ``row_group_bytes``; one record is capped at 64 MiB by default).
    """
    values: list[bytes | None] = []
    for text, utf8 in zip(texts, raw):
        if utf8 is None and text is not None:
            # The decoders emit Unicode scalar values only; "replace" guards against a lone
            # surrogate ever reaching Parquet as invalid UTF-8.
            utf8 = text.encode("utf-8", "replace")
        values.append(utf8)
    return _string_array(values)


def _normalized_array(normalized: tuple, texts: tuple, raw: tuple) -> pa.Array:
    """The ``text_normalized`` column: all nulls when the run did not ask for it; else built as
    :func:`_text_array` does, reusing a row's UTF-8 text where the normalised text is the text
    itself (already in the form: :func:`redecode.textforms.normalize` returns the same object)."""
    if all(n is None for n in normalized):
        return pa.nulls(len(normalized), pa.string())
    values: list[bytes | None] = []
    for n, text, utf8 in zip(normalized, texts, raw):
        out = None
        if n is not None:
            if n is text:
                out = utf8
            if out is None:
                out = n.encode("utf-8", "replace")
        values.append(out)
    return _string_array(values)


def _string_array(values: list[bytes | None]) -> pa.StringArray | pa.ChunkedArray:
    """An Arrow string column of UTF-8 *values* (None: null): one array from one data buffer and
    int32 offsets; where a value holds at least :data:`OWN_BUFFER_BYTES`, a chunked array in
    which each such value is a chunk of its own whose buffer is its bytes (no copy of a record's
    text of hundreds of MB), the values between them joined as before. The rows are the same."""
    big = [i for i, v in enumerate(values) if v is not None and len(v) >= OWN_BUFFER_BYTES]
    if not big or len(values) == 1:
        return _one_array(values)
    chunks = []
    at = 0
    for i in big:
        if i > at:
            chunks.append(_one_array(values[at:i]))
        chunks.append(_one_array(values[i:i + 1]))
        at = i + 1
    if at < len(values):
        chunks.append(_one_array(values[at:]))
    return pa.chunked_array(chunks, pa.string())


def _one_array(values: list[bytes | None]) -> pa.StringArray:
    n = len(values)
    offsets = array.array("i", [0])
    offsets.extend(itertools.accumulate(len(v) if v is not None else 0 for v in values))
    present = [v for v in values if v is not None]
    # (one value: its bytes are the buffer, no copy)
    data = present[0] if len(present) == 1 and type(present[0]) is bytes else b"".join(present)
    null_count = sum(v is None for v in values)
    validity = pa.array([v is not None for v in values], pa.bool_()).buffers()[1] if null_count else None
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data), validity, null_count)


class TableWriter:
    """Write Arrow record batches of an explicit ``schema`` to one Parquet file, atomically.

    For the outputs other than run parts (:mod:`redecode.repair`). As :class:`PartWriter`: written
    to ``.tmp-<name>.tmp`` beside ``path`` and renamed once complete and fsync'ed (an error of the
    file system is :class:`redecode.storage.OutputError`, naming the path and errno); batches are buffered
    until about ``row_group_bytes`` bytes (Arrow's in-memory size) and written as one row group, so
    memory stays bounded. ``schema`` (with its key-value metadata, e.g. a schema version) is the
    file's schema; a batch of another schema raises ``ValueError``. ``dictionary_columns``: columns
    to dictionary-encode (default: none). Use as a context manager (an exception removes the
    temporary file; the final name is never created).
    """

    def __init__(
        self,
        path: str,
        schema: pa.Schema,
        *,
        row_group_bytes: int = DEFAULT_ROW_GROUP_BYTES,
        compression_level: int = DEFAULT_COMPRESSION_LEVEL,
        dictionary_columns: Iterable[str] = (),
    ) -> None:
        self.path = path
        self.tmp_path = temp_path(path)
        self.schema = schema
        self.row_group_bytes = row_group_bytes
        try:
            self._writer = open_parquet(
                self.tmp_path, schema, compression="zstd", compression_level=compression_level,
                use_dictionary=list(dictionary_columns),
            )
        except OSError as exc:  # no inodes left, no space, no permission: the output's error
            _remove(self.tmp_path)
            raise output_error(exc, self.tmp_path) from exc
        self._buffer: list[pa.RecordBatch] = []
        self._buffered_bytes = 0
        self.rows_written = 0

    def write_batch(self, batch: pa.RecordBatch) -> None:
        """Buffer one batch; flush a row group when the byte budget is reached."""
        if not batch.schema.equals(self.schema, check_metadata=False):
            raise ValueError(f"{self.path}: batch schema {batch.schema} is not the file's {self.schema}")
        self._buffer.append(batch)
        self._buffered_bytes += batch.nbytes
        if self._buffered_bytes >= self.row_group_bytes:
            self.flush()

    def flush(self) -> None:
        """Write the buffered batches as one row group."""
        if not self._buffer:
            return
        table = pa.Table.from_batches(self._buffer, schema=self.schema)
        try:
            self._writer.write_table(table, row_group_size=table.num_rows)
        except OSError as exc:  # disk full, quota, I/O error
            raise output_error(exc, self.tmp_path) from exc
        self.rows_written += table.num_rows
        self._buffer.clear()
        self._buffered_bytes = 0

    # The same completion as a run part (fsync, rename; on an exception the temporary file goes).
    close = PartWriter.close
    abort = PartWriter.abort
    __enter__ = PartWriter.__enter__
    __exit__ = PartWriter.__exit__
