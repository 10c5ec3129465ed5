"""Instructions executed by every row of the benchmark, counted with valgrind's callgrind.

CPU seconds on a shared machine vary by +-15% from run to run; the number of instructions a
process executes does not (the same binary on the same bytes executes the same instructions,
whatever else the machine is doing). This script runs each row of ``run.py`` once under
``valgrind --tool=callgrind`` on a crawl ``run.py`` has built, and prints the counts, the ratios the
targets are stated in, and where the instructions go, per shared object (zstd inside libarrow,
inflate inside FastWARC, the Python interpreter...). With two crawl sizes (``--sizes 300,340``) it
also prints each row's per-byte slope (instructions per extra MB of crawl) and its fixed cost (the
intercept: start-up, imports), so a change's effect on fixed and per-byte costs is told apart.
Instructions are not seconds (cache misses, branch mispredictions and SIMD width differ per
function), but the ratios agree with the CPU-time medians of ``run.py`` within about 10% and are
repeatable, so a change's effect can be read from one run. ``run.py --instructions`` uses this
module to put the counts next to the CPU medians.

Usage (from the repository root; ~30-50x slower than a plain run: about 3 minutes per row on the
300 MB crawl)::

    .venv/bin/python tests/benchmarks/run.py --size 300 --only floor --repeat 1   # builds the crawl
    .venv/bin/python tests/benchmarks/instructions.py [--sizes 300[,340]] [--rows baseline-b,floor,redecode-1w]

Needs ``valgrind`` (Debian: ``apt-get install valgrind``) and ``callgrind_annotate``. A row whose
work is spread over several processes (``redecode-2w``) counts all of them.
"""

from __future__ import annotations

import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import run as bench  # noqa: E402  (this directory's run.py)

#: The rows counted by default (run.py's rows but the inflate floors and readers, which
#: --rows adds).
ROWS = ("baseline-a", "baseline-b", "floor", "redecode-1w", "redecode-1w-snappy")


def available() -> str | None:
    """None when valgrind and callgrind_annotate are installed, else why not."""
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        return "valgrind is not installed (Debian: apt-get install valgrind)"
    return None


def cached_crawls(workdir: str, sizes: list[float], seed: int) -> dict[float, dict] | None:
    """size -> the description of the crawl ``run.py --size SIZE`` built in *workdir* (run.py's
    ``cached_crawl``), or None, having said on stderr which one is missing and how to build it."""
    metas = {}
    for size in sizes:
        meta = bench.cached_crawl(workdir, size, seed)
        if meta is None:
            print(f"no crawl of {size:g} MB (seed {seed}) in {workdir}: build it with "
                  f"run.py --size {size:g} --only floor --repeat 1 first", file=sys.stderr)
            return None
        metas[size] = meta
    return metas


def count(row: str, shards: list[str], workdir: str) -> tuple[int, dict[str, int]]:
    """Run ``row`` once under callgrind on ``shards``; return (instructions of all its processes,
    self instructions per shared object)."""
    out = os.path.join(workdir, "out", f"callgrind-{row}")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    profiles = os.path.join(workdir, f"callgrind-{row}")
    for old in glob.glob(profiles + ".*"):
        os.unlink(old)
    cmd, env = bench.row_command(row, shards, out)
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={profiles}.%p", *cmd],
        capture_output=True, text=True, env=env,
    )
    collected = [int(n) for n in re.findall(r"Collected : (\d+)", proc.stderr)]
    if proc.returncode or not collected:
        raise SystemExit(f"{row}: valgrind failed:\n{proc.stderr[-2000:]}")
    objs: collections.Counter[str] = collections.Counter()
    for profile in glob.glob(profiles + ".*"):
        objs.update(by_object(profile))
    return sum(collected), dict(objs)


def by_object(profile: str) -> dict[str, int]:
    """Self instructions per shared object (the interpreter's library folded into 'python')."""
    text = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", profile],
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


def slope(counts: dict[float, int], sizes_mb: dict[float, float]) -> tuple[float, float] | None:
    """(instructions per MB of uncompressed crawl, fixed instructions) from the counts on two crawls
    (``sizes_mb``: crawl size -> its uncompressed MB), or None with fewer than two."""
    if len(counts) < 2:
        return None
    (s1, c1), (s2, c2) = sorted(counts.items())[:2]
    per_mb = (c2 - c1) / (sizes_mb[s2] - sizes_mb[s1])
    return per_mb, c1 - per_mb * sizes_mb[s1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="300",
                    help="crawl sizes run.py built (MB), comma-separated; two give per-byte slopes")
    ap.add_argument("--seed", type=int, default=bench.DEFAULT_SEED)
    ap.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "redecode-bench"))
    ap.add_argument("--rows", default=",".join(ROWS), help=f"comma-separated, of {','.join(bench.ALL_ROWS)}")
    args = ap.parse_args(argv)
    why = available()
    if why:
        print(why, file=sys.stderr)
        return 2
    sizes = [float(s) for s in args.sizes.split(",") if s]
    rows = [r for r in args.rows.split(",") if r]
    unknown = sorted(set(rows) - set(bench.ALL_ROWS))
    if unknown:
        print(f"unknown rows {unknown}; known: {', '.join(bench.ALL_ROWS)}", file=sys.stderr)
        return 2
    metas = cached_crawls(args.workdir, sizes, args.seed)
    if metas is None:
        return 2
    bench.precompile()
    counts: dict[str, dict[float, int]] = {row: {} for row in rows}
    for size, meta in metas.items():
        for row in rows:
            bench.log(f"callgrind {row} on the {size:g} MB crawl ...")
            total, objs = count(row, meta["shards"], args.workdir)
            counts[row][size] = total
            top = sorted(objs.items(), key=lambda kv: -kv[1])[:6]
            print(f"{row} ({size:g} MB): {total / 1e9:.2f} G instructions; "
                  + ", ".join(f"{name} {v / 1e9:.2f} G" for name, v in top), flush=True)
    mb = {size: meta["uncompressed_bytes"] / 1e6 for size, meta in metas.items()}
    first = sizes[0]
    for line in bench.instruction_target_lines({row: c[first] for row, c in counts.items()},
                                               {row: slope(c, mb) for row, c in counts.items()}):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
