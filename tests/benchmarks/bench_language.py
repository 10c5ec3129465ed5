"""Instructions per ``redecode.language.plausibility`` call, compiled and pure (not a test; not
collected).

Run: ``.venv/bin/python tests/benchmarks/bench_language.py [--repeat N] [--markdown]`` (needs
valgrind; about a minute).

The calls (deterministic, from the language corpus ``tests/data/language/texts.jsonl``): for each
of seven families, the same bytes read in 2-4 encodings of the family (the true one and its
confusable siblings), in two shapes:

* ``words``: each reading is the first :data:`redecode.language.MAX_WORDS` words holding a
  non-ASCII character of six texts (title and sentence), with the ASCII words between them (what
  a caller that cuts the words itself passes: the issue-29 stretches);
* ``page``: each reading is a small HTML page of the same six texts (1-2 KB, markup skipped by
  ``plausibility``: what the author rules pass, an excerpt of the payload).

Each shape runs under ``valgrind --tool=callgrind`` twice in a child process: once with every
call made once (warm-up: the tables loaded, every character's class met), once with the calls
then repeated ``--repeat`` times; the difference divided by the calls is the cost of a call.
Instructions do not depend on the machine's load (wall time on a shared machine does).

Target (the lead's, issue 30): at most about 300,000 instructions per call of 2-4 readings of
up to MAX_WORDS words (the ``words`` shape), compiled.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

TARGET = 300_000

SETS = [("ru", ["windows-1251", "KOI8-R", "IBM866", "ISO-8859-5"]),
        ("cs", ["windows-1250", "windows-1252"]),
        ("pl", ["ISO-8859-2", "windows-1252", "windows-1250"]),
        ("zh-Hans", ["GBK", "Big5"]),
        ("ja", ["Shift_JIS", "EUC-JP"]),
        ("el", ["ISO-8859-7", "windows-1253"]),
        ("tr", ["windows-1254", "windows-1252", "ISO-8859-2"])]


def calls(shape: str) -> list[tuple[str, dict[str, str]]]:
    """The calls of one shape: (language, {encoding: reading})."""
    import language_pages as lp

    from redecode import language
    from redecode.decode import decode

    texts = lp.load_texts()
    out = []
    for lang, encs in SETS:
        ts = [t for t in texts if t.lang == lang][:6]
        if shape == "page":
            doc = "".join(f'<h2><a href="/article/{i}.html">{t.title}</a></h2>\n'
                          f'<p class="text">{t.sentence}</p>\n' for i, t in enumerate(ts))
        else:
            words = " ".join(f"{t.title} {t.sentence}" for t in ts).split()
            kept, n = [], 0
            for w in words:
                kept.append(w)
                n += not w.isascii()
                if n == language.MAX_WORDS:
                    break
            doc = " ".join(kept)
        data = lp.encode(doc, encs[0])[1]
        out.append((lang, {e: decode(data, e, bom_sniff=False).text for e in encs}))
    return out


def child(shape: str, repeat: int) -> None:
    from redecode import language

    cs = calls(shape)
    for _, readings in cs:
        language.plausibility(readings)
    for _ in range(repeat):
        for _, readings in cs:
            language.plausibility(readings)


def count(shape: str, repeat: int, pure: bool) -> int:
    env = dict(os.environ, PYTHONHASHSEED="0")
    if pure:
        env["REDECODE_PURE"] = "1"
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out",
               sys.executable, __file__, "--child", shape, "--repeat", str(repeat)]
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    m = re.search(r"Collected : (\d+)", r.stderr)
    if not m:
        raise RuntimeError(r.stderr[-2000:])
    return int(m.group(1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--markdown", action="store_true", help="print a table for docs/benchmarks.md")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.repeat)
        return 0
    if not shutil.which("valgrind"):
        print("valgrind is not installed (Debian: apt-get install valgrind)", file=sys.stderr)
        return 2
    from redecode import language, native

    # the bytecode written first, so that no run pays for compiling it (see run.py)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "lib"),
                    str(ROOT / "tests")], check=True)
    rows = []
    for shape in ("words", "page"):
        cs = calls(shape)
        n = len(cs) * args.repeat
        readings = sum(len(r) for _, r in cs) / len(cs)
        chars = sum(len(t) for _, r in cs for t in r.values()) / sum(len(r) for _, r in cs)
        for pure in (False, True):
            if not pure and native.core is None:
                continue
            per = (count(shape, args.repeat, pure) - count(shape, 0, pure)) / n
            rows.append((shape, "pure" if pure else "compiled", readings, chars, per))
    print(f"plausibility, instructions per call (callgrind; {len(SETS)} calls per shape, "
          f"{args.repeat} repeats; MAX_WORDS {language.MAX_WORDS}, model {language.MODEL_VERSION})")
    if args.markdown:
        print("\n| readings | scorer | readings per call | characters per reading | "
              "instructions per call |\n|---|---|---:|---:|---:|")
    for shape, impl, readings, chars, per in rows:
        if args.markdown:
            print(f"| {shape} | {impl} | {readings:.1f} | {chars:.0f} | {per:,.0f} |")
        else:
            print(f"  {shape:6} {impl:9} {readings:.1f} readings of {chars:.0f} characters: "
                  f"{per:,.0f}")
    for shape, impl, _, _, per in rows:
        if shape == "words" and impl == "compiled":
            print(f"target: at most {TARGET:,} per call of words, compiled: {per:,.0f} "
                  f"({'met' if per <= TARGET else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
