"""Instructions executed by the job and the reference rows, counted with valgrind's callgrind.

CPU seconds on a shared machine vary by +-15% from run to run; the number of instructions a
process executes does not (the same binary on the same bytes executes the same instructions,
whatever else the machine is doing). This script runs each row of ``run.py`` once under
``valgrind --tool=callgrind`` on a crawl ``run.py`` has built, and prints the counts, the ratios the
issue-9 targets are stated in (baseline instructions / job instructions) and where the
instructions go, per shared object (zstd inside libarrow, inflate inside FastWARC, the Python
interpreter...). Instructions are not seconds (cache misses, branch mispredictions and SIMD width
differ per function), but the ratios agree with the CPU-time medians of ``run.py`` within a few
percent and are repeatable, so a change's effect can be read from one run.

Usage (from the repository root; ~30-50x slower than a plain run: about 15 minutes for the four
rows on the 300 MB crawl)::

    .venv/bin/python tests/benchmarks/run.py --size 300 --only floor --repeat 1   # builds the crawl
    .venv/bin/python tests/benchmarks/instructions.py [--size 300] [--rows baseline-b,floor,redecode-1w]

Needs ``valgrind`` (Debian: ``apt-get install valgrind``) and ``callgrind_annotate``.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import run as bench  # noqa: E402  (this directory's run.py)

ROWS = ("baseline-a", "baseline-b", "floor", "redecode-1w")


def count(row: str, warc: str, workdir: str) -> tuple[int, dict[str, int]]:
    """Run ``row`` once under callgrind; return (instructions, instructions per shared object)."""
    out = os.path.join(workdir, "out", row)
    shutil.rmtree(out, ignore_errors=True)
    profile = os.path.join(workdir, f"callgrind-{row}.out")
    if row.startswith("redecode"):
        ok, script = bench.redecode_available()
        if not ok:
            raise SystemExit(script)
        cmd = bench.redecode_cmd(script, [warc], out, 1)
    else:
        cmd = [bench.PY, bench.BASELINES, row, out, warc]
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={profile}", *cmd],
        capture_output=True, text=True,
    )
    m = re.search(r"Collected : (\d+)", proc.stderr)
    if proc.returncode or not m:
        raise SystemExit(f"{row}: valgrind failed:\n{proc.stderr[-2000:]}")
    return int(m.group(1)), by_object(profile)


def by_object(profile: str) -> dict[str, int]:
    """Self instructions per shared object (the interpreter's library folded into 'python')."""
    text = subprocess.run(["callgrind_annotate", "--threshold=100", profile],
                          capture_output=True, text=True).stdout
    agg: collections.Counter[str] = collections.Counter()
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \([\s\d.]+%\)\s+(.*)", line)
        if not m or "PROGRAM TOTALS" in line:
            continue
        obj = re.search(r"\[([^\]]+)\]\s*$", m.group(2))
        name = os.path.basename(obj.group(1)) if obj else "?"
        if name.startswith(("libpython", "python3")):
            name = "python"
        agg[name.split(".cpython")[0]] += int(m.group(1).replace(",", ""))
    return dict(agg)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=300, help="the crawl run.py built (MB)")
    ap.add_argument("--seed", type=int, default=bench.DEFAULT_SEED)
    ap.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "redecode-bench"))
    ap.add_argument("--rows", default=",".join(ROWS), help=f"comma-separated, of {','.join(ROWS)}")
    args = ap.parse_args(argv)
    if not shutil.which("valgrind"):
        print("valgrind is not installed (Debian: apt-get install valgrind)", file=sys.stderr)
        return 2
    warc = os.path.join(args.workdir, f"crawl-{args.size}mb-seed{args.seed}", "bench.warc.gz")
    if not os.path.exists(warc):
        print(f"no crawl at {warc}: build it with run.py --size {args.size} first", file=sys.stderr)
        return 2
    rows = [r for r in args.rows.split(",") if r]
    unknown = sorted(set(rows) - set(ROWS))
    if unknown:
        print(f"unknown rows {unknown}; known: {', '.join(ROWS)}", file=sys.stderr)
        return 2
    bench.precompile()
    counts: dict[str, int] = {}
    for row in rows:
        bench.log(f"callgrind {row} ...")
        total, objs = count(row, warc, args.workdir)
        counts[row] = total
        top = sorted(objs.items(), key=lambda kv: -kv[1])[:6]
        print(f"{row}: {total / 1e9:.2f} G instructions; "
              + ", ".join(f"{name} {v / 1e9:.2f} G" for name, v in top), flush=True)
    job = counts.get("redecode-1w")
    if job:
        for row, target in (("baseline-a", bench.TARGET_VS_A), ("baseline-b", bench.TARGET_VS_B)):
            if row in counts:
                print(f"{row} / redecode-1w: {counts[row] / job:.3f}x (target >= {target}x: the job may "
                      f"execute at most {counts[row] / target / 1e9:.2f} G)")
        if "floor" in counts:
            print(f"redecode-1w / floor: {job / counts['floor']:.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
