#!/usr/bin/env python3
"""Benchmark: throughput, memory and scaling of ``redecode run`` against what users run today (issue 9).

Usage (not collected by pytest; run from the repository root)::

    .venv/bin/python tests/benchmarks/run.py [--size MB] [--workdir DIR] [--repeat 3]
                                             [--shards 4] [--double] [--only ROW,...]
                                             [--markdown /tmp/README-benchmark.md]

What it does, in one run:

1. Builds the benchmark crawl with ``$REDECODE_SHARED/bench/make_bench_warc.py`` (``REDECODE_SHARED``:
   the folder holding bench/ and corpus/, default ``../shared`` beside the repository; seeded: every machine gets
   the same bytes) of ``--size`` MB of uncompressed WARC (default 300), cached in
   ``WORKDIR/crawl-<size>mb-seed<seed>/``; ``--shards N`` cuts it at capture boundaries into N gzip
   WARC files (default 1: one big WARC, as in issue 9; the job shards each file by byte ranges itself).
   Every pipeline reads the same files.
2. Measures each row in its own process, ``--repeat`` times (median): process CPU seconds (user +
   system of the process and of every child it waited for, from ``os.wait4``), wall seconds, and MB/s
   of *uncompressed* WARC (MB = 10**6 bytes; uncompressed size = the inflated gzip members). Rows:
   the gzip inflate floor (CPython zlib; ISA-L when ``isal`` is installed), warcio and FastWARC reading
   every record and payload, baseline A and baseline B (``baselines.py``), and ``redecode run`` with 1
   and 2 workers (skipped with a note while ``redecode.job.run`` is not there).
3. Peak RSS: ``ru_maxrss`` of the process tree (the largest single process) and, per process, the
   peak ``VmHWM`` sampled from ``/proc`` every 0.1 s (so a worker's peak is reported separately
   from the parent's).
4. Accuracy of every decoding pipeline against the answer key (``answer_key.py``): the text of each
   HTML response compared with the Encoding Standard decode of the page under its true encoding (the
   author's text, also for ``header_wrong`` pages, whose header lies; ``browser exact`` counts the
   pages whose text is what a browser shows instead); reported for declared pages, undeclared legacy
   pages and undeclared UTF-8 pages.
5. ``--double``: builds a crawl twice as large and measures ``redecode run`` peak RSS on it (memory
   must not grow with the input).

Prints a table, writes ``WORKDIR/results-<size>mb.json``, and with ``--markdown PATH`` docs/benchmarks.md
section with the figures and the machine.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.util
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import answer_key  # noqa: E402  (sibling module; this directory is not a package)

DEFAULT_SEED = 20240601
#: $REDECODE_SHARED (default ../shared beside the repository)/bench/make_bench_warc.py
BENCH_SCRIPT = os.path.join(answer_key.SHARED, "bench", "make_bench_warc.py")
PY = sys.executable
BASELINES = os.path.join(HERE, "baselines.py")

# Targets of issue 9 (A, 2 workers, accuracy), issue 20 (B on the whole run) and issue 27 (per MB
# against the floor that counts, floor+Parquet, and against B; fixed costs; memory).
TARGET_VS_A = 2.0
TARGET_VS_B = 1.2  # baseline B / job, CPU of the whole run (issue 27: on the 100 MB crawl)
TARGET_SLOPE_OVER_FLOOR_PARQUET = 1.15  # per MB (instructions): job / floor+Parquet, at most
TARGET_SLOPE_B_OVER_JOB = 1.35  # per MB (instructions): baseline B / job, at least
TARGET_EMPTY_RUN_G = 0.35  # instructions of `redecode run` on an empty WARC, at most (G)
TARGET_VERSION_G = 0.1  # instructions of `redecode --version`, at most (G)
TARGET_WALL_2W = 0.6
TARGET_RSS_MB = 250
TARGET_DECLARED = 1.0
TARGET_UNDECLARED_LEGACY = 0.995


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------------
# the crawl
# ------------------------------------------------------------------------------------------------


def locate_bench_script(path: str | None) -> str:
    script = path or os.environ.get("REDECODE_BENCH_SCRIPT") or BENCH_SCRIPT
    if not os.path.isfile(script):
        sys.exit(
            f"error: the benchmark crawl generator is not at {script}.\n"
            "It lives in bench/ of the shared folder: $REDECODE_SHARED, default ../shared beside the\n"
            "repository. Set REDECODE_SHARED to the folder holding bench/ and corpus/, or pass\n"
            "--bench-script PATH (or set REDECODE_BENCH_SCRIPT) to the script itself."
        )
    return script


def shard_crawl(warc: str, out_dir: str, n_shards: int) -> list[str]:
    """Cut a gzip-per-record WARC into ``n_shards`` files at capture starts (request records).

    Byte ranges are copied as they are (each record is its own gzip member), so every shard is a valid
    ``.warc.gz`` and the shards together hold exactly the original records.
    """
    from fastwarc.warc import ArchiveIterator, WarcRecordType

    if n_shards <= 1:
        return [warc]
    size = os.path.getsize(warc)
    cuts = [0]
    k = 1
    for record in ArchiveIterator(warc, parse_http=False):
        if k >= n_shards:
            break
        if record.record_type == WarcRecordType.request and record.stream_pos >= size * k / n_shards:
            cuts.append(record.stream_pos)
            k += 1
    cuts.append(size)
    paths = []
    with open(warc, "rb") as src:
        for i in range(len(cuts) - 1):
            path = os.path.join(out_dir, f"bench-{i:02d}.warc.gz")
            src.seek(cuts[i])
            remaining = cuts[i + 1] - cuts[i]
            with open(path, "wb") as dst:
                while remaining:
                    chunk = src.read(min(remaining, 1 << 22))
                    dst.write(chunk)
                    remaining -= len(chunk)
            paths.append(path)
    return paths


def uncompressed_size(paths: list[str]) -> int:
    total = 0
    for path in paths:
        with open(path, "rb") as fh:
            d = zlib.decompressobj(31)
            data = fh.read(1 << 20)
            while data:
                total += len(d.decompress(data))
                while d.eof:
                    rest = d.unused_data
                    d = zlib.decompressobj(31)
                    if not rest:
                        break
                    total += len(d.decompress(rest))
                data = fh.read(1 << 20)
    return total


def prepare_crawl(workdir: str, size_mb: float, seed: int, n_shards: int, script: str) -> dict:
    """Generate (once) and shard the crawl; return its description.

    Cached in ``WORKDIR/crawl-<size>mb-seed<seed>/``: the generated crawl (``generated.ok`` marks it
    complete), the shards, ``answer_key.json`` and ``crawl-<n>shards.json`` (rebuilt when the answer
    key's ``KEY_VERSION`` changes).
    """
    name = f"crawl-{size_mb:g}mb-seed{seed}"
    cdir = os.path.join(workdir, name)
    meta_path = os.path.join(cdir, f"crawl-{n_shards}shards.json")
    if os.path.exists(meta_path):
        with open(meta_path) as fh:
            meta = json.load(fh)
        if meta.get("key_version") == answer_key.KEY_VERSION:
            return meta
    os.makedirs(cdir, exist_ok=True)
    warc = os.path.join(cdir, "bench.warc.gz")
    truth = os.path.join(cdir, "bench_truth.jsonl")
    done = os.path.join(cdir, "generated.ok")
    if not os.path.exists(done):
        log(f"generating a {size_mb:g} MB crawl (seed {seed}) with {script} ...")
        t0 = time.time()
        proc = subprocess.run(
            [PY, script, "--target-mb", str(size_mb), "--seed", str(seed), "--out", warc + ".tmp",
             "--truth", truth + ".tmp"],
            cwd=os.path.dirname(script), capture_output=True, text=True,
        )
        if proc.returncode:
            sys.exit(f"error: {script} failed:\n{proc.stderr[-2000:]}")
        os.replace(warc + ".tmp", warc)
        os.replace(truth + ".tmp", truth)
        with open(done, "w") as fh:
            fh.write(proc.stdout)
        log(f"generated in {time.time() - t0:.0f} s: {proc.stdout.strip()}")
    sdir = os.path.join(cdir, f"shards-{n_shards}")
    if os.path.isdir(sdir):
        shutil.rmtree(sdir)
    os.makedirs(sdir)
    shards = shard_crawl(warc, sdir, n_shards)
    log(f"answer key and sizes for {len(shards)} shards ...")
    key = answer_key.build_key(shards, truth)
    key_path = os.path.join(cdir, "answer_key.json")
    with open(key_path, "w") as fh:
        json.dump(key, fh)
    with open(done) as fh:
        gen = json.loads(fh.read().strip().splitlines()[-1])
    meta = {
        "name": name,
        "size_mb": size_mb,
        "seed": seed,
        "warc": warc,
        "truth": truth,
        "shards": shards,
        "compressed_bytes": sum(os.path.getsize(p) for p in shards),
        "uncompressed_bytes": uncompressed_size(shards),
        "records": gen.get("warc_records"),
        "html_responses": gen.get("html_responses"),
        "key": key_path,
        "key_version": answer_key.KEY_VERSION,
    }
    with open(meta_path, "w") as fh:
        json.dump(meta, fh, indent=1)
    return meta


# ------------------------------------------------------------------------------------------------
# measuring one process tree
# ------------------------------------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out.extend(int(x) for x in fh.read().split())
    except OSError:
        pass
    return out


def _vm_hwm_kb(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class TreeSampler(threading.Thread):
    """Sample the peak RSS (VmHWM) of every process under ``root`` every ``interval`` s."""

    def __init__(self, root: int, interval: float = 0.1) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.interval = interval
        self.peaks: dict[int, int] = {}
        self.parent_of: dict[int, int] = {}
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.is_set():
            stack = [self.root]
            while stack:
                pid = stack.pop()
                hwm = _vm_hwm_kb(pid)
                if hwm is not None:
                    self.peaks[pid] = max(hwm, self.peaks.get(pid, 0))
                for child in _children(pid):
                    self.parent_of.setdefault(child, pid)
                    stack.append(child)
            self._halt.wait(self.interval)

    def stop(self) -> None:
        self._halt.set()
        self.join()


# A bare interpreter (``-S``: no site) forks and execs the measured command and reports the rusage of
# ``os.wait4`` on it. Why not wait4 from run.py itself: a child's ru_maxrss starts from the RSS of the
# process it was forked from (Linux carries the old mm's high-water mark over exec), so measuring
# straight from run.py would add run.py's own ~100 MB to every peak. The launcher's floor is ~8 MB.
_LAUNCHER = r"""
import json, os, sys
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    except OSError as exc:
        sys.stderr.write("cannot run %s: %s\n" % (sys.argv[2], exc))
    os._exit(127)
_, status, ru = os.wait4(pid, 0)
with open(sys.argv[1], "w") as fh:
    json.dump({"pid": pid, "returncode": os.waitstatus_to_exitcode(status), "user_s": ru.ru_utime,
               "sys_s": ru.ru_stime, "maxrss_kb": ru.ru_maxrss}, fh)
"""


def measure(cmd: list[str], *, env: dict | None = None) -> dict:
    """Run ``cmd``; return CPU (user+sys of the tree), wall, ru_maxrss and per-process peaks."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r", suffix=".json") as ru_file:
        t0 = time.perf_counter()
        proc = subprocess.Popen([PY, "-S", "-c", _LAUNCHER, ru_file.name, *cmd],
                                stdout=out, stderr=err, env=env)
        sampler = TreeSampler(proc.pid)
        sampler.start()
        proc.wait()
        wall = time.perf_counter() - t0
        sampler.stop()
        try:
            ru = json.load(ru_file)
        except ValueError:
            ru = {"pid": None, "returncode": proc.returncode or 1, "user_s": 0.0, "sys_s": 0.0,
                  "maxrss_kb": 0}
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    peaks = {pid: kb for pid, kb in sampler.peaks.items() if pid != proc.pid}
    target = ru["pid"]
    workers = {pid: kb for pid, kb in peaks.items() if pid != target}
    return {
        "returncode": ru["returncode"],
        "cpu_s": ru["user_s"] + ru["sys_s"],
        "user_s": ru["user_s"],
        "sys_s": ru["sys_s"],
        "wall_s": wall,
        "maxrss_mb": ru["maxrss_kb"] / 1024,  # Linux: KiB; the largest single process of the tree
        "root_peak_mb": peaks.get(target, 0) / 1024,
        "child_peaks_mb": sorted((kb / 1024 for kb in workers.values()), reverse=True),
        "stdout": stdout,
        "stderr": stderr,
    }


