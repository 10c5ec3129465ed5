"""Time ``redecode query``'s standard report on a run directory (issue 8's target: under 2 s for
the benchmark crawl's ~5,800 rows). Not part of the test suite.

    .venv/bin/python tests/benchmarks/bench_query.py OUT_DIR [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from redecode.query import report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("run_dir")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    report(args.run_dir)  # warm-up: imports, first connection
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        rep = report(args.run_dir)
        times.append(time.perf_counter() - t)
    print(f"report over {rep.records} rows: median {statistics.median(times):.3f} s "
          f"(min {min(times):.3f}, max {max(times):.3f}, {args.repeat} runs)")


if __name__ == "__main__":
    main()
