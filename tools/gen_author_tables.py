#!/usr/bin/env python3
"""Generate ``lib/redecode/_author_tables.py``: the data tables of the author's-text rules.

Inputs (``tests/data/author/``, see its README for sources and licences):

* ``firefox-domainsfallbacks.properties``: Firefox's fallback encoding per top-level domain;
  labels resolved with the Encoding Standard's "get an encoding" (``gbk`` -> GBK,
  ``Big5-HKSCS`` -> Big5).
* ``aliases-curated.tsv``: labels outside the Encoding Standard seen on the web.
* ``siblings.tsv``: the confusable siblings (families of encodings whose texts read in each other
  without U+FFFD), each family with its reason; every name must be an Encoding Standard name.
* The Encoding Standard's labels (``lib/redecode/_tables.py``) and Python's codec registry
  (``encodings.aliases`` and the codecs they name, on the Python that runs this script; the version
  is recorded in the output).

Output ``ALIASES``: a key -> ``(Encoding Standard name, how)`` table for labels the Encoding Standard
does not know, where the key is the label lower-cased with every character but ``a-z`` and ``0-9``
removed (:func:`redecode.aliases.alias_key`) and ``how`` is

* ``punctuation``: an Encoding Standard label written with other punctuation (``cp-1251``,
  ``Windows_1251``, ``ISO8859_1``); a key two standard labels of different encodings share is
  left out;
* ``curated``: a line of ``aliases-curated.tsv``;
* ``python:<codec>``: a name Python's codec registry knows (``MacCyrillic`` -> ``mac_cyrillic``),
  mapped to the standard encoding as :func:`redecode.detect.standard_encoding` maps a Python codec
  (the standard's own labels, then its documented nearest supersets); codecs with no standard
  equivalent (UTF-32, UTF-7, EUC-TW...) are left out.

Earlier sources win: a key is taken from the first of the three that has it.

Output ``SIBLING_FAMILIES``: family -> ``(encodings, reason)``, in the file's order.

Run: ``python tools/gen_author_tables.py``; ``--check`` exits 1 when the committed module differs
from what this would write (run by tests/test_aliases.py).
"""

from __future__ import annotations

import argparse
import sys
from encodings.aliases import aliases as _python_aliases
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "tests" / "data" / "author"
OUT = ROOT / "lib" / "redecode" / "_author_tables.py"
sys.path.insert(0, str(ROOT / "lib"))

from redecode.aliases import alias_key  # noqa: E402
from redecode.detect import standard_encoding  # noqa: E402
from redecode.labels import LABELS, get_encoding  # noqa: E402


def tld_fallbacks() -> dict[str, str]:
    out: dict[str, str] = {}
    for line in (SRC / "firefox-domainsfallbacks.properties").read_text("utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        tld, label = line.split("=", 1)
        enc = get_encoding(label)
        if enc is None:
            raise SystemExit(f"unknown label {label!r} for .{tld}")
        out[tld.strip().lower()] = enc
    return dict(sorted(out.items()))


def aliases() -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    # 1. the standard's labels, punctuation removed; a key shared by labels of two encodings is
    #    ambiguous and left out.
    by_key: dict[str, set[str]] = {}
    for label, enc in LABELS.items():
        by_key.setdefault(alias_key(label), set()).add(enc)
    for key, encs in sorted(by_key.items()):
        if len(encs) == 1 and key not in LABELS and "replacement" not in encs:
            out[key] = (next(iter(encs)), "punctuation")
    # 2. curated
    for line in (SRC / "aliases-curated.tsv").read_text("utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        label, enc, _why = line.split("\t")
        if enc not in set(LABELS.values()):
            raise SystemExit(f"curated alias {label!r}: {enc!r} is not an Encoding Standard name")
        out.setdefault(alias_key(label), (enc, "curated"))
    # 3. Python's codec registry: every alias and every codec name it resolves
    names = set(_python_aliases) | set(_python_aliases.values())
    for name in sorted(names):
        key = alias_key(name)
        if not key or key in out or get_encoding(name) is not None:
            continue
        enc, how = standard_encoding(name)
        if enc is None or how not in ("codec", "nearest"):
            continue
        import codecs

        out[key] = (enc, f"python:{codecs.lookup(name).name}")
    # keys that are labels of the standard as they stand are not aliases
    return {k: v for k, v in sorted(out.items()) if k not in LABELS}


def sibling_families() -> dict[str, tuple[tuple[str, ...], str]]:
    out: dict[str, tuple[tuple[str, ...], str]] = {}
    names = set(LABELS.values())
    for line in (SRC / "siblings.tsv").read_text("utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        family, encs, why = line.split("\t")
        members = tuple(encs.split())
        bad = [e for e in members if e not in names or e == "replacement"]
        if bad or len(members) < 2 or len(set(members)) != len(members) or family in out:
            raise SystemExit(f"siblings.tsv, family {family!r}: bad row ({bad or members})")
        out[family] = (members, why)
    return out


def render() -> str:
    fb = tld_fallbacks()
    al = aliases()
    py = f"{sys.version_info.major}.{sys.version_info.minor}"
    lines = [
        '"""Generated by tools/gen_author_tables.py from tests/data/author/ -- do not edit."""',
        "",
        "# Python whose codec registry gave the python:<codec> aliases.",
        f"ALIASES_PYTHON = {py!r}",
        "",
        "# Firefox's fallback encoding per top-level domain (domainsfallbacks.properties), as",
        "# Encoding Standard names.",
        "FIREFOX_TLD_FALLBACKS: dict[str, str] = {",
    ]
    lines += [f"    {k!r}: {v!r}," for k, v in fb.items()]
    lines += [
        "}",
        "",
        "# alias key (lower case, a-z0-9 only) -> (Encoding Standard name, how it was found).",
        "ALIASES: dict[str, tuple[str, str]] = {",
    ]
    lines += [f"    {k!r}: ({v[0]!r}, {v[1]!r})," for k, v in al.items()]
    lines += [
        "}",
        "",
        "# Confusable siblings (siblings.tsv): family -> (Encoding Standard names, why they are confused).",
        "SIBLING_FAMILIES: dict[str, tuple[tuple[str, ...], str]] = {",
    ]
    for k, (encs, why) in sibling_families().items():
        lines.append(f"    {k!r}: (")
        lines.append(f"        {encs!r},")
        lines.append(f"        {why!r},")
        lines.append("    ),")
    lines += ["}", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the committed module is stale")
    args = ap.parse_args(argv)
    text = render()
    if args.check:
        if not OUT.exists() or OUT.read_text("utf-8") != text:
            print(f"{OUT} is stale: run python tools/gen_author_tables.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, "utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