# ------------------------------------------------------------------------------------------------
# accuracy
# ------------------------------------------------------------------------------------------------


def score(parquet_dir: str, key: dict) -> dict:
    """Compare the ``text`` of every HTML response in ``parquet_dir`` with the answer key."""
    import pyarrow.parquet as pq

    got: dict[str, tuple[str | None, str | None]] = {}
    files = sorted(
        os.path.join(parquet_dir, f)
        for f in os.listdir(parquet_dir)
        if f.endswith(".parquet") and not f.startswith(".")
    )
    for path in files:
        pf = pq.ParquetFile(path)
        names = set(pf.schema_arrow.names)
        cols = ["record_id", "text"] + [
            c for c in ("encoding", "status", "skip_reason", "error_kind") if c in names
        ]
        for batch in pf.iter_batches(columns=cols, batch_size=256):
            d = batch.to_pydict()
            for i, rid in enumerate(d["record_id"]):
                rid = answer_key.norm_id(rid or "")
                if rid not in key:
                    continue
                text = d["text"][i]
                enc = d.get("encoding", [None] * len(d["record_id"]))[i]
                st = d.get("status", [None] * len(d["record_id"]))[i]
                why = (d["skip_reason"][i] if "skip_reason" in d else None) or (
                    d["error_kind"][i] if "error_kind" in d else None
                )
                if why and st is None:
                    st = why
                elif why:
                    st = f"{st}: {why}"
                got[rid] = (answer_key.text_digest(text) if text is not None else None, enc, st)
    cats: dict[str, dict] = {}
    missing: dict[tuple, int] = {}
    wrong: dict[tuple, int] = {}
    for rid, k in key.items():
        c = cats.setdefault(k["category"], {"pages": 0, "exact": 0, "wrong": 0, "missing": 0,
                                            "browser_exact": 0})
        c["pages"] += 1
        g = got.get(rid)
        if g is not None and g[0] is not None and g[0] == k.get("browser_digest"):
            c["browser_exact"] += 1
        if g is None or g[0] is None:
            c["missing"] += 1
            tag = (g[2] if g else "no row", k.get("http_status"))
            missing[tag] = missing.get(tag, 0) + 1
        elif g[0] == k["digest"]:
            c["exact"] += 1
        else:
            c["wrong"] += 1
            tag = (k["category"], k["mode"], k["encoding"], g[1])
            wrong[tag] = wrong.get(tag, 0) + 1
    for c in cats.values():
        c["accuracy"] = c["exact"] / c["pages"] if c["pages"] else None
        # Of the pages the pipeline gave a text for (rows skipped or failed left out).
        given = c["pages"] - c["missing"]
        c["accuracy_of_given"] = c["exact"] / given if given else None
    by_reason: dict[str, dict] = {}
    for (reason, http_status), n in missing.items():
        r = by_reason.setdefault(str(reason), {"pages": 0, "http_status": {}})
        r["pages"] += n
        r["http_status"][str(http_status)] = r["http_status"].get(str(http_status), 0) + n
    return {
        "categories": cats,
        "no_text": [{"reason": k, **v} for k, v in sorted(by_reason.items(), key=lambda kv: -kv[1]["pages"])],
        "wrong": [
            {"category": t[0], "mode": t[1], "expected": t[2], "got": t[3], "pages": n}
            for t, n in sorted(wrong.items(), key=lambda kv: -kv[1])[:12]
        ],
    }


