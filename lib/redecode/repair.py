"""Repair of text-only priors: old decoded text whose raw bytes are gone (``redecode repair``).

Many teams hold only the text an old pipeline decoded (``requests``' ISO-8859-1 mojibake of UTF-8
pages, double-encoded UTF-8), not the archive. :func:`repair` runs ftfy's encoding fixes only over
such a column (:func:`redecode.mojibake.repair`) and writes, for every row, the repaired text, the
plan that made it (replayable with ftfy's ``apply_plan`` on the old text) and a status
(``repaired`` / ``unchanged`` / ``doubtful``; defined in :mod:`redecode.mojibake`).

In: Parquet files (a file, a directory searched recursively for ``*.parquet``, or a glob) with a
text column (``string``, ``large_string`` or dictionary of strings) and, optionally, key columns.
Out (the directory ``out``):

- ``<input name>.<8 hex of sha1(input path as given)>.parquet`` per input, rows in input order,
  schema :func:`output_schema` (the key columns with their input types, then :data:`FIELDS`),
  the version :data:`REPAIR_SCHEMA_VERSION` in its key-value metadata under
  ``redecode.repair_schema_version``; written under a temporary name and renamed when complete
  (:class:`redecode.writer.TableWriter`);
- ``_done/<part stem>.json``: the input's completion marker (its manifest entry, the input's
  :func:`redecode.storage.fingerprint` taken before it was read, and the repair's configuration:
  text and key columns, ftfy's version and configuration, :data:`REPAIR_SCHEMA_VERSION`),
  written after its part;
- ``_repair.json``: the manifest (ftfy's version and configuration, the columns, per input its
  outcome, rows and counts per status, and the totals);
- ``_lock`` (held while a repair writes the directory, as ``redecode run`` holds its own) and
  ``.tmp-*`` files being written, removed by the next repair into it.

Resume, as ``redecode run``: a repair into a directory that holds an earlier repair of the same
configuration skips the inputs whose marker says ``complete``, whose part is there and whose
fingerprint is unchanged, and repairs the others (a repair stopped by SIGTERM, Ctrl-C or a full
disk is finished by running it again). Output of another configuration, or files that are not a
repair's, are refused unless ``force`` (which removes the repair's files and starts afresh).

Nothing is lost: every input row gives one output row (``source_path``, ``source_row`` locate it);
an input that cannot be read is listed with its error (outcome ``error``) and the others go on.
Units: ``source_row`` is the 0-based row index in the file over all its row groups.

Deviations: none.
"""

from __future__ import annotations

import functools
import glob
import hashlib
import json
import os
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import field
from datetime import datetime, timezone

import pyarrow as pa
import pyarrow.parquet as pq

from . import __version__, mojibake, storage
from .dataclass_code import dataclass
from .executors import Local, map_shards
from .rundir import LOCK, MARKERS, lock_directory, write_json
from .writer import TableWriter

__all__ = [
    "COLUMNS",
    "FIELDS",
    "MANIFEST_NAME",
    "REPAIR_SCHEMA_VERSION",
    "RepairSummary",
    "RepairLocked",
    "RepairUsageError",
    "output_schema",
    "part_name",
    "repair",
    "repair_file",
]

REPAIR_SCHEMA_VERSION = "1.0"
REPAIR_SCHEMA_VERSION_KEY = b"redecode.repair_schema_version"
MANIFEST_NAME = "_repair.json"
#: Rows read (and repaired) per batch: bounds memory whatever the file's row groups.
BATCH_ROWS = 256

PLAN_TYPE = pa.list_(pa.struct([("action", pa.string()), ("parameter", pa.string())]))

#: The output columns after the key columns: (name, type, meaning).
FIELDS: list[tuple[str, pa.DataType, str]] = [
    ("source_path", pa.string(), "the input Parquet file, as given"),
    ("source_row", pa.int64(), "0-based row index of the old text in source_path"),
    ("text", pa.string(), "the repaired text; the old text where status is unchanged; NULL where the old text is NULL"),
    ("status", pa.string(), "repaired, unchanged or doubtful (see redecode.mojibake)"),
    ("plan", PLAN_TYPE, "ftfy's steps (action: encode, decode, transcode or apply; parameter: an encoding or "
                        "a fixer), replayable with ftfy.apply_plan on the old text; empty when unchanged"),
    ("doubts", pa.list_(pa.string()), "why doubtful: step:<fixer>, mojibake-left, replacement-added, "
                                       "ambiguous:<encoding>, error:<exception>"),
    ("mojibake_left", pa.bool_(), "ftfy's badness heuristic still finds mojibake in text (NULL for NULL text)"),
]
COLUMNS = tuple(name for name, _, _ in FIELDS)


