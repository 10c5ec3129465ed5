"""Provenance queries: DuckDB views over run directories, and the standard report.

The only modules that import :mod:`duckdb` are this one and :mod:`redecode.diff`.

A *run directory* is what ``redecode run --out DIR`` writes: one Parquet part per input archive
(``<archive-name>.<8 hex>.parquet``, schema :data:`redecode.schema.SCHEMA`, schema version in the
file's key-value metadata) and the manifest ``_run.json``. :func:`open_query` opens an in-memory
DuckDB database with two views:

``decodes``
    one row per output record of every given run: the columns of :data:`redecode.schema.COLUMNS`
    (or the subset asked for) plus ``run``, the run directory the row came from. Built with
    ``read_parquet(..., union_by_name=true)`` so parts written by an older minor schema version
    (fewer columns) still read; a column no part has reads as NULL.
``runs``
    one row per input of every manifest (see :data:`RUNS_COLUMNS`); a run without ``_run.json``
    (a bare directory of parts) contributes no rows.

Read-only and confined (:func:`open_query`): the connection's external access is limited, by
DuckDB's own settings, to the run directories it was opened on (``allowed_directories``; a single
part given as a run: ``allowed_paths``), plus a private spill directory, with ``enable_external_access`` off, extension installing and loading
off, and ``lock_configuration`` on, so that no SQL reads another file (``read_text('/etc/shadow')``),
attaches a database, installs an extension or ``SET`` s any of this back. DuckDB would still let a
statement write to an allowed path (``COPY ... TO 'DIR/x.parquet' (USE_TMP_FILE false)``), so
:func:`execute` also accepts only ``SELECT`` statements, and ``EXPLAIN`` of a ``SELECT`` (``EXPLAIN
ANALYZE`` runs the statement it explains).

Run directories may be URLs (``s3://bucket/run``): their listing and manifest are read through
:mod:`redecode.storage`, and DuckDB reads their parts through the same fsspec filesystem
(:func:`use_storage`, DuckDB's ``register_filesystem``), with the credentials and endpoint
``redecode.storage`` takes from the environment; DuckDB's own httpfs extension is not needed.
The confinement holds there too: the filesystem is registered before the configuration is locked,
and DuckDB checks a URL against ``allowed_directories`` as it checks a local path, so a query on
``s3://bucket/run`` reads ``s3://bucket/run/*.parquet`` and no other object, local file or bucket.

The standard report (:func:`report`) opens its own connection whose ``decodes`` view holds only
:data:`redecode.schema.PROVENANCE_COLUMNS`: the report never reads the ``text`` column (the column
dominates the part size; projection keeps the report fast on large runs).

Units: ``*_offset`` / ``*_length`` in bytes, ``text_length`` in characters, ``decode_errors`` in
U+FFFD characters, as in the schema.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as _dt
import decimal
import io
import json
import logging
import os
import posixpath
import re
import shutil
import tempfile
import unicodedata
import weakref
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import field

import duckdb
import pyarrow as pa

from . import storage
from .dataclass_code import dataclass
from .layout import parse_partition_folder
from .row import IDENTITY_NOTE
from .rundir import MANIFEST, RUNNING, DamagedRunError, incomplete, list_parts, manifest_inputs
from .schema import (COLUMNS, PART_NAME_KEY, PROVENANCE_COLUMNS, SCHEMA, STRETCHES_TYPE, TEXT_COLUMNS,
                     check_schema_version, columns_of)
from .storage import path_text

__all__ = [
    "MANIFEST_NAME",
    "NOTHING_SHOWN",
    "LOW_CONFIDENCE",
    "RUNS_COLUMNS",
    "DamagedRunError",
    "QueryError",
    "REPAIR_MANIFEST_NAME",
    "check_part_versions",
    "check_parts_present",
    "reading_parts",
    "Result",
    "Report",
    "RunDir",
    "load_run",
    "open_query",
    "execute",
    "report",
    "format_result",
    "format_report",
    "render_table",
    "repair_advice",
    "cut_to_fit",
    "wrap",
    "use_storage",
    "parquet_source",
    "select_index",
    "visible",
    "REPORT_SECTIONS",
]

MANIFEST_NAME = MANIFEST  # the run directory's manifest (redecode.rundir)
log = logging.getLogger(__name__)

#: Detector confidence (0..1) below which the report lists a detector decision as low-confidence.
LOW_CONFIDENCE = 0.5

#: Statement types :func:`execute` runs; anything else (COPY, CREATE, INSERT, SET, ATTACH...) is refused.
#: ``EXPLAIN`` is run when the statement it explains is one of these (``EXPLAIN ANALYZE`` executes it).
_ALLOWED_STATEMENTS = ("SELECT",)
_EXPLAIN = re.compile(r"\s*EXPLAIN\s+(?:ANALY[SZ]E\s+)?(?:\([^)]*\)\s*)?", re.IGNORECASE)


class QueryError(ValueError):
    """A run directory cannot be opened, or a statement is not allowed / fails."""


# --------------------------------------------------------------------------------------------
# Run directories


#: The manifest of a ``redecode repair`` output (:data:`redecode.repair.MANIFEST_NAME`, named here
#: so that a query does not import ftfy with :mod:`redecode.repair`; a test checks they agree).
REPAIR_MANIFEST_NAME = "_repair.json"


@dataclass(frozen=True, slots=True)
class RunDir:
    """A run directory (or a single part file): its path, manifest (or None) and part files.
    ``repair``: the directory is the output of ``redecode repair`` (its parts are repaired texts,
    not a run's rows; ``manifest`` is None)."""

    path: str
    manifest: dict | None
    parts: tuple[str, ...]
    repair: bool = False
    #: what is unfinished there (:func:`redecode.rundir.incomplete`), or None
    unfinished: str | None = None


def load_run(path: str) -> RunDir:
    """Find the parts and the manifest of the run at *path*.

    *path* is a run directory (parts are the ``*.parquet`` files in it, not the hidden ``.tmp-*``
    files of an interrupted run) or a single ``.parquet`` part, local or a URL
    (:mod:`redecode.storage`; a ``file://`` URL is its local path), or the output directory of
    ``redecode repair`` (with :data:`REPAIR_MANIFEST_NAME` and no ``_run.json``: ``repair`` True).
    Raises :class:`QueryError` when the path does not exist, or is a directory with neither parts
    nor ``_run.json``, and :class:`ImportError` for a URL without the ``[s3]`` extra. A directory
    holding an unfinished run (:func:`redecode.rundir.incomplete`: a run that started and has not
    written ``_run.json`` since, or parts without ``_run.json``) has ``unfinished`` set to the
    sentence that says so and how many inputs it lacks (:func:`open_query` logs it as a warning);
    its parts are read as they are.
    """
    path = storage.local_path(path)
    if storage.is_remote(path):
        path = path.rstrip("/")
        names = storage.listdir(path)
        if not names:
            if storage.exists(path):  # an object: a single part
                return RunDir(path=path, manifest=None, parts=(path,))
            raise QueryError(f"{path}: no such run directory (give the --out DIR of `redecode run`)")
    elif os.path.isfile(path):
        return RunDir(path=path, manifest=None, parts=(path,))
    elif not os.path.isdir(path):
        raise QueryError(f"{path}: no such run directory (give the --out DIR of `redecode run`)")
    else:
        names = sorted(os.listdir(path))
    if any(parse_partition_folder(name) for name in names):
        # a bounded layout with Hive-style partition folders (redecode.layout): their parts too
        parts = tuple(storage.join(path, name) for name in list_parts(path))
    else:
        parts = tuple(
            storage.join(path, name)
            for name in names
            if name.endswith(".parquet") and not name.startswith(".")
        )
    if REPAIR_MANIFEST_NAME in names and MANIFEST_NAME not in names:
        return RunDir(path=path, manifest=None, parts=parts, repair=True)
    manifest = None
    manifest_path = storage.join(path, MANIFEST_NAME)
    if MANIFEST_NAME in names:
        try:
            manifest = json.loads(storage.read_bytes(manifest_path))
        except (OSError, ValueError) as exc:
            raise QueryError(f"{manifest_path}: cannot read the run manifest: {exc}") from exc
    if not parts and manifest is None and RUNNING not in names:
        raise QueryError(
            f"{path}: not a run directory (no *.parquet parts and no {MANIFEST_NAME}); "
            "give the --out DIR of `redecode run`"
        )
    return RunDir(path=path, manifest=manifest, parts=parts, unfinished=incomplete(path, names))


def repair_advice(path: str) -> str:
    """What to do with the output of ``redecode repair`` at *path* where a run is expected."""
    return (f"{path} is the output of `redecode repair` ({REPAIR_MANIFEST_NAME}), which has no standard "
            f"report: ask it SQL over the view repairs, e.g. redecode query {path} "
            '"SELECT status, count(*) AS texts FROM repairs GROUP BY ALL"')


def use_storage(con: duckdb.DuckDBPyConnection, paths: Iterable[str]) -> None:
    """Let *con* read the URLs among *paths* (``s3://...``) through :mod:`redecode.storage`'s fsspec
    filesystem for their scheme (registered once per scheme). Local paths need nothing. Raises
    :class:`ImportError` without the ``[s3]`` extra."""
    for path in paths:
        if not storage.is_remote(path):
            continue
        fs, _ = storage.filesystem(path)
        protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
        if protocol not in con.list_filesystems():
            con.register_filesystem(fs)


def check_part_versions(con: duckdb.DuckDBPyConnection, parts: Sequence[str], *, names: bool = False) -> None:
    """Refuse parts whose schema major version this code does not know, and parts that cannot be
    trusted: a footer that cannot be read (a part cut short or damaged), or a column missing that
    the part's schema version has (renamed or dropped by another tool: a query would read NULL
    where the run wrote values). With *names* (the parts of a run directory, whose markers and
    manifest name them), also a part whose metadata names another file
    (:data:`redecode.schema.PART_NAME_KEY`: another part copied or renamed over it, whose rows
    would be counted twice and its own missing); a part written before the name was recorded
    passes.

    Raises :class:`redecode.schema.SchemaVersionError` naming the first part of an unknown
    version, :class:`redecode.rundir.DamagedRunError` naming the first damaged one. The text
    columns (:data:`redecode.schema.TEXT_COLUMNS`) may be missing: a copy of a run without them
    still gives every provenance answer and the report.
    """
    if not parts:
        return
    with reading_parts(con, parts):
        rows = con.execute(
            "SELECT file_name, key, value FROM parquet_kv_metadata(?)", [list(parts)]
        ).fetchall()
        elements = con.execute("SELECT file_name, name, num_children FROM parquet_schema(?)",
                               [list(parts)]).fetchall()
    meta: dict[str, dict[bytes, bytes]] = {p: {} for p in parts}
    for file_name, key, value in rows:
        meta.setdefault(file_name, {})[bytes(key)] = bytes(value)
    tree: dict[str, list[tuple[str, int]]] = {p: [] for p in parts}
    for file_name, name, children in elements:
        tree.setdefault(file_name, []).append((name, children or 0))
    present = {p: set(_top_level_names(e)) for p, e in tree.items()}
    for part in parts:
        version = check_schema_version(meta.get(part) or None, part)
        written_as = (meta.get(part) or {}).get(PART_NAME_KEY)
        if names and written_as is not None and written_as != os.fsencode(posixpath.basename(part)):
            raise DamagedRunError(part, f"holds the rows of the part written as {os.fsdecode(written_as)!r} "
                                        "(copied or renamed over this one)")
        # (the text columns may be left out: a provenance-only copy of a run still reports)
        # (nor the column a bounded layout's partition folder names: DuckDB adds it from the folder)
        folder = part.rstrip("/").rsplit("/", 2)[-2] if "/" in part else ""
        named = parse_partition_folder(folder) if folder else None
        missing = [c for c in columns_of(version) if c not in present.get(part, ()) and c not in TEXT_COLUMNS
                   and (named is None or c != named[0])]
        if missing:
            raise DamagedRunError(part, f"lacks column(s) {', '.join(missing)}, which its schema version "
                                        f"{version} has (renamed or removed by another tool)")


def _top_level_names(elements: Sequence[tuple[str, int]]) -> list[str]:
    """The top-level column names of one Parquet schema given as its elements in depth-first
    order, ``(name, number of children)``, the root first (DuckDB's ``parquet_schema``): a nested
    column's fields (``stretches``' ``encoding``) are not columns of the part."""
    if not elements:
        return []
    names, i = [], 1
    for _ in range(elements[0][1]):
        if i >= len(elements):
            break
        name, need = elements[i]
        names.append(name)
        i += 1
        while need > 0 and i < len(elements):  # skip the column's subtree
            need += elements[i][1] - 1
            i += 1
    return names


@contextlib.contextmanager
def reading_parts(con: duckdb.DuckDBPyConnection, parts: Sequence[str]) -> Iterator[None]:
    """Run the body, which reads *parts* through *con*; when DuckDB fails, look for a part that
    cannot be read whole (a footer or a page cut short or damaged) and raise
    :class:`redecode.rundir.DamagedRunError` naming it, else let the error through (the SQL's own
    error). Reads every part again on that path only."""
    try:
        yield
    except duckdb.Error as exc:
        bad = damaged_part(con, parts)
        if bad is not None:
            raise DamagedRunError(*bad) from exc
        raise


def damaged_part(con: duckdb.DuckDBPyConnection, parts: Sequence[str]) -> tuple[str, str] | None:
    """``(part, what DuckDB says)`` of the first of *parts* that cannot be read whole (every column
    of every row group), or None."""
    for part in parts:
        try:
            result = con.execute("SELECT * FROM read_parquet(?)", [part])
            while result.fetchmany(4096):
                pass
        except duckdb.Error as exc:
            if isinstance(exc, duckdb.InterruptException):
                raise
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]  # (not DuckDB's "LINE 1: ...")
            if len(first) > 300:  # DuckDB quotes the value it could not read
                first = first[:300] + "..."
            return part, f"cannot be read ({first})"
    return None