# ------------------------------------------------------------------------------------------------
# rows
# ------------------------------------------------------------------------------------------------


def redecode_available() -> tuple[bool, str]:
    if importlib.util.find_spec("redecode") is None:
        return False, "the redecode package is not installed in this interpreter"
    try:
        import redecode.job as job  # noqa: F401
    except Exception as exc:  # the job module may be half-landed
        return False, f"redecode.job does not import yet ({type(exc).__name__}: {exc})"
    if not hasattr(job, "run"):
        return False, "redecode.job.run is not there yet"
    script = shutil.which("redecode", path=os.path.dirname(PY)) or shutil.which("redecode")
    if not script:
        return False, "the `redecode` console script is not installed"
    return True, script


def redecode_cmd(script: str, shards: list[str], out: str, workers: int) -> list[str]:
    return [script, "run", *shards, "--out", out, "--workers", str(workers), "--quiet", "--json"]


#: Parquet codec of the job rows whose name ends with it (redecode-1w-snappy: the writer's
#: REDECODE_PARQUET_COMPRESSION, for users who trade output size for CPU); zstd level 1 otherwise.
ROW_CODECS = ("snappy", "lz4")

#: The job row under the browser rules (``--rules``: the default rule set's browser rules, the
#: least decision work of the shipped rule sets: no author checks, no language evidence): what
#: reading, rows and Parquet cost the job without the default rules' checks. Not scored against a
#: target; beside baseline B it shows how much of the CPU between B and the job is the author
#: decision.
BROWSER_ROW = "redecode-1w-browser"


def browser_rules_name() -> str:
    """The name of the default rule set's browser rules (``redecode rules`` lists it)."""
    from redecode import rules  # noqa: PLC0415

    return rules.get_rules(rules.DEFAULT_RULES).browser().name


def row_command(row: str, shards: list[str], out: str) -> tuple[list[str], dict | None]:
    """The command (and environment, None: this one) that runs ``row`` on ``shards`` into ``out``."""
    if not row.startswith("redecode"):
        return [PY, BASELINES, row, out, *shards], None
    ok, script = redecode_available()
    if not ok:
        raise RuntimeError(script)
    if row == "redecode-version":
        return [script, "--version"], None
    if row == PAIR_ROW:
        return [PY, "-S", "-c", _PAIR, out, script, *shards], None
    parts = row.split("-")  # redecode-<N>w[-<codec>]
    workers = int(parts[1].rstrip("w"))
    if row == BROWSER_ROW:
        return [*redecode_cmd(script, shards, out, workers), "--rules", browser_rules_name()], None
    env = None
    if len(parts) > 2:
        env = dict(os.environ, REDECODE_PARQUET_COMPRESSION=parts[2])
    return redecode_cmd(script, shards, out, workers), env


#: Runs ``redecode run`` twice at once (argv: OUT SCRIPT SHARD...; into OUT/a and OUT/b), waits for
#: both; exit status: the first failure's, else 0.
_PAIR = r"""
import os, subprocess, sys
out, script, shards = sys.argv[1], sys.argv[2], sys.argv[3:]
procs = [subprocess.Popen([script, "run", *shards, "--out", os.path.join(out, half), "--workers", "1",
                           "--quiet", "--json"], stdout=subprocess.DEVNULL) for half in ("a", "b")]
codes = [p.wait() for p in procs]
sys.exit(next((c for c in codes if c), 0))
"""


def cached_crawl(workdir: str, size_mb: float, seed: int, n_shards: int = 1) -> dict | None:
    """The description of a crawl ``prepare_crawl`` built earlier in ``workdir``, or None."""
    path = os.path.join(workdir, f"crawl-{size_mb:g}mb-seed{seed}", f"crawl-{n_shards}shards.json")
    try:
        with open(path) as fh:
            meta = json.load(fh)
    except (OSError, ValueError):
        return None
    return meta if meta.get("key_version") == answer_key.KEY_VERSION else None


def output_mb(out: str) -> float | None:
    """MB (10**6 bytes) of the Parquet files a row wrote in ``out`` (None: it writes none)."""
    sizes = [os.path.getsize(os.path.join(out, f)) for f in os.listdir(out) if f.endswith(".parquet")]
    return sum(sizes) / 1e6 if sizes else None


