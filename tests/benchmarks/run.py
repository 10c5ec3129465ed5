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

# Targets of issue 9.
TARGET_VS_A = 2.0
TARGET_VS_B = 1.3
TARGET_WALL_2W = 0.6
TARGET_RSS_MB = 400
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
            if row.startswith("redecode"):
                workers = int(row.rsplit("-", 1)[1].rstrip("w"))
                cmd = redecode_cmd(script, shards, out, workers)
            else:
                cmd = [PY, BASELINES, row, out, *shards]
            m = measure(cmd)
            if m["returncode"] not in (0,):
                log(f"{row}: exit {m['returncode']}\n{m['stderr'][-3000:]}")
                results[row] = {"failed": f"exit code {m['returncode']}", "stderr": m["stderr"][-3000:]}
                continue
            all_runs[row].append(m)
            log(f"{row} #{i + 1}: cpu {m['cpu_s']:.2f} s, wall {m['wall_s']:.2f} s, "
                f"{mb / m['cpu_s']:.0f} MB/s cpu, peak {m['maxrss_mb']:.0f} MB")
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
            "mb_per_cpu_s": mb / cpu,
            "mb_per_wall_s": mb / wall,
            "maxrss_mb": max(r["maxrss_mb"] for r in runs),
            "root_peak_mb": max(r["root_peak_mb"] for r in runs),
            "child_peak_mb": max((max(r["child_peaks_mb"], default=0) for r in runs), default=0),
            "n_children": max(len(r["child_peaks_mb"]) for r in runs),
        }
        try:
            res["summary"] = json.loads(runs[-1]["stdout"].strip().splitlines()[-1])
        except (ValueError, IndexError):
            pass
        if row.startswith("baseline") or row.startswith("redecode"):
            with open(meta["key"]) as fh:
                key = json.load(fh)
            res["accuracy"] = score(out, key)
        results[row] = res
    return {row: results[row] for row in rows if row in results}


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


ALL_ROWS = ["gzip-zlib", "gzip-isal", "warcio", "fastwarc", "floor", "baseline-a", "baseline-b",
            "redecode-1w", "redecode-2w"]


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
    "baseline-a": "baseline A: warcio + decode_html + Parquet",
    "baseline-b": "baseline B: FastWARC + resiliparse + Parquet",
    "redecode-1w": "redecode run, 1 worker",
    "redecode-2w": "redecode run, 2 workers",
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
    if "wall_s" in r1 and "wall_s" in r2:
        d["wall_2w_over_1w"] = paired(r2, r1, "wall_s")
    floor = results.get("floor", {})
    if "cpu_s" in floor and "cpu_s" in b:
        # what the 1-worker target is measured against: the same reading and writing, no decision
        d["floor_vs_b"] = paired(b, floor, "cpu_s")
    if "cpu_s" in floor and "cpu_s" in r1:
        d["redecode_1w_over_floor"] = paired(r1, floor, "cpu_s")
    return d


def table_lines(meta: dict, results: dict) -> list[str]:
    lines = [
        "| pipeline | CPU s | MB/s (CPU) | wall s | peak RSS MB "
        "| declared exact | undeclared legacy exact | undeclared UTF-8 exact |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row, res in results.items():
        label = LABELS.get(row, row)
        if "skipped" in res or "failed" in res:
            note = res.get("skipped") or res.get("failed")
            lines.append(f"| {label} | - | - | - | - | {note} | | |")
            continue
        peak = f"{max(res['maxrss_mb'], res['child_peak_mb']):.0f}"
        if res["n_children"]:
            peak += f" (largest of {res['n_children']} child processes: {res['child_peak_mb']:.0f})"
        lines.append(
            f"| {label} | {res['cpu_s']:.2f} | {res['mb_per_cpu_s']:.0f} | {res['wall_s']:.2f} | {peak} "
            f"| {_acc(res, 'declared')} | {_acc(res, 'undeclared-legacy')} | {_acc(res, 'undeclared-utf8')} |"
        )
    return lines


def target_lines(results: dict, d: dict, double: dict | None) -> list[str]:
    out = []

    def mark(ok: bool | None) -> str:
        return "n/a" if ok is None else ("met" if ok else "NOT met")

    r1 = results.get("redecode-1w", {})
    if "redecode_1w_vs_a" in d:
        out.append(f"- redecode 1 worker vs baseline A (CPU throughput): {d['redecode_1w_vs_a']:.3f}x "
                   f"(target >= {TARGET_VS_A}x: {mark(d['redecode_1w_vs_a'] >= TARGET_VS_A)})")
    if "redecode_1w_vs_b" in d:
        out.append(f"- redecode 1 worker vs baseline B (CPU throughput): {d['redecode_1w_vs_b']:.3f}x "
                   f"(target >= {TARGET_VS_B}x: {mark(d['redecode_1w_vs_b'] >= TARGET_VS_B)})")
    if "floor_vs_b" in d:
        out.append(f"- for reference, the floor (FastWARC, one plain decode, the same Parquet writer, no decision) "
                   f"vs baseline B: {d['floor_vs_b']:.3f}x; redecode 1 worker costs "
                   f"{d.get('redecode_1w_over_floor', float('nan')):.3f}x the floor's CPU")
    if "wall_2w_over_1w" in d:
        out.append(f"- wall time 2 workers / 1 worker: {d['wall_2w_over_1w']:.3f} "
                   f"(target <= {TARGET_WALL_2W}: {mark(d['wall_2w_over_1w'] <= TARGET_WALL_2W)})")
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
        f"--repeat {args.repeat}{' --double' if args.double else ''}` "
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
        "Targets (issue 9):",
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