_DUCKDB_TYPES = {
    pa.string(): "VARCHAR",
    pa.large_string(): "VARCHAR",
    pa.int64(): "BIGINT",
    pa.int32(): "INTEGER",
    pa.float64(): "DOUBLE",
    pa.bool_(): "BOOLEAN",
    pa.list_(pa.string()): "VARCHAR[]",
    STRETCHES_TYPE: 'STRUCT("offset" BIGINT, "length" BIGINT, "encoding" VARCHAR)[]',
}


def _duckdb_type(column: str) -> str:
    return _DUCKDB_TYPES[SCHEMA.field(column).type]


def parquet_source(files: Sequence[str], options: str = "") -> str:
    """DuckDB's ``read_parquet([...], union_by_name=true[, options])`` of the part files ``files``,
    with ``hive_partitioning=true`` when a part lies in a Hive-style partition folder (a bounded
    layout's ``COLUMN=VALUE/``, :mod:`redecode.layout`): the part lacks that column and DuckDB adds
    it from the folder (null for ``__HIVE_DEFAULT_PARTITION__``)."""
    hive = any(parse_partition_folder(f.rstrip("/").rsplit("/", 2)[-2]) for f in files if f.count("/") >= 1)
    extra = (", hive_partitioning=true" if hive else "") + (f", {options}" if options else "")
    return "read_parquet([" + ", ".join(sql_string(f) for f in files) + "], union_by_name=true" + extra + ")"


