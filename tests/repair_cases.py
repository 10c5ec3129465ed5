"""The repair test set: real pages decoded right, then wrongly in the common ways.

A page of chardet's test set (``../shared/corpus/chardet-tests/<FOLDER>/<file>``, the folder named
by its true encoding) is decoded with its true encoding (the Encoding Standard's decoder of
:data:`shared_paths.CHARDET_FOLDERS`; pages that decode with errors are left out: their true text
is unknown).
That text is the expected output of a repair. The wrong decodes (:data:`CASES`), made here with
Python's codecs, independently of the code under test:

- ``utf8-as-latin1``: the text's UTF-8 bytes read as ISO-8859-1 (Python's latin-1: 80-9F become C1
  controls), what ``requests`` does with a ``text/*`` response without charset;
- ``utf8-as-cp1252``: the UTF-8 bytes read as windows-1252 as browsers read it (the Encoding
  Standard maps 81, 8D, 8F, 90, 9D to U+0081...; nothing is lost);
- ``utf8-as-cp1252-python``: the UTF-8 bytes read with Python's ``cp1252`` and
  ``errors="replace"``: those five bytes become U+FFFD, so the text cannot come back exactly;
- ``double-utf8``: double-encoded UTF-8 (the UTF-8 bytes read as windows-1252 and encoded as UTF-8
  again) read as windows-1252: two layers of mojibake (``é`` -> ``ÃƒÂ©``);
- ``sjis-as-cp1252``: a Shift_JIS page's bytes read as windows-1252 (only the Shift_JIS and CP932
  folders);
- ``control``: the correct text itself, which must stay ``unchanged``.

Pure-ASCII texts are left out of the mojibake cases (no wrong decode changes them) but kept in the
control set.

``python tests/repair_cases.py --write`` regenerates the committed excerpts
(``tests/data/repair/pages.json``) from the corpus; ``python tests/repair_cases.py`` prints the
figures over the whole corpus.
"""

from __future__ import annotations

import base64
import codecs
import json
import os
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import shared_paths

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "data" / "repair" / "pages.json"


CASES = ("control", "utf8-as-latin1", "utf8-as-cp1252", "utf8-as-cp1252-python", "double-utf8",
         "sjis-as-cp1252")
#: Cases whose wrong decode loses nothing: an exact repair is possible.
LOSSLESS = ("utf8-as-latin1", "utf8-as-cp1252", "double-utf8")


def _c1_passthrough(exc: UnicodeError) -> tuple[str, int]:
    # The Encoding Standard's windows-1252 maps the five bytes Python's cp1252 leaves undefined
    # (81, 8D, 8F, 90, 9D) to the C1 control of the same value (index-windows-1252.txt).
    assert isinstance(exc, UnicodeDecodeError)
    return "".join(chr(b) for b in exc.object[exc.start:exc.end]), exc.end


codecs.register_error("repair-cases-c1", _c1_passthrough)


def windows_1252(data: bytes) -> str:
    """*data* read as the Encoding Standard's windows-1252."""
    return data.decode("cp1252", "repair-cases-c1")


@dataclass(frozen=True)
class Page:
    """A page of the test set: where it came from, its true encoding, its text and its bytes."""

    source: str
    encoding: str
    text: str
    data: bytes


def folder_encoding(folder: str) -> str | None:
    """The Encoding Standard encoding of a chardet folder (``windows-1250-czech`` -> windows-1250;
    :data:`shared_paths.CHARDET_FOLDERS`)."""
    return shared_paths.CHARDET_FOLDERS.get(folder)


def corpus_pages(corpus: Path) -> list[Page]:
    """Every page of ``corpus/chardet-tests`` whose true encoding has a decoder and that decodes
    without error, in folder and file order."""
    from redecode.decode import decode  # the Encoding Standard's decoders

    root = corpus / "chardet-tests"
    pages = []
    for folder in sorted(p for p in os.listdir(root) if (root / p).is_dir()):
        encoding = folder_encoding(folder)
        if encoding is None:
            continue
        for name in sorted(os.listdir(root / folder)):
            data = (root / folder / name).read_bytes()
            r = decode(data, encoding, bom_sniff=True)
            if r.errors == 0:
                pages.append(Page(f"chardet-tests/{folder}/{name}", encoding, r.text, data))
    return pages


def wrong(case: str, page: Page) -> str | None:
    """The text *case* makes of *page*; None when the case does not apply to it."""
    if case == "control":
        return page.text
    if page.text.isascii():
        return None
    utf8 = page.text.encode("utf-8")
    if case == "utf8-as-latin1":
        return utf8.decode("latin-1")
    if case == "utf8-as-cp1252":
        return windows_1252(utf8)
    if case == "utf8-as-cp1252-python":
        return utf8.decode("cp1252", "replace")
    if case == "double-utf8":
        return windows_1252(windows_1252(utf8).encode("utf-8"))
    if case == "sjis-as-cp1252":
        return windows_1252(page.data) if page.encoding == "Shift_JIS" else None
    raise ValueError(case)


