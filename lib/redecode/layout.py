"""The output layout of a run directory: how rows are cut into Parquet parts and where the parts go.

Contract. A :class:`Layout` is ``redecode run``'s ``--max-part-bytes``, ``--max-part-rows`` and
``--partition-by``. The empty layout (:data:`FLAT`, none of them) is the classic one: one part per
shard of an input, ``OUT/<archive name>.<8 hex>.<shard>.parquet`` (:func:`redecode.rundir.part_stem`).
Any other is a *bounded* layout: a run's shards are grouped into tasks (consecutive shards, in
input order, up to :meth:`Layout.task_bytes` of input each, so parts of many small inputs are
merged), and each task's rows go through one :class:`PartSequence`:

- a part is closed, and the next one begun, when it holds ``max_part_rows`` rows, or once it
  has reached ``max_part_bytes`` bytes of Parquet file or its next row group would pass them (that
  row group's size taken to be the largest one's so far): a part passes ``max_part_bytes`` by less
  than one row group, whose text is at most a quarter of it (DuckDB's ``FILE_SIZE_BYTES`` is as
  approximate). The rows of a 1 GB input are cut into several parts;
- with ``partition_by`` COLUMN, the rows go to Hive-style partition folders,
  ``OUT/COLUMN=VALUE/``, one sequence of parts per value, and the column is left out of the files
  (the folder names it), as Spark's ``partitionBy``, pyarrow's ``write_dataset`` and DuckDB's
  ``PARTITION_BY`` write them: DuckDB (``read_parquet('OUT/*/*.parquet', hive_partitioning =
  true)``), Spark (``spark.read.parquet(OUT)``) and pyarrow datasets (``partitioning="hive"``) read
  the folder as it is. A value is written as Hive escapes it (:func:`partition_folder`: ``%XX``
  for ``/``, ``=``, ``%``, control characters...; null and the empty string as
  ``__HIVE_DEFAULT_PARTITION__``, which all three read as null; booleans ``true``/``false``);
- parts are named ``part-<task key>-<n:05d>.parquet`` (:func:`part_name`): deterministic, so a
  task that runs again replaces its parts under the same names.

Only :data:`PARTITION_COLUMNS` may partition a run: columns of few distinct values (a folder per
value).

Deviations: none (the layout follows Hive's conventions as the three readers implement them,
``tests/test_layout.py``).
"""

from __future__ import annotations

import os

from . import storage
from .dataclass_code import dataclass
from .schema import COLUMN_INDEX, SCHEMA
from .writer import DEFAULT_ROW_GROUP_BYTES, PartWriter

__all__ = [
    "FLAT",
    "HIVE_NULL",
    "PARTITION_COLUMNS",
    "Layout",
    "PartSequence",
    "parse_partition_folder",
    "part_name",
    "partition_folder",
]

#: What Hive (and Spark, pyarrow, DuckDB reading it) names the folder of a null partition value.
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"

#: The columns a run may be partitioned by (``--partition-by``): few distinct values each.
PARTITION_COLUMNS = (
    "status", "skip_reason", "error_kind", "record_type", "http_status", "mime_type", "tld", "encoding",
    "source", "confidence", "decoder", "browser_encoding", "bom", "meta_source", "xml_encoding", "rules",
    "utf8_valid", "ascii_only",
)

#: Characters Hive's ``FileUtils.escapePathName`` writes as ``%XX`` in a partition value (besides
#: the control characters U+0000-U+001F and U+007F).
_ESCAPED = frozenset('"#%\'*/:=?\\{[]^')


