"""Which records a run takes: all of them, those an index names, a deterministic sample by record
id, the first N.

Contract. A :class:`Selection` is the ``--index``, ``--sample FRACTION`` and ``--limit N`` of
``redecode run``; the empty selection (none of them) takes every record. It is part of a run directory's
identity, as the rules are (:mod:`redecode.rundir`: a marker made under another selection is not
current, and a run into a directory holding another selection's output is refused unless
``force``), and it is recorded in every completion marker and in the manifest (``selection``).

- **Sample**: a row record (``response``, ``resource``, ``revisit``) is kept when
  :func:`sample_key` of its record id (the WARC-Record-ID; ARC and raw-response Parquet records
  have a deterministic one, :func:`redecode.record.synthetic_record_id`) is below
  ``FRACTION * 2**64``. The choice depends on the record id alone: the same records on every run,
  with any worker count, shard size or executor; a smaller fraction takes a subset of a larger
  one's records; copies of one record in two archives are taken or left together. Records left
  out get no row and are counted (``counts.not_sampled``); they are read, so the input is still
  checked to its end.
- **Index**: the records a record index names (:mod:`redecode.index`), each read by its offset
  and length. What selects them is the selection's identity: the index location(s) as given
  (``--index``; a local path made absolute, a URL without its trailing ``/``; sorted, each once),
  the ``--where`` text and the ``--prefix`` (which files the names stand for). A run with another
  of any of them into a run directory is a run with another selection: refused, or with
  ``force`` the other selection's output removed, so a directory holds one selection's records.
  Which records the index names, per input, is in each shard's completion marker (``spans``): a
  run with the same selection whose index *content* changed reads again only the inputs whose
  records differ, and removes the inputs the index no longer names (:func:`redecode.job.run`).
  Markers written before the identity was recorded (``"index": true`` alone) read as an index
  selection of unknown identity (:meth:`Selection.from_json`), which no run's selection equals:
  a run into such a directory is refused as another selection (``--force`` replaces its output).
- **Limit**: the first ``N`` row records taken (after the sample), in input order (inputs sorted as
  :func:`redecode.inputs.expand_inputs` sorts them, records in file order). The run reads its
  inputs one at a time, each as one shard, and stops reading where the ``N``-th row is written
  (the input's outcome is then ``limited``, or ``damaged`` when a damaged stretch was passed
  over before it: an error, read again by the next run); inputs it never reached are counted in the manifest
  (``selection.inputs_not_reached``), not read.

Deviations: none (this module holds no standard's algorithm).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os

from . import storage
from .dataclass_code import dataclass

__all__ = ["ALL", "Selection", "index_location", "sample_key"]

_SCALE = 1 << 64


def sample_key(record_id: str) -> int:
    """The record's place in the sample: the first 8 bytes of SHA-256 of ``record_id`` (UTF-8;
    lone surrogates of non-UTF-8 ids as ``surrogateescape`` bytes), as a big-endian integer in
    ``[0, 2**64)``. A record is in a sample of fraction ``f`` when ``sample_key(id) < f * 2**64``."""
    digest = hashlib.sha256(record_id.encode("utf-8", "surrogateescape")).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True, slots=True)
class Selection:
    """``limit``: at most this many row records (rows), None for no limit; ``sample``: the fraction
    of row records kept, ``0 < sample <= 1``, None for all; ``index``: only the records an index
    names (the shards carry which), selected by ``index_paths`` (the locations as given, see the
    module docstring; None: not recorded, a marker written before they were), ``where`` and
    ``prefix`` (None: not given). ``ValueError`` for values outside these ranges."""

    limit: int | None = None
    sample: float | None = None
    index: bool = False
    index_paths: tuple[str, ...] | None = None
    where: str | None = None
    prefix: str | None = None

    def __post_init__(self) -> None:
        if self.limit is not None and (not isinstance(self.limit, int) or self.limit < 1):
            raise ValueError(f"limit must be a whole number of records, at least 1, not {self.limit!r}")
        if self.sample is not None and not 0 < self.sample <= 1:
            raise ValueError(f"sample must be a fraction in (0, 1], not {self.sample!r}")
        if not self.index and (self.index_paths is not None or self.where is not None or self.prefix is not None):
            raise ValueError("index_paths, where and prefix select an index's records: give index=True")

    def with_index(self, paths: list[str] | tuple[str, ...], where: str | None = None,
                   prefix: str | None = None) -> Selection:
        """This selection with the records of the index at ``paths`` (``--index``, as given),
        ``where`` and ``prefix``: the locations normalized (:func:`index_location`), sorted, each
        once."""
        return dataclasses.replace(self, index=True, index_paths=tuple(sorted({index_location(p) for p in paths})),
                                   where=where, prefix=prefix)

    @property
    def everything(self) -> bool:
        """True for the empty selection: every record, no limit."""
        return self.limit is None and self.sample is None and not self.index

    def keeps(self, record_id: str) -> bool:
        """Whether the sample keeps the record with id ``record_id`` (always, without a sample)."""
        return self.sample is None or sample_key(record_id) < self.sample * _SCALE

    def to_json(self) -> dict | None:
        """``{"limit": N, "sample": F}`` (None for an option not given; for an index's records
        ``"index": true`` added, with ``"index_paths": [...]``, ``"where"`` and ``"prefix"`` when
        known), or None for the empty selection: what markers and manifests record and compare."""
        if self.everything:
            return None
        out: dict = {"limit": self.limit, "sample": self.sample}
        if self.index:
            out["index"] = True
            if self.index_paths is not None:
                out.update(index_paths=list(self.index_paths), where=self.where, prefix=self.prefix)
        return out

    @classmethod
    def from_json(cls, data: dict | None) -> Selection:
        """The inverse of :meth:`to_json` (None, or a marker written before selections: all; an
        index selection written before its identity was: ``index`` with ``index_paths`` None)."""
        if not data:
            return ALL
        index = bool(data.get("index"))
        paths = data.get("index_paths") if index else None
        return cls(limit=data.get("limit"), sample=data.get("sample"), index=index,
                   index_paths=None if paths is None else tuple(paths),
                   where=data.get("where") if index else None, prefix=data.get("prefix") if index else None)

    def describe(self) -> str:
        """For messages: ``--index cc/ --prefix s3://commoncrawl/ --where "fetch_status = 200"
        --sample 0.01 --limit 1000``, or ``every record``."""
        parts = []
        if self.index and self.index_paths is None:
            parts.append("--index (which index, --where and --prefix not recorded: a run of an earlier version)")
        elif self.index:
            parts += [f"--index {p}" for p in self.index_paths]
            if self.prefix is not None:
                parts.append(f"--prefix {self.prefix}")
            if self.where is not None:
                parts.append(f"--where {json.dumps(self.where)}")
        if self.sample is not None:
            parts.append(f"--sample {self.sample:g}")
        if self.limit is not None:
            parts.append(f"--limit {self.limit}")
        return " ".join(parts) if parts else "every record"


def index_location(path: str) -> str:
    """An ``--index`` location as a selection records it: a URL without its trailing ``/``, a
    local path (a ``file://`` URL as its path) made absolute and normalized."""
    path = storage.local_path(path)
    if storage.is_remote(path):
        return path.rstrip("/") or path
    return os.path.abspath(path)


#: The empty selection: every record.
ALL = Selection()