def sql_string(value: str) -> str:
    """*value* as an SQL string literal (single quotes, inner quotes doubled), for DuckDB."""
    return "'" + value.replace("'", "''") + "'"


def _parts_select(con: duckdb.DuckDBPyConnection, run: RunDir, columns: Sequence[str]) -> str:
    """A SELECT of *columns* (schema types) plus ``run`` over the parts of *run*."""
    if not run.parts:
        cols = ", ".join(f"NULL::{_duckdb_type(c)} AS {c}" for c in columns)
        return f"SELECT {cols}, {sql_string(run.path)} AS run WHERE false"
    source = parquet_source(run.parts)
    present = {r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()}
    cols = ", ".join(
        (f"CAST({c} AS {_duckdb_type(c)}) AS {c}" if c in present else f"NULL::{_duckdb_type(c)} AS {c}")
        for c in columns
    )
    return f"SELECT {cols}, {sql_string(run.path)} AS run FROM {source}"


#: Columns of the ``runs`` view: one row per input of a manifest.
RUNS_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("run", pa.string()),
    ("schema_version", pa.string()),
    ("redecode_version", pa.string()),
    ("rules", pa.string()),
    ("rules_digest", pa.string()),
    ("started_at", pa.string()),
    ("finished_at", pa.string()),
    ("wall_seconds", pa.float64()),
    ("cpu_seconds", pa.float64()),
    ("path", pa.string()),
    ("size", pa.int64()),
    ("part", pa.string()),
    ("parts", pa.list_(pa.string())),
    ("outcome", pa.string()),
    ("error", pa.string()),
    ("error_offset", pa.int64()),
    ("rows", pa.int64()),
    ("records_seen", pa.int64()),
    ("decoded", pa.int64()),
    ("skipped", pa.int64()),
    ("failed", pa.int64()),
)


def check_parts_present(run: RunDir, inputs: Sequence[dict] | None = None) -> None:
    """Raise :class:`redecode.rundir.DamagedRunError` (``missing``) naming the first part the
    manifest of *run* names (its per-input records, *inputs* when already read:
    :func:`redecode.rundir.manifest_inputs`) that the run directory does not hold: its rows would
    silently be missing from every query. Not for a run that is unfinished (a run under way may
    remove and make parts) or without a manifest."""
    if not run.manifest or run.unfinished or run.parts == (run.path,):
        return
    present = set(run.parts)
    holders: dict[str, list[str]] = {}  # a missing part -> the inputs whose rows it holds
    for inp in manifest_inputs(run.path, run.manifest) if inputs is None else inputs:
        for name in inp.get("parts") or ([inp["part"]] if inp.get("part") else []):
            part = storage.join(run.path, name)
            if part not in present:
                holders.setdefault(part, []).append(path_text(str(inp.get("path"))))
    for part, paths in holders.items():
        # (in a bounded layout a part holds the rows of several inputs)
        whose = paths[0] if len(paths) == 1 else f"{paths[0]} and {len(paths) - 1} other input(s)"
        raise DamagedRunError(part, f"not there, though {MANIFEST_NAME} lists it with the rows of {whose}",
                              missing=True)


