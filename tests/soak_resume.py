"""Soak test of resume (issue 17): kill a multi-shard run at random points, change the inputs
between runs, and check that the run directory ends up with exactly the rows of a clean run.

Not part of the default test run (pytest collects ``test_*.py`` only); run it by hand::

    .venv/bin/python tests/soak_resume.py                 # 20 kill points, seed 17
    .venv/bin/python tests/soak_resume.py --points 50 --seed 3 --workers 2 --keep

What it does, in a scratch directory (``--dir``, default a new temporary one):

1. Builds three ``.warc.gz`` inputs of a few MB from ``sample_warcs/`` (gzip members concatenate,
   so the copies are valid WARCs of many records) and a pool of members to append.
2. Times one clean run (``redecode.job.run`` with a small ``shard_bytes``, so that every input is
   cut into several shards, and ``--workers`` worker processes), then until ``--points`` runs
   were killed: changes the inputs or not (every third attempt appends whole records to one input;
   every fifth cuts one short at a random byte; every seventh restores a cut input), starts the
   run in a child process of its own session and kills its whole process group with SIGKILL after
   a random delay within the clean run's time (a run that finishes first is not a kill point; at
   most 4 x ``--points`` attempts).
3. Runs to completion once more into the same directory, and once into a fresh directory (the
   clean run over the inputs as they are now), and compares: every row (all columns, ordered by
   input and offset), each input's outcome, damage and counts in ``_run.json``, no temporary
   files left, no part that ``_run.json`` does not list, and DuckDB's ``DIR/*.parquet`` row count.

Exit 0 when everything matches; 1 with the differences otherwise. Prints one line per point.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "sample_warcs").glob("*.warc.gz"))
SHARD_BYTES = 256 * 1024

_CHILD = """
import sys
from redecode.job import run
summary = run(sys.argv[3:], sys.argv[1], workers=int(sys.argv[2]), shard_bytes={shard})
sys.exit(summary.exit_code)
"""


def _members(path: Path) -> list[bytes]:
    """The gzip members (records) of a .warc.gz, as warcio indexes them."""
    from warcio.archiveiterator import ArchiveIterator

    data = path.read_bytes()
    spans = []
    with open(path, "rb") as fh:
        it = ArchiveIterator(fh)
        for record in it:
            it.read_to_end(record)
            spans.append(it.member_info)
    return [data[o : o + n] for o, n in spans]


def build_inputs(d: Path, rng: random.Random) -> tuple[list[Path], list[bytes]]:
    """Three inputs of 6-10 MB (the samples concatenated in random order) and a pool of members."""
    pool = [m for s in SAMPLES for m in _members(s)]
    data = [s.read_bytes() for s in SAMPLES]
    inputs = []
    for i in range(3):
        blob = bytearray()
        size = rng.randint(6, 10) * 1024 * 1024
        while len(blob) < size:
            blob += rng.choice(data)
        path = d / "in" / f"crawl-{i}.warc.gz"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(bytes(blob))
        inputs.append(path)
    return inputs, pool


def start_run(out: Path, inputs: list[Path], workers: int) -> subprocess.Popen:
    cmd = [sys.executable, "-c", _CHILD.format(shard=SHARD_BYTES), str(out), str(workers),
           *map(str, inputs)]
    return subprocess.Popen(cmd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def run_to_end(out: Path, inputs: list[Path], workers: int) -> int:
    proc = start_run(out, inputs, workers)
    _, err = proc.communicate(timeout=1800)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"run into {out} exited {proc.returncode}:\n{err.decode(errors='replace')}")
    return proc.returncode


def rows(out: Path) -> list[tuple]:
    import pyarrow.parquet as pq

    got = []
    for part in sorted(out.glob("*.parquet")):
        for r in pq.read_table(part).to_pylist():
            got.append(tuple(sorted((k, json.dumps(v, sort_keys=True, default=str)) for k, v in r.items())))
    return sorted(got, key=lambda r: (dict(r)["warc_path"], int(dict(r)["warc_offset"])))


def manifest_view(out: Path) -> dict:
    m = json.loads((out / "_run.json").read_text())
    return {e["path"]: {k: e[k] for k in ("outcome", "error_offset", "rows", "counts", "damaged", "size")}
            for e in m["inputs"]}


def compare(out: Path, clean: Path) -> list[str]:
    import duckdb

    problems = []
    mine, theirs = rows(out), rows(clean)
    if mine != theirs:
        problems.append(f"rows differ: {len(mine)} after the kills, {len(theirs)} in the clean run; "
                        f"{len(set(mine) - set(theirs))} only after the kills, "
                        f"{len(set(theirs) - set(mine))} only in the clean run")
    a, b = manifest_view(out), manifest_view(clean)
    for path in sorted(set(a) | set(b)):
        if a.get(path) != b.get(path):
            problems.append(f"_run.json differs for {path}: {a.get(path)} != {b.get(path)}")
    left = [p.name for p in out.iterdir() if p.name.startswith(".tmp-")] + (
        [p.name for p in (out / "_staging").iterdir()] if (out / "_staging").exists() else [])
    if left:
        problems.append(f"temporary files left: {left}")
    listed = {part for e in json.loads((out / "_run.json").read_text())["inputs"] for part in e["parts"]}
    extra = sorted(p.name for p in out.glob("*.parquet") if p.name not in listed)
    if extra:
        problems.append(f"parts not listed in _run.json: {extra}")
    with duckdb.connect() as con:
        n = con.execute(f"SELECT count(*) FROM '{out}/*.parquet'").fetchone()[0]
    seen = json.loads((out / "_run.json").read_text())["counts"]["records_seen"]
    if n != seen:
        problems.append(f"DuckDB counts {n} rows in {out}/*.parquet, _run.json records_seen {seen}")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--points", type=int, default=20, help="kill points (default 20)")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--dir", type=Path, default=None, help="scratch directory (default: a new temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    d = args.dir or Path(tempfile.mkdtemp(prefix="redecode-soak-"))
    d.mkdir(parents=True, exist_ok=True)
    try:
        inputs, pool = build_inputs(d, rng)
        started = time.monotonic()
        run_to_end(d / "timing", inputs, args.workers)
        clean_seconds = time.monotonic() - started
        shutil.rmtree(d / "timing")
        print(f"inputs: {[p.stat().st_size for p in inputs]} bytes; a clean run takes {clean_seconds:.1f} s")
        out = d / "out"
        cut: dict[Path, bytes] = {}  # inputs cut short -> their bytes before the cut
        killed = attempt = 0
        while killed < args.points and attempt < 4 * args.points:
            attempt += 1
            point = attempt
            change = ""
            if point % 3 == 0:
                victim = rng.choice(inputs)
                added = b"".join(rng.sample(pool, rng.randint(1, 20)))
                with open(victim, "ab") as fh:
                    fh.write(added)
                if victim in cut:
                    cut[victim] += added
                change += f" appended {len(added)} bytes to {victim.name};"
            if point % 5 == 0:
                victim = rng.choice(inputs)
                data = victim.read_bytes()
                cut.setdefault(victim, data)
                at = rng.randrange(len(data) // 2, len(data))
                victim.write_bytes(data[:at])
                change += f" cut {victim.name} at byte {at};"
            if point % 7 == 0 and cut:
                victim = rng.choice(sorted(cut))
                victim.write_bytes(cut.pop(victim))
                change += f" restored {victim.name};"
            delay = rng.uniform(0.05, clean_seconds)
            proc = start_run(out, inputs, args.workers)
            try:
                proc.wait(timeout=delay)
                outcome = f"finished first (exit {proc.returncode}), not a kill point"
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                killed += 1
                outcome = f"kill point {killed}: killed"
            proc.stderr.close()
            print(f"attempt {point:2d}:{change or ' no change;'} {outcome} after {delay:.2f} s", flush=True)
        code = run_to_end(out, inputs, args.workers)
        clean = d / "clean"
        clean_code = run_to_end(clean, inputs, args.workers)
        problems = compare(out, clean)
        if code != clean_code:
            problems.append(f"exit code {code} after the kills, {clean_code} for the clean run")
        n = len(rows(clean))
        if killed < args.points:
            problems.append(f"only {killed} of {args.points} runs could be killed before they finished")
        if problems:
            print(f"FAIL ({killed} runs killed in {attempt} attempts):")
            for p in problems:
                print("  " + p)
            return 1
        print(f"OK: {killed} runs killed in {attempt} attempts; the final run's {n} rows and _run.json "
              f"equal a clean run's (exit {code})")
        return 0
    finally:
        if args.keep or args.dir:
            print(f"scratch directory kept: {d}")
        else:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
