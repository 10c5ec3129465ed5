"""The Parquet writer (redecode.writer.open_parquet): pyarrow's file writer made directly, without
importing ``pyarrow.parquet`` (issue 27's start-up; issue 26's small selections), must write what
``pyarrow.parquet.ParquetWriter`` writes with the same options, byte for byte, for the options
this project writes with (run parts: writer.PartWriter; other tables: writer.TableWriter)."""

from __future__ import annotations

import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from redecode import writer
from redecode.schema import COLUMNS, SCHEMA, TEXT_COLUMNS


def _table() -> pa.Table:
    rows = []
    for i in range(40):
        row = {name: None for name in SCHEMA.names}
        row.update(record_id=f"<urn:uuid:{i:08d}>", text="п" * i + "é text " * (i % 7), encoding="windows-1251",
                   offset=i * 1000)
        rows.append(row)
    return pa.Table.from_pylist(rows, schema=SCHEMA)


PART_OPTIONS = dict(
    compression="zstd", compression_level=writer.DEFAULT_COMPRESSION_LEVEL,
    use_dictionary=[c for c in COLUMNS if c not in TEXT_COLUMNS],
    write_statistics=[c for c in COLUMNS if c not in TEXT_COLUMNS],
    data_page_version=writer.DATA_PAGE_VERSION,
)
TABLE_OPTIONS = dict(compression="zstd", compression_level=writer.DEFAULT_COMPRESSION_LEVEL, use_dictionary=[])


@pytest.mark.parametrize("options", [PART_OPTIONS, TABLE_OPTIONS, dict(PART_OPTIONS, compression="snappy",
                                                                        compression_level=None)],
                         ids=["part", "table", "part-snappy"])
def test_same_bytes_as_pyarrow_parquet(tmp_path, options):
    table = _table()
    ours, theirs = tmp_path / "ours.parquet", tmp_path / "theirs.parquet"
    w = writer.open_parquet(str(ours), table.schema, **options)
    assert not isinstance(w, pq.ParquetWriter)  # the file writer made directly, with this pyarrow
    w.write_table(table.slice(0, 25), row_group_size=25)
    w.write_table(table.slice(25), row_group_size=15)
    w.close()
    w.close()  # (closing twice is harmless, as with pyarrow.parquet's writer)
    p = pq.ParquetWriter(str(theirs), table.schema, **options)
    p.write_table(table.slice(0, 25), row_group_size=25)
    p.write_table(table.slice(25), row_group_size=15)
    p.close()
    assert ours.read_bytes() == theirs.read_bytes()
    assert pq.read_table(ours).equals(table)


def test_other_schema_is_refused(tmp_path):
    w = writer.open_parquet(str(tmp_path / "x.parquet"), SCHEMA, **PART_OPTIONS)
    other = pa.table({"a": [1]})
    with pytest.raises(ValueError, match="does not match"):
        w.write_table(other)
    w.close()


def test_falls_back_to_pyarrow_parquet_where_the_file_writer_refuses(tmp_path, monkeypatch):
    # Another pyarrow whose file writer does not take an argument open_parquet gives it, while
    # pyarrow.parquet's writer (which gives it what that pyarrow takes: here, store_schema) works.
    import pyarrow._parquet as native

    real = native.ParquetWriter

    def refusing(*args, **kwargs):
        if "store_schema" not in kwargs:
            raise TypeError("__cinit__() got an unexpected keyword argument 'writer_engine_version'")
        return real(*args, **kwargs)

    monkeypatch.setattr(native, "ParquetWriter", refusing)
    w = writer.open_parquet(str(tmp_path / "x.parquet"), SCHEMA, **PART_OPTIONS)
    assert isinstance(w, pq.ParquetWriter)
    w.write_table(_table())
    w.close()
    assert pq.read_table(tmp_path / "x.parquet").num_rows == 40


def test_falls_back_to_pyarrow_parquet_without_the_file_writer_module(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow._parquet", None)  # "from pyarrow._parquet import" fails
    w = writer.open_parquet(str(tmp_path / "x.parquet"), SCHEMA, **PART_OPTIONS)
    assert isinstance(w, pq.ParquetWriter)
    w.write_table(_table())
    w.close()
    assert pq.read_table(tmp_path / "x.parquet").num_rows == 40


def test_unwritable_path_is_an_oserror(tmp_path):
    with pytest.raises(OSError):
        writer.open_parquet(str(tmp_path / "missing" / "x.parquet"), SCHEMA, **PART_OPTIONS)


def test_a_part_names_itself_in_its_metadata(tmp_path):
    """PartWriter records the part's own file name (bytes, as the file system spells it) beside the
    schema version and the caller's metadata: a part found under another name is told."""
    from redecode.schema import PART_NAME_KEY, SCHEMA_VERSION_KEY

    name = "crawl-é.warc.gz.0a1b2c3d.0000.parquet"
    with writer.PartWriter(str(tmp_path / name), extra_metadata={"redecode.rules": "r"}) as w:
        w.write({c: None for c in COLUMNS})
    meta = pq.read_schema(tmp_path / name).metadata
    assert meta[PART_NAME_KEY] == "crawl-é.warc.gz.0a1b2c3d.0000.parquet".encode()
    assert meta[b"redecode.rules"] == b"r" and SCHEMA_VERSION_KEY in meta
