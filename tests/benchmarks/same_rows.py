#!/usr/bin/env python3
"""Whether two run directories hold the same rows, byte for byte: every Parquet part of one has a
part of the same name in the other, with the same rows in the same order and every column equal
(values, nulls and types). The whole-run check of a change that must not change output (issue 27:
the compiled record path against the pure-Python one, a run before a change against one after).

Usage (from the repository root)::

    .venv/bin/python tests/benchmarks/same_rows.py OLD_DIR NEW_DIR [--ignore COL,...]

Prints the parts and rows compared and exits 0 when they are the same; else prints the first
differing rows (part, row number, record id, column, both values) and exits 1. Needs pyarrow.
"""

from __future__ import annotations

import argparse
import os
import sys

import pyarrow.parquet as pq


def parts(directory: str) -> list[str]:
    return sorted(f for f in os.listdir(directory) if f.endswith(".parquet") and not f.startswith("."))


def compare(old: str, new: str, ignore: set[str], show: int = 5) -> list[str]:
    """The differences between the run directories *old* and *new* (empty: the same rows)."""
    problems: list[str] = []
    a, b = parts(old), parts(new)
    if a != b:
        problems.append(f"parts differ: only in {old}: {sorted(set(a) - set(b))}; only in {new}: {sorted(set(b) - set(a))}")
    rows = 0
    for name in sorted(set(a) & set(b)):
        ta, tb = pq.read_table(os.path.join(old, name)), pq.read_table(os.path.join(new, name))
        cols = [c for c in ta.schema.names if c not in ignore]
        if [c for c in tb.schema.names if c not in ignore] != cols:
            problems.append(f"{name}: columns differ: {ta.schema.names} / {tb.schema.names}")
            continue
        if ta.num_rows != tb.num_rows:
            problems.append(f"{name}: {ta.num_rows} rows / {tb.num_rows} rows")
            continue
        rows += ta.num_rows
        for c in cols:
            x, y = ta.column(c), tb.column(c)
            if x.type != y.type:
                problems.append(f"{name}: column {c}: type {x.type} / {y.type}")
                continue
            if x.equals(y):
                continue
            xs, ys = x.to_pylist(), y.to_pylist()
            ids = ta.column("record_id").to_pylist()
            for i, (u, v) in enumerate(zip(xs, ys)):
                if u != v or type(u) is not type(v):
                    problems.append(f"{name}: row {i} ({ids[i]}): {c}: {u!r:.120} / {v!r:.120}")
                    if len(problems) >= show:
                        return problems
    print(f"compared {len(set(a) & set(b))} parts, {rows} rows, columns but {sorted(ignore) or 'none'} ignored",
          file=sys.stderr)
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--ignore", default="", help="comma-separated columns not compared")
    args = ap.parse_args(argv)
    problems = compare(args.old, args.new, {c for c in args.ignore.split(",") if c})
    for p in problems:
        print(p)
    print("same rows" if not problems else "DIFFERENT rows")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