class RepairUsageError(ValueError):
    """The repair cannot start: no input, a missing or non-text column, a key column named like an
    output column, or an ``out`` that holds another repair's output or other files (without
    ``force``), or that another repair is writing."""


class RepairLocked(RepairUsageError):
    """The output directory is locked by another command (:class:`redecode.rundir.RunDirectoryLocked`
    as a repair's usage error)."""


def output_schema(key_fields: Sequence[pa.Field] = ()) -> pa.Schema:
    """The schema of an output part: *key_fields* (as in the input), then :data:`FIELDS`, with
    :data:`REPAIR_SCHEMA_VERSION` and ftfy's version in the key-value metadata."""
    fields = [pa.field(f.name, f.type, nullable=True) for f in key_fields]
    fields += [pa.field(n, t, nullable=True, metadata={b"doc": d.encode()}) for n, t, d in FIELDS]
    return pa.schema(fields, metadata={
        REPAIR_SCHEMA_VERSION_KEY: REPAIR_SCHEMA_VERSION.encode(),
        b"redecode.ftfy_version": mojibake.FTFY_VERSION.encode(),
    })


@dataclass(slots=True)
class RepairSummary:
    """What a repair did: the manifest (also ``OUT/_repair.json``) and the input errors."""

    manifest: dict
    errors: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0 when every input was read, else 1."""
        return 1 if self.errors else 0

    #: inputs found complete in ``out`` (an earlier repair of the same configuration): not read
    resumed: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """One line, e.g. ``2 inputs, 1,000 rows: 120 repaired, 860 unchanged, 20 doubtful``
        (``3 inputs (1 already complete, skipped), ...`` after a resume)."""
        c = self.manifest["counts"]
        n = len(self.manifest["inputs"])
        skipped = f" ({len(self.resumed)} already complete, skipped)" if self.resumed else ""
        return (f"{n} input{'s' if n != 1 else ''}{skipped}, {c['rows']:,} rows: {c['repaired']:,} repaired, "
                f"{c['unchanged']:,} unchanged, {c['doubtful']:,} doubtful")


# ---------------------------------------------------------------------------------------------
# inputs


def _expand(inputs: Sequence[str], out: str) -> list[str]:
    """Files named by *inputs*, in order, without duplicates and without files inside *out*."""
    files: list[str] = []
    for arg in inputs:
        if os.path.isfile(arg):
            files.append(arg)
            continue
        if os.path.isdir(arg):
            matches = [arg]
        else:
            matches = sorted(glob.glob(arg, recursive=True))
            if not matches:
                raise RepairUsageError(f"{arg}: no such file or directory, and no file matches it")
        for m in matches:
            if os.path.isdir(m):
                files += sorted(glob.glob(os.path.join(glob.escape(m), "**", "*.parquet"), recursive=True))
            elif m.endswith(".parquet"):
                files.append(m)
    inside = os.path.realpath(out) + os.sep
    kept = [f for f in dict.fromkeys(files) if not os.path.realpath(f).startswith(inside)]
    if not kept:
        raise RepairUsageError(f"no .parquet input found in {', '.join(inputs)}")
    return kept


def _is_text_type(t: pa.DataType) -> bool:
    if pa.types.is_dictionary(t):
        t = t.value_type
    return pa.types.is_string(t) or pa.types.is_large_string(t) or (
        hasattr(pa.types, "is_string_view") and pa.types.is_string_view(t))


def _check_columns(path: str, schema: pa.Schema, text_col: str, key: Sequence[str]) -> None:
    names = schema.names
    missing = [c for c in (*key, text_col) if c not in names]
    if missing:
        raise RepairUsageError(
            f"{path}: no column {', '.join(missing)} (has: {', '.join(names)}); name the text with "
            "--text-col and the key with --key")
    t = schema.field(text_col).type
    if not _is_text_type(t):
        hint = ("; it holds bytes, not decoded text: re-decode them with `redecode run` (a Parquet "
                "of raw responses is an input of run)") if (pa.types.is_binary(t) or pa.types.is_large_binary(t)) else ""
        raise RepairUsageError(f"{path}: column {text_col} is {t}, not text{hint}")


def part_name(path: str) -> str:
    """The output part of input *path*: ``<name>.<8 hex of sha1(path as given)>.parquet``."""
    digest = hashlib.sha1(path.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{os.path.basename(path)}.{digest}.parquet"


# ---------------------------------------------------------------------------------------------
# one file


def _plan_value(plan: tuple[tuple[str, str], ...]) -> list[dict]:
    return [{"action": a, "parameter": p} for a, p in plan]


def repair_file(path: str, out: str, text_col: str, key: Sequence[str] = ()) -> dict:
    """Repair the text column of one Parquet file into ``out/part_name(path)`` and write its
    completion marker ``out/_done/<part stem>.json`` after it; return its manifest entry ``{path,
    part, outcome, error, rows, counts}``. An input that cannot be read gives outcome ``error``
    (no part is written); a missing column raises :class:`RepairUsageError`."""
    fingerprint = storage.fingerprint(path)  # before it is read: a rerun redoes a file that changed
    entry = _repair_file(path, out, text_col, key)
    write_json(_marker_path(out, part_name(path)), {
        **entry, "input": fingerprint, "config": _config(text_col, key)})
    return entry


def _config(text_col: str, key: Sequence[str]) -> dict:
    """What makes a repair's rows: the columns, ftfy's version and configuration, the schema."""
    return {"text_col": text_col, "key": list(key), "ftfy": mojibake.FTFY_VERSION,
            "ftfy_config": mojibake.config_json(), "repair_schema_version": REPAIR_SCHEMA_VERSION}


def _marker_path(out: str, part: str) -> str:
    return os.path.join(out, MARKERS, part[: -len(".parquet")] + ".json")


def _repair_file(path: str, out: str, text_col: str, key: Sequence[str]) -> dict:
    entry = {"path": path, "part": None, "outcome": "complete", "error": None, "rows": 0}
    counts: Counter = Counter()
    part = part_name(path)
    try:
        pf = pq.ParquetFile(path)
        schema = pf.schema_arrow
        _check_columns(path, schema, text_col, key)
        out_schema = output_schema([schema.field(k) for k in key])
        with TableWriter(os.path.join(out, part), out_schema,
                         dictionary_columns=("source_path", "status")) as writer:
            row = 0
            for batch in pf.iter_batches(batch_size=BATCH_ROWS, columns=list(dict.fromkeys([*key, text_col]))):
                texts = batch.column(text_col).cast(pa.string()).to_pylist()
                results = [mojibake.repair(t) if t is not None else None for t in texts]
                n = len(texts)
                for r in results:
                    if r is None:
                        counts["unchanged"] += 1
                        counts["null_text"] += 1
                    else:
                        counts[r.status] += 1
                        counts["mojibake_left"] += r.mojibake_left
                columns = [batch.column(k) for k in key] + [
                    pa.array([path] * n, pa.string()),
                    pa.array(range(row, row + n), pa.int64()),
                    pa.array([r.text if r else None for r in results], pa.string()),
                    pa.array([r.status if r else mojibake.STATUS_UNCHANGED for r in results], pa.string()),
                    pa.array([_plan_value(r.plan) if r else [] for r in results], PLAN_TYPE),
                    pa.array([list(r.doubts) if r else [] for r in results], pa.list_(pa.string())),
                    pa.array([r.mojibake_left if r else None for r in results], pa.bool_()),
                ]
                writer.write_batch(pa.RecordBatch.from_arrays(columns, schema=out_schema))
                row += n
        entry.update(part=part, rows=row)
    except RepairUsageError:
        raise
    except (OSError, pa.ArrowException) as exc:
        entry.update(outcome="error", error=f"{path}: {exc}", rows=0)
        counts = Counter()
    entry["counts"] = {k: counts.get(k, 0) for k in (*mojibake.STATUSES, "null_text", "mojibake_left")}
    return entry


# ---------------------------------------------------------------------------------------------
# the repair


def _clean(out: str) -> None:
    """Remove the temporary files a stopped repair left (``.tmp-*``, in ``out`` and ``_done``)."""
    for directory in (out, os.path.join(out, MARKERS)):
        for name in os.listdir(directory):
            if name.startswith(storage.TMP_PREFIX):
                os.unlink(os.path.join(directory, name))


def _resume(out: str, files: list[str], config: dict, force: bool) -> dict[str, dict]:
    """The manifest entries of *files* an earlier repair into *out* completed with this *config*
    (its marker's outcome ``complete``, its part there, the input's fingerprint unchanged), by
    path. Refuses (:class:`RepairUsageError`) a directory holding another configuration's output
    or files a repair does not write, unless *force*, which removes the repair's files there."""
    markers = {}
    for name in os.listdir(os.path.join(out, MARKERS)):
        if name.endswith(".json"):
            try:
                with open(os.path.join(out, MARKERS, name), encoding="utf-8") as f:
                    markers[name[: -len(".json")]] = json.load(f)
            except (OSError, ValueError):
                markers[name[: -len(".json")]] = None  # unreadable: that input is done again
    ours = {MANIFEST_NAME, MARKERS, LOCK} | {stem + ".parquet" for stem in markers} | {part_name(p) for p in files}
    strangers = sorted(n for n in os.listdir(out) if n not in ours)
    other = sorted(stem for stem, m in markers.items() if isinstance(m, dict) and m.get("config") != config)
    if force:
        for name in os.listdir(out):
            if name in ours and name not in (MARKERS, LOCK):
                os.unlink(os.path.join(out, name))
        for name in os.listdir(os.path.join(out, MARKERS)):
            os.unlink(os.path.join(out, MARKERS, name))
        return {}
    if strangers or other:
        what = (f"files a repair does not write ({', '.join(strangers[:3])}{', ...' if len(strangers) > 3 else ''})"
                if strangers else
                f"the output of another repair (other columns or another ftfy: {', '.join(other[:3])})")
        raise RepairUsageError(f"{out} holds {what}; write to another --out, or add --force to replace "
                               "the repair's output there")
    done = {}
    for path in files:
        part = part_name(path)
        m = markers.get(part[: -len(".parquet")])
        if (isinstance(m, dict) and m.get("outcome") == "complete" and m.get("path") == path
                and os.path.exists(os.path.join(out, part)) and m.get("input") == storage.fingerprint(path)):
            done[path] = {k: m[k] for k in ("path", "part", "outcome", "error", "rows", "counts")}
    return done