def _runs_table(runs: Sequence[RunDir], inputs: dict[str, list[dict]] | None = None) -> pa.Table:
    """The ``runs`` view's table: a row per input of each run with a manifest (*inputs*: their
    records by run path, when already read)."""
    rows: list[dict] = []
    for run in runs:
        m = run.manifest
        if not m:
            continue
        rules = m.get("rules") or {}
        listed = inputs.get(run.path) if inputs is not None else None
        for inp in manifest_inputs(run.path, m) if listed is None else listed:
            counts = inp.get("counts") or {}
            rows.append(
                {
                    "run": run.path,
                    "schema_version": m.get("schema_version"),
                    "redecode_version": m.get("redecode_version"),
                    "rules": rules.get("name"),
                    "rules_digest": rules.get("digest"),
                    "started_at": m.get("started_at"),
                    "finished_at": m.get("finished_at"),
                    "wall_seconds": m.get("wall_seconds"),
                    "cpu_seconds": m.get("cpu_seconds"),
                    "path": inp.get("path"),
                    "size": inp.get("size"),
                    "part": inp.get("part"),
                    "parts": inp.get("parts") or ([inp["part"]] if inp.get("part") else []),
                    "outcome": inp.get("outcome"),
                    "error": inp.get("error"),
                    "error_offset": inp.get("error_offset"),
                    "rows": inp.get("rows"),
                    "records_seen": counts.get("records_seen"),
                    "decoded": counts.get("decoded"),
                    "skipped": counts.get("skipped"),
                    "failed": counts.get("failed"),
                }
            )
    schema = pa.schema(list(RUNS_COLUMNS))
    for row in rows:  # names that are not UTF-8 (exact in _run.json) as the parts write them
        for key in ("path", "error"):
            if isinstance(row[key], str):
                row[key] = path_text(row[key])
    return pa.Table.from_pylist(rows, schema=schema)


def open_query(
    runs: Sequence[str] | str, *, columns: Sequence[str] | None = None, also_read: Sequence[str] = (),
    repairs: bool = False,
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the views ``decodes`` and ``runs`` over *runs*, confined
    to reading their parts (see the module docstring: external access limited by DuckDB's
    ``allowed_paths`` to the part files and ``also_read``, the configuration locked).

    *runs*: run directories (or single part files). *columns*: the schema columns the ``decodes``
    view exposes, default all of :data:`redecode.schema.COLUMNS`; pass
    :data:`~redecode.schema.PROVENANCE_COLUMNS` to make reading ``text`` impossible.
    *also_read*: other files the caller's own SQL reads (the report's ``diff.parquet``).
    *repairs*: *runs* may also name outputs of ``redecode repair``; their parts are the view
    ``repairs`` (their columns as written: docs/repair.md), and SQL may read them by path too.

    Raises :class:`QueryError` for a missing or non-run directory (or a repair's output, without
    *repairs*) and :class:`redecode.schema.SchemaVersionError` for a part of an unknown schema
    major version.
    """
    if isinstance(runs, str):
        runs = [runs]
    if not runs:
        raise QueryError("no run directory given")
    columns = tuple(columns or COLUMNS)
    unknown = [c for c in columns if c not in COLUMNS]
    if unknown:
        raise QueryError(f"unknown columns: {', '.join(unknown)}")
    every = [load_run(r) for r in runs]
    repaired = [r for r in every if r.repair]
    if repaired and not repairs:
        raise QueryError(repair_advice(repaired[0].path))
    for run in every:
        if run.unfinished:
            log.warning("%s", run.unfinished)
    loaded = [r for r in every if not r.repair] or [RunDir(path="", manifest=None, parts=())]
    # DuckDB draws a progress bar on stdout for queries over two seconds: stdout is for data here
    con = duckdb.connect(":memory:")
    con.execute("SET enable_progress_bar = false")
    use_storage(con, [r.path for r in every] + list(also_read))  # before the configuration is locked
    single = [run.path for run in every if run.parts == (run.path,)]  # a part given as a run
    _confine(con, [run.path for run in every if run.path and run.path not in single], single + list(also_read))
    inputs = {run.path: manifest_inputs(run.path, run.manifest) for run in loaded if run.manifest}
    for run in loaded:
        check_parts_present(run, inputs.get(run.path))
        check_part_versions(con, run.parts, names=run.manifest is not None)
    selects = []
    for run in loaded:
        with reading_parts(con, run.parts):
            selects.append(_parts_select(con, run, columns))
    con.execute("CREATE VIEW decodes AS " + " UNION ALL ".join(selects))
    parts = [p for r in repaired for p in r.parts]
    if parts:
        source = "read_parquet([" + ", ".join(sql_string(p) for p in parts) + "], union_by_name=true)"
        con.execute(f"CREATE VIEW repairs AS SELECT * FROM {source}")
    # the parts the views read, for execute() to name one that turns out damaged
    con.register("_parts_arrow", pa.table({"part": [p for run in every for p in run.parts]}))
    con.register("_runs_arrow", _runs_table(loaded, inputs))
    con.execute("CREATE VIEW runs AS SELECT * FROM _runs_arrow")
    return con


def _confine(con: duckdb.DuckDBPyConnection, directories: Sequence[str], files: Sequence[str]) -> None:
    """Limit ``con``'s external access to ``directories`` and ``files`` (and spilling into a private
    temporary directory, removed with the connection), with DuckDB's settings (DuckDB's "Securing
    DuckDB": ``allowed_directories``, ``allowed_paths``, ``enable_external_access``, the extension
    settings), then lock the configuration so no statement can change them back. (DuckDB lets a
    statement write where it may read: :func:`execute` refuses every statement but SELECT.)"""
    spill = tempfile.mkdtemp(prefix="redecode-query-")
    weakref.finalize(con, shutil.rmtree, spill, True)

    def both(paths: Sequence[str]) -> list[str]:
        # a local path as given (made absolute) and resolved; a URL (s3://bucket/run, read through
        # the fsspec filesystem use_storage registered) as it is: DuckDB checks it as a prefix too
        local = [p for p in paths if not storage.is_remote(p)]
        return sorted({os.path.abspath(p) for p in local} | {os.path.realpath(p) for p in local}
                      | {p for p in paths if storage.is_remote(p)})

    settings = (
        ("temp_directory", spill),
        ("allowed_directories", both([spill, *directories])),
        ("allowed_paths", both(files)),
        ("autoinstall_known_extensions", False),
        ("autoload_known_extensions", False),
        ("allow_community_extensions", False),
        ("enable_external_access", False),
        ("lock_configuration", True),
    )
    for name, value in settings:
        con.execute(f"SET {name} = ?", [value])


# --------------------------------------------------------------------------------------------
# Running SQL


@dataclass(frozen=True, slots=True)
class Result:
    """A query result: column names and rows (tuples of Python values)."""

    columns: tuple[str, ...]
    rows: list[tuple]
    title: str | None = None
    sql: str | None = None


def execute(con: duckdb.DuckDBPyConnection, sql: str) -> list[Result]:
    """Run the statements of *sql* (``SELECT`` / ``EXPLAIN`` only) and return one result each.

    Raises :class:`QueryError` for an empty *sql*, a statement of another type (the query layer
    is read-only), or a DuckDB error (message included), :class:`redecode.rundir.DamagedRunError`
    when the error comes from a part that cannot be read.
    """
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise QueryError(str(exc)) from exc
    if not statements:
        raise QueryError("empty SQL")
    for st in statements:
        kind = _statement_kind(con, st)
        if kind not in _ALLOWED_STATEMENTS:
            raise QueryError(
                f"{kind} statements are not allowed: `redecode query` is read-only "
                "(use SELECT; to export, pipe --format csv or json)"
            )
    results = []
    for st in statements:
        try:
            with reading_parts(con, _parts_of(con)):
                rel = con.execute(st.query)
                cols = tuple(d[0] for d in rel.description or ())
                rows = rel.fetchall()
        except duckdb.InterruptException:
            raise
        except duckdb.Error as exc:
            raise QueryError(str(exc)) from exc
        results.append(Result(columns=cols, rows=rows, sql=st.query.strip()))
    return results


def _parts_of(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The parts :func:`open_query` gave *con*'s views (none for another connection)."""
    try:
        return [p for (p,) in con.execute("SELECT part FROM _parts_arrow").fetchall()]
    except duckdb.Error:
        return []