def precompile() -> None:
    """Write the bytecode of this project's modules and of the baselines before measuring.

    pip compiles what it installs into site-packages (FastWARC, Resiliparse, pyarrow...), but an
    editable install of this project leaves ``lib/`` and ``jobs/`` to be compiled on first import,
    and with ``PYTHONDONTWRITEBYTECODE`` set (some CI images and containers set it) every run
    compiles them again: 10% of the instructions of a 20 MB run (callgrind), which no installed
    copy pays. ``compileall`` writes the caches whatever that variable says; imports then read them.
    """
    import compileall

    dirs = {HERE}
    for name in ("redecode", "redecode_jobs"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            dirs.update(spec.submodule_search_locations)
    for d in sorted(dirs):
        compileall.compile_dir(d, quiet=1)


def _row_mb(row: str, mb: float) -> float:
    """The MB of crawl ``row`` reads: the crawl's, twice for :data:`PAIR_ROW`."""
    return 2 * mb if row == PAIR_ROW else mb


def run_rows(meta: dict, rows: list[str], repeat: int, workdir: str) -> dict:
    shards = meta["shards"]
    mb = meta["uncompressed_bytes"] / 1e6
    results: dict[str, dict] = {}
    ok, script = redecode_available()
    precompile()
    active = []
    for row in rows:
        if row == "gzip-isal" and importlib.util.find_spec("isal") is None:
            results[row] = {"skipped": "isal is not installed (pip install isal)"}
            continue
        if row.startswith("redecode") and not ok:
            results[row] = {"skipped": f"redecode run not measured: {script}"}
            log(f"{row}: skipped ({script})")
            continue
        active.append(row)
    # Rounds: every row once per round, so that a slow spell of a shared machine hits all rows of
    # a round alike; ratios are taken within each round (see ``derived``).
    all_runs: dict[str, list[dict]] = {row: [] for row in active}
    for i in range(repeat):
        for row in active:
            if row in results:
                continue  # failed in an earlier round
            out = os.path.join(workdir, "out", row)
            if os.path.exists(out):
                shutil.rmtree(out)
            os.makedirs(out)
            cmd, env = row_command(row, shards, out)
            m = measure(cmd, env=env)
            if m["returncode"] not in (0,):
                log(f"{row}: exit {m['returncode']}\n{m['stderr'][-3000:]}")
                results[row] = {"failed": f"exit code {m['returncode']}", "stderr": m["stderr"][-3000:]}
                continue
            all_runs[row].append(m)
            log(f"{row} #{i + 1}: cpu {m['cpu_s']:.2f} s, wall {m['wall_s']:.2f} s, "
                f"{_row_mb(row, mb) / m['cpu_s']:.0f} MB/s cpu, peak {m['maxrss_mb']:.0f} MB")
    for row in active:
        out = os.path.join(workdir, "out", row)
        runs = all_runs[row]
        if row in results:
            continue
        cpu = statistics.median(r["cpu_s"] for r in runs)
        wall = statistics.median(r["wall_s"] for r in runs)
        res = {
            "cpu_s": cpu,
            "wall_s": wall,
            "cpu_runs": [round(r["cpu_s"], 3) for r in runs],
            "wall_runs": [round(r["wall_s"], 3) for r in runs],
            "mb_per_cpu_s": _row_mb(row, mb) / cpu,
            "mb_per_wall_s": _row_mb(row, mb) / wall,
            "maxrss_mb": max(r["maxrss_mb"] for r in runs),
            "root_peak_mb": max(r["root_peak_mb"] for r in runs),
            "child_peak_mb": max((max(r["child_peaks_mb"], default=0) for r in runs), default=0),
            "n_children": max(len(r["child_peaks_mb"]) for r in runs),
            "output_mb": output_mb(out),
        }
        try:
            res["summary"] = json.loads(runs[-1]["stdout"].strip().splitlines()[-1])
        except (ValueError, IndexError):
            pass
        if row.startswith("baseline") or (row.startswith("redecode") and row != PAIR_ROW):
            with open(meta["key"]) as fh:
                key = json.load(fh)
            res["accuracy"] = score(out, key)
        results[row] = res
    return {row: results[row] for row in rows if row in results}


def count_instructions(meta: dict, slope_meta: dict | None, results: dict, workdir: str) -> None:
    """Add to each measured row of ``results`` its instructions on ``meta``'s crawl (one run under
    callgrind: ``instructions``), and with ``slope_meta`` (a second crawl) its
    ``instructions_per_mb`` (per MB of uncompressed crawl) and ``fixed_instructions``."""
    import instructions  # noqa: PLC0415 - (this directory's instructions.py; imports this module)

    why = instructions.available()
    if why:
        log(f"instructions not counted: {why}")
        return
    mb = {"main": meta["uncompressed_bytes"] / 1e6}
    if slope_meta is not None:
        mb["slope"] = slope_meta["uncompressed_bytes"] / 1e6
    for row, res in results.items():
        if "cpu_s" not in res or row == PAIR_ROW:
            continue
        counts = {}
        for which, m in (("main", meta), ("slope", slope_meta)):
            if m is None:
                continue
            log(f"callgrind {row} on the {m['size_mb']:g} MB crawl ...")
            counts[mb[which]], _objs = instructions.count(row, m["shards"], workdir)
        res["instructions"] = counts[mb["main"]]
        if len(counts) == 2:
            (m1, c1), (m2, c2) = sorted(counts.items())
            res["instructions_per_mb"] = (c2 - c1) / (m2 - m1)
            res["fixed_instructions"] = c1 - res["instructions_per_mb"] * m1
            res["instructions_slope_crawls_mb"] = [m1, m2]


def _is_ours(path: str) -> bool:
    return path.startswith(("redecode/", "jobs/")) or "/redecode/" in path or "/jobs/" in path


def profile_redecode(meta: dict, workdir: str, workers: int = 1, rate: int = 200) -> dict:
    """Sample ``redecode run`` with py-spy; return inclusive shares per function and self shares.

    Inclusive: the share of samples whose stack contains a function of ``lib/redecode`` (so
    ``job.record_row`` includes the decision and the decode it calls). Self: the share of samples
    whose innermost frame is in a given file (``pyarrow``, ``fastwarc``, ``decode.py`` ...), i.e. where
    the CPU actually is. Needs py-spy (``.venv/bin/pip install py-spy``).
    """
    ok, script = redecode_available()
    if not ok:
        return {"skipped": script}
    pyspy = shutil.which("py-spy", path=os.path.dirname(PY)) or shutil.which("py-spy")
    if not pyspy:
        return {"skipped": "py-spy is not installed (.venv/bin/pip install py-spy)"}
    out = os.path.join(workdir, "out", "profile")
    if os.path.exists(out):
        shutil.rmtree(out)
    raw = os.path.join(workdir, f"profile-redecode-{workers}w.txt")
    cmd = [pyspy, "record", "-r", str(rate), "-f", "raw", "-o", raw, "--subprocesses", "--",
           *redecode_cmd(script, meta["shards"], out, workers)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode or not os.path.exists(raw):
        return {"failed": proc.stderr[-2000:]}
    inclusive: dict[str, int] = {}
    self_file: dict[str, int] = {}
    leaf_fn: dict[str, int] = {}
    total = 0
    with open(raw) as fh:
        for line in fh:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            n = int(count)
            total += n
            frames = stack.split(";")
            seen = set()
            for frame in frames:
                fn, _, loc = frame.partition(" (")
                path = loc.rstrip(")").rsplit(":", 1)[0]
                if _is_ours(path):
                    key = f"{os.path.basename(path)[:-3]}.{fn}"
                    if key not in seen:
                        seen.add(key)
                        inclusive[key] = inclusive.get(key, 0) + n
            fn, _, loc = frames[-1].partition(" (")
            path = loc.rstrip(")").rsplit(":", 1)[0]
            # py-spy names files "package/module.py": keep our module, else the package.
            where = path if _is_ours(path) else path.split("/site-packages/")[-1].split("/")[0]
            self_file[where] = self_file.get(where, 0) + n
            leaf_fn[f"{fn} ({where})"] = leaf_fn.get(f"{fn} ({where})", 0) + n

    def top(d: dict, k: int) -> list:
        return [(name, round(100 * v / total, 1)) for name, v in sorted(d.items(), key=lambda kv: -kv[1])[:k]]

    return {"samples": total, "raw": raw, "inclusive_pct": top(inclusive, 30),
            "self_pct_by_file": top(self_file, 20), "self_pct_by_function": top(leaf_fn, 25)}


ALL_ROWS = ["gzip-zlib", "gzip-isal", "warcio", "fastwarc", "floor", "floor-parquet", "baseline-a", "baseline-b",
            "redecode-1w", "redecode-2w", "redecode-1w-pair", "redecode-1w-snappy", BROWSER_ROW]

#: The row that runs two 1-worker runs of the whole crawl at once, each into its own directory: how
#: much two processes slow each other on this machine (shared caches, memory bandwidth, a core's
#: sibling threads), the floor under the 2 workers / 1 worker wall ratio. Not scored, not counted.
PAIR_ROW = "redecode-1w-pair"

#: Rows whose fixed cost is measured on an empty WARC (one warcinfo record), and the command that
#: answers without reading anything (``redecode --version``).
FIXED_ROWS = ("floor-parquet", "baseline-b", "redecode-1w", "redecode-version")


def empty_crawl(workdir: str) -> dict:
    """A WARC holding one ``warcinfo`` record (gzip), for the fixed costs: what a row pays before
    and after reading anything (interpreter, imports, its output's set-up and close)."""
    import gzip  # noqa: PLC0415

    path = os.path.join(workdir, "empty", "empty.warc.gz")
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        block = b"software: tests/benchmarks/run.py (an empty crawl)\r\n"
        record = (b"WARC/1.1\r\nWARC-Type: warcinfo\r\nWARC-Date: 2024-06-01T00:00:00Z\r\n"
                  b"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000000>\r\n"
                  b"Content-Type: application/warc-fields\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n"
                  % (len(block), block))
        with open(path + ".tmp", "wb") as fh:
            fh.write(gzip.compress(record, mtime=0))
        os.replace(path + ".tmp", path)
    return {"name": "empty", "size_mb": 0, "shards": [path], "uncompressed_bytes": 0}


def run_fixed(rows: list[str], repeat: int, workdir: str, instructions: bool) -> dict:
    """Fixed costs: each of :data:`FIXED_ROWS` that ``rows`` asks for (``redecode-version`` with any
    redecode row) on :func:`empty_crawl`, ``repeat`` times (CPU s, median), and with
    ``instructions`` once under callgrind."""
    meta = empty_crawl(workdir)
    wanted = [r for r in FIXED_ROWS if r in rows or (r == "redecode-version" and any(
        x.startswith("redecode") for x in rows))]
    ok, script = redecode_available()
    out: dict[str, dict] = {}
    for row in wanted:
        if row.startswith("redecode") and not ok:
            out[row] = {"skipped": script}
            continue
        cpu = []
        for _ in range(repeat):
            dest = os.path.join(workdir, "out", f"empty-{row}")
            shutil.rmtree(dest, ignore_errors=True)
            os.makedirs(dest)
            cmd, env = row_command(row, meta["shards"], dest)
            m = measure(cmd, env=env)
            if m["returncode"]:
                out[row] = {"failed": f"exit code {m['returncode']}", "stderr": m["stderr"][-2000:]}
                break
            cpu.append(m["cpu_s"])
        else:
            out[row] = {"cpu_s": statistics.median(cpu), "cpu_runs": [round(c, 3) for c in cpu]}
            log(f"fixed cost of {row}: cpu {out[row]['cpu_s']:.2f} s")
    if instructions:
        import instructions as counter  # noqa: PLC0415 - (this directory's instructions.py)

        why = counter.available()
        for row, res in out.items():
            if why or "cpu_s" not in res:
                continue
            log(f"callgrind {row} on the empty crawl ...")
            res["instructions"], _objs = counter.count(row, meta["shards"], os.path.join(workdir, "empty"))
    return out


def add_cpu_slopes(results: dict, slope_results: dict, mb: float, slope_mb: float) -> None:
    """Each row's CPU seconds per MB of crawl (``cpu_s_per_mb``) from its medians on two crawls."""
    for row, res in results.items():
        other = slope_results.get(row, {})
        if "cpu_s" in res and "cpu_s" in other and slope_mb != mb:
            (m1, c1), (m2, c2) = sorted(((mb, res["cpu_s"]), (slope_mb, other["cpu_s"])))
            res["cpu_s_per_mb"] = (c2 - c1) / (m2 - m1)
            res["cpu_slope_crawls_mb"] = [m1, m2]


# ------------------------------------------------------------------------------------------------
# report
# ------------------------------------------------------------------------------------------------


def machine() -> dict:
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    versions = {}
    for dist in ("warcio", "FastWARC", "Resiliparse", "pyarrow", "charset-normalizer", "isal",
                 "warc-redecode"):
        try:
            from importlib.metadata import version

            versions[dist] = version(dist)
        except Exception:
            versions[dist] = None
    return {
        "cpu_model": model,
        "nproc": len(os.sched_getaffinity(0)),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "loadavg_at_start": os.getloadavg(),
        "versions": versions,
    }


LABELS = {
    "gzip-zlib": "gzip inflate floor, CPython zlib",
    "gzip-isal": "gzip inflate floor, ISA-L (isal)",
    "warcio": "warcio, every record and payload",
    "fastwarc": "FastWARC, every record and payload",
    "floor": "floor: FastWARC + one decode + Parquet zstd-1 (no decision)",
    "floor-parquet": "floor+Parquet: FastWARC, every payload byte read, the payloads as the job's Parquet",
    "redecode-version": "redecode --version",
    "baseline-a": "baseline A: warcio + decode_html + Parquet",
    "baseline-b": "baseline B: FastWARC + resiliparse + Parquet",
    "redecode-1w": "redecode run, 1 worker",
    "redecode-2w": "redecode run, 2 workers",
    "redecode-1w-pair": "two runs of 1 worker at once, each the whole crawl (this machine's parallel floor)",
    "redecode-1w-snappy": "redecode run, 1 worker, Parquet snappy (REDECODE_PARQUET_COMPRESSION)",
    BROWSER_ROW: "redecode run, 1 worker, the browser rules (no author checks: the least decision work)",
}


def _acc(res: dict, cat: str) -> str:
    a = res.get("accuracy", {}).get("categories", {}).get(cat)
    if not a:
        return ""
    return f"{100 * a['accuracy']:.2f}% ({a['exact']}/{a['pages']})"


def derived(results: dict) -> dict:
    d: dict = {}
    r1 = results.get("redecode-1w", {})
    r2 = results.get("redecode-2w", {})
    a = results.get("baseline-a", {})
    b = results.get("baseline-b", {})

    def paired(num: dict, den: dict, key: str) -> float:
        # the median over rounds of the ratio within a round (rows of a round ran back to back)
        runs = {"cpu_s": "cpu_runs", "wall_s": "wall_runs"}[key]  # per-round figures of the row
        if len(num.get(runs, ())) == len(den.get(runs, ())) > 0:
            return statistics.median(n / m for n, m in zip(num[runs], den[runs]))
        return num[key] / den[key]

    if "cpu_s" in r1 and "cpu_s" in a:
        d["redecode_1w_vs_a"] = paired(a, r1, "cpu_s")
    if "cpu_s" in r1 and "cpu_s" in b:
        d["redecode_1w_vs_b"] = paired(b, r1, "cpu_s")
    browser = results.get(BROWSER_ROW, {})
    if "cpu_s" in browser and "cpu_s" in b:
        d["browser_1w_vs_b"] = paired(b, browser, "cpu_s")
    if "wall_s" in r1 and "wall_s" in r2:
        d["wall_2w_over_1w"] = paired(r2, r1, "wall_s")
    pair = results.get(PAIR_ROW, {})
    if "wall_s" in r1 and "wall_s" in pair:
        # two whole runs at once over one alone: a 2-worker run that split the work perfectly and
        # shared nothing would take half of that
        d["pair_over_1w"] = paired(pair, r1, "wall_s")
    floor = results.get("floor", {})
    if "cpu_s" in floor and "cpu_s" in b:
        # what the 1-worker target is measured against: the same reading and writing, no decision
        d["floor_vs_b"] = paired(b, floor, "cpu_s")
    if "cpu_s" in floor and "cpu_s" in r1:
        d["redecode_1w_over_floor"] = paired(r1, floor, "cpu_s")
    floor_parquet = results.get("floor-parquet", {})
    if "cpu_s" in floor_parquet and "cpu_s" in r1:
        d["redecode_1w_over_floor_parquet"] = paired(r1, floor_parquet, "cpu_s")
    # instructions (run --instructions): one count per row, no noise to pair away
    if r1.get("instructions") and floor.get("instructions"):
        d["instr_1w_over_floor"] = r1["instructions"] / floor["instructions"]
    if r1.get("instructions") and b.get("instructions"):
        d["instr_1w_vs_b"] = b["instructions"] / r1["instructions"]
    if r1.get("instructions") and a.get("instructions"):
        d["instr_1w_vs_a"] = a["instructions"] / r1["instructions"]
    if r1.get("instructions_per_mb") and floor.get("instructions_per_mb"):
        d["slope_1w_over_floor"] = r1["instructions_per_mb"] / floor["instructions_per_mb"]
    return d


def table_lines(meta: dict, results: dict) -> list[str]:
    counted = any("instructions" in res for res in results.values())
    sloped = any("instructions_per_mb" in res for res in results.values())
    cpu_sloped = any("cpu_s_per_mb" in res for res in results.values())
    head = "| pipeline | CPU s | MB/s (CPU) |"
    rule = "|---|---:|---:|"
    if cpu_sloped:
        head += " CPU ms / MB |"
        rule += "---:|"
    if counted:
        head += " G instructions |"
        rule += "---:|"
    if sloped:
        head += " M instructions / MB | fixed G instructions |"
        rule += "---:|---:|"
    head += " wall s | peak RSS MB | output MB | declared exact | undeclared legacy exact | undeclared UTF-8 exact |"
    rule += "---:|---:|---:|---:|---:|---:|"
    lines = [head, rule]
    for row, res in results.items():
        label = f"{LABELS.get(row, row)} (`{row}`)" if row in LABELS else row
        if "skipped" in res or "failed" in res:
            note = res.get("skipped") or res.get("failed")
            lines.append(f"| {label} | - | - |" + " - |" * (cpu_sloped + counted + 2 * sloped)
                         + f" - | - | - | {note} | | |")
            continue
        peak = f"{max(res['maxrss_mb'], res['child_peak_mb']):.0f}"
        if res["n_children"]:
            peak += f" (largest of {res['n_children']} child processes: {res['child_peak_mb']:.0f})"
        cells = f"| {label} | {res['cpu_s']:.2f} | {res['mb_per_cpu_s']:.0f} |"
        if cpu_sloped:
            cells += f" {1e3 * res['cpu_s_per_mb']:.2f} |" if res.get("cpu_s_per_mb") else " |"
        if counted:
            cells += f" {res['instructions'] / 1e9:.2f} |" if res.get("instructions") else " |"
        if sloped:
            if res.get("instructions_per_mb"):
                cells += f" {res['instructions_per_mb'] / 1e6:.1f} | {res['fixed_instructions'] / 1e9:.2f} |"
            else:
                cells += " | |"
        out_mb = f"{res['output_mb']:.1f}" if res.get("output_mb") else ""
        lines.append(
            cells + f" {res['wall_s']:.2f} | {peak} | {out_mb} "
            f"| {_acc(res, 'declared')} | {_acc(res, 'undeclared-legacy')} | {_acc(res, 'undeclared-utf8')} |"
        )
    return lines


def instruction_target_lines(counts: dict[str, int], slopes: dict[str, tuple[float, float] | None],
                             fixed: dict[str, int] | None = None) -> list[str]:
    """The targets in instructions: ``counts`` row -> instructions on one crawl, ``slopes`` row ->
    (instructions per MB, intercept) from two crawls (or None), ``fixed`` row -> instructions on
    the empty crawl (and of ``redecode --version``)."""
    out = []

    def mark(ok: bool) -> str:
        return "met" if ok else "NOT met"

    job = counts.get("redecode-1w")
    for row, target in (("baseline-b", TARGET_VS_B), ("baseline-a", TARGET_VS_A)):
        if job and counts.get(row):
            r = counts[row] / job
            out.append(f"- instructions {row} / redecode 1 worker, whole run: {r:.3f}x (for reference; the "
                       f"CPU target on the whole run is >= {target}x)")
    sj, sp, sb = slopes.get("redecode-1w"), slopes.get("floor-parquet"), slopes.get("baseline-b")
    if sj and sp:
        r = sj[0] / sp[0]
        out.append(f"- per MB, redecode 1 worker / floor+Parquet: {sj[0] / 1e6:.1f} / {sp[0] / 1e6:.1f} M instructions "
                   f"= {r:.3f}x (target <= {TARGET_SLOPE_OVER_FLOOR_PARQUET}x: "
                   f"{mark(r <= TARGET_SLOPE_OVER_FLOOR_PARQUET)}; at most "
                   f"{sp[0] * TARGET_SLOPE_OVER_FLOOR_PARQUET / 1e6:.1f} M per MB)")
    if sj and sb:
        r = sb[0] / sj[0]
        out.append(f"- per MB, baseline B / redecode 1 worker: {sb[0] / 1e6:.1f} / {sj[0] / 1e6:.1f} M instructions "
                   f"= {r:.3f}x (target >= {TARGET_SLOPE_B_OVER_JOB}x: {mark(r >= TARGET_SLOPE_B_OVER_JOB)})")
    sf = slopes.get("floor")
    if sj and sf:
        out.append(f"- per MB, for reference: the old floor (one decode, 4 columns) {sf[0] / 1e6:.1f} M instructions; "
                   f"intercepts (start-up plus first uses) redecode {sj[1] / 1e9:.2f} G, floor+Parquet "
                   f"{sp[1] / 1e9 if sp else float('nan'):.2f} G, baseline B {sb[1] / 1e9 if sb else float('nan'):.2f} G")
    fixed = fixed or {}
    if fixed.get("redecode-1w"):
        g = fixed["redecode-1w"] / 1e9
        others = ", ".join(f"{row} {fixed[row] / 1e9:.2f} G" for row in ("floor-parquet", "baseline-b")
                           if fixed.get(row))
        out.append(f"- fixed: redecode run on an empty WARC {g:.3f} G instructions (target <= {TARGET_EMPTY_RUN_G} G: "
                   f"{mark(g <= TARGET_EMPTY_RUN_G)})" + (f"; on the same file {others}" if others else ""))
    if fixed.get("redecode-version"):
        g = fixed["redecode-version"] / 1e9
        out.append(f"- fixed: `redecode --version` {g:.3f} G instructions (target <= {TARGET_VERSION_G} G: "
                   f"{mark(g <= TARGET_VERSION_G)})")
    if job and counts.get("redecode-1w-snappy"):
        out.append(f"- redecode-1w-snappy / redecode 1 worker: {counts['redecode-1w-snappy'] / job:.3f}x the instructions")
    return out


def target_lines(results: dict, d: dict, double: dict | None) -> list[str]:
    out = []

    def mark(ok: bool | None) -> str:
        return "n/a" if ok is None else ("met" if ok else "NOT met")

    r1 = results.get("redecode-1w", {})
    if "redecode_1w_vs_b" in d:
        out.append(f"- redecode 1 worker vs baseline B (CPU throughput): {d['redecode_1w_vs_b']:.3f}x "
                   f"(target >= {TARGET_VS_B}x: {mark(d['redecode_1w_vs_b'] >= TARGET_VS_B)})")
    if "browser_1w_vs_b" in d:
        out.append(f"  - the same under the browser rules (`{BROWSER_ROW}`): "
                   f"{d['browser_1w_vs_b']:.3f}x (not a target: what the job's reading, rows and "
                   "Parquet cost beside B's without the default rules' author checks)")
    if "redecode_1w_vs_a" in d:
        out.append(f"- redecode 1 worker vs baseline A (CPU throughput): {d['redecode_1w_vs_a']:.3f}x "
                   f"(target >= {TARGET_VS_A}x: {mark(d['redecode_1w_vs_a'] >= TARGET_VS_A)})")
    if "redecode_1w_over_floor_parquet" in d:
        out.append(f"- redecode 1 worker / floor+Parquet (CPU, whole runs): {d['redecode_1w_over_floor_parquet']:.3f}x "
                   f"(the target, <= {TARGET_SLOPE_OVER_FLOOR_PARQUET}x, is per MB in instructions: "
                   "--instructions --slope-size MB)")
    cpu = {row: res["cpu_s_per_mb"] for row, res in results.items() if res.get("cpu_s_per_mb")}
    if cpu.get("redecode-1w") and cpu.get("floor-parquet"):
        out.append(f"- per MB (CPU), redecode 1 worker / floor+Parquet: {1e3 * cpu['redecode-1w']:.2f} / "
                   f"{1e3 * cpu['floor-parquet']:.2f} ms = {cpu['redecode-1w'] / cpu['floor-parquet']:.3f}x "
                   "(beside the instructions below)")
    if cpu.get("redecode-1w") and cpu.get("baseline-b"):
        out.append(f"- per MB (CPU), baseline B / redecode 1 worker: {cpu['baseline-b'] / cpu['redecode-1w']:.3f}x")
    counts = {row: res["instructions"] for row, res in results.items() if res.get("instructions")}
    slopes = {row: (res["instructions_per_mb"], res["fixed_instructions"]) for row, res in results.items()
              if res.get("instructions_per_mb")}
    fixed_results = (d.get("fixed") or {})
    fixed_counts = {row: res["instructions"] for row, res in fixed_results.items() if res.get("instructions")}
    for row in ("redecode-1w", "redecode-version", "floor-parquet", "baseline-b"):
        res = fixed_results.get(row, {})
        if "cpu_s" in res:
            where = "" if row == "redecode-version" else " on an empty WARC"
            note = " (its target is in instructions: --instructions)" if row.startswith("redecode") else ""
            out.append(f"- fixed (CPU): {LABELS.get(row, row)}{where}: {res['cpu_s']:.3f} s{note}")
    out += instruction_target_lines(counts, slopes, fixed_counts)
    snappy = results.get("redecode-1w-snappy", {})
    if snappy.get("output_mb") and r1.get("output_mb"):
        out.append(f"- output size: {r1['output_mb']:.1f} MB with zstd level 1 (default), "
                   f"{snappy['output_mb']:.1f} MB with snappy ({snappy['output_mb'] / r1['output_mb']:.2f}x), for "
                   f"{snappy['cpu_s'] / r1['cpu_s']:.2f}x the CPU (medians)")
    if "wall_2w_over_1w" in d:
        out.append(f"- wall time 2 workers / 1 worker: {d['wall_2w_over_1w']:.3f} "
                   f"(target <= {TARGET_WALL_2W}: {mark(d['wall_2w_over_1w'] <= TARGET_WALL_2W)})")
        if not results.get("redecode-2w", {}).get("n_children"):
            out.append("  - the 2-worker run used one process: this crawl is one shard (a file is cut into "
                       "16 MiB shards of gzip only from 24 MiB on), so the ratio says nothing of running "
                       "in parallel; measure it with --size 100 or more")
    if "pair_over_1w" in d:
        x = d["pair_over_1w"]
        line = (f"  - this machine's floor for it, under this run's load: two 1-worker runs at once took {x:.3f}x "
                f"the wall of one alone, so two workers that split the work perfectly and added nothing "
                f"would reach {x / 2:.3f}")
        if x / 2 > TARGET_WALL_2W:
            line += f", above the target: {TARGET_WALL_2W} cannot be met under these conditions"
        if d.get("wall_2w_over_1w", x) < x / 2:
            line += ("; the 2-worker run beat it, so the load changed between the rows: measure again, "
                     "--repeat 3 on a quiet machine")
        out.append(line)
    for row in ("redecode-1w", "redecode-2w"):
        res = results.get(row, {})
        if "maxrss_mb" in res:
            peak = max(res["maxrss_mb"], res["child_peak_mb"])
            out.append(f"- {row} peak RSS of any process: {peak:.0f} MB "
                       f"(target < {TARGET_RSS_MB} MB: {mark(peak < TARGET_RSS_MB)})")
    if "accuracy" in r1:
        cats = r1["accuracy"]["categories"]
        missing = {k: c["missing"] for k, c in cats.items() if c["missing"]}
        if missing:
            reasons = "; ".join(
                f"{m['reason']}: HTTP " + ", ".join(f"{st} x{n}" for st, n in sorted(m["http_status"].items()))
                for m in r1["accuracy"]["no_text"]
            )
            out.append(
                "- redecode 1 worker gave no text for "
                + ", ".join(f"{n} {k}" for k, n in missing.items())
                + f" pages ({reasons}); of the pages it decoded, exact: "
                + ", ".join(f"{k} {100 * c['accuracy_of_given']:.2f}%" for k, c in cats.items()
                            if c["accuracy_of_given"] is not None)
            )
        if "declared" in cats:
            a = cats["declared"]["accuracy"]
            out.append(f"- declared pages exact: {100 * a:.2f}% (target 100%: {mark(a >= TARGET_DECLARED)})")
        if "undeclared-legacy" in cats:
            a = cats["undeclared-legacy"]["accuracy"]
            out.append(f"- undeclared legacy pages exact: {100 * a:.2f}% "
                       f"(target >= 99.5%: {mark(a >= TARGET_UNDECLARED_LEGACY)})")
    if double:
        for row, res in double["results"].items():
            if "maxrss_mb" in res:
                peak = max(res["maxrss_mb"], res["child_peak_mb"])
                out.append(f"- {row} on the {double['size_mb']:g} MB crawl: peak RSS {peak:.0f} MB "
                           f"(target < {TARGET_RSS_MB} MB: {mark(peak < TARGET_RSS_MB)})")
            else:
                out.append(f"- {row} on the {double['size_mb']:g} MB crawl: "
                           f"{res.get('skipped') or res.get('failed')}")
    if not r1 or "skipped" in r1:
        out.append("- redecode rows not measured: " + str(r1.get("skipped", "not requested")))
    return out


def miss_lines(results: dict) -> list[str]:
    out = []
    for row, res in results.items():
        acc = res.get("accuracy") if isinstance(res, dict) else None
        if not acc:
            continue
        parts = [
            f"{m['pages']} {m['category']} pages ({m['mode']}) expected {m['expected']}, decoded as {m['got']}"
            for m in acc["wrong"]
        ]
        parts += [
            f"{m['pages']} pages without text ({m['reason']}; HTTP "
            + ", ".join(f"{st} x{n}" for st, n in sorted(m["http_status"].items())) + ")"
            for m in acc["no_text"]
        ]
        if parts:
            out.append(f"- {row}: " + "; ".join(parts))
    return out


def markdown(meta: dict, results: dict, d: dict, double: dict | None, mach: dict, args) -> str:
    date = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Benchmarks",
        "",
        f"Measured {date} with `.venv/bin/python tests/benchmarks/run.py --size {args.size:g} "
        f"--repeat {args.repeat}{f' --only {args.only}' if args.only else ''}{' --double' if args.double else ''}"
        f"{f' --slope-size {args.slope_size:g}' if args.slope_size else ''}"
        f"{' --instructions' if args.instructions else ''}{' --no-fixed' if args.no_fixed else ''}` "
        "(see `tests/benchmarks/README.md`).",
        "",
        f"Machine: {mach['cpu_model']}, {mach['nproc']} cores available (shared with other jobs: "
        f"load average {mach['loadavg_at_start'][0]:.1f} at start), Python {mach['python']}, "
        f"{mach['platform']}.",
        "",
        f"Crawl: `make_bench_warc.py --target-mb {meta['size_mb']:g} --seed {meta['seed']}`: "
        f"{meta['uncompressed_bytes'] / 1e6:.1f} MB uncompressed WARC "
        f"({meta['compressed_bytes'] / 1e6:.1f} MB gzip), {meta['records']} records, "
        f"{meta['html_responses']} HTML responses, "
        + (f"cut into {len(meta['shards'])} files at capture boundaries" if len(meta["shards"]) > 1
           else "in one file")
        + ". CPU = user + system seconds of the process and its workers, median of "
        f"{args.repeat} rounds (each round runs every row once, back to back; the ratios below are "
        "the median of the ratios within a round); MB/s = uncompressed WARC MB (10^6 bytes) per CPU second. Accuracy = pages whose "
        "text equals the Encoding Standard decode under the page's true encoding (the author's text, "
        "also where the header lies).",
        "",
        *table_lines(meta, results),
        "",
        "Targets (issues 9, 20 and 27"
        + ("; instructions counted with callgrind, one run each, next to the CPU medians" if args.instructions else "")
        + ("; per MB = the difference between two crawl sizes over the difference in MB" if args.slope_size else "")
        + ("" if args.no_fixed else "; fixed = the row on a WARC holding one warcinfo record") + "):",
        "",
        *target_lines(results, d, double),
        "",
    ]
    misses = miss_lines(results)
    if misses:
        lines += ["Where the pipelines miss (pages, by how they were declared):", "", *misses, ""]
    v = mach["versions"]
    lines.append("Versions: " + ", ".join(f"{k} {val}" for k, val in v.items() if val) + ".")
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=float, default=300, help="uncompressed WARC size in MB (default 300)")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "redecode-bench"),
                    help="where the crawl, the outputs and the results go (default: $TMPDIR/redecode-bench)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per row; the median is reported")
    ap.add_argument("--shards", type=int, default=1,
                    help="files the crawl is cut into at capture boundaries (default 1: one big WARC)")
    ap.add_argument("--only", default=None,
                    help="comma-separated rows to run, of: " + ",".join(ALL_ROWS))
    ap.add_argument("--double", action="store_true",
                    help="also measure redecode's peak RSS on a crawl twice as large")
    ap.add_argument("--bench-script", default=None, help="path of make_bench_warc.py")
    ap.add_argument("--markdown", default=None, help="write docs/benchmarks.md (the figures and the machine) here")
    ap.add_argument("--profile", action="store_true",
                    help="also sample `redecode run --workers 1` with py-spy and print where the time goes")
    ap.add_argument("--instructions", action="store_true",
                    help="also count every row's instructions once under callgrind (instructions.py), "
                         "printed next to the CPU medians; needs valgrind")
    ap.add_argument("--slope-size", type=float, default=None, metavar="MB",
                    help="run the rows again on a crawl of this size, for each row's cost per MB of crawl "
                         "(CPU, and with --instructions instructions) and the intercept")
    ap.add_argument("--no-fixed", action="store_true",
                    help="do not measure the fixed costs (the rows on an empty WARC, `redecode --version`)")
    args = ap.parse_args(argv)

    rows = ALL_ROWS if not args.only else [r.strip() for r in args.only.split(",") if r.strip()]
    unknown = set(rows) - set(ALL_ROWS)
    if unknown:
        ap.error(f"unknown rows: {', '.join(sorted(unknown))}")
    script = locate_bench_script(args.bench_script)
    os.makedirs(args.workdir, exist_ok=True)
    mach = machine()
    t_start = time.time()
    meta = prepare_crawl(args.workdir, args.size, args.seed, args.shards, script)
    log(f"crawl: {meta['uncompressed_bytes'] / 1e6:.1f} MB uncompressed in {len(meta['shards'])} shards")
    results = run_rows(meta, rows, args.repeat, os.path.join(args.workdir, f"run-{args.size:g}mb"))
    smeta = prepare_crawl(args.workdir, args.slope_size, args.seed, args.shards, script) if args.slope_size else None
    if smeta is not None:
        # the same rows on a second crawl: each row's CPU per MB (and, below, instructions per MB)
        again = [r for r in rows if r in results and "cpu_s" in results[r] and r != PAIR_ROW]
        slope_results = run_rows(smeta, again, args.repeat, os.path.join(args.workdir, f"run-{args.slope_size:g}mb"))
        add_cpu_slopes(results, slope_results, meta["uncompressed_bytes"] / 1e6, smeta["uncompressed_bytes"] / 1e6)
    if args.instructions:
        count_instructions(meta, smeta, results, os.path.join(args.workdir, f"run-{args.size:g}mb"))
    fixed = None if args.no_fixed else run_fixed(rows, args.repeat, args.workdir, args.instructions)
    double = None
    if args.double:
        dmeta = prepare_crawl(args.workdir, args.size * 2, args.seed, args.shards, script)
        double = {
            "size_mb": args.size * 2,
            "uncompressed_bytes": dmeta["uncompressed_bytes"],
            "results": run_rows(dmeta, ["redecode-1w", "redecode-2w"], 1,
                                os.path.join(args.workdir, f"run-{args.size * 2:g}mb")),
        }
    profile = None
    if args.profile:
        log("profiling redecode run --workers 1 with py-spy ...")
        profile = profile_redecode(meta, os.path.join(args.workdir, f"run-{args.size:g}mb"))
    d = derived(results)
    d["fixed"] = fixed
    report = {"machine": mach, "crawl": meta, "results": results, "derived": d, "double": double,
              "profile": profile, "seconds": time.time() - t_start}
    path = os.path.join(args.workdir, f"results-{args.size:g}mb.json")
    with open(path, "w") as fh:
        json.dump(report, fh, indent=1, default=str)
    md = markdown(meta, results, d, double, mach, args)
    print(md)
    if profile:
        print("Profile of `redecode run --workers 1` (py-spy samples):")
        for section in ("inclusive_pct", "self_pct_by_file", "self_pct_by_function"):
            if section in profile:
                print(f"  {section}:")
                for name, pct in profile[section]:
                    print(f"    {pct:5.1f}%  {name}")
        if "skipped" in profile or "failed" in profile:
            print("  " + str(profile.get("skipped") or profile.get("failed")))
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(md)
    log(f"done in {time.time() - t_start:.0f} s; results in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
