"""Hand-built run directories for the diff and query tests.

``make_run(dir, {archive_path: [row, ...]}, ...)`` writes one part per archive with
:class:`redecode.writer.PartWriter` (so the parts carry the real schema and schema version) and a
``_run.json`` whose counts are computed from the rows, in the layout ``redecode.job`` writes.
``row(...)`` builds a schema row with plausible defaults for a decoded HTML record.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter

from redecode.schema import SCHEMA_VERSION, empty_row
from redecode.writer import PartWriter

_TLD_OF = {"jp": "jp", "ru": "ru", "com": "com", "de": "de", "cn": "cn"}


def row(
    warc_path: str = "a.warc.gz",
    warc_offset: int = 0,
    *,
    text: str | None = "<p>hello</p>",
    encoding: str | None = "UTF-8",
    source: str | None = "transport",
    status: str = "decoded",
    rules: str = "browser-2026.11",
    decoder: str | None = None,
    **more,
) -> dict:
    """A row dict for one record; every schema column present, ``more`` overrides anything."""
    r = empty_row()
    host = more.pop("host", "example.com")
    r.update(
        record_id=f"<urn:uuid:{warc_path}:{warc_offset}>",
        warc_path=warc_path,
        warc_offset=warc_offset,
        warc_length=1000,
        target_uri=f"http://{host}/{warc_offset}",
        warc_date="2026-11-01T00:00:00Z",
        http_status=200,
        content_type="text/html",
        mime_type="text/html",
        payload_length=len(text.encode("utf-8")) if text else 0,
        record_type="response",
        rules=rules,
        rules_digest=hashlib.sha256(rules.encode()).hexdigest(),
        tld=host.rsplit(".", 1)[-1],
        status=status,
    )
    if status == "decoded":
        r.update(
            text=text,
            encoding=encoding,
            source=source,
            confidence="certain" if source in ("bom", "transport") else "tentative",
            decode_errors=(text or "").count("\ufffd"),
            decoder=decoder or "whatwg",
            text_length=len(text or ""),
            text_bytes=len((text or "").encode("utf-8")),
            browser_encoding=encoding,  # what the browser rules pick: here, the same
        )
    r.update(more)
    return r


def part_name(archive: str) -> str:
    digest = hashlib.sha1(os.path.abspath(archive).encode()).hexdigest()[:8]
    return f"{os.path.basename(archive)}.{digest}.parquet"


def _counts(rows) -> dict:
    status = Counter(r["status"] for r in rows)
    return {
        "records_seen": len(rows),
        "decoded": status["decoded"],
        "skipped": status["skipped"],
        "failed": status["failed"],
        "by_record_type": dict(Counter(r["record_type"] for r in rows)),
    }


def make_run(
    out: str,
    archives: dict[str, list[dict]],
    *,
    rules: str = "browser-2026.11",
    outcomes: dict[str, tuple[str, str | None, int | None]] | None = None,
    manifest: bool = True,
) -> str:
    """Write a run directory at *out*: one part per archive, and ``_run.json`` unless *manifest* is False.

    *outcomes* maps an archive path to ``(outcome, error, error_offset)`` for inputs that did not
    complete (default ``complete``). Returns *out*.
    """
    os.makedirs(out, exist_ok=True)
    inputs = []
    all_rows = []
    for archive, rows in archives.items():
        name = part_name(archive)
        with PartWriter(os.path.join(out, name)) as w:
            w.write_many(rows)
        outcome, error, error_offset = (outcomes or {}).get(archive, ("complete", None, None))
        inputs.append(
            {
                "path": archive,
                "size": 1000 * len(rows),
                "part": name,
                "outcome": outcome,
                "error": error,
                "error_offset": error_offset,
                "rows": len(rows),
                "counts": _counts(rows),
            }
        )
        all_rows.extend(rows)
    if manifest:
        counts = _counts(all_rows)
        counts["by_skip_reason"] = dict(
            Counter(r["skip_reason"] for r in all_rows if r["status"] == "skipped")
        )
        m = {
            "schema_version": SCHEMA_VERSION,
            "redecode_version": "0.1.0",
            "rules": {"name": rules, "digest": hashlib.sha256(rules.encode()).hexdigest(),
                      "parameters": {}},
            "dependencies": {"warcio": "1.8.1"},
            "started_at": "2026-11-29T00:00:00+00:00",
            "finished_at": "2026-11-29T00:00:01+00:00",
            "wall_seconds": 1.0,
            "cpu_seconds": 1.0,
            "inputs": inputs,
            "counts": counts,
        }
        with open(os.path.join(out, "_run.json"), "w", encoding="utf-8") as f:
            json.dump(m, f, indent=2)
    return out
