"""MIME types: parsing Content-Type, and sniffing a missing one.

Spec concept -> function:

==========================================================  ===============================
standard, algorithm                                         here
==========================================================  ===============================
MIME Sniffing "parse a MIME type"                           :func:`parse_mime_type`
MIME Sniffing "serialize a MIME type"                       :meth:`MimeType.serialize`
Fetch "extract a MIME type" (with its charset carry-over)   :func:`extract_mime_type`
Fetch "get, decode, and split" (a header's values)          :func:`split_header_values`
MIME Sniffing "rules for identifying an unknown MIME type"  :func:`sniff_unknown_mime_type`
  (sniff-scriptable flag set)
which decision rules apply to a MIME type (this project)    :func:`text_kind`
==========================================================  ===============================

Sources: the section names above are those of the MIME Sniffing Standard
(https://mimesniff.spec.whatwg.org/) and the Fetch Standard (https://fetch.spec.whatwg.org/).
Strings are ``str`` as a header reader hands them over (bytes isomorphic-decoded, i.e. latin-1);
a character outside U+0000..U+00FF is not an HTTP quoted-string token code point, so such a
parameter is dropped, as the standard says.

Deviations:
    * :func:`sniff_unknown_mime_type` leaves out the two audio/video signatures that need a
      parser rather than a pattern (WebM's EBML walk and MP3-without-ID3 frame sync); such
      payloads are classified by the later steps (``application/octet-stream`` when they hold a
      binary byte, which they do in practice). MP4's ``ftyp`` box check is implemented.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from .dataclass_code import dataclass

__all__ = [
    "MimeType",
    "extract_mime_type",
    "parse_mime_type",
    "sniff_unknown_mime_type",
    "split_header_values",
    "text_kind",
]

# Fetch "HTTP whitespace": U+000A LF, U+000D CR, or an HTTP tab or space.
_HTTP_WS = "\t\n\r "
_HTTP_TAB_OR_SPACE = "\t "
# Fetch "token code points" (RFC 9110 tchar).
_TOKEN = frozenset("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
# MIME Sniffing "HTTP quoted-string token code point": U+0009, U+0020..U+007E, U+0080..U+00FF.
_QUOTED_OK = frozenset(["\t"] + [chr(c) for c in range(0x20, 0x7F)] + [chr(c) for c in range(0x80, 0x100)])


def _is_token(s: str) -> bool:
    return bool(s) and all(c in _TOKEN for c in s)


@dataclass(frozen=True, slots=True)
class MimeType:
    """A parsed MIME type (MIME Sniffing "MIME type" record).

    ``type`` and ``subtype`` are ASCII lower case. ``parameters`` is the ordered map as a tuple
    of ``(name, value)`` pairs: names lower case, values as written (unquoted, backslash escapes
    removed, case kept); only the first occurrence of a name is kept, as the standard says.
    """

    type: str
    subtype: str
    parameters: tuple[tuple[str, str], ...] = ()

    @property
    def essence(self) -> str:
        """``type/subtype`` (the standard's "essence")."""
        return f"{self.type}/{self.subtype}"

    @property
    def charset(self) -> str | None:
        """The raw value of the ``charset`` parameter (not looked up as a label), or None."""
        for name, value in self.parameters:
            if name == "charset":
                return value
        return None

    def get(self, name: str) -> str | None:
        """The value of parameter *name* (lower case), or None."""
        for n, v in self.parameters:
            if n == name:
                return v
        return None

    def serialize(self) -> str:
        """MIME Sniffing "serialize a MIME type": ``essence`` then ``;name=value`` per
        parameter, the value quoted (with ``"`` and ``\\`` escaped) unless it is a non-empty
        token."""
        out = [self.essence]
        for name, value in self.parameters:
            if not _is_token(value):
                value = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
            out.append(f";{name}={value}")
        return "".join(out)

    def __str__(self) -> str:
        return self.serialize()


def _collect_until(s: str, pos: int, stops: str) -> int:
    """Infra "collect a sequence of code points" from ``s[pos]`` while they are not in *stops*:
    the position where the sequence ends (the first code point in *stops*, or ``len(s)``)."""
    ends = [i for i in (s.find(c, pos) for c in stops) if i >= 0]
    return min(ends) if ends else len(s)


def _collect_quoted_string(s: str, pos: int, extract_value: bool) -> tuple[str, int]:
    """Fetch "collect an HTTP quoted string" from ``s[pos] == '"'``: (result, new position)."""
    start = pos
    n = len(s)
    value: list[str] = []
    pos += 1
    while True:
        j = _collect_until(s, pos, '"\\')
        value.append(s[pos:j])
        pos = j
        if pos >= n:
            break
        quote_or_backslash = s[pos]
        pos += 1
        if quote_or_backslash == "\\":
            if pos >= n:
                value.append("\\")
                break
            value.append(s[pos])
            pos += 1
        else:
            break
    if extract_value:
        return "".join(value), pos
    return s[start:pos], pos


def parse_mime_type(value: str) -> MimeType | None:
    """MIME Sniffing "parse a MIME type": a :class:`MimeType`, or None for failure.

    ``'Text/HTML; Charset="Shift_JIS"; charset=utf-8'`` -> ``text/html`` with
    ``(("charset", "Shift_JIS"),)``. A parameter whose name or value is not made of the allowed
    code points is skipped, e.g. ``charset = x`` (the name would be ``"charset "``). Never
    raises for ``str`` input.
    """
    s = value.strip(_HTTP_WS)
    n = len(s)
    slash = s.find("/")
    if slash < 0:
        return None
    type_ = s[:slash]
    if not _is_token(type_):
        return None
    pos = slash + 1
    semi = s.find(";", pos)
    if semi < 0:
        semi = n
    subtype = s[pos:semi].rstrip(_HTTP_WS)
    if not _is_token(subtype):
        return None
    pos = semi
    params: list[tuple[str, str]] = []
    names: set[str] = set()
    while pos < n:
        pos += 1  # past ";"
        while pos < n and s[pos] in _HTTP_WS:
            pos += 1
        j = pos
        while j < n and s[j] != ";" and s[j] != "=":
            j += 1
        raw_name = s[pos:j]
        # ASCII lowercase only: str.lower() would turn U+212A KELVIN SIGN into "k".
        name = raw_name.lower() if raw_name.isascii() else "\x00"
        pos = j
        if pos < n:
            if s[pos] == ";":
                continue
            pos += 1  # past "="
        if pos >= n:
            break
        if s[pos] == '"':
            pvalue, pos = _collect_quoted_string(s, pos, True)
            j = s.find(";", pos)
            pos = n if j < 0 else j
        else:
            j = s.find(";", pos)
            if j < 0:
                j = n
            pvalue = s[pos:j].rstrip(_HTTP_WS)
            pos = j
            if not pvalue:
                continue
        if (
            name
            and _is_token(name)
            and all(c in _QUOTED_OK for c in pvalue)
            and name not in names
        ):
            names.add(name)
            params.append((name, pvalue))
    return MimeType(type_.lower(), subtype.lower(), tuple(params))


def split_header_values(values: Sequence[str]) -> list[str]:
    """Fetch "get, decode, and split" for one header name given its *values* in order.

    The values are combined with ``", "`` (Fetch "get") and split on commas outside
    double-quoted strings, each piece trimmed of HTTP tabs and spaces. ``['text/html;
    charset="a,b", text/plain']`` -> ``['text/html; charset="a,b"', 'text/plain']``.
    """
    s = ", ".join(values)
    n = len(s)
    pos = 0
    out: list[str] = []
    temp: list[str] = []
    while True:
        j = _collect_until(s, pos, '",')
        temp.append(s[pos:j])
        pos = j
        if pos < n and s[pos] == '"':
            quoted, pos = _collect_quoted_string(s, pos, False)
            temp.append(quoted)
            if pos < n:
                continue
        out.append("".join(temp).strip(_HTTP_TAB_OR_SPACE))
        temp = []
        if pos >= n:
            return out
        pos += 1  # past ","


def extract_mime_type(values: Sequence[str]) -> tuple[MimeType | None, str | None]:
    """Fetch "extract a MIME type" over all ``Content-Type`` header *values* of a response.

    Returns ``(mime_type, charset)``: the MIME type (None for the standard's failure, e.g. no
    values or none parses) and the raw ``charset`` value the result carries, or None. The last
    value that parses (and is not ``*/*``) wins; a ``charset`` given with an earlier value of the
    same essence carries over to a later one without its own, as the standard says:
    ``["text/html; charset=gbk", "text/html"]`` -> (``text/html;charset=gbk``, ``"gbk"``), while
    ``["text/html; charset=gbk", "text/plain"]`` -> (``text/plain``, None). The charset is not
    looked up here (that is Encoding Standard "get an encoding", :mod:`redecode.labels`).
    """
    # Crawls repeat a handful of Content-Type values; the result is immutable, so cache it
    # (short values only: a cache must not keep megabyte-long header lines alive).
    key = tuple(values)
    if sum(map(len, key)) <= 256:
        return _extract_cached(key)
    return _extract(key)


@lru_cache(maxsize=4096)
def _extract_cached(values: tuple[str, ...]) -> tuple[MimeType | None, str | None]:
    return _extract(values)


def _extract(values: Sequence[str]) -> tuple[MimeType | None, str | None]:
    """Uncached :func:`extract_mime_type`."""
    if not values:
        return None, None
    charset: str | None = None
    essence: str | None = None
    mime: MimeType | None = None
    for value in split_header_values(values):
        temp = parse_mime_type(value)
        if temp is None or temp.essence == "*/*":
            continue
        mime = temp
        if mime.essence != essence:
            charset = mime.charset
            essence = mime.essence
        elif mime.charset is None and charset is not None:
            mime = replace(mime, parameters=mime.parameters + (("charset", charset),))
    if mime is None:
        return None, None
    return mime, mime.charset


# ---------------------------------------------------------------------------------------------
# MIME Sniffing "rules for identifying an unknown MIME type"

_WS_BYTES = b"\t\n\x0c\r "
# "tag-terminating byte": 0x20 SP or 0x3E ">".
_TT = b" >"
# The sniff-scriptable HTML table: patterns after leading whitespace, ASCII case-insensitive
# (the standard's 0xDF mask on letters), each followed by a tag-terminating byte.
_HTML_PATTERNS = tuple(
    p.encode("ascii")
    for p in (
        "<!DOCTYPE HTML", "<HTML", "<HEAD", "<SCRIPT", "<IFRAME", "<H1", "<DIV", "<FONT",
        "<TABLE", "<A", "<STYLE", "<TITLE", "<B", "<BODY", "<BR", "<P", "<!--",
    )
)
_IMAGE = (
    (b"\x00\x00\x01\x00", None, "image/x-icon"),
    (b"\x00\x00\x02\x00", None, "image/x-icon"),
    (b"BM", None, "image/bmp"),
    (b"GIF87a", None, "image/gif"),
    (b"GIF89a", None, "image/gif"),
    (b"RIFF\x00\x00\x00\x00WEBPVP", b"\xff\xff\xff\xff\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff", "image/webp"),
    (b"\x89PNG\r\n\x1a\n", None, "image/png"),
    (b"\xff\xd8\xff", None, "image/jpeg"),
)
_AUDIO_VIDEO = (
    (b".snd", None, "audio/basic"),
    (b"FORM\x00\x00\x00\x00AIFF", b"\xff\xff\xff\xff\x00\x00\x00\x00\xff\xff\xff\xff", "audio/aiff"),
    (b"ID3", None, "audio/mpeg"),
    (b"OggS\x00", None, "application/ogg"),
    (b"MThd\x00\x00\x00\x06", None, "audio/midi"),
    (b"RIFF\x00\x00\x00\x00AVI ", b"\xff\xff\xff\xff\x00\x00\x00\x00\xff\xff\xff\xff", "video/avi"),
    (b"RIFF\x00\x00\x00\x00WAVE", b"\xff\xff\xff\xff\x00\x00\x00\x00\xff\xff\xff\xff", "audio/wave"),
)
_ARCHIVE = (
    (b"\x1f\x8b\x08", "application/x-gzip"),
    (b"PK\x03\x04", "application/zip"),
    (b"Rar!\x1a\x07\x00", "application/x-rar-compressed"),
)
# "binary data byte": 0x00-0x08, 0x0B, 0x0E-0x1A, 0x1C-0x1F. Deleting them must change nothing.
_BINARY_BYTES = bytes(list(range(0x00, 0x09)) + [0x0B] + list(range(0x0E, 0x1B)) + list(range(0x1C, 0x20)))
# The resource header is at most 1445 bytes.
_HEADER_LEN = 1445


def _masked_match(data: bytes, pattern: bytes, mask: bytes | None) -> bool:
    if len(data) < len(pattern):
        return False
    if mask is None:
        return data.startswith(pattern)
    return all((data[i] & mask[i]) == pattern[i] for i in range(len(pattern)))


def _is_mp4(h: bytes) -> bool:
    """MIME Sniffing "matches the signature for MP4"."""
    n = len(h)
    if n < 12:
        return False
    box_size = int.from_bytes(h[0:4], "big")
    if n < box_size or box_size % 4 != 0 or box_size < 12:
        return False
    if h[4:8] != b"ftyp":
        return False
    if h[8:11] == b"mp4":
        return True
    pos = 16
    while pos < box_size:
        if h[pos : pos + 3] == b"mp4":
            return True
        pos += 4
    return False


def sniff_unknown_mime_type(payload: bytes) -> str:
    """MIME Sniffing "rules for identifying an unknown MIME type", sniff-scriptable flag set.

    Looks at the first 1445 bytes of *payload* (the standard's resource header) and returns a
    MIME type essence: ``text/html`` (HTML signatures after leading whitespace, e.g.
    ``<!DOCTYPE HTML``, ``<html``, ``<p``, ``<!--``, each followed by space or ``>``),
    ``text/xml`` (``<?xml``), ``application/pdf``, ``application/postscript``, ``text/plain``
    (a UTF-8/UTF-16 BOM, or no binary data byte), ``image/*``, ``audio/*``/``video/*``,
    archives, else ``application/octet-stream``. Never raises.
    """
    h = payload[:_HEADER_LEN]
    # Step 1: the scriptable table. Leading whitespace bytes are ignored for these rows.
    s = h.lstrip(_WS_BYTES)
    upper = s[:16].upper()  # ASCII-only; the standard's 0xDF mask on letter positions
    for pat in _HTML_PATTERNS:
        if upper.startswith(pat) and len(s) > len(pat) and s[len(pat)] in _TT:
            return "text/html"
    if s.startswith(b"<?xml"):
        return "text/xml"
    if h.startswith(b"%PDF-"):
        return "application/pdf"
    # Step 2.
    if h.startswith(b"%!PS-Adobe-"):
        return "application/postscript"
    if h.startswith((b"\xfe\xff", b"\xff\xfe", b"\xef\xbb\xbf")):
        return "text/plain"
    # Steps 3-5.
    for pat, mask, mime in _IMAGE:
        if _masked_match(h, pat, mask):
            return mime
    for pat, mask, mime in _AUDIO_VIDEO:
        if _masked_match(h, pat, mask):
            return mime
    if _is_mp4(h):
        return "video/mp4"
    for pat, mime in _ARCHIVE:
        if h.startswith(pat):
            return mime
    # Step 6.
    if len(h.translate(None, _BINARY_BYTES)) == len(h):
        return "text/plain"
    return "application/octet-stream"


def text_kind(essence: str | None) -> str | None:
    """Which decision rules a MIME type essence gets: ``'html'``, ``'xml'``, ``'text'`` or None.

    ``text/html`` -> ``'html'``; ``application/xhtml+xml``, ``text/xml``, ``application/xml``
    and any ``*/*+xml`` -> ``'xml'``; ``text/plain`` and every other ``text/*`` -> ``'text'``;
    anything else (images, JSON, JavaScript served as ``application/*``...) -> None (not text).
    *essence* is compared ASCII case-insensitively.
    """
    if not essence:
        return None
    e = essence.strip().lower()
    if e == "text/html":
        return "html"
    if e in ("application/xhtml+xml", "text/xml", "application/xml") or e.endswith("+xml"):
        return "xml"
    if e.startswith("text/"):
        return "text"
    return None