def measure(pages: list[Page], repair) -> tuple[dict[str, Counter], list[str]]:
    """Run *repair* (``str -> mojibake.Repair``) over every case of every page. Returns per case a
    Counter of ``texts``, ``exact`` and each status, and the problems found: a plan that does not
    replay to the stored text (ftfy's ``apply_plan``), a ``repaired`` text that is not the page's
    text, a control text that is not ``unchanged``."""
    import ftfy

    results: dict[str, Counter] = {case: Counter() for case in CASES}
    problems: list[str] = []
    for page in pages:
        for case in CASES:
            old = wrong(case, page)
            if old is None:
                continue
            r = repair(old)
            c = results[case]
            c["texts"] += 1
            c[r.status] += 1
            c["exact"] += r.text == page.text
            if ftfy.apply_plan(old, [tuple(s) for s in r.plan]) != r.text:
                problems.append(f"{case} {page.source}: the plan does not replay")
            if r.status == "repaired" and r.text != page.text:
                problems.append(f"{case} {page.source}: 'repaired' but not the page's text ({r.plan})")
            if case == "control" and (r.status != "unchanged" or r.text != page.text):
                problems.append(f"{case} {page.source}: a correct text came back {r.status}")
    return results, problems


def figures_table(results: dict[str, Counter]) -> str:
    """The Markdown table of :func:`measure`'s figures, as docs/repair.md states them."""
    lines = ["| case | texts | exact | repaired | unchanged | doubtful |", "|---|---|---|---|---|---|"]
    for case in CASES:
        c = results[case]
        lines.append(f"| `{case}` | {c['texts']} | {c['exact']} | {c['repaired']} | {c['unchanged']} "
                     f"| {c['doubtful']} |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# the committed excerpts

#: Pages excerpted into tests/data/repair/pages.json, each with the text the excerpt is to hold
#: (None: the page's first non-ASCII character): one page per script, two Shift_JIS pages, a pure
#: ASCII one, and the Hungarian page on which ftfy's badness heuristic fires although it is correct
#: (Hungarian quotes: »ámulok).
EXCERPTED: tuple[tuple[str, str | None], ...] = (
    ("chardet-tests/utf-8/pihgy.hu.xml", None),
    ("chardet-tests/windows-1252/_ude_2.txt", None),
    ("chardet-tests/windows-1251-russian/aif.ru.health.xml", None),
    ("chardet-tests/iso-8859-7-greek/naftemporiki.gr.cmm.xml", None),
    ("chardet-tests/windows-1255-hebrew/hydepark.hevre.co.il.7957.xml", None),
    ("chardet-tests/EUC-JP/aivy.co.jp.xml", None),
    ("chardet-tests/SHIFT_JIS/10e.org.xml", None),
    ("chardet-tests/SHIFT_JIS/amefoot.net.xml", None),
    ("chardet-tests/Big5/0804.blogspot.com.xml", None),
    ("chardet-tests/EUC-KR/acnnewswire.net.xml", None),
    ("chardet-tests/ascii/_chromium_iso-8859-1_with_no_encoding_specified.html", None),
    ("chardet-tests/windows-1250-hungarian/torokorszag.blogspot.com.xml", "\u00bb\u00e1mulok"),
)
#: Characters of text per excerpt (about: cut at line ends, and at twice this where lines are long).
EXCERPT_CHARS = 1200


def excerpt(page: Page, anchor: str | None = None) -> tuple[str, bytes]:
    """About :data:`EXCERPT_CHARS` characters of *page* starting a little before *anchor* (default:
    its first non-ASCII character), cut at line ends, and the bytes of that excerpt in the page's
    encoding."""
    from redecode.decode import decode

    text = page.text
    if anchor is not None:
        first = text.index(anchor)
    else:
        first = next((i for i, ch in enumerate(text) if ord(ch) > 127), 0)
    start = max(text.rfind("\n", 0, max(0, first - 200)) + 1, first - 2 * EXCERPT_CHARS)
    end = text.find("\n", start + EXCERPT_CHARS)
    if end == -1 or end > start + 2 * EXCERPT_CHARS:
        end = min(len(text), start + 2 * EXCERPT_CHARS)
    piece = text[start:end]
    codec = {"Shift_JIS": "cp932", "EUC-JP": "euc_jp", "Big5": "big5hkscs", "EUC-KR": "cp949",
             "UTF-8": "utf-8"}.get(page.encoding, page.encoding)
    data = piece.encode(codec)
    # The excerpt's bytes must give back the excerpt under the page's true encoding.
    assert decode(data, page.encoding, bom_sniff=False).text == piece, page.source
    return piece, data


def write_fixture(corpus: Path) -> None:
    pages = {p.source: p for p in corpus_pages(corpus)}
    out = []
    for source, anchor in EXCERPTED:
        piece, data = excerpt(pages[source], anchor)
        out.append({"source": source, "encoding": pages[source].encoding, "text": piece,
                    "bytes_base64": base64.b64encode(data).decode("ascii")})
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def fixture_pages() -> list[Page]:
    """The committed excerpts as pages."""
    return [Page(p["source"], p["encoding"], p["text"], base64.b64decode(p["bytes_base64"]))
            for p in json.loads(FIXTURE.read_text(encoding="utf-8"))]


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    from shared_paths import CORPUS

    if "--write" in sys.argv:
        write_fixture(CORPUS)
    else:
        from redecode.mojibake import repair

        figures, problems = measure(corpus_pages(CORPUS), repair)
        sys.stdout.write(figures_table(figures))
        for p in problems:
            print(p)