def repair(
    inputs: Sequence[str],
    out: str,
    *,
    text_col: str,
    key: Sequence[str] = (),
    workers: int | None = 1,
    force: bool = False,
) -> RepairSummary:
    """Repair column *text_col* of every Parquet file of *inputs* into directory *out* (see the
    module docstring); *key* columns are copied to the output to join it back. *workers*: input
    files repaired in parallel processes (:class:`redecode.executors.Local`; None: all cores).

    Raises :class:`RepairUsageError` before writing anything when no input is found, a column is
    missing or is not text in a readable input, a key column is named like an output column
    (:data:`COLUMNS`), another repair holds *out*'s lock, or *out* holds another configuration's
    output or files a repair does not write and *force* is false (with *force*, the repair's files
    there are removed). An earlier repair of the same configuration into *out* is resumed (see the
    module docstring). An input that cannot be read is listed in the manifest with outcome
    ``error`` and the others are repaired (:attr:`RepairSummary.exit_code` is then 1).
    """
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    wall = time.perf_counter()
    key = list(dict.fromkeys(key))
    clash = [k for k in key if k in COLUMNS]
    if clash:
        raise RepairUsageError(f"--key {', '.join(clash)}: the output has a column of that name; "
                               f"the output's own columns are {', '.join(COLUMNS)}")
    files = _expand(inputs, out)
    for path in files:
        try:
            schema = pq.read_schema(path)
        except (OSError, pa.ArrowException):
            continue  # unreadable: repair_file records the error
        _check_columns(path, schema, text_col, key)
    storage.makedirs(os.path.join(out, MARKERS))
    try:
        lock = lock_directory(out)
    except RuntimeError as exc:  # redecode.rundir.RunDirectoryLocked
        raise RepairLocked(str(exc)) from None
    with lock:
        try:
            _clean(out)
            done = _resume(out, files, _config(text_col, key), force)
            todo = [p for p in files if p not in done]
            new = map_shards(functools.partial(repair_file, out=out, text_col=text_col, key=key), todo,
                             Local(workers), description=f"redecode repair {len(todo)} file(s) -> {out}")
        except BaseException:
            _clean(out)  # stopped (an interrupt, a full disk): what was being written goes
            raise
    by_path = {**done, **{e["path"]: e for e in new}}
    entries = [by_path[p] for p in files]
    totals: Counter = Counter()
    for e in entries:
        totals["rows"] += e["rows"]
        totals.update(e["counts"])
    manifest = {
        "repair_schema_version": REPAIR_SCHEMA_VERSION,
        "redecode_version": __version__,
        "ftfy": {"version": mojibake.FTFY_VERSION, "config": mojibake.config_json()},
        "text_col": text_col,
        "key": key,
        "cwd": os.getcwd(),
        "started_at": started_at,
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "wall_seconds": round(time.perf_counter() - wall, 3),
        "inputs": entries,
        "counts": {k: totals.get(k, 0) for k in ("rows", *mojibake.STATUSES, "null_text", "mojibake_left")},
    }
    storage.write_bytes(os.path.join(out, MANIFEST_NAME),
                        (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode("utf-8"))
    return RepairSummary(manifest=manifest, errors=[e["error"] for e in entries if e["error"]],
                         resumed=[p for p in files if p in done])