def _statement_kind(con: duckdb.DuckDBPyConnection, statement) -> str:
    """The type name of ``statement``; for ``EXPLAIN [ANALYZE] X``, ``EXPLAIN X`` with X the type
    of the explained statement (``EXPLAIN SELECT``, ``EXPLAIN COPY``...): ``EXPLAIN ANALYZE``
    executes X, so it is allowed only when X is."""
    kind = statement.type.name
    if kind != "EXPLAIN":
        return kind
    text = statement.query
    m = _EXPLAIN.match(text)
    if m is None:
        return "EXPLAIN"
    try:
        inner = con.extract_statements(text[m.end():])
    except duckdb.Error:
        return "EXPLAIN"
    kinds = {_statement_kind(con, s) for s in inner}
    if len(inner) != 1 or not kinds <= set(_ALLOWED_STATEMENTS):
        return "EXPLAIN " + " ".join(sorted(kinds) or ["(nothing)"])
    return kinds.pop()


# --------------------------------------------------------------------------------------------
# Selecting from a record index (run --index --where)


def select_index(where: str, *, parquet: Sequence[str] = (), tables: Sequence[pa.Table] = ()
                 ) -> Iterator[pa.RecordBatch]:
    """The rows of a record index for which the SQL condition ``where`` holds, as Arrow record
    batches of ``warc_filename``, ``_source`` (the index file of the row), ``o`` (the record's
    offset) and ``l`` (its length; -1 where the index has none), in no particular order: what
    ``redecode run --index INDEX --where SQL`` reads (:mod:`redecode.index`). Streamed as DuckDB
    filters the index (no sort, no aggregate: DuckDB's memory does not grow with the rows kept);
    the caller takes a batch at a time.

    ``parquet``: Parquet index files (Common Crawl's columnar index columns; Hive-style partition
    folders in their paths, ``crawl=CC-MAIN-2024-10/``, are columns too), read by DuckDB with the
    condition pushed down to the files; ``tables``: CDX(J) indexes already read (Arrow tables with
    the same column names and ``_source``). The connection is confined to the given files, as
    :func:`open_query`'s to its run directories, and ``where`` must be one condition (a subquery in
    it reads only those files). Raises :class:`QueryError` naming what DuckDB refused (an unknown
    column, a syntax error) or a ``where`` that is more than a condition, before the first batch.
    """
    con = duckdb.connect(":memory:")
    con.execute("SET enable_progress_bar = false")
    try:
        statements = con.extract_statements(f"SELECT 1 WHERE ({where})")
    except duckdb.Error as exc:
        con.close()
        raise QueryError(f"--where {where!r}: {exc}") from None
    if len(statements) != 1 or statements[0].type.name != "SELECT":
        con.close()
        raise QueryError(f"--where {where!r}: a condition over the index's columns, not statements")
    use_storage(con, parquet)
    _confine(con, [], list(parquet))
    sources = []
    for i, table in enumerate(tables):
        con.register(f"_index_{i}", table)
        sources.append(f"SELECT * FROM _index_{i}")
    if parquet:
        files = ", ".join(sql_string(p) for p in parquet)
        sources.append(f"SELECT * EXCLUDE (filename), filename AS _source FROM read_parquet([{files}], "
                       "hive_partitioning = true, union_by_name = true, filename = true)")
    if not sources:
        con.close()
        raise QueryError("--where: no index to select from")
    union = " UNION ALL BY NAME ".join(f"({s})" for s in sources)
    # streamed as DuckDB filters: no sort, no aggregate (their memory grows with the rows kept;
    # the caller groups per file into 16 bytes a record)
    sql = (f"SELECT warc_filename, _source, CAST(warc_record_offset AS BIGINT) AS o, "
           f"coalesce(CAST(warc_record_length AS BIGINT), -1) AS l FROM ({union}) WHERE ({where})")
    try:
        relation = con.sql(sql)
        # (DuckDB 2.x: to_arrow_reader; 1.x: fetch_record_batch)
        reader = (getattr(relation, "to_arrow_reader", None) or relation.fetch_record_batch)(1 << 16)
    except duckdb.Error as exc:
        con.close()
        raise QueryError(f"--where {where!r}: {' '.join(str(exc).split())}") from None
    return _batches(con, reader, where)


def _batches(con, reader, where: str) -> Iterator[pa.RecordBatch]:
    try:
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                return
            except duckdb.Error as exc:
                raise QueryError(f"--where {where!r}: {' '.join(str(exc).split())}") from None
            yield batch
    finally:
        con.close()


# --------------------------------------------------------------------------------------------
# The standard report

# The label that decided, per deciding step. A step not listed has no declared label.
_DECLARED_LABEL = (
    "CASE source WHEN 'transport' THEN header_charset "
    "WHEN 'prescan' THEN meta_charset WHEN 'head-scan' THEN meta_charset "
    "WHEN 'xml-declaration' THEN xml_charset END"
)

