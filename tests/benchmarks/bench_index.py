#!/usr/bin/env python3
"""Benchmark: re-decoding the records an index selects against a full run (issue 26's target).

On the benchmark crawl (``run.py``'s, ``--size`` MB, built and cached as run.py builds it) with a
Common Crawl-shaped index (``tools/make_cc_index.py``: the columnar Parquet table and CDXJ lines,
from warcio's indexer), measures in their own processes, ``--repeat`` times (median CPU):

- ``full``: ``redecode run CRAWL --workers 1``;
- ``index``: ``redecode run --index SELECTED.cdxj --workers 1``, the index lines of the records a
  condition selects (default ``content_charset = 'WINDOWS-1251'``: about 2% of the records of the
  default crawl);
- ``where``: ``redecode run --index TABLE --where CONDITION --workers 1``, the same selection made
  by DuckDB over the whole columnar index;
- ``empty``: ``redecode run EMPTY_FOLDER --workers 1``, the fixed cost of any run (start-up), which
  a small selection cannot go below (printed as a fraction of the full run).

Checks that ``index`` and ``where`` give exactly the selected records, each row equal to the full
run's (every column), and prints the CPU (and, with ``--instructions``, callgrind's instruction
counts) of each as a fraction of the full run's, against the target: at most 0.15.

Usage (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_index.py [--size 100] [--repeat 3] [--instructions]
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import run as bench  # noqa: E402  (this directory's run.py)

TARGET = 0.15
DEFAULT_WHERE = "content_charset = 'WINDOWS-1251'"


def _tool():
    spec = importlib.util.spec_from_file_location("make_cc_index", os.path.join(REPO, "tools", "make_cc_index.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows(out: str) -> dict[str, dict]:
    import pyarrow.parquet as pq

    return {r["record_id"]: r for p in sorted(glob.glob(os.path.join(out, "*.parquet")))
            for r in pq.read_table(p).to_pylist()}


def _instructions(cmd: list[str], workdir: str, name: str) -> int:
    prefix = os.path.join(workdir, f"callgrind-{name}")
    for old in glob.glob(prefix + ".*"):
        os.unlink(old)
    proc = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={prefix}.%p", *cmd],
                          capture_output=True, text=True)
    counts = [int(n) for n in re.findall(r"Collected : (\d+)", proc.stderr)]
    if proc.returncode or not counts:
        raise SystemExit(f"{name}: valgrind failed:\n{proc.stderr[-2000:]}")
    return sum(counts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=float, default=100.0, help="crawl size, MB of uncompressed WARC")
    ap.add_argument("--seed", type=int, default=bench.DEFAULT_SEED)
    ap.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "redecode-bench"))
    ap.add_argument("--where", default=DEFAULT_WHERE)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--instructions", action="store_true", help="also count instructions (callgrind)")
    args = ap.parse_args(argv)
    ok, script = bench.redecode_available()
    if not ok:
        raise SystemExit(script)
    meta = bench.prepare_crawl(args.workdir, args.size, args.seed, 1, bench.locate_bench_script(None))
    (crawl,) = meta["shards"]
    folder = os.path.dirname(crawl)
    work = os.path.join(args.workdir, f"index-{args.size:g}mb")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    tool = _tool()
    rows = tool.build([crawl], root=folder)
    table = os.path.join(work, "table")
    tool.write_parquet(rows, table)
    import duckdb

    con = duckdb.connect()
    picked_keys = set(con.execute(
        f"SELECT warc_filename, warc_record_offset FROM read_parquet('{table}/**/*.parquet', hive_partitioning = true) "
        f"WHERE {args.where}").fetchall())
    picked = [r for r in rows if (r["warc_filename"], r["warc_record_offset"]) in picked_keys]
    selected = os.path.join(work, "selected.cdxj")
    tool.write_cdxj(picked, selected)
    bench.precompile()
    prefix = folder + "/"
    empty = os.path.join(work, "empty")
    os.makedirs(empty)
    commands = {
        "full": [script, "run", crawl, "--workers", "1", "--quiet", "--json"],
        # the fixed cost every run pays (start-up, no record): what a small selection cannot go below
        "empty": [script, "run", empty, "--workers", "1", "--quiet", "--json"],
        "index": [script, "run", "--index", selected, "--prefix", prefix, "--workers", "1", "--quiet", "--json"],
        "where": [script, "run", "--index", table, "--prefix", prefix, "--where", args.where,
                  "--workers", "1", "--quiet", "--json"],
    }
    results: dict[str, dict] = {}
    for name, cmd in commands.items():
        cpus = []
        for i in range(args.repeat):
            out = os.path.join(work, f"out-{name}")
            shutil.rmtree(out, ignore_errors=True)
            m = bench.measure([*cmd, "--out", out])
            if m["returncode"]:
                raise SystemExit(f"{name}: exit {m['returncode']}:\n{m['stderr'][-2000:]}")
            cpus.append(m["cpu_s"])
        results[name] = {"cpu_s": statistics.median(cpus), "runs": cpus, "out": out}
        if args.instructions:
            out = os.path.join(work, f"out-{name}-cg")
            shutil.rmtree(out, ignore_errors=True)
            results[name]["instructions"] = _instructions([*cmd, "--out", out], work, name)
        bench.log(f"{name}: CPU {results[name]['cpu_s']:.2f} s (median of {args.repeat})"
                  + (f", {results[name]['instructions'] / 1e9:.3f} G instructions" if args.instructions else ""))
    full = _rows(results["full"]["out"])
    want = {(os.path.basename(r["warc_filename"]), r["warc_record_offset"]) for r in picked}
    checks = {}
    for name in ("index", "where"):
        got = _rows(results[name]["out"])
        checks[name] = {
            "rows": len(got),
            "exactly the selected records": {(os.path.basename(r["warc_path"]), r["warc_offset"]) for r in got.values()} == want,
            "rows equal the full run's": all(full.get(k) == r for k, r in got.items()),
        }
    n_records = len(rows)
    print(f"crawl: {meta['uncompressed_bytes'] / 1e6:.0f} MB uncompressed, {n_records} indexed records; "
          f"selected by {args.where!r}: {len(picked)} ({100 * len(picked) / n_records:.1f}%)")
    print("| run | CPU s (median) | CPU / full | instructions | instructions / full | rows | checks |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for name, r in results.items():
        if name == "empty":
            continue
        ins = r.get("instructions")
        ins_full = results["full"].get("instructions")
        c = checks.get(name, {})
        print(f"| {name} | {r['cpu_s']:.2f} | {r['cpu_s'] / results['full']['cpu_s']:.3f} | "
              f"{f'{ins / 1e9:.3f} G' if ins else '-'} | {f'{ins / ins_full:.3f}' if ins and ins_full else '-'} | "
              f"{c.get('rows', len(full)) if c else len(full)} | "
              f"{'; '.join(k for k, v in c.items() if v is True) or '-'} |")
    e, f = results["empty"], results["full"]
    print(f"fixed cost (a run over an empty folder): CPU {e['cpu_s']:.2f} s = {e['cpu_s'] / f['cpu_s']:.3f} of the full run"
          + (f", {e['instructions'] / 1e9:.3f} G instructions = {e['instructions'] / f['instructions']:.3f}"
             if args.instructions else "")
          + "; a selection costs that plus its records")
    for name in ("index", "where"):
        ratio = results[name]["cpu_s"] / results["full"]["cpu_s"]
        print(f"target {name}: CPU {ratio:.3f} of a full run {'<=' if ratio <= TARGET else '>'} {TARGET}"
              + ("" if all(checks[name].values()) else f"; CHECK FAILED: {json.dumps(checks[name])}"))
    return 0 if all(all(v for v in c.values()) for c in checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
