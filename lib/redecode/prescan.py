"""In-document encoding declarations: the ``<meta>`` prescan, Chromium's late-meta scan, and the
XML declaration.

Spec concept -> function:

=====================================================================  =======================
HTML Standard (https://html.spec.whatwg.org/multipage/parsing.html)    here
=====================================================================  =======================
"prescan a byte stream to determine its encoding" (first 1024 bytes)   :func:`prescan`
"get an attribute" (the prescan's attribute reader)                    ``_attributes`` (names
                                                                       and values), ``_tag_end``
                                                                       (only where a tag ends)
"algorithm for extracting a character encoding from a meta element"    :func:`extract_meta_charset`
Chromium ``HTMLMetaCharsetParser`` (meta past 1024 bytes while in      :func:`head_scan`
  the head)
"get an XML encoding" and the prescan's UTF-16 ``<?x`` step            :func:`xml_declaration`
=====================================================================  =======================

All offsets are byte offsets into the payload. Labels are reported *as found*: the bytes of the
attribute value (or of the part of ``content`` after ``charset=``), isomorphic-decoded (latin-1),
case and surrounding whitespace kept, and in Chromium mode with the value's character references
decoded (``"iso&#45;8859&#45;15"`` is reported as ``iso-8859-15``: the label that was looked up);
the encoding is Encoding Standard "get an encoding" of that label
(:func:`redecode.labels.get_encoding`), WHATWG name.

How it scans. The prescan is a byte-level state machine over the window: markup constructs are
recognised byte by byte at each ``<`` exactly as the standard lists them (``<!--``, ``<meta``
followed by whitespace or ``/``, ``<``/``</`` + ASCII letter, ``<!``, ``</``, ``<?``), and
"get an attribute" is followed step for step. ``bytes.find`` only jumps over stretches whose
bytes the algorithm ignores (text up to the next ``<``, a comment up to ``-->`` or, in Chromium
mode, ``--!>``, a quoted value up to its closing quote). A tag that is not a ``<meta>``
containing the letters ``charset`` (in any case) is only *skipped*, by ``_tag_end``, which
finds where "get an attribute" would end that tag without building names and values (a
``<meta>`` without ``charset`` cannot declare: both the ``charset`` attribute and the
``content`` pragma need those letters; in Chromium mode numeric character references may also
spell them in ``content``, so a meta holding one is read too). For the same reason a window,
or a head-scanned payload up to 64 KB, without those letters (and, in Chromium mode, without a
numeric reference to one of them and ``http-equiv``, which such a pragma needs) is answered
without scanning (:func:`_declaration_bound`). Every loop advances, and every ``find`` starts
past the previous one, so the work is linear in the input (``tests/test_prescan.py`` counts it on 10 MB adversarial inputs).
``tests/test_prescan.py`` also checks the standard-mode scan (``chromium=False``) against a
literal byte-by-byte transcription of the standard's algorithm on generated markup.

Fast path (:func:`prescan`, Chromium mode; same results, it only saves time). Two compiled
regular expressions do in C what the loop does in Python on usual pages: ``_skip_plain`` skips
the plain markup (text, comments, ``<!``/``<?``/``</`` constructs, tags with plain attribute
syntax, raw-text elements with their text) before the window's first ``charset``, or before an
earlier numeric character reference that may spell it (:func:`_declaration_bound`), which
cannot declare anything (with the compiled core, ``_core.skip_plain``: the same steps as a C
loop, the regular expressions its twin); ``_plain_meta`` reads a ``<meta charset=...>`` or a
``http-equiv=content-type`` + ``content`` pragma in plain syntax (a ``content`` without ``&``). Whatever they cannot prove
goes to the loop from where they stopped. ``tests/test_prescan_fast.py`` compares the fast path
with the loop from byte 0 on generated markup (every window size), exhaustively on short
sequences of markup pieces, and on the html5lib-tests inputs. On the 300 MB benchmark crawl it
took the median prescan of a window holding ``charset`` from about 11 to about 5 microseconds.

Chromium (measured with version 156, see ``tests/data/html5lib/chromium-156.jsonl`` and
``tests/data/chromium-tokenizer/chromium-156.jsonl``) tokenizes instead of prescanning
(``HTMLMetaCharsetParser`` runs its ``HTMLTokenizer``). Where that changes results, this module
follows it in Chromium mode (``chromium=True``, the default):

* **Raw text.** After a start tag ``<title>``, ``<textarea>``, ``<script>`` or ``<style>`` the
  bytes up to the matching end tag (``</name`` followed by whitespace, ``/`` or ``>``, ASCII
  case-insensitive) are text, so a ``<meta>`` there is no declaration
  (``<script>var s = "<meta charset=koi8-r>";</script>``). Measured: html5lib-tests
  ``tests1.dat`` cases 54 (``<script>``), 55 (``<script type="text/plain">``) and 56
  (``<style>``). Not measured, taken from Chromium's tokenizer source
  (``HTMLTokenizer::SpeculativeStateForTag``, which ``HTMLMetaCharsetParser`` calls): ``<xmp>``,
  ``<iframe>``, ``<noembed>``, ``<noframes>`` are raw text the same way, and ``<plaintext>``
  makes the rest of the document text. ``<noscript>`` is *not* raw text there (the meta
  parser's tokenizer runs with scripting off), so a meta inside ``<noscript>`` counts.
* **Tag names** end at whitespace, ``/`` or ``>`` (tokenizer), where the prescan's generic-tag
  step would run a name on to the next whitespace or ``>``: ``<a/b="x>y">`` is one tag.
* **Character references** in a meta's attribute values are decoded before the values are read
  (:func:`_char_refs`, the tokenizer's "character reference state" in an attribute value):
  ``<meta charset="iso&#45;8859&#45;15">`` and ``content="text/html;
  charset=iso&#x2D;8859&#x2D;15"`` declare ISO-8859-15, ``http-equiv="Content&#45;Type"`` is
  the pragma, ``&quot;`` in ``content`` quotes a label, ``&#99;harset=`` in ``content`` is
  ``charset=``. Numeric references without ``;``, legacy named ones (``&quot``) except before
  an alphanumeric or ``=``, U+FFFD for ``&#0;``, surrogates and numbers past U+10FFFF, the
  windows-1252 table for ``&#128;``-``&#159;``; attribute names are not decoded. Measured: the
  ``cr_*`` cases (charset, content and http-equiv values, quoted and unquoted, across byte
  1024 and in late metas).
* **Comment ends.** A comment also ends at the first ``--!>`` after its ``<!--`` (the
  tokenizer's "comment end bang state"), where the prescan waits for ``-->``:
  ``<!-- a --!><meta charset=koi8-r>`` declares KOI8-R. ``<!--!>`` and ``<!---!>`` do not end
  (the ``--`` of ``<!--`` open the comment), ``<!----!>`` does; ``--!x>``, ``--!->``, ``-- >``
  and ``-!>`` do not; ``<!-->`` and ``<!--->`` end as in the prescan. Measured: the ``cm_*``
  cases (also past byte 1024 in the head scan, and across byte 1024).

Deviations (from the HTML Standard's prescan):
    * The raw-text rule and tag-name end above (Chromium). Pinned by ``test_html5lib_encoding``
      (cases 54-56) and ``test_prescan.py::test_raw_text_*``.
    * Character references decoded and the comment end ``--!>`` above (Chromium; the
      standard's prescan reads attribute values byte for byte and ends comments only at
      ``-->``). Pinned by ``test_chromium_tokenizer.py`` (``cr_*``, ``cm_*``),
      ``test_prescan.py::test_char_refs_*``, ``test_prescan.py::test_comment_end_bang`` and
      ``test_prescan.py::test_chromium_mode_equals_tokenizer`` (the standard's tokenizer states).
    * A ``<meta>`` cut by the end of the window (or of the payload) is not a declaration, and its
      partial label is never looked up; the standard's prescan also fails there. Pinned by
      ``test_prescan.py::test_label_cut_by_window``.
    * :func:`head_scan` goes past the window (Chromium; the standard lets a user agent choose its
      end condition). Pinned by the html5lib cases with a meta beyond byte 1024.
    * Not followed from Chromium (measured, rare; strict xfails in
      ``test_chromium_tokenizer.py``): ``<!--`` inside ``<script>`` (script data escape states)
      is not tracked (``ot_script_escape``: ``<script><!--<script></script>``
      ``<meta charset=koi8-r>--></script>`` hides that meta in Chromium). Chromium's meta rules
      themselves also depart from the standard's, which are kept here: it reads every duplicate
      attribute (a later ``charset``, ``content`` or ``http-equiv`` wins or counts), and its
      ``content`` extraction skips every byte up to 0x20 (VT too) and ends an unquoted label at
      a quote (``ot_duplicate_*``, ``ot_charset_then_bogus_charset``, ``ot_extract_*``).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from . import lazy as _lazy
from . import native
from ._tables import SINGLE_BYTE as _SINGLE_BYTE
from .labels import get_encoding

__all__ = [
    "META_REMAP",
    "UNCONDITIONAL_BYTES",
    "WINDOW",
    "MetaResult",
    "XmlDeclResult",
    "extract_meta_charset",
    "head_scan",
    "prescan",
    "xml_declaration",
]

#: The prescan window: the HTML Standard encourages user agents to prescan the first 1024 bytes.
WINDOW = 1024
#: Chromium's ``kBytesToCheckUnconditionally``: metas are honoured anywhere before this offset;
#: after it, only while nothing but head content has been seen.
UNCONDITIONAL_BYTES = 1024


class MetaResult(NamedTuple):
    """What the meta scan found (immutable; a NamedTuple because the scan builds one per page
    and a frozen dataclass costs several times more to construct).

    ``encoding`` is the WHATWG name the declaring meta gives, after the prescan's remaps
    (UTF-16BE/LE -> UTF-8, x-user-defined -> windows-1252); ``remapped_from`` is the name before
    the remap, else None. ``label`` is the raw label as found (Chromium mode: with character
    references decoded, the label looked up), ``offset`` the byte offset of the
    meta's ``<`` and ``end`` the offset just past its ``>``; ``pragma`` is True when the label
    came from ``http-equiv="Content-Type"`` + ``content``, False for a ``charset`` attribute.
    ``ignored`` holds, in document order, the raw labels of metas that would have declared an
    encoding had their label named one (e.g. ``<meta charset="foo">``).

    When no meta names a known encoding but some named an unknown one, the result has
    ``encoding``, ``label``, ``offset``, ``end``, ``pragma`` all None and a non-empty ``ignored``.
    """

    encoding: str | None
    label: str | None
    offset: int | None
    end: int | None
    pragma: bool | None
    remapped_from: str | None = None
    ignored: tuple[str, ...] = ()


class XmlDeclResult(NamedTuple):
    """An XML declaration's encoding.

    ``label`` is the raw ``encoding="..."`` value (None for the UTF-16 ``<?x`` patterns, whose
    name the standard does not read); ``encoding`` is its WHATWG name (None for an unknown
    label), after the UTF-16 -> UTF-8 remap for an ASCII-readable declaration
    (``remapped_from`` then says which); ``utf16`` is True when the bytes themselves are the
    UTF-16 form ``<\\0?\\0x\\0`` / ``\\0<\\0?\\0x``.
    """

    encoding: str | None
    label: str | None
    remapped_from: str | None = None
    utf16: bool = False


_WS_BYTES = b"\t\n\x0c\r "
_WS = frozenset(_WS_BYTES)
_WS_GT = _WS | {0x3E}
_WS_SLASH = _WS | {0x2F}
_TAGNAME_END = _WS | {0x2F, 0x3E}  # tokenizer "tag name state" ends at whitespace, "/", ">"
_ATTRNAME_END = _WS | {0x2F, 0x3E, 0x3D}
_ATTR_START = _WS | {0x2F}  # "<meta" must be followed by one of these
_TAGNAME_END_MAP = bytes(0 if b in _TAGNAME_END else 1 for b in range(256))
_ALPHA = frozenset(range(0x41, 0x5B)) | frozenset(range(0x61, 0x7B))
_QUOTES = {0x22: b'"', 0x27: b"'"}
_LT_RUN = b"<" * 64

# Start tags after which Chromium's tokenizer is in RCDATA / RAWTEXT / script data state.
_RAW_TEXT = frozenset((b"title", b"textarea", b"script", b"style", b"xmp", b"iframe", b"noembed", b"noframes"))
# HTMLMetaCharsetParser: tags that keep it "in the head section" (start tags also html, head).
_HEAD_END_TAGS = frozenset((b"script", b"noscript", b"style", b"link", b"meta", b"object", b"title", b"base"))
_HEAD_START_TAGS = _HEAD_END_TAGS | {b"html", b"head"}
# Tag names the scan acts on: 1 meta, 2 raw text, 3 plaintext.
_SPECIAL = {b"meta": 1, b"plaintext": 3, **{name: 2 for name in _RAW_TEXT}}

#: What a meta's encoding becomes (HTML Standard "prescan a byte stream to determine its encoding",
#: the step after "get an encoding": UTF-16BE/LE -> UTF-8, x-user-defined -> windows-1252).
META_REMAP = {"UTF-16LE": "UTF-8", "UTF-16BE": "UTF-8", "x-user-defined": "windows-1252"}


def _isomorphic(b: bytes) -> str:
    return b.decode("latin-1")


def _skip_ws(d: bytes, j: int, n: int) -> int:
    """First index >= *j* (< *n*) that is not ASCII whitespace, or *n*. C-speed on long runs."""
    while j < n and d[j] in _WS:
        chunk = d[j : min(n, j + 256)]
        j += len(chunk) - len(chunk.lstrip(_WS_BYTES))
    return j


def _find_ws_or_gt(d: bytes, j: int, gt: int) -> int:
    """First index in [*j*, *gt*) holding ASCII whitespace, else *gt* (the next ``>``)."""
    end = min(gt, j + 24)
    while j < end:  # short values: a plain loop is cheapest
        if d[j] in _WS:
            return j
        j += 1
    if j >= gt:
        return gt
    best = gt
    for w in (b" ", b"\n", b"\t", b"\r", b"\x0c"):
        k = d.find(w, j, best)
        if k >= 0:
            best = k
    return best


def _tag_end(d: bytes, i: int, gt: int) -> int:
    """Where "get an attribute", repeated from *i*, ends a tag: the index of its ``>``, or -1
    if the bytes run out first. *gt* is the first ``>`` at or after *i* (or -1, or any value
    below *i* to have it searched).

    Only the ``=`` that introduce values matter (a quote opens a value only right after one, and
    only a quoted value can hide a ``>``). An ``=`` introduces a value unless it is the first
    byte of an attribute name (after whitespace/``/`` with no name pending, or after a ``/``).
    ``lo`` is the start of the current run of names/whitespace/slashes (no value inside).
    """
    find = d.find
    lo = i
    while True:
        if gt < i:
            gt = find(b">", i)
            if gt < 0:
                return -1
        eq = find(b"=", i, gt)
        if eq < 0:
            return gt
        k = eq - 1
        if k < lo:
            lo = eq  # "=" with nothing before it in this run: it starts a name
            i = eq + 1
            continue
        b = d[k]
        if b in _WS:
            k = lo + len(d[lo:eq].rstrip(_WS_BYTES)) - 1
            b = d[k] if k >= lo else 0x2F
        if b == 0x2F:
            lo = eq  # after "/" (or nothing): "=" starts a name (get an attribute, step 4)
            i = eq + 1
            continue
        # A value. eq < gt, and whitespace never runs past ">", so j <= gt below.
        j = eq + 1
        c = d[j]
        if c in _WS:
            j = _skip_ws(d, j, gt)
            c = d[j]
        if c == 0x22 or c == 0x27:
            close = find(b'"' if c == 0x22 else b"'", j + 1)
            if close < 0:
                return -1
            lo = i = close + 1
        elif c == 0x3E:
            return j
        else:
            # Unquoted value: runs to whitespace or ">" (which is gt).
            i = _find_ws_or_gt(d, j + 1, gt)
            if i == gt:
                return gt
            lo = i


def _attributes(d: bytes, i: int, end: int) -> list[tuple[bytes, int, int]]:
    """HTML "get an attribute", repeated from *i* until it finds none, over a tag whose ``>`` is
    at *end* (as found by :func:`_tag_end`). Returns ``(name, value_start, value_end)`` per
    attribute in order: *name* lower-cased (A-Z only, as the standard does), the value being
    ``d[value_start:value_end]`` as written (the standard lower-cases it; callers do so when
    comparing)."""
    out: list[tuple[bytes, int, int]] = []
    while True:
        # Step 1: skip whitespace and "/".
        while i < end and (d[i] in _WS or d[i] == 0x2F):
            i += 1
        # Step 2: ">" (or the end we were given) -> no attribute.
        if i >= end:
            return out
        # Steps 3-5: the name; its first byte is part of it whatever it is (even "=").
        ns = i
        i += 1
        while i < end and d[i] not in _ATTRNAME_END:
            i += 1
        name = d[ns:i].lower()
        if i >= end or d[i] == 0x2F:
            out.append((name, i, i))
            continue
        if d[i] != 0x3D:
            # Spaces step: whitespace, then "=" or the attribute ends with an empty value.
            i = _skip_ws(d, i, end)
            if i >= end or d[i] != 0x3D:
                out.append((name, i, i))
                continue
        # Value step.
        i = _skip_ws(d, i + 1, end)
        if i >= end:  # ">" -> empty value
            out.append((name, i, i))
            continue
        c = d[i]
        if c == 0x22 or c == 0x27:
            close = d.find(_QUOTES[c], i + 1, end)
            if close < 0:  # cannot happen for an *end* from _tag_end; be total anyway
                out.append((name, i + 1, end))
                return out
            out.append((name, i + 1, close))
            i = close + 1
        else:
            vs = i
            i += 1
            while i < end and d[i] not in _WS:
                i += 1
            out.append((name, vs, i))


def extract_meta_charset(value: bytes) -> tuple[int, int] | None:
    """HTML "algorithm for extracting a character encoding from a meta element", on a
    ``content`` attribute *value* (bytes as written). Returns the ``(start, end)`` byte span of
    the label within *value*, or None for the standard's "nothing".

    ``b"text/html; charset=Shift_JIS"`` -> (19, 28); ``b"charset='utf-8"`` (unmatched quote)
    -> None; ``b"charset = 'x' "`` -> the span of ``x``. The caller looks the label up ("get an
    encoding").
    """
    v = value.lower()
    n = len(v)
    pos = 0
    while True:
        k = v.find(b"charset", pos)
        if k < 0:
            return None
        p = _skip_ws(v, k + 7, n)
        if p >= n or v[p] != 0x3D:
            pos = p
            continue
        p = _skip_ws(v, p + 1, n)
        if p >= n:
            return None
        c = v[p]
        if c == 0x22 or c == 0x27:
            close = v.find(_QUOTES[c], p + 1)
            if close < 0:
                return None
            return p + 1, close
        e = p + 1
        while e < n and v[e] not in _WS and v[e] != 0x3B:
            e += 1
        return p, e


_NULL = object()  # the prescan's "charset is null"
_FAILURE = object()  # the prescan's "charset is failure"


def _meta(
    d: bytes, lt: int, attrs_start: int, gt: int, ignored: list[str], chromium: bool = False
) -> MetaResult | None:
    """The prescan's ``<meta`` steps 2-16 for the meta at *lt* whose ``>`` is at *gt*.
    *chromium*: attribute values are read with their character references decoded (Chromium's
    tokenizer, :func:`_char_refs`)."""
    # Shortcut for the usual <meta charset=...>: when the first attribute is "charset" with an
    # "=" right after it, that attribute alone decides (charset is set, need pragma false; a
    # later http-equiv cannot matter, a later content cannot override a non-null charset, and a
    # later charset is a duplicate), so the other attributes need not be read.
    i = attrs_start
    if d[i] in _WS and d[i + 1 : i + 9].lower() == b"charset=":
        vs = i + 9
        if vs < gt:
            c = d[vs]
            if c == 0x22 or c == 0x27:
                ve = d.find(b'"' if c == 0x22 else b"'", vs + 1, gt)
                vs += 1
            elif c in _WS:
                ve = -1  # whitespace before the value: the general path
            else:
                ve = _find_ws_or_gt(d, vs + 1, gt)
            if ve >= 0:
                raw = d[vs:ve]
                if chromium and b"&" in raw:
                    text = _char_refs(_isomorphic(raw))
                    enc = get_encoding(text)
                else:
                    enc = get_encoding(raw)
                    text = _isomorphic(raw)
                if enc is None:
                    ignored.append(text)
                    return None
                return MetaResult(
                    META_REMAP.get(enc, enc), text, lt, gt + 1, False,
                    enc if enc in META_REMAP else None, tuple(ignored),
                )
    seen: set[bytes] = set()
    got_pragma = False
    need_pragma: bool | None = None
    charset: object = _NULL
    label = ""
    content_unknown: str | None = None
    for name, vs, ve in _attributes(d, attrs_start, gt):
        if name in seen:
            continue
        seen.add(name)
        if name == b"http-equiv":
            raw = d[vs:ve]
            if chromium and b"&" in raw:
                # Compared as bytes: ASCII case-insensitive (str.lower would fold U+212A to "k").
                raw = _char_refs(_isomorphic(raw)).encode("utf-8")
            if raw.lower() == b"content-type":
                got_pragma = True
        elif name == b"content":
            found = _content_label(d[vs:ve], chromium)
            if found is not None and charset is _NULL:
                enc = get_encoding(found)
                if enc is not None:
                    charset, label, need_pragma = enc, found, True
                elif content_unknown is None:
                    content_unknown = found
        elif name == b"charset":
            raw = d[vs:ve]
            label = _char_refs(_isomorphic(raw)) if chromium and b"&" in raw else _isomorphic(raw)
            enc = get_encoding(label)
            charset = enc if enc is not None else _FAILURE
            need_pragma = False
    if need_pragma is None:
        if content_unknown is not None and got_pragma:
            ignored.append(content_unknown)
        return None
    if need_pragma and not got_pragma:
        return None
    if charset is _FAILURE:
        ignored.append(label)
        return None
    assert isinstance(charset, str)
    remapped = charset if charset in META_REMAP else None
    return MetaResult(
        encoding=META_REMAP.get(charset, charset),
        label=label,
        offset=lt,
        end=gt + 1,
        pragma=need_pragma,
        remapped_from=remapped,
        ignored=tuple(ignored),
    )


def _content_label(raw: bytes, chromium: bool) -> str | None:
    """The label "extracting a character encoding from a meta element" finds in a ``content``
    value written as *raw*, or None. *chromium*: in the value with its character references
    decoded (its UTF-8 form: the algorithm reads only ASCII bytes, and a multi-byte sequence has
    none, so the label's span falls on character boundaries)."""
    if chromium and b"&" in raw:
        value = _char_refs(_isomorphic(raw)).encode("utf-8")
        span = extract_meta_charset(value)
        return None if span is None else value[span[0] : span[1]].decode("utf-8")
    span = extract_meta_charset(raw)
    return None if span is None else _isomorphic(raw[span[0] : span[1]])


# HTML Standard "named character references": the table of entities.json, as Python's
# html.entities.html5 holds it (names with their ";", and the legacy names without one); imported
# at the first named reference (8 M instructions), which most runs never meet.
_entities = _lazy.module(__name__, "_entities", "html.entities")
_legacy_max: int | None = None  # the longest legacy name (without ";"), set with the table's first use
# "numeric character reference end state": 0x80-0x9F name windows-1252's characters (the
# standard's table is windows-1252's mapping of those bytes; 81, 8D, 8F, 90, 9D map to
# themselves). The Encoding Standard's index, as the decoders use it.
_C1 = {0x80 + i: c for i, c in enumerate(_SINGLE_BYTE["windows-1252"][:32])}
_CHAR_REF = _lazy.pattern(__name__, "_CHAR_REF", r"&(?:#[xX]([0-9A-Fa-f]+);?|#([0-9]+);?|([0-9A-Za-z]+)(;?))")


def _char_ref(m: re.Match[str]) -> str:
    """The text one match of :data:`_CHAR_REF` stands for (see :func:`_char_refs`)."""
    global _legacy_max
    hex_digits, dec_digits, name, semicolon = m.groups()
    if name is None:
        # Numeric: the digits after leading zeros (more than 8 are past U+10FFFF, and int()
        # would refuse a long decimal string).
        digits = (hex_digits or dec_digits).lstrip("0")
        if len(digits) > 8:
            return "\ufffd"
        cp = int(digits, 16 if hex_digits is not None else 10) if digits else 0
        if cp == 0 or cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
            return "\ufffd"
        if 0x80 <= cp <= 0x9F:
            return _C1[cp]
        return chr(cp)  # noncharacters and controls (CR too) stay, as parse errors
    refs = _entities.html5
    if semicolon:
        value = refs.get(name + ";")
        if value is not None:
            return value
    # A legacy name without ";": the longest one the alphanumerics start with. In an attribute
    # value it is decoded only when what follows it is neither alphanumeric nor "=" ("for
    # historical reasons"); a ";" after it stays as text.
    if _legacy_max is None:
        _legacy_max = max(len(k) for k in refs if not k.endswith(";"))
    for k in range(min(len(name), _legacy_max), 0, -1):
        value = refs.get(name[:k])
        if value is not None:
            if k == len(name) and (semicolon or not m.string.startswith("=", m.end())):
                return value + semicolon
            break
    return m.group(0)


def _char_refs(value: str) -> str:
    """An attribute value with its character references decoded as the HTML Standard's tokenizer
    decodes them in an attribute value ("character reference state" with an attribute value
    state as return state), which Chromium's ``HTMLMetaCharsetParser`` runs. *value* is the
    value as written (a ``str``; the syntax of references is ASCII).

    ``&#45;``, ``&#x2D;`` (also without ``;``) -> ``-``; ``&lowbar;`` -> ``_``; ``&quot`` at the
    end of a value -> ``"``, but ``&quotx`` and ``&quot=`` stay as written; ``&#0;``, a surrogate
    or a number past U+10FFFF -> U+FFFD; ``&#150;`` -> U+2013 (the windows-1252 table); ``&#;``,
    ``&#x;``, ``&bogus;`` and a lone ``&`` stay as written. Never raises.
    """
    if "&" not in value:
        return value
    return _CHAR_REF.sub(_char_ref, value)


def _raw_text_end(d: bytes, i: int, name: bytes) -> int:
    """Index of the ``<`` of the end tag ``</name`` (+ whitespace, ``/`` or ``>``, ASCII
    case-insensitive) at or after *i*, or -1 if the bytes run out first."""
    n = len(d)
    ln = len(name)
    while True:
        j = d.find(b"</", i)
        if j < 0:
            return -1
        k = j + 2 + ln
        if k >= n:
            return -1
        if d[k] in _TAGNAME_END and d[j + 2 : k].lower() == name:
            return j
        i = j + 2


# The fast path's grammar, over the lower-cased window. Each alternative of _PREFIX is one step
# of _scan's loop in Chromium mode (late=False), in a shape where the step's outcome is plain:
# where the step ends, and that it neither returns nor records anything.
#
# Determinism. A regular expression may backtrack and read bytes another way than the state
# machine does (a tag name given back to become an attribute name, an unquoted value shortened).
# To rule that out every repetition whose bytes a later item could also read is inside an atomic
# group ``(?>...)`` (matched once, at its first success, never re-entered), or is followed by a
# byte it cannot contain. Only atomic groups are used, not possessive quantifiers, and no group
# inside them captures: CPython 3.11's possessive repeats had matching bugs (gh-106052, fixed in
# 3.11.5; gh-101955 with capturing groups inside), its atomic groups have none known.
_W = rb"\t\n\x0c\r "


def _atomic(pattern: bytes) -> bytes:
    return b"(?>" + pattern + b")"


# A tag's attributes in plain syntax: attribute names (no quote, no "=" as first byte), each after
# optional whitespace and "/", with an optional "= value" (double-quoted, single-quoted, or
# unquoted up to whitespace or ">"), then optional whitespace and "/". Each name and value is
# read exactly as "get an attribute" reads it (names and unquoted values maximal). The first
# "=value" alternative is the usual no-space case of the second, listed first as it is cheaper.
_PLAIN_ATTRS = (
    _atomic(
        rb"(?:"
        + _atomic(rb"[%s/]*[^%s/>=\"'][^%s/>=\"']*" % (_W, _W, _W))
        + _atomic(
            rb"(?:=(?:\"[^\"]*\"|[^%s>\"'][^%s>]*)|[%s]*=[%s]*(?:\"[^\"]*\"|'[^']*'|[^%s>\"'][^%s>]*))?"
            % (_W, _W, _W, _W, _W, _W)
        )
        + rb")*"
    )
    + _atomic(rb"[%s/]*" % _W)
)
_TAG_NAME = _atomic(rb"[a-z][^%s/>]*" % _W)  # the tokenizer's tag name: to whitespace, "/" or ">"
_RAW_NAMES = (b"title", b"textarea", b"script", b"style", b"xmp", b"iframe", b"noembed", b"noframes")
_PREFIX = _lazy.pattern(__name__, "_PREFIX",
    _atomic(
        # The alternatives exclude each other (by their first bytes), so their order only
        # matters for speed: the commonest first.
        rb"(?:"
        rb"[^<]+"  # text
        # a start tag that is not raw text or plaintext (a <meta> here cannot declare: the match
        # stops before the window's first "charset" or reference that may spell it)
        rb"|<(?!(?:%s|plaintext)[%s/>])" % (b"|".join(_RAW_NAMES), _W) + _TAG_NAME + _PLAIN_ATTRS + rb">"
        + rb"|</" + _TAG_NAME + _PLAIN_ATTRS + rb">"  # an end tag
        + rb"|<!(?!--)[^>]*>"  # "<!" to ">"
        # "<!--" to the first "-->" from its "--" ("<!-->", "<!--->") or "--!>" after it (Chromium)
        rb"|<!--(?:-?>|" + _atomic(rb"(?:[^-]+|-(?!-!?>))*") + rb"--!?>)"
        + rb"|<\?[^>]*>"  # "<?" to ">"
        rb"|</(?![a-z])[^>]*>"  # "</" + not a letter, to ">"
        + rb"|<(?=[^a-z/!?])"  # "<" as text (also each "<" of a run but the last)
        rb")*"
    )
)


# A raw-text start tag (title, textarea, script, style, xmp, iframe, noembed, noframes) in plain
# syntax, its name captured (outside every atomic group): _skip_plain then skips its text up to
# its end tag. (One pattern for the eight names instead of an alternative of _PREFIX each, which
# repeated _PLAIN_ATTRS eight times: compiling _PREFIX cost 6.4 ms of CPU in every process that
# prescans, a fifth of what a small index selection's records cost, issue 26; now about 1 ms.)
_RAW_START = _lazy.pattern(__name__, "_RAW_START",
    rb"<(%s)(?=[%s/>])" % (b"|".join(_RAW_NAMES), _W) + _PLAIN_ATTRS + rb">")


def _skip_plain(low: bytes, end: int) -> int:
    """Fast path of the Chromium-mode prescan: the offset where :func:`_scan`'s loop
    (``late=False``) would be after the plain markup at the start of the window, having returned
    and recorded nothing. *low* is the lower-cased window and *end* an offset before which no
    step can meet a declaration (:func:`_declaration_bound`: the window's first ``charset``, or
    an earlier numeric character reference to one of its letters). Returns an offset in
    ``[0, end]``; the scan may start there.

    One compiled regular expression (:data:`_PREFIX`) stands for the loop's steps in the shapes
    it can prove, and stops at the first construct it does not cover (a construct holding or
    cut by *end*, attribute syntax other than plain ``name``, ``name=value``, ``name="value"``,
    ``<plaintext>``...); the full scan goes on from there. Pinned by
    ``tests/test_prescan_fast.py`` (fast path vs full scan). The pure twin of the compiled
    ``_core.skip_plain``, which :func:`prescan` calls where the core is built (the same offset,
    also ``tests/test_prescan_fast.py``)."""
    pos = _PREFIX.match(low, 0, end).end()
    while True:
        # a raw-text element: its start tag, then its text up to (not including) the first end
        # tag of its name, which must lie wholly before *end*; the next step reads the end tag
        m = _RAW_START.match(low, pos, end)
        if m is None:
            return pos
        name = m.group(1)
        j = _raw_text_end(low, m.end(), name)
        if j < 0 or j + len(name) + 3 > end:
            return pos
        pos = _PREFIX.match(low, j, end).end()


# The two usual declaring metas, in plain syntax, over the lower-cased window (their captures
# are outside atomic groups, and each is followed by a byte it cannot contain).
# _META_CHARSET: a "charset" attribute first (groups 1-3: its value, double-quoted,
# single-quoted or unquoted); the first attribute decides alone (see _meta), the other
# attributes only have to end the tag. _META_PRAGMA: "http-equiv" = content-type and a quoted
# "content" (groups 1-2 or 3-4: its value), in either order, and nothing else (a later "charset"
# attribute would override the pragma).
_META_CHARSET = _lazy.pattern(__name__, "_META_CHARSET",
    rb"<meta[%s/]+charset[%s]*=[%s]*(?:\"([^\"]*)\"|'([^']*)'|([^%s>\"'][^%s>]*)(?=[%s>]))"
    % (_W, _W, _W, _W, _W, _W)
    + _PLAIN_ATTRS
    + rb">"
)
_HTTP_EQUIV = rb"http-equiv[%s]*=[%s]*(?:\"content-type\"|'content-type'|content-type[%s])" % (_W, _W, _W)
# (A content value with "&" may hold character references, which _meta decodes: not matched.)
_CONTENT = rb"content[%s]*=[%s]*(?:\"([^\"&]*)\"|'([^'&]*)')" % (_W, _W)
_META_PRAGMA = _lazy.pattern(__name__, "_META_PRAGMA",
    rb"<meta[%s/]+(?:%s[%s/]*%s|%s[%s/]*%s)[%s/]*>"
    % (_W, _HTTP_EQUIV, _W, _CONTENT, _CONTENT, _W, _HTTP_EQUIV, _W)
)


def _plain_meta(d: bytes, low: bytes, lt: int) -> MetaResult | None:
    """Fast path of :func:`_meta` for a ``<meta`` at *lt* (where :func:`_skip_plain` stopped):
    the declaration when the meta has one of the two usual shapes (:data:`_META_CHARSET`,
    :data:`_META_PRAGMA`) and its label names an encoding, else None, meaning "not proven: run
    the full scan from *lt*" (never "no declaration"). Same result as :func:`_scan` from *lt*
    with nothing recorded before it. Pinned by ``tests/test_prescan_fast.py``. With the compiled
    core, its ``meta_plain`` reads the two shapes (the regular expressions are its twin)."""
    core = native.core
    if core is not None and type(low) is bytes:
        found = core.meta_plain(low, lt)
        if found is None:
            return None
        pragma, vs, ve, end = found
    else:
        m = _META_CHARSET.match(low, lt)
        pragma = m is None
        if pragma:
            m = _META_PRAGMA.match(low, lt)
            if m is None:
                return None
        vs, ve = m.span(m.lastindex)  # the one value group that matched (the rest has none)
        end = m.end()
    if pragma:
        # "extracting a character encoding": when the value's first "charset" is followed by
        # "=" and a plain unquoted label that ends the value or is ended by whitespace or ";",
        # that label is the answer; anything else goes to extract_meta_charset.
        k = low.find(b"charset", vs, ve)
        c = _CONTENT_CHARSET.match(low, k, ve) if k >= 0 else None
        if c is not None:
            vs, ve = c.span(1)
        else:
            span = extract_meta_charset(d[vs:ve])
            if span is None:
                return None
            vs, ve = vs + span[0], vs + span[1]
    label = d[vs:ve]
    enc = get_encoding(label)
    if enc is None:
        return None
    remapped = META_REMAP.get(enc)
    # MetaResult(...) without NamedTuple's generated __new__ (same tuple, half the cost).
    if remapped is None:
        return _new_tuple(MetaResult, (enc, label.decode("latin-1"), lt, end, pragma, None, ()))
    return _new_tuple(MetaResult, (remapped, label.decode("latin-1"), lt, end, pragma, enc, ()))


_new_tuple = tuple.__new__


# A numeric character reference to a letter of "charset" (either case), e.g. "&#99;" or
# "&#x043": without one, a meta whose bytes lack "charset" cannot declare (no named reference
# gives one of those letters; see _char_refs).
_SPELLS_CHARSET_LETTER = _lazy.pattern(__name__, "_SPELLS_CHARSET_LETTER",
    rb"&#(?:[xX]0*(?:%s)(?![0-9A-Fa-f])|0*(?:%s)(?![0-9]))"
    % (
        b"|".join(b"%x" % ord(c) for c in "charsetCHARSET"),
        b"|".join(b"%d" % ord(c) for c in "charsetCHARSET"),
    )
)
# A plain label right after the first "charset=" of a content value (see _plain_meta).
_CONTENT_CHARSET = _lazy.pattern(__name__, "_CONTENT_CHARSET", rb"charset=([^%s;\"']+)(?=[%s;]|\Z)" % (_W, _W))


def _none(ignored: list[str]) -> MetaResult | None:
    if not ignored:
        return None
    return MetaResult(encoding=None, label=None, offset=None, end=None, pragma=None, ignored=tuple(ignored))


def _scan(
    d: bytes, late: bool, chromium: bool = True, low: bytes | None = None, start: int = 0
) -> MetaResult | None:
    """The meta scan over all of *d*. ``late=False``: the prescan over a window (*d* is the
    window). ``late=True``: Chromium's rule, stop at a markup construct starting at or after
    :data:`UNCONDITIONAL_BYTES` once a non-head tag has been seen. ``chromium=False``: the
    standard's prescan literally (no raw text; a tag name runs to whitespace or ``>``; comments
    end only at ``-->``; attribute values as written). *low* is ``d.lower()`` when the caller has it (saves lower-casing each meta). *start*: where
    the loop begins (a position it would reach from 0 having recorded nothing, as
    :func:`_skip_plain` gives)."""
    n = len(d)
    find = d.find
    pos = start
    in_head = True
    ignored: list[str] = []
    # The first "-->" at or after where it was last searched for (-1: none; -2: not searched).
    dash_end = -2
    while True:
        lt = find(b"<", pos)
        if lt < 0 or lt + 1 >= n:
            return _none(ignored)
        if late and not in_head and lt >= UNCONDITIONAL_BYTES:
            return _none(ignored)
        c = d[lt + 1]
        if c in _ALPHA:
            s = lt + 1
            end_tag = False
        elif c == 0x2F:  # "</"
            s = lt + 2
            if s >= n:
                return _none(ignored)
            if d[s] not in _ALPHA:  # "</" not followed by a letter: to the next ">"
                e = find(b">", s)
                if e < 0:
                    return _none(ignored)
                pos = e + 1
                continue
            end_tag = True
        elif c == 0x21:  # "<!"
            if d.startswith(b"--", lt + 2):
                # "<!--": to the first ">" preceded by "--", which may be those of "<!--".
                # Chromium's tokenizer ("comment end bang state") also ends it at the first "--!>"
                # after the "<!--" ("<!--!>" is not one: those "--" open it). The "-->" found is
                # kept while it lies ahead (it is still the first one from here), and "--!>" is
                # looked for only before it, so that no byte is searched twice.
                if dash_end != -1 and dash_end < lt + 2:
                    dash_end = find(b"-->", lt + 2)
                e = dash_end
                if chromium:
                    k = find(b"--!>", lt + 4, e if e >= 0 else n)
                    if k >= 0:
                        pos = k + 4
                        continue
                if e < 0:
                    return _none(ignored)
                pos = e + 3
            else:
                e = find(b">", lt + 2)
                if e < 0:
                    return _none(ignored)
                pos = e + 1
            continue
        elif c == 0x3F:  # "<?"
            e = find(b">", lt + 2)
            if e < 0:
                return _none(ignored)
            pos = e + 1
            continue
        elif c == 0x3C:  # a run of "<": only its last one can open markup
            j = lt + 1
            while d.startswith(_LT_RUN, j):
                j += 64
            while j < n and d[j] == 0x3C:
                j += 1
            pos = j - 1
            continue
        else:
            pos = lt + 1
            continue

        if not chromium:
            gt = -1
            if not end_tag and d[s : s + 4].lower() == b"meta" and s + 4 < n and d[s + 4] in _ATTR_START:
                j = s + 4
                name = b"meta"
            else:
                # The standard's generic tag: to the next whitespace or ">".
                gt = find(b">", s)
                if gt < 0:
                    return _none(ignored)
                j = _find_ws_or_gt(d, s, gt)
                name = b""
            e = _tag_end(d, j, gt)
            if e < 0:
                return _none(ignored)
            pos = e + 1
            if late and in_head:
                tname = d[s:j].split(b"/", 1)[0].lower()
                if tname not in (_HEAD_END_TAGS if end_tag else _HEAD_START_TAGS):
                    in_head = False
            if name and j < e and (
                low.find(b"charset", lt, e) >= 0 if low is not None else b"charset" in d[lt:e].lower()
            ):
                found = _meta(d, lt, j, e, ignored)
                if found is not None:
                    return found
            continue

        # A tag: its name ends at whitespace, "/" or ">" (tokenizer). Names that matter here
        # have at most 9 letters; a longer name is found the slow way and matters only as
        # "not head content".
        k = d[s : s + 10].translate(_TAGNAME_END_MAP).find(b"\x00")
        if k >= 0:
            j = s + k
            if j >= n:
                return _none(ignored)
            name = d[s:j].lower()
            gt = find(b">", j)
            if gt < 0:
                return _none(ignored)
        else:
            gt = find(b">", s)
            if gt < 0:
                return _none(ignored)
            j = _find_ws_or_gt(d, s + 10, gt)
            k = find(b"/", s, j)
            if k >= 0:
                j = k
            name = b""
        # Where the tag ends (see _tag_end). Inlined for the usual shapes: no value at all, or
        # name="value" pairs; anything else goes to _tag_end from a clean state.
        eq = find(b"=", j, gt)
        if eq < 0:
            e = gt
        else:
            i = j
            while True:
                c = d[eq + 1]  # eq < gt, so this exists
                if (c == 0x22 or c == 0x27) and eq > i and d[eq - 1] not in _WS_SLASH:
                    close = find(b'"' if c == 0x22 else b"'", eq + 2)
                    if close < 0:
                        return _none(ignored)
                    i = close + 1
                    if gt < i:
                        gt = find(b">", i)
                        if gt < 0:
                            return _none(ignored)
                    eq = find(b"=", i, gt)
                    if eq < 0:
                        e = gt
                        break
                else:
                    e = _tag_end(d, i, gt)
                    if e < 0:
                        return _none(ignored)
                    break
        pos = e + 1
        if end_tag:
            if late and in_head and name not in _HEAD_END_TAGS:
                in_head = False
            continue
        if late and in_head and name not in _HEAD_START_TAGS:
            in_head = False
        special = _SPECIAL.get(name)
        if special is None:
            continue
        if special == 1:  # meta
            # A meta without the letters "charset" declares only if numeric character references
            # spell some of them in its content.
            if j < e and (
                (low.find(b"charset", lt, e) >= 0 if low is not None else b"charset" in d[lt:e].lower())
                or (find(b"&#", j, e) >= 0 and _SPELLS_CHARSET_LETTER.search(d, j, e) is not None)
            ):
                found = _meta(d, lt, j, e, ignored, True)
                if found is not None:
                    return found
        elif special == 2:  # raw text
            k = _raw_text_end(d, pos, name)
            if k < 0:
                return _none(ignored)
            pos = k
        else:  # plaintext
            return _none(ignored)


def _declaration_bound(d: bytes, low: bytes) -> int:
    """Chromium mode: an offset in *d* (*low*: ``d.lower()``) before which no markup construct
    can declare an encoding, or -1 when none in *d* can. That is the first ``charset``, or the
    first numeric character reference to one of its letters if that comes first and an
    ``http-equiv`` does too: references may spell ``charset`` in a ``content`` value (named
    ones give none of its letters, ``test_prescan.py::test_no_named_reference_gives_a_letter_of_charset``),
    and such a ``content`` declares only with an ``http-equiv`` attribute, whose name is never
    decoded. A construct that ends before the offset can be skipped unread."""
    k = low.find(b"charset")
    amp = d.find(b"&", 0, k) if k >= 0 else d.find(b"&")
    return k if amp < 0 else _spelled_bound(d, low, amp, k)


def _spelled_bound(d: bytes, low: bytes, amp: int, k: int) -> int:
    """:func:`_declaration_bound` past its first test: *amp* is the first "&" before *k* (or in
    *d*, for *k* -1)."""
    end = k if k >= 0 else len(d)
    if low.find(b"http-equiv", 0, end) < 0:
        return k
    return _spelled_from(d, amp, k, end)


def _spelled_from(d: bytes, amp: int, k: int, end: int) -> int:
    """:func:`_spelled_bound` once an ``http-equiv`` was found before *end* (*k*, or the end of
    *d* for *k* -1)."""
    find = d.find
    # One "&" after the other by memchr, the pattern anchored at each one followed by "#" (where
    # every match starts; a page's "&" are few, and the pattern's own search, or a search for
    # "&#", reads every byte at about an instruction a byte); very many "&": the search, from
    # the first "&#".
    for _ in range(1024):
        if d.startswith(b"&#", amp) and _SPELLS_CHARSET_LETTER.match(d, amp, end) is not None:
            return amp
        amp = find(b"&", amp + 1, end)
        if amp < 0:
            return k
    amp = find(b"&#", amp, end)
    if amp < 0:
        return k
    m = _SPELLS_CHARSET_LETTER.search(d, amp, end)
    return m.start() if m is not None else k


def prescan(data: bytes, *, window: int = WINDOW, chromium: bool = True) -> MetaResult | None:
    """HTML "prescan a byte stream to determine its encoding" over ``data[:window]`` (bytes),
    reading markup as Chromium's tokenizer does (raw text, comments ending at ``--!>``, character
    references in a meta's values; see the module docstring).

    Returns the first ``<meta>`` that declares an encoding (:class:`MetaResult`), a result with
    ``encoding=None`` when metas only named unknown labels, or None when no meta declared
    anything. Bytes after the window are never read, so the answer does not change when bytes
    are appended after it. ``chromium=False`` runs the standard's algorithm literally (a meta in
    ``<script>`` text counts, ``--!>`` ends no comment, ``&#45;`` is five bytes of a value).
    Never raises.
    """
    d = data[:window]
    if type(d) is not bytes:
        d = bytes(d)
    core = native.core
    low = core.ascii_lower(d) if core is not None else d.lower()
    if not chromium:
        # Exact shortcut: both ways to declare (a charset attribute, a content pragma) need
        # these letters in the window.
        return _scan(d, False, False, low) if b"charset" in low else None
    # The same shortcut, where numeric character references may also spell the letters
    # (_declaration_bound, inlined: the usual window has no "&" before its first "charset").
    k = low.find(b"charset")
    amp = d.find(b"&", 0, k) if k >= 0 else d.find(b"&")
    if amp >= 0:
        k = _spelled_bound(d, low, amp, k)
    if k < 0:
        return None
    # Fast path (same results, see _skip_plain and _plain_meta): plain markup up to the first
    # "charset" skipped by one regular expression, a usual declaring meta read by another.
    pos = core.skip_plain(low, k) if core is not None else _skip_plain(low, k)
    if low.startswith(b"<meta", pos):
        found = _plain_meta(d, low, pos)
        if found is not None:
            return found
    return _scan(d, False, True, low, pos)


def head_scan(data: bytes, *, chromium: bool = True) -> MetaResult | None:
    """Chromium's ``HTMLMetaCharsetParser``: the meta scan over the whole payload, which stops at
    the first markup construct that starts at or after byte 1024 once a tag that is not head
    content has been seen.

    Head content: start tags ``html``, ``head``, ``title``, ``script``, ``style``, ``link``,
    ``meta``, ``noscript``, ``object``, ``base`` and their end tags (not ``</head>``), text and
    comments; any other tag (``<body>``, ``<div>``, ``<p>``, ``</head>``...) ends it. Within the
    first 1024 bytes any meta counts, as in :func:`prescan`, and a meta that starts before byte
    1024 counts even if it ends after it. Same result shape as :func:`prescan`. Linear time,
    never raises. ``chromium=False`` reads markup as the standard's prescan does (no raw text, no
    ``--!>``, no character references) with the same stop rule; Chromium has no such mode, it exists for rule sets that turn the
    tokenizing off.
    """
    if not isinstance(data, bytes):
        data = bytes(data)
    # Exact shortcut (as in prescan), taken only where searching the whole payload costs less
    # than scanning a typical head: no "charset" anywhere, no declaration anywhere.
    core = native.core if type(data) is bytes else None
    if core is None:
        if len(data) <= _SHORTCUT_MAX:
            low = data.lower()
            if b"charset" not in low:
                amp = data.find(b"&") if chromium else -1
                if amp < 0 or _spelled_bound(data, low, amp, -1) < 0:
                    return None
    elif len(data) <= _SHORTCUT_MAX_CORE and core.find_lower(data, b"charset") < 0:
        # (the same tests without the lower-cased copy: _spelled_bound's first one inlined)
        amp = data.find(b"&") if chromium else -1
        if amp < 0 or core.find_lower(data, b"http-equiv") < 0 or _spelled_from(data, amp, -1, len(data)) < 0:
            return None
    return _scan(data, True, chromium)


#: The shortcut's largest payload: with ``bytes.lower`` (a copy of the payload), 64 KiB; with the
#: compiled core's ``find_lower`` (no copy; about 0.4 instructions a byte of HTML with AVX2),
#: 1 MiB. A head scan in Python costs a few hundred thousand instructions.
_SHORTCUT_MAX = 64 * 1024
_SHORTCUT_MAX_CORE = 1024 * 1024


def xml_declaration(data: bytes, *, window: int = WINDOW) -> XmlDeclResult | None:
    """An XML declaration at byte 0 (HTML "get an XML encoding"; Chromium honours it for
    text/html only at offset 0, not after whitespace), or the UTF-16 patterns of the prescan's
    first step (``3C 00 3F 00 78 00`` -> UTF-16LE, ``00 3C 00 3F 00 78`` -> UTF-16BE).

    For ``<?xml``: the declaration ends at the first ``>`` (within *window* bytes); the first
    ``encoding`` (case-sensitive) in it, optional bytes <= 0x20, ``=``, optional bytes <= 0x20,
    then a quoted label that contains no byte <= 0x20. A UTF-16 label means UTF-8 (the
    declaration was readable as ASCII). None when there is no such declaration. Never raises.
    """
    head = bytes(data[:window])
    if head.startswith(b"<\x00?\x00x\x00"):
        return XmlDeclResult(encoding="UTF-16LE", label=None, utf16=True)
    if head.startswith(b"\x00<\x00?\x00x"):
        return XmlDeclResult(encoding="UTF-16BE", label=None, utf16=True)
    if not head.startswith(b"<?xml"):
        return None
    end = head.find(b">", 5)
    if end < 0:
        return None
    decl = head[:end]
    k = decl.find(b"encoding", 5)
    if k < 0:
        return None
    n = len(decl)
    p = k + 8
    while p < n and decl[p] <= 0x20:
        p += 1
    if p >= n or decl[p] != 0x3D:
        return None
    p += 1
    while p < n and decl[p] <= 0x20:
        p += 1
    if p >= n or decl[p] not in _QUOTES:
        return None
    close = decl.find(_QUOTES[decl[p]], p + 1)
    if close < 0:
        return None
    raw = decl[p + 1 : close]
    if any(b <= 0x20 for b in raw):
        return None
    enc = get_encoding(raw)
    remapped = enc if enc in ("UTF-16LE", "UTF-16BE") else None
    return XmlDeclResult(
        encoding="UTF-8" if remapped else enc, label=_isomorphic(raw), remapped_from=remapped
    )