@dataclass(frozen=True, slots=True)
class Layout:
    """``max_part_bytes`` (bytes of Parquet file), ``max_part_rows``, ``partition_by`` (a column of
    :data:`PARTITION_COLUMNS`); all None: :data:`FLAT`. ``ValueError`` for a size under 1 or another
    column."""

    max_part_bytes: int | None = None
    max_part_rows: int | None = None
    partition_by: str | None = None

    def __post_init__(self) -> None:
        for name in ("max_part_bytes", "max_part_rows"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise ValueError(f"{name} must be a whole number, at least 1, not {value!r}")
        if self.partition_by is not None and self.partition_by not in PARTITION_COLUMNS:
            raise ValueError(f"cannot partition by {self.partition_by!r}: one of {', '.join(PARTITION_COLUMNS)}")

    @property
    def flat(self) -> bool:
        """True for the classic layout: one part per shard, no folders."""
        return self.max_part_bytes is None and self.max_part_rows is None and self.partition_by is None

    def task_bytes(self, shard_bytes: int) -> int:
        """Bytes of input a task takes (shards are grouped up to it): ``max_part_bytes`` (a byte of
        gzip WARC gives about a byte of Parquet: 32.2 MB of the benchmark crawl, 31.2 MB of parts),
        at least ``shard_bytes``."""
        return max(shard_bytes, self.max_part_bytes or 0)

    def to_json(self) -> dict | None:
        """``{"max_part_bytes", "max_part_rows", "partition_by"}``, or None for :data:`FLAT`: what
        markers and the manifest record (a run directory holds one layout)."""
        if self.flat:
            return None
        return {"max_part_bytes": self.max_part_bytes, "max_part_rows": self.max_part_rows,
                "partition_by": self.partition_by}

    @classmethod
    def from_json(cls, data: dict | None) -> Layout:
        if not data:
            return FLAT
        return cls(data.get("max_part_bytes"), data.get("max_part_rows"), data.get("partition_by"))

    def describe(self) -> str:
        """For messages: ``--max-part-bytes 134217728 --partition-by encoding``, or ``one part per
        shard``."""
        said = [f"--{k.replace('_', '-')} {v}" for k, v in (self.to_json() or {}).items() if v is not None]
        return " ".join(said) or "one part per shard"


#: The classic layout: one part per shard of an input.
FLAT = Layout()


def part_name(task: str, seq: int) -> str:
    """The file name of part ``seq`` (0, 1, ...) of task ``task`` (its key) in a bounded layout."""
    return f"part-{task}-{seq:05d}.parquet"


def partition_folder(column: str, value: object) -> str:
    """The Hive-style folder of rows whose ``column`` is ``value``: ``column=<escaped value>``
    (Hive's ``escapePathName``: the characters of :data:`_ESCAPED` and controls as ``%XX``; None
    and ``""`` as :data:`HIVE_NULL`; booleans ``true``/``false``)."""
    if value is None or value == "":
        return f"{column}={HIVE_NULL}"
    if isinstance(value, bool):
        text = "true" if value else "false"
    else:
        text = str(value)
    escaped = "".join(f"%{ord(c):02X}" if c in _ESCAPED or ord(c) < 0x20 or c == "\x7f" else c for c in text)
    return f"{column}={escaped}"


def parse_partition_folder(folder: str) -> tuple[str, object] | None:
    """``(column, value)`` of a folder :func:`partition_folder` names (the value with the
    column's type: int, bool or str; None for :data:`HIVE_NULL`), or None when ``folder`` is not
    one (no ``=``, or a column not in :data:`PARTITION_COLUMNS`)."""
    column, sep, text = folder.partition("=")
    if not sep or column not in PARTITION_COLUMNS:
        return None
    if text == HIVE_NULL:
        return column, None
    value = _unescape(text)
    kind = SCHEMA.field(column).type
    if str(kind).startswith("int"):
        try:
            return column, int(value)
        except ValueError:
            return None
    if str(kind) == "bool":
        return column, value == "true"
    return column, value


def _unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "%" and _is_hex(text[i + 1 : i + 3]):
            out.append(chr(int(text[i + 1 : i + 3], 16)))
            i += 3
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _is_hex(s: str) -> bool:
    return len(s) == 2 and all(c in "0123456789abcdefABCDEF" for c in s)


class PartSequence:
    """A task's rows written as the parts of a bounded :class:`Layout` (see the module docstring)
    into the local directory ``directory`` (the run directory, or a staging directory), each part
    atomically (:class:`redecode.writer.PartWriter`). ``task``: the task's key (in the part names);
    ``extra_metadata``: the parts' key-value metadata.

    :meth:`write` one row at a time (in record order); :meth:`close` finishes every part and returns
    their names relative to ``directory`` (``part-...parquet`` or ``COLUMN=VALUE/part-...parquet``),
    in the order they were begun; :meth:`abort` drops the parts being written (those closed stay:
    the caller's marker never names them, and a rerun replaces them). Raises
    :class:`redecode.storage.OutputError` when writing fails."""

    def __init__(self, directory: str, task: str, layout: Layout, *, extra_metadata: dict[str, str] | None = None,
                 row_group_bytes: int = DEFAULT_ROW_GROUP_BYTES) -> None:
        if layout.flat:
            raise ValueError("a flat layout writes one part per shard, not a sequence")
        self.directory, self.task, self.layout = directory, task, layout
        self.extra_metadata = extra_metadata
        # a row group is at most a quarter of a part (text bytes are at least its compressed bytes)
        self.row_group_bytes = min(row_group_bytes, max((layout.max_part_bytes or row_group_bytes) // 4, 64 * 1024))
        self._open: dict[str, tuple[PartWriter, str]] = {}  # folder ("" without partitions) -> writer, name
        self._seq: dict[str, int] = {}
        self._last_group: dict[str, int] = {}
        self.parts: list[str] = []

    def write(self, row: dict | list) -> None:
        column = self.layout.partition_by
        if column:
            # (a row as a dict, or as the writer's list of values: redecode.row.record_values)
            value = row[COLUMN_INDEX[column]] if type(row) is list else row.get(column)
            folder = partition_folder(column, value)
        else:
            folder = ""
        entry = self._open.get(folder)
        if entry is None:
            entry = self._begin(folder)
        writer = entry[0]
        size_before = writer.bytes_written
        writer.write(row)
        grew = writer.bytes_written - size_before
        if grew > self._last_group.get(folder, 0):
            self._last_group[folder] = grew
        if self._full(writer, folder):
            self._finish(folder)

    def _full(self, writer: PartWriter, folder: str) -> bool:
        rows = self.layout.max_part_rows
        if rows is not None and writer.rows_written + writer.rows_buffered >= rows:
            return True
        limit = self.layout.max_part_bytes
        if limit is not None and writer.bytes_written:
            # close before the next row group would pass the limit (its size: the largest so far)
            return writer.bytes_written + self._last_group.get(folder, 0) > limit
        return False

    def _begin(self, folder: str) -> tuple[PartWriter, str]:
        seq = self._seq.get(folder, 0)
        self._seq[folder] = seq + 1
        self._last_group.pop(folder, None)
        name = part_name(self.task, seq)
        relative = f"{folder}/{name}" if folder else name
        where = os.path.join(self.directory, folder) if folder else self.directory
        if folder:
            storage.makedirs(where)
        writer = PartWriter(os.path.join(where, name), extra_metadata=self.extra_metadata,
                            row_group_bytes=self.row_group_bytes, drop=self.layout.partition_by)
        self._open[folder] = (writer, relative)
        self.parts.append(relative)
        return self._open[folder]

    def _finish(self, folder: str) -> None:
        writer, _ = self._open.pop(folder)
        try:
            writer.close()
        except BaseException:
            writer.abort()
            raise

    def close(self) -> list[str]:
        """Finish every part; their names relative to the directory, in the order begun."""
        for folder in list(self._open):
            self._finish(folder)
        return list(self.parts)

    def abort(self) -> None:
        """Drop the parts being written (never raises)."""
        for writer, _ in self._open.values():
            writer.abort()
        self._open.clear()

    def __enter__(self) -> PartSequence:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            self.abort()
