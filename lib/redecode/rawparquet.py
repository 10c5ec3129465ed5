"""Raw-response Parquet: a Parquet table of fetched responses read as archive records.

Contract. :class:`ParquetReader` (registered in :data:`redecode.archive.READERS`) reads a Parquet
file with columns ``url`` (string), ``content_type`` (string, the Content-Type header value or
null), ``body`` (binary, or string taken as UTF-8) and optionally ``fetch_time`` (timestamp or
string), one ``response`` record per row, in row order. A record's offset is its row index and its
length the body's length in bytes; ``http_status`` is None (no HTTP head). Reading uses
``pyarrow.parquet`` (writing Parquet is :mod:`redecode.writer`'s).

Deviations: ``record_id`` is made from the file name and the row index
(:func:`redecode.record.synthetic_record_id`, ``test_archive.py::test_parquet_input``); a body over
the cap is ``too-large`` (no HTTP head to parse).
"""

from __future__ import annotations

from collections.abc import Iterator

from . import storage
from .record import ArchiveError, ArchiveRecord, Head, Reader, RecordStream, synthetic_record_id

__all__ = ["ParquetReader"]


def _parquet_records(
    path: str, cap: int, start: int = 0, limit: int | None = None
) -> Iterator[ArchiveRecord]:
    import pyarrow.parquet as pq  # only this input kind needs it

    try:
        pf = pq.ParquetFile(storage.open_input(path) if storage.is_remote(path) else path)
        names = set(pf.schema_arrow.names)
        missing = {"url", "content_type", "body"} - names
        if missing:
            raise ArchiveError(path, 0, f"raw-response Parquet lacks column(s) {', '.join(sorted(missing))}")
        schema = pf.schema_arrow
        # each column's type is checked before a value is used: a column of another type is the
        # input's error (outcome "error"), never a traceback that costs the other inputs
        for column, accepts, wanted in _COLUMN_TYPES:
            if column in names and not accepts(schema.field(column).type):
                raise ArchiveError(path, 0, f"raw-response Parquet: column {column} is "
                                            f"{schema.field(column).type}, not {wanted}")
        cols = ["url", "content_type", "body"] + (["fetch_time"] if "fetch_time" in names else [])
        row = 0
        groups = []
        for g in range(pf.num_row_groups):
            n = pf.metadata.row_group(g).num_rows
            if row + n > start:
                groups.append(g)
            row += n
        row = sum(pf.metadata.row_group(g).num_rows for g in range(groups[0])) if groups else 0
        produced = 0
        for batch in pf.iter_batches(batch_size=64, row_groups=groups, columns=cols):
            d = batch.to_pydict()
            for i in range(batch.num_rows):
                if row >= start:
                    yield _parquet_row(path, row, d, i, cap)
                    produced += 1
                    if limit is not None and produced >= limit:
                        return
                row += 1
    except ArchiveError:
        raise
    except Exception as exc:
        raise ArchiveError(path, start, f"cannot read raw-response Parquet: {exc}") from None


def _is_text(t) -> bool:
    import pyarrow.types as pa_types  # noqa: PLC0415

    return pa_types.is_string(t) or pa_types.is_large_string(t) or pa_types.is_null(t)


def _is_bytes(t) -> bool:
    import pyarrow.types as pa_types  # noqa: PLC0415

    return _is_text(t) or pa_types.is_binary(t) or pa_types.is_large_binary(t)


#: (column, accepts its Arrow type, what it must be): the contract of the module docstring
#: (``fetch_time`` of any type is taken as text).
_COLUMN_TYPES = (
    ("url", _is_text, "string"),
    ("content_type", _is_text, "string"),
    ("body", _is_bytes, "binary (or string)"),
)


def _parquet_row(path: str, row: int, d: dict, i: int, cap: int) -> ArchiveRecord:
    body = d["body"][i]
    if isinstance(body, str):
        body = body.encode("utf-8")
    ct = d["content_type"][i]
    ft = d.get("fetch_time", [None] * (i + 1))[i]
    if ft is not None and not isinstance(ft, str):
        ft = ft.isoformat().replace("+00:00", "Z") if hasattr(ft, "isoformat") else str(ft)
    n = len(body) if body is not None else 0
    rec = ArchiveRecord(
        warc_path=path,
        offset=row,
        length=n,
        record_type="response",
        record_id=synthetic_record_id(path, row),
        target_uri=d["url"][i],
        warc_date=ft,
        content_type_values=[ct] if ct else [],
        http_status=None,
        http_headers=None,
        payload=body,
        payload_length=n,
        payload_digest=None,
    )
    if n > cap:
        rec.payload = None
        rec.error_kind = "too-large"
        rec.error = f"body of {n} bytes is over the cap of {cap} bytes"
    return rec


class ParquetReader(Reader):
    """Raw-response Parquet (see the module docstring). Offsets are row indexes."""

    kind = "Parquet"
    suffixes = (".parquet",)

    def sniff(self, head: Head) -> bool:
        return head.raw[:4] == b"PAR1"

    def records(self, path: str, stream: RecordStream, *, cap: int, mode: str, start: int,
                end: int | None) -> Iterator[ArchiveRecord]:
        limit = None if end is None else max(end - start, 0)
        n = 0
        for rec in _parquet_records(path, cap, start=start):
            if limit is not None and n >= limit:
                stream.next_offset = rec.offset
                return
            n += 1
            yield rec

    def find_record_start(self, path: str, pos: int) -> int | None:
        import pyarrow.parquet as pq  # noqa: PLC0415 - only this input kind needs it

        return pos if pos < pq.ParquetFile(path).metadata.num_rows else None

    def read_at(self, path: str, offset: int, *, cap: int) -> ArchiveRecord:
        for rec in _parquet_records(path, cap, start=offset, limit=1):
            return rec
        raise ArchiveError(path, offset, "no row at this index")
