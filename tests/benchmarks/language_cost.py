#!/usr/bin/env python3
"""What the author rules' language step costs (issue 30, item 7): instructions of ``redecode run``.

Usage (not collected by pytest; run from the repository root, after ``run.py`` built the crawl in
the same ``--workdir``, e.g. ``run.py --size 30 --only floor --repeat 1``)::

    .venv/bin/python tests/benchmarks/language_cost.py [--sizes 60[,30]] [--seed 20240601] [--workdir DIR]

Counts, with valgrind's callgrind (one run each: the same code on the same bytes executes the same
instructions), ``redecode run --workers 1 --quiet`` on the benchmark crawl of each of ``--sizes`` MB that
``run.py --size N`` built (seeded: the same bytes on every machine), with bytecode precompiled as
``run.py`` does, under three rule sets:

- ``author-2026.12``: the author rules before issue 30 (and before issue 29's pages in parts);
- the default (``redecode.rules.DEFAULT_RULES``);
- the default without the language step: the same rule set with issue 30's parameters
  (:data:`ISSUE_30_PARAMETERS`: confusable siblings, language as evidence and what came with them)
  at ``author-2026.12``'s values. Not a shipped rule set: made in the measured process only.

and prints each count, the language step's cost (the default against the default without it) and
the default's against ``author-2026.12``, each as a change in instructions and in percent of
``author-2026.12``'s run, with issue 30's bound: the language step makes the crawl at most 5% more
expensive. With two sizes, also per MB (the difference of the two crawls' counts over the
difference of their uncompressed MB: what a larger crawl pays, the fixed costs left out). Exits 2
without valgrind or without a crawl (build it with ``run.py --size N --only floor --repeat 1``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import instructions  # noqa: E402  (this directory's instructions.py)
import run as bench  # noqa: E402  (this directory's run.py)

#: Issue 30's fields of ``redecode.validate.AuthorParams`` (from ``author-2026.12.2`` on): reset to
#: ``author-2026.12``'s values, they take the language step out of the default.
ISSUE_30_PARAMETERS = ("siblings", "language", "language_margin", "language_floor", "language_min_chars",
                       "language_window", "language_words", "compare_defects", "python_codecs",
                       "joined_families", "tie_names", "quotes_are_text", "language_turkic_i")

#: The variant's name in the measured process.
WITHOUT = "default-without-language"

#: Issue 30's bound: the language step makes the benchmark crawl at most this much more expensive.
TARGET = 0.05

# The measured process: registers the variant, then runs the console's main as `redecode` does.
_RUNNER = f"""
import dataclasses, sys
from redecode import rules as R, validate as V
base = R.get_rules(R.DEFAULT_RULES)
reset = {{f: getattr(V.BASELINE, f) for f in {ISSUE_30_PARAMETERS!r}}}
R.RULES[{WITHOUT!r}] = dataclasses.replace(base, name={WITHOUT!r}, author=dataclasses.replace(base.author, **reset))
from redecode_jobs.console import main
sys.argv[0] = "redecode"
sys.exit(main())
"""


def count(rules: str, shards: list[str], workdir: str) -> int:
    """Instructions of ``redecode run --workers 1 --quiet`` under *rules* (callgrind, one run)."""
    out = os.path.join(workdir, "out", f"language-cost-{rules}")
    shutil.rmtree(out, ignore_errors=True)
    cmd = [bench.PY, "-c", _RUNNER, "run", *shards, "--out", out, "--workers", "1", "--quiet",
           "--rules", rules]
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
                          capture_output=True, text=True, env=dict(os.environ, PYTHONHASHSEED="0"))
    collected = re.findall(r"Collected : (\d+)", proc.stderr)
    if proc.returncode not in (0, 1) or not collected:  # (exit 1: a record failed; still counted)
        raise SystemExit(f"{rules}: valgrind failed:\n{proc.stderr[-2000:]}")
    return int(collected[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="60",
                    help="crawl sizes run.py built (MB), comma-separated (default 60; two give per-MB figures)")
    ap.add_argument("--seed", type=int, default=bench.DEFAULT_SEED)
    ap.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "redecode-bench"),
                    help="where run.py built the crawls (its --workdir; default: run.py's)")
    args = ap.parse_args(argv)
    if not shutil.which("valgrind"):
        print("valgrind is not installed (Debian: apt-get install valgrind)", file=sys.stderr)
        return 2
    sizes = [float(s) for s in args.sizes.split(",") if s]
    metas = instructions.cached_crawls(args.workdir, sizes, args.seed)
    if metas is None:
        return 2
    from redecode.rules import DEFAULT_RULES

    bench.precompile()
    rule_sets = ("author-2026.12", DEFAULT_RULES, WITHOUT)
    counts: dict[float, dict[str, int]] = {}
    worst = 0.0
    for size, meta in metas.items():
        counts[size] = {}
        for rules in rule_sets:
            bench.log(f"callgrind redecode run --rules {rules} on the {size:g} MB crawl ...")
            counts[size][rules] = count(rules, meta["shards"], args.workdir)
            print(f"{rules} ({size:g} MB): {counts[size][rules] / 1e9:.3f} G instructions", flush=True)
        c = counts[size]
        base, step, whole = c["author-2026.12"], c[DEFAULT_RULES] - c[WITHOUT], c[DEFAULT_RULES] - c["author-2026.12"]
        worst = max(worst, step / base)
        print(f"{size:g} MB: the language step (the default {DEFAULT_RULES} against it without issue 30's "
              f"parameters) {step / 1e9:+.3f} G, {100 * step / base:+.1f}% of author-2026.12's run; the default "
              f"against author-2026.12 (the language step, and issue 29's pages in parts and names) "
              f"{whole / 1e9:+.3f} G, {100 * whole / base:+.1f}%")
    if len(sizes) >= 2:
        (s1, m1), (s2, m2) = sorted(metas.items())[:2]
        mb = (m2["uncompressed_bytes"] - m1["uncompressed_bytes"]) / 1e6
        slope = {r: (counts[s2][r] - counts[s1][r]) / mb for r in rule_sets}
        step = slope[DEFAULT_RULES] - slope[WITHOUT]
        worst = max(worst, step / slope["author-2026.12"])
        print(f"per MB: author-2026.12 {slope['author-2026.12'] / 1e6:.2f} M, the default "
              f"{slope[DEFAULT_RULES] / 1e6:.2f} M, without the language step {slope[WITHOUT] / 1e6:.2f} M: "
              f"the language step {step / 1e6:+.2f} M per MB, {100 * step / slope['author-2026.12']:+.1f}%; the default "
              f"{100 * (slope[DEFAULT_RULES] / slope['author-2026.12'] - 1):+.1f}%")
    print(f"issue 30's bound, the language step at most +{100 * TARGET:.0f}%: "
          f"{'met' if worst <= TARGET else 'NOT met'} (largest: {100 * worst:+.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
