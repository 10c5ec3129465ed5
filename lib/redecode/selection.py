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
  and length; which records, per input, is in each shard's completion marker (``spans``), so a
  run with another index reads again only the inputs whose records differ.
- **Limit**: the first ``N`` row records taken (after the sample), in input order (inputs sorted as
  :func:`redecode.inputs.expand_inputs` sorts them, records in file order). The run reads its
  inputs one at a time, each as one shard, and stops reading where the ``N``-th row is written
  (the input's outcome is then ``limited``, or ``damaged`` when a damaged stretch was passed
  over before it: an error, read again by the next run); inputs it never reached are counted in the manifest
  (``selection.inputs_not_reached``), not read.

Deviations: none (this module holds no standard's algorithm).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

__all__ = ["ALL", "Selection", "sample_key"]

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
    names (the shards carry which). ``ValueError`` for values outside these ranges."""

    limit: int | None = None
    sample: float | None = None
    index: bool = False

    def __post_init__(self) -> None:
        if self.limit is not None and (not isinstance(self.limit, int) or self.limit < 1):
            raise ValueError(f"limit must be a whole number of records, at least 1, not {self.limit!r}")
        if self.sample is not None and not 0 < self.sample <= 1:
            raise ValueError(f"sample must be a fraction in (0, 1], not {self.sample!r}")

    @property
    def everything(self) -> bool:
        """True for the empty selection: every record, no limit."""
        return self.limit is None and self.sample is None and not self.index

    def keeps(self, record_id: str) -> bool:
        """Whether the sample keeps the record with id ``record_id`` (always, without a sample)."""
        return self.sample is None or sample_key(record_id) < self.sample * _SCALE

    def to_json(self) -> dict | None:
        """``{"limit": N, "sample": F}`` (None for an option not given; ``"index": true`` added
        for an index's records), or None for the empty selection: what markers and manifests
        record and compare."""
        if self.everything:
            return None
        out: dict = {"limit": self.limit, "sample": self.sample}
        if self.index:
            out["index"] = True
        return out

    @classmethod
    def from_json(cls, data: dict | None) -> Selection:
        """The inverse of :meth:`to_json` (None, or a marker written before selections: all)."""
        if not data:
            return ALL
        return cls(limit=data.get("limit"), sample=data.get("sample"), index=bool(data.get("index")))

    def describe(self) -> str:
        """For messages: ``--index --sample 0.01 --limit 1000``, or ``every record``."""
        parts = ["--index"] if self.index else []
        if self.sample is not None:
            parts.append(f"--sample {self.sample:g}")
        if self.limit is not None:
            parts.append(f"--limit {self.limit}")
        return " ".join(parts) if parts else "every record"


#: The empty selection: every record.
ALL = Selection()
