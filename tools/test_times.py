"""How long each test takes, in wall time and in CPU time: what the README's test times and the
``slow`` marker are judged from.

A pytest plugin and its summary. Wall time (pytest's own ``--durations``) grows with the load of a
shared machine; CPU time (this process and the child processes it waited for: Spark's workers,
the commands tests run as subprocesses) hardly does, so on a busy machine the CPU times say what
an idle one would take. Run the suite with it (``-n`` as usual; each xdist worker appends its own
lines)::

    PYTHONPATH=tools REDECODE_TEST_TIMES=/tmp/times.jsonl \\
        .venv/bin/python -m pytest -n 2 -q -p test_times
    .venv/bin/python tools/test_times.py /tmp/times.jsonl            # totals, slow and quick tiers
    .venv/bin/python tools/test_times.py /tmp/times.jsonl --top 40   # and the 40 costliest tests

Each line of the file is one test: ``{"test": nodeid, "wall": s, "cpu": s, "slow": bool}``
(setup, call and teardown together; a module fixture's cost falls on the first test that uses it).
The summary gives the test count, wall and CPU seconds of each tier (``slow``: marked
``@pytest.mark.slow``) and CPU seconds / 2, the least two idle cores take (sleeps, I/O and the
start of each worker come on top; on a busy machine, so does the wait for a core, which is why
wall seconds say little there). CPU time does not count grandchildren a test never waits for
(the Chromium a Playwright driver starts, Spark's JVM while its session lives).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time

import pytest

ENV = "REDECODE_TEST_TIMES"


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    path = os.environ.get(ENV)
    if not path:
        yield
        return
    wall, cpu = time.perf_counter(), _cpu()
    yield
    line = {"test": item.nodeid, "wall": round(time.perf_counter() - wall, 4),
            "cpu": round(_cpu() - cpu, 4), "slow": item.get_closest_marker("slow") is not None}
    with open(path, "a", encoding="utf-8") as f:  # one short line per write: workers do not mix
        f.write(json.dumps(line) + "\n")


def _tier(lines: list[dict]) -> str:
    wall = sum(t["wall"] for t in lines)
    cpu = sum(t["cpu"] for t in lines)
    return (f"{len(lines):5d} tests  wall {wall:8.1f} s  cpu {cpu:8.1f} s  "
            f"two idle cores at least {cpu / 2 / 60:4.1f} min")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("times", help=f"the file {ENV} named")
    parser.add_argument("--top", type=int, default=0, help="also list the N tests of the most wall time")
    args = parser.parse_args(argv)
    with open(args.times, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    print("all   ", _tier(lines))
    print("slow  ", _tier([t for t in lines if t["slow"]]))
    print("quick ", _tier([t for t in lines if not t["slow"]]))
    if args.top:
        cost = sorted(lines, key=lambda t: -t["wall"])
        for t in cost[: args.top]:
            print(f"{t['cpu']:7.2f} cpu {t['wall']:7.2f} wall {'slow ' if t['slow'] else '     '}{t['test']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