#: What a browser shows of a response whose body is not in its declared content coding (decoded as
#: identity by the author rules; browser_encoding is null): the standard report and the HTML
#: report say it in these words.
NOTHING_SHOWN = "(nothing shown)"
# the row's warning for such a body (redecode.row.IDENTITY_NOTE), up to its colon
_IDENTITY_PREFIX = IDENTITY_NOTE.split(":")[0]

#: (key, title, SQL) of each report section, in order. The SQL reads only provenance columns.
REPORT_SECTIONS: tuple[tuple[str, str, str], ...] = (
    (
        "status",
        "Records by status and reason",
        "SELECT status, skip_reason, error_kind, count(*) AS records FROM decodes "
        "GROUP BY ALL ORDER BY records DESC, status, skip_reason NULLS FIRST, error_kind NULLS FIRST",
    ),
    (
        "encodings",
        "Encodings by deciding step",
        "SELECT encoding, source, count(*) AS records, sum(decode_errors) AS replacement_chars "
        "FROM decodes WHERE status = 'decoded' "
        "GROUP BY ALL ORDER BY records DESC, encoding, source",
    ),
    (
        "declared",
        "Declared label -> decoded encoding, where they differ",
        "SELECT source, lower(trim(declared)) AS declared_label, encoding, count(*) AS records "
        f"FROM (SELECT source, encoding, {_DECLARED_LABEL} AS declared FROM decodes "
        "      WHERE status = 'decoded') "
        "WHERE declared IS NOT NULL AND lower(trim(declared)) <> lower(encoding) "
        "GROUP BY ALL ORDER BY records DESC, declared_label, encoding",
    ),
    (
        "overrides",
        "Where the rules checked the browser's choice: overridden, kept, unresolved, or no browser text "
        "(browser_encoding -> encoding, and why)",
        f"SELECT CASE WHEN browser_encoding IS NULL AND contains(warning, {sql_string(_IDENTITY_PREFIX)}) "
        f"THEN {sql_string(NOTHING_SHOWN)} ELSE browser_encoding END AS browser_encoding, "
        # the verdict column (schema 1.5); runs written before it: validation's first word (never
        # "in parts": a page read in parts has the verdict of step 5's check, or none)
        "encoding, source, coalesce(verdict, CASE WHEN starts_with(validation, 'in parts:') THEN NULL "
        "ELSE split_part(validation, ':', 1) END) AS verdict, "
        "count(*) AS records, sum(decode_errors) AS replacement_chars FROM decodes "
        "WHERE status = 'decoded' AND (encoding IS DISTINCT FROM browser_encoding "
        "OR validation IS NOT NULL) "
        "GROUP BY ALL ORDER BY records DESC, browser_encoding NULLS FIRST, encoding NULLS FIRST, "
        "source, verdict NULLS FIRST",
    ),
    (
        "conflicts",
        "Header/meta conflicts and their replacement-character cost",
        "SELECT lower(trim(header_charset)) AS header_charset, lower(trim(meta_charset)) AS meta_charset, "
        "encoding, source, count(*) AS records, count_if(decode_errors > 0) AS records_with_errors, "
        "sum(decode_errors) AS replacement_chars FROM decodes "
        "WHERE status = 'decoded' AND header_charset IS NOT NULL AND meta_charset IS NOT NULL "
        "AND len(conflict) > 0 "
        "GROUP BY ALL ORDER BY replacement_chars DESC, records DESC, header_charset, meta_charset",
    ),
    (
        "late_meta",
        "Metas past byte 1024",
        "SELECT source, lower(trim(meta_charset)) AS meta_charset, encoding, count(*) AS records, "
        "min(meta_offset) AS min_offset, max(meta_offset) AS max_offset FROM decodes "
        "WHERE meta_offset >= 1024 "
        "GROUP BY ALL ORDER BY records DESC, source, meta_charset",
    ),
    (
        "low_confidence",
        f"Detector decisions with confidence below {LOW_CONFIDENCE}",
        "SELECT detector, encoding, tld, count(*) AS records, "
        "round(min(detector_confidence), 3) AS min_confidence, "
        "sum(decode_errors) AS replacement_chars FROM decodes "
        f"WHERE source = 'detector' AND detector_confidence < {LOW_CONFIDENCE} "
        "GROUP BY ALL ORDER BY records DESC, detector, encoding, tld NULLS FIRST",
    ),
    (
        "errors_by_encoding",
        "decode_errors by encoding",
        "SELECT encoding, count(*) AS records, count_if(decode_errors > 0) AS records_with_errors, "
        "sum(decode_errors) AS replacement_chars FROM decodes WHERE status = 'decoded' "
        "GROUP BY ALL ORDER BY replacement_chars DESC, records DESC, encoding",
    ),
    (
        "errors_by_tld",
        "decode_errors by top-level domain (domains with errors)",
        "SELECT tld, count(*) AS records, count_if(decode_errors > 0) AS records_with_errors, "
        "sum(decode_errors) AS replacement_chars FROM decodes WHERE status = 'decoded' "
        "GROUP BY ALL HAVING sum(decode_errors) > 0 "
        "ORDER BY replacement_chars DESC, records DESC, tld NULLS FIRST",
    ),
    (
        "failed_inputs",
        "Inputs that failed",
        # (an input stopped by --limit, outcome 'limited', did not fail)
        # the error without the path it starts with (the path has its own column)
        "SELECT run, path, outcome, error_offset, rows, CASE WHEN starts_with(error, path || ': ') "
        "THEN substr(error, length(path) + 3) ELSE error END AS error FROM runs "
        "WHERE outcome IS NULL OR outcome NOT IN ('complete', 'limited') ORDER BY run, path",
    ),
)


@dataclass(frozen=True, slots=True)
class Report:
    """The standard report: one :class:`Result` per section, keyed as in :data:`REPORT_SECTIONS`."""

    runs: tuple[str, ...]
    records: int
    sections: dict[str, Result] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "runs": list(self.runs),
            "records": self.records,
            "sections": {
                key: {
                    "title": r.title,
                    "columns": list(r.columns),
                    "rows": [dict(zip(r.columns, map(_jsonable, row))) for row in r.rows],
                }
                for key, r in self.sections.items()
            },
        }


def report(runs: Sequence[str] | str) -> Report:
    """The standard report over *runs* (run directories), reading provenance columns only.

    Raises what :func:`open_query` raises.
    """
    if isinstance(runs, str):
        runs = [runs]
    con = open_query(runs, columns=PROVENANCE_COLUMNS)
    try:
        records = con.execute("SELECT count(*) FROM decodes").fetchone()[0]
        sections = {}
        for key, title, sql in REPORT_SECTIONS:
            rel = con.execute(sql)
            cols = tuple(d[0] for d in rel.description)
            sections[key] = Result(columns=cols, rows=rel.fetchall(), title=title, sql=sql)
    finally:
        con.close()
    return Report(runs=tuple(runs), records=records, sections=sections)


# --------------------------------------------------------------------------------------------
# Formatting (pure functions; the click commands only pick one)


def _jsonable(value):
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time, _dt.timedelta)):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def _text(value, width: int | None = None) -> str:
    """*value* as one line of a table cell, uncut (list elements cut to *width*; None: uncut)."""
    if value is None:
        return ""
    if isinstance(value, float):
        text = f"{value:.4g}"
    elif isinstance(value, (list, tuple)):
        text = "[" + ", ".join(_text(v, width) if width is None else _cell(v, width) for v in value) + "]"
    else:
        text = str(_jsonable(value))
    # One line per row: control characters (newlines in excerpts) shown escaped, the rest as is.
    return visible(text)


def visible(text: str) -> str:
    """*text* with every character that is not printable text written as a Python-style escape
    (``\\n``, ``\\x00``, ``\\u202e``): controls, format characters (bidi overrides), the line and
    paragraph separators, lone surrogates, unassigned and private-use code points; printable
    characters and the space separators (Unicode category Zs: U+3000, U+00A0...) as they are. No
    character shown can break a line or change how the text around it reads."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or unicodedata.category(c) == "Zs" else repr(c)[1:-1] for c in text)


def _columns(text: str) -> int:
    """Terminal columns *text* takes (wcwidth: East Asian wide characters take two, combining
    marks none); *text* has no control characters (:func:`_text` escapes them)."""
    if text.isascii():
        return len(text)
    from wcwidth import wcswidth  # noqa: PLC0415 - (0.05 G instructions to import: only tables with wide text)

    return max(wcswidth(text), 0)


def _take(text: str, width: int, from_end: bool = False) -> str:
    """The longest start (or end) of *text* that takes at most *width* terminal columns."""
    from wcwidth import wcwidth  # noqa: PLC0415 - (see _columns)

    used = 0
    chars = reversed(text) if from_end else iter(text)
    n = 0
    for c in chars:
        w = max(wcwidth(c), 0)
        if used + w > width:
            break
        used += w
        n += 1
    return text[len(text) - n:] if from_end else text[:n]


def _cut(text: str, width: int, at_end: bool = False) -> str:
    """*text* cut to *width* terminal columns, marked with "…": in the middle (a path keeps its
    file name, a message its start and its end), or at the end with *at_end*."""
    if _columns(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    if at_end:
        return _take(text, width - 1) + "…"
    head = (width - 1) * 2 // 5
    start = _take(text, head)
    return start + "…" + _take(text, width - 1 - _columns(start), from_end=True)


def _cell(value, width: int = 60) -> str:
    return _cut(_text(value, width), width)


#: The narrowest a cut column gets when a table is fitted to a width (its header may be wider).
MIN_COLUMN_WIDTH = 6
#: Below this many columns for its widest cells a table fitted to a width is shown expanded instead:
#: narrower cuts leave too little of a URL or an excerpt to read.
MIN_CUT_WIDTH = 20
_GAP = 2  # spaces between columns


def render_table(columns: Sequence[str], rows: Iterable[Sequence], *, max_width: int | None = None,
                 width: int | None = None, cut_at_end: Sequence[str] = (), expanded: bool = False) -> str:
    """Rows as an aligned plain-text table: NULL shown empty, each row on one line, control
    characters escaped (``\\n``). No cell is cut unless it must be: *max_width* (characters; None,
    the default: no limit) cuts longer cells, in the middle or at the end for the columns named in
    *cut_at_end*, marked "…".

    *width* (terminal columns, which wcwidth counts: a CJK character takes two; None: no limit):
    no line is wider. The widest columns are cut to one common limit, the largest that fits, none
    below its header or :data:`MIN_COLUMN_WIDTH`; when that is still too wide, or the limit would
    be under :data:`MIN_CUT_WIDTH`, each row is shown as ``column  value`` lines under a
    ``-[ row N ]-`` rule (psql's expanded display), values cut to fit.

    *expanded*: that expanded display whatever the width, every value whole: wrapped at *width*
    (at a space where there is one in the second half of the line), its continuation lines
    indented under the value, never cut.
    """
    rows = list(rows)
    texts = [[_text(v, max_width) for v in row] for row in rows]
    if expanded:
        return _render_expanded(columns, texts, width, cut_at_end, whole=True)
    natural = [max([_columns(c)] + [_columns(r[i]) for r in texts]) for i, c in enumerate(columns)]
    if max_width is not None:
        natural = [min(n, max(max_width, _columns(c))) for n, c in zip(natural, columns)]
    caps = _caps(columns, natural, width)
    if caps is None:
        return _render_expanded(columns, texts, width, cut_at_end)
    at_end = [c in cut_at_end for c in columns]
    cells = [[_cut(t, caps[i], at_end[i]) for i, t in enumerate(r)] for r in texts]
    widths = [_columns(c) for c in columns]
    for row in cells:
        for i, c in enumerate(row):
            widths[i] = max(widths[i], _columns(c))
    numeric = [
        all(v is None or isinstance(v, (int, float, decimal.Decimal)) for v in col)
        for col in zip(*rows)
    ] if cells else [False] * len(columns)

    def line(values):
        out = []
        for i, v in enumerate(values):
            pad = " " * (widths[i] - _columns(v))
            out.append(pad + v if numeric[i] else v + pad)
        return "  ".join(out).rstrip()

    lines = [line(list(columns)), "  ".join("-" * w for w in widths)]
    lines += [line(r) for r in cells]
    if not cells:
        lines.append("(none)")
    return "\n".join(lines)


def _caps(columns: Sequence[str], natural: list[int], width: int | None) -> list[int] | None:
    """The widths (terminal columns) the cells of a table fitted to *width* are cut to, from their
    *natural* widths, or None when the table is shown expanded instead (see :func:`render_table`)."""
    if width is None or sum(natural) + _GAP * (len(natural) - 1) <= width:
        return list(natural)
    floors = [min(n, max(_columns(c), MIN_COLUMN_WIDTH)) for n, c in zip(natural, columns)]
    if sum(floors) + _GAP * (len(floors) - 1) > width:
        return None
    caps = _fit(natural, floors, width - _GAP * (len(natural) - 1))
    if any(c < n and c < MIN_CUT_WIDTH for c, n in zip(caps, natural)):
        return None
    return caps


def cut_to_fit(results: Iterable[Result], width: int) -> bool:
    """Whether :func:`render_table`, fitting the tables of *results* to *width* terminal columns,
    cuts a cell of one of them."""
    for r in results:
        if not r.columns:
            continue
        texts = [[_text(v) for v in row] for row in r.rows]
        natural = [max([_columns(c)] + [_columns(t[i]) for t in texts]) for i, c in enumerate(r.columns)]
        caps = _caps(r.columns, natural, width)
        if caps is None:
            value_width = _expanded_widths(r.columns, width)[1]
            if any(_columns(t) > value_width for row in texts for t in row):
                return True
        elif caps != natural:
            return True
    return False


def wrap(text: str, width: int | None) -> str:
    """*text* (one paragraph) broken into lines of at most *width* characters (None: as is);
    a word longer than the width (a long path) is cut across lines."""
    if width is None or len(text) <= width:
        return text
    import textwrap  # noqa: PLC0415

    return "\n".join(textwrap.wrap(text, max(width, 1), break_on_hyphens=False))


def _fit(natural: list[int], floors: list[int], room: int) -> list[int]:
    """Column widths summing to at most *room*: the widest columns cut to one common limit (the
    largest that fits), none below its floor. ``sum(floors) <= room`` is the caller's."""
    lo, hi = 0, max(natural)
    while lo < hi:  # the largest limit whose widths fit
        mid = (lo + hi + 1) // 2
        if sum(max(f, min(n, mid)) for n, f in zip(natural, floors)) <= room:
            lo = mid
        else:
            hi = mid - 1
    return [max(f, min(n, lo)) for n, f in zip(natural, floors)]


def _render_expanded(columns: Sequence[str], texts: list[list[str]], width: int | None,
                     cut_at_end: Sequence[str], *, whole: bool = False) -> str:
    """psql's expanded display of *texts*: values cut to fit *width*, or with *whole* wrapped at it
    (None: no width, each value on one line)."""
    name_width, value_width = _expanded_widths(columns, width)
    lines = []
    for n, row in enumerate(texts, 1):
        rule = f"-[ row {n} ]"
        rule += "-" * max(0, (40 if width is None else min(width, 40)) - len(rule))
        lines.append(rule if width is None else _cut(rule, width, at_end=True))
        for c, t in zip(columns, row):
            name = c if width is None else _cut(c, name_width, at_end=True)
            name += " " * (name_width - _columns(name))
            if value_width is None:
                pieces = [t]
            elif whole:
                pieces = _wrap_columns(t, value_width)
            else:
                pieces = [_cut(t, value_width, c in cut_at_end)]
            lines.append(f"{name}{' ' * _GAP}{pieces[0]}".rstrip())
            lines += [f"{' ' * (name_width + _GAP)}{p}".rstrip() for p in pieces[1:]]
    if not texts:
        lines.append("(none)")
    return "\n".join(lines)


def _expanded_widths(columns: Sequence[str], width: int | None) -> tuple[int, int | None]:
    """``(name width, value width)`` of the expanded display in *width* terminal columns (None:
    no limit on the values)."""
    name_width = max(_columns(c) for c in columns)
    if width is not None and name_width + _GAP + MIN_COLUMN_WIDTH > width:
        name_width = max(1, width - _GAP - MIN_COLUMN_WIDTH)
    return name_width, None if width is None else max(1, width - name_width - _GAP)


def _wrap_columns(text: str, width: int) -> list[str]:
    """*text* (one line, no control characters) in pieces of at most *width* terminal columns:
    broken after the last space of a piece when that space is in its second half, else where the
    width ends (a URL, a long word); nothing is left out, the spaces stay at the ends of pieces."""
    pieces = []
    while _columns(text) > width:
        piece = _take(text, max(width, 1)) or text[0]  # (a wide character in one column: alone)
        space = piece.rfind(" ")
        if space >= len(piece) // 2:
            piece = piece[:space + 1]
        pieces.append(piece)
        text = text[len(piece):]
    return pieces + [text]


def format_result(result: Result, fmt: str = "table", *, width: int | None = None,
                  expanded: bool = False) -> str:
    """*result* as ``table`` (aligned text, no line wider than *width* terminal columns; None: no
    limit and no cell cut; *expanded*: a ``column  value`` line per value, every value whole; see
    :func:`render_table`), ``csv`` (header row, RFC 4180) or ``json`` (list of objects)."""
    if fmt == "table":
        return render_table(result.columns, result.rows, width=width, expanded=expanded)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(result.columns)
        for row in result.rows:
            w.writerow(
                ["" if v is None else json.dumps(_jsonable(v), ensure_ascii=False)
                 if isinstance(v, (list, tuple, dict)) else _jsonable(v) for v in row]
            )
        return buf.getvalue().rstrip("\n")
    if fmt == "json":
        data = [dict(zip(result.columns, map(_jsonable, row))) for row in result.rows]
        return json.dumps(data, ensure_ascii=False, indent=2)
    raise ValueError(f"unknown format {fmt!r} (table, csv or json)")


def format_report(rep: Report, fmt: str = "table", *, width: int | None = None,
                  expanded: bool = False) -> str:
    """The report as text tables (no line wider than *width* characters; None: no limit;
    *expanded*: see :func:`format_result`), CSV sections, or one JSON object
    (:meth:`Report.to_json`)."""
    if fmt == "json":
        return json.dumps(rep.to_json(), ensure_ascii=False, indent=2)
    chunks = []
    if fmt == "table":
        chunks.append(wrap(f"{rep.records} records in {', '.join(rep.runs)}", width))
    for key, result in rep.sections.items():
        if fmt == "table":
            table = format_result(result, "table", width=width, expanded=expanded)
            chunks.append(f"{wrap(f'== {result.title} ==', width)}\n{table}")
        else:
            chunks.append(f"# {key}: {result.title}\n{format_result(result, fmt)}")
    return "\n\n".join(chunks)
