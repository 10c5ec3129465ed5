"""HTTP/1.x response messages as archived in WARC/ARC records: head parsing, transfer and content codings.

Spec concept -> function:

| concept | function |
|---|---|
| RFC 9112 "Message Format": status-line, field lines, obs-fold (section "Obsolete Line Folding") | `parse_response_head` |
| RFC 9112 "Chunked Transfer Coding" (decoding) | `dechunk` |
| RFC 9110 "Content-Encoding" with the codings gzip / x-gzip, deflate, br (RFC 7932), zstd (RFC 8878) | `decode_content` |
| the whole body pipeline (transfer coding, then content codings in reverse order) | `decode_body` |

Archived HTTP is whatever the server sent, so every function here is total on arbitrary bytes: it
never raises on bad input, it reports. Bytes in field names and values are decoded as ISO-8859-1
(latin-1), so NUL and non-ASCII bytes are kept one-to-one as U+0000..U+00FF and can be re-encoded
losslessly; this is what RFC 9110 "Field Values" calls treating obs-text as opaque data.

This module owns the ``brotli`` and ``zstandard`` libraries (archive reading is the only user).

Deviations:
- Status line: anything that starts with ``HTTP/`` is taken as a status line; the status code is the
  first run of 3 digits after the version and the reason phrase may be missing
  (``HTTP/1.0 302``, pywb ``missing-status-text.warc``). A block that does not start with ``HTTP/``
  is treated like an HTTP/0.9 response: no head, the whole block is the body
  (``test_http.py::test_http09_block_is_all_body``).
- A head that has no terminating empty line is parsed to the end of the block and the body is empty,
  as warcio does (``test_unterminated_head``).
- Field lines without a colon are dropped (browsers and warcio do the same), obs-fold continuation
  lines are joined to the previous value with one space, as RFC 9112 allows a recipient to do.
- Chunked: a body whose *first* chunk-size line is not hexadecimal is taken as not chunked at all
  (warcio's fallback: some WARC writers store the de-chunked body but keep the header). A bad
  chunk-size line *after* some chunks were decoded is an error of kind ``chunked`` (no payload). A
  body that ends before the last-chunk (a truncated capture) keeps what was decoded, as browsers
  show what arrived and warcio returns it (``test_dechunk_*``).
- Content codings follow Chromium's ``net/filter`` source streams (the browser this project takes as
  its oracle) rather than warcio: a body that is not in the declared coding (no gzip header, no zstd
  frame magic, a br or deflate stream that fails) is an error of kind ``content-encoding`` and has no
  payload, as Chromium fails such a response with ERR_CONTENT_DECODING_FAILED; warcio would pass the
  bytes through as if not encoded (``test_content_not_encoded_is_error``). A stream cut short (no end
  marker, as in truncated captures) keeps the bytes decoded so far with a warning, as Chromium shows
  what arrived (``test_content_truncated_keeps_partial``). Bytes after the end of a gzip member are
  ignored, as Chromium does (``test_content_gzip_extra_members_ignored``). Output past ``max_bytes``
  is an error of kind ``too-large`` (``test_content_bomb_over_cap_is_too_large``).
  Such a failed body that sniffs as text is still handed over as ``BodyResult.identity``, so the
  rules that recover an archived header's lie (the author's text, :mod:`redecode.validate`) can
  take it as is (``test_identity_of_a_body_not_in_its_coding``).
"""

from __future__ import annotations

import sys
import zlib
from dataclasses import field

import brotli

from . import native
from .dataclass_code import dataclass
from .mime import sniff_unknown_mime_type

__all__ = [
    "DEFAULT_MAX_BYTES",
    "BodyResult",
    "HttpHead",
    "dechunk",
    "decode_body",
    "decode_content",
    "header_values",
    "parse_response_head",
]

DEFAULT_MAX_BYTES = 64 * 1024 * 1024
"""Default cap on a decoded payload, in bytes (64 MiB)."""

#: The compiled core's ``http_head`` (the twin of parse_response_head), or None.
_core_head = native.core.http_head if native.core is not None else None

_CHUNK = 1 << 20  # decompression step (bytes of output per call), bounds memory overshoot


@dataclass(slots=True, kw_only=True)
class HttpHead:
    """A parsed HTTP/1.x response head.

    ``version`` e.g. ``"HTTP/1.1"``; ``status`` the 3-digit code or None when absent/unparseable;
    ``reason`` the reason phrase (``""`` when missing); ``headers`` every field line in order, repeated
    names kept, names and values latin-1 decoded and stripped of surrounding SP/HTAB;
    ``head_length`` the number of bytes of the block taken by the head, including the empty line
    (so ``block[head_length:]`` is the body as stored); ``terminated`` False when the block ended
    before the empty line.
    """

    version: str
    status: int | None
    reason: str
    headers: list[tuple[str, str]] = field(default_factory=list)
    head_length: int = 0
    terminated: bool = True


@dataclass(slots=True, kw_only=True)
class BodyResult:
    """The payload after removing transfer and content codings.

    ``payload`` is None exactly when ``error_kind`` is set (``chunked``, ``content-encoding``,
    ``too-large``); ``error`` is a human-readable message; ``warning`` notes a tolerated oddity
    (a stream cut short, a body declared chunked that is not) while the payload is still usable.
    ``identity``: only with ``error_kind`` ``content-encoding`` from the outermost coding, the body
    (transfer coding removed) when it is not in that coding and sniffs as text (MIME Sniffing
    "rules for identifying an unknown MIME type" give ``text/*``: no binary data byte, or a BOM,
    or HTML/XML signatures), e.g. a WARC writer that stored the decoded body and kept the
    ``Content-Encoding`` field; None otherwise. A real stream that is corrupt starts with its
    coding's signature or is binary, so it has none.
    """

    payload: bytes | None
    error_kind: str | None = None
    error: str | None = None
    warning: str | None = None
    identity: bytes | None = None


def _head_end(block: bytes) -> tuple[int, int]:
    """Return (end of the last field line, start of the body) for the first empty line, or (-1, -1)."""
    crlf = block.find(b"\n\r\n")
    # look for a bare-LF empty line only before the CRLF one: never scan the whole body for it
    lf = block.find(b"\n\n", 0, crlf + 2 if crlf >= 0 else len(block))
    if lf >= 0:
        return lf + 1, lf + 2
    if crlf >= 0:
        return crlf + 1, crlf + 3
    return -1, -1


def _parse_status_line(line: str) -> tuple[str, int | None, str]:
    text = line.strip(" \t\r")
    version, _, rest = text.partition(" ")
    rest = rest.lstrip(" \t")
    code = rest[:3]
    if len(code) == 3 and code.isascii() and code.isdigit():
        return version, int(code), rest[3:].strip(" \t")
    return version, None, rest


def parse_response_head(block: bytes) -> HttpHead | None:
    """RFC 9112 "Message Format" for a response: status-line and field lines of ``block``.

    ``block``: the WARC record block (bytes). Returns None when the block does not start with
    ``HTTP/`` (an HTTP/0.9-like response: the whole block is the body). Never raises. Linear in the
    size of the head; a single field line may be megabytes long. With the compiled core
    (:mod:`redecode.native`) its twin ``http_head`` parses (``tests/test_core.py``: the same
    result); :func:`_parse_response_head_pure` is the reference.
    """
    if _core_head is not None and type(block) is bytes:
        r = _core_head(block)
        if r is None:
            return None
        return HttpHead(version=r[0], status=r[1], reason=r[2], headers=r[3], head_length=r[4], terminated=r[5])
    return _parse_response_head_pure(block)


def _parse_response_head_pure(block: bytes) -> HttpHead | None:
    if not block.startswith(b"HTTP/"):
        return None
    fields_end, body_start = _head_end(block)
    terminated = fields_end >= 0
    if not terminated:
        fields_end = body_start = len(block)
    # latin-1 maps bytes 1:1 to U+0000..U+00FF, so decoding the head once and splitting the text is
    # the same as splitting bytes and decoding each piece, and faster
    text = block[:fields_end].decode("latin-1")
    lines = text.split("\n")
    version, status, reason = _parse_status_line(lines[0])
    return HttpHead(
        version=version,
        status=status,
        reason=reason,
        headers=_field_lines(lines[1:], "\n " in text or "\n\t" in text),
        head_length=body_start,
        terminated=terminated,
    )


def _field_lines(lines: list[str], folded: bool) -> list[tuple[str, str]]:
    """``(name, value)`` of each field line (names and values stripped of SP, HTAB and CR; lines
    without a colon ignored); ``folded``: some line continues the one before (obs-fold)."""
    if not folded:
        # every field line stands alone (the common case, done without a Python loop body per line)
        parts = [line.partition(":") for line in lines]
        return [(n.strip(" \t\r"), v.strip(" \t\r")) for n, c, v in parts if c]
    headers: list[tuple[str, str]] = []
    for line in lines:
        if not line or line == "\r":
            continue
        if line[0] in " \t":
            # obs-fold: RFC 9112 lets a recipient replace it by SP before interpreting the value.
            if headers:
                name, value = headers[-1]
                cont = line.strip(" \t\r")
                headers[-1] = (name, f"{value} {cont}" if value else cont)
            continue
        name, colon, value = line.partition(":")
        if not colon:
            continue
        # a stray CR before the line's CRLF ("\r\r\n", seen in pywb's missing-status-text.warc) is not
        # part of the value
        headers.append((name.strip(" \t\r"), value.strip(" \t\r")))
    return headers


def header_values(headers: list[tuple[str, str]], name: str) -> list[str]:
    """All values of the field ``name`` (ASCII case-insensitive), in order of appearance."""
    lname = name.lower()
    return [v for k, v in headers if k.lower() == lname]


def _codings(values: list[str]) -> list[str]:
    """The list of codings named by one or more comma-separated field values, lowercased, in order."""
    out: list[str] = []
    for v in values:
        for part in v.split(","):
            part = part.strip(" \t").lower()
            if part:
                out.append(part)
    return out


def dechunk(body: bytes) -> tuple[bytes | None, str | None, bool]:
    """RFC 9112 "Chunked Transfer Coding": decode ``body``.

    Returns ``(data, error, was_chunked)``: ``data`` the decoded bytes (None on error), ``error`` a
    message when a chunk-size line after the first is malformed, ``was_chunked`` False when the
    first chunk-size line is not hexadecimal (then ``data`` is ``body`` unchanged). Chunk extensions
    and trailer fields are skipped. A body cut short keeps what arrived. Never raises.
    """
    out: list[bytes] = []
    pos = 0
    n = len(body)
    first = True
    while pos < n:
        eol = body.find(b"\n", pos)
        line = body[pos:] if eol < 0 else body[pos:eol]
        size_text = line.split(b";", 1)[0].strip(b" \t\r")
        try:
            if not size_text or not all(c in b"0123456789abcdefABCDEF" for c in size_text):
                raise ValueError
            size = int(size_text, 16)
        except ValueError:
            if first:
                return body, None, False
            return None, f"bad chunk-size line at body byte {pos}: {line[:40]!r}", True
        first = False
        if eol < 0 or size == 0:
            break  # last-chunk (trailers ignored), or a size line cut short
        start = eol + 1
        out.append(body[start : start + size])
        pos = start + size
        # the CRLF after chunk-data; tolerate a bare LF or its absence at the end
        if body.startswith(b"\r\n", pos):
            pos += 2
        elif body.startswith(b"\n", pos):
            pos += 1
    return b"".join(out), None, True


class _TooLarge(Exception):
    pass


def _zlib_decode(data: bytes, wbits: int, max_bytes: int) -> tuple[bytes, bool]:
    """Inflate with a cap. Returns (output, complete); raises zlib.error, _TooLarge."""
    d = zlib.decompressobj(wbits)
    out: list[bytes] = []
    total = 0
    buf = data
    while True:
        chunk = d.decompress(buf, _CHUNK)
        total += len(chunk)
        if total > max_bytes:
            raise _TooLarge
        out.append(chunk)
        buf = d.unconsumed_tail
        if d.eof:
            # Chromium's GzipSourceStream ignores whatever follows the first member's footer
            # (STATE_IGNORING_EXTRA_BYTES), so a second concatenated member is not decoded either.
            return b"".join(out), True
        if not buf and not chunk:
            return b"".join(out), False


def _brotli_decode(data: bytes, max_bytes: int) -> tuple[bytes, bool]:
    d = brotli.Decompressor()
    out: list[bytes] = []
    total = 0
    chunk = d.process(data, output_buffer_limit=_CHUNK)
    while True:
        total += len(chunk)
        if total > max_bytes:
            raise _TooLarge
        out.append(chunk)
        if d.is_finished() or d.can_accept_more_data():
            break
        chunk = d.process(b"", output_buffer_limit=_CHUNK)
    return b"".join(out), d.is_finished()


def _zstd_decode(data: bytes, max_bytes: int) -> tuple[bytes, bool]:
    import zstandard  # noqa: PLC0415 - (imported on first use: most crawls have no zstd body)

    dctx = zstandard.ZstdDecompressor()
    reader = dctx.stream_reader(data, read_across_frames=True)
    out: list[bytes] = []
    total = 0
    while True:
        chunk = reader.read(_CHUNK)
        if not chunk:
            break
        total += len(chunk)
        if total > max_bytes:
            raise _TooLarge
        out.append(chunk)
    # the stream reader does not say whether the input ended inside a frame; with the output known to
    # be under the cap, a one-shot decompressobj over the same bytes can say it safely
    probe = dctx.decompressobj()
    probe.decompress(data)
    return b"".join(out), probe.eof


def _decoder_errors() -> tuple[type[Exception], ...]:
    """The exceptions the content decoders raise on bad data (zstandard's once it is imported,
    which _zstd_decode does before it can raise)."""
    zstd = sys.modules.get("zstandard")
    return (zlib.error, brotli.error) + ((zstd.ZstdError,) if zstd is not None else ())


def _zlib_header_ok(data: bytes) -> bool:
    # RFC 1950 "ZLIB Compressed Data Format": CM=8, FCHECK makes CMF*256+FLG a multiple of 31.
    return len(data) >= 2 and data[0] & 0x0F == 8 and (data[0] * 256 + data[1]) % 31 == 0


def decode_content(data: bytes, coding: str, *, max_bytes: int = DEFAULT_MAX_BYTES) -> BodyResult:
    """RFC 9110 "Content Codings": remove one coding from ``data`` (bytes), output capped at ``max_bytes``.

    ``coding``: lowercased token: ``gzip``/``x-gzip``, ``deflate`` (zlib-wrapped, or raw deflate as
    some servers send), ``br``, ``zstd``, ``identity``; any other token is left as is with a warning,
    as Chromium does. Data not in the declared coding is an error of
    kind ``content-encoding``; a stream cut short keeps its decoded prefix with a warning (see the
    module "Deviations"). Never raises.
    """
    try:
        if coding in ("identity", ""):
            result, complete = data, True
        elif coding in ("gzip", "x-gzip"):
            if data[:2] != b"\x1f\x8b":
                return _not_coded(coding)
            result, complete = _zlib_decode(data, 31, max_bytes)
        elif coding == "deflate":
            # zlib-wrapped as RFC 9110 says, or raw deflate as some servers send (Chromium sniffs the
            # same way: on a zlib header error it inserts a header and replays)
            wbits = 15 if _zlib_header_ok(data) else -15
            result, complete = _zlib_decode(data, wbits, max_bytes)
        elif coding == "br":
            result, complete = _brotli_decode(data, max_bytes)
        elif coding == "zstd":
            if data[:4] != b"\x28\xb5\x2f\xfd":
                return _not_coded(coding)
            result, complete = _zstd_decode(data, max_bytes)
        else:
            # Chromium passes a body with a coding it does not know (``null``, ``none``, ``utf-8``,
            # ``compress``...) through unchanged (URLRequestHttpJob::SetUpSourceStream: unknown
            # types are skipped); so do we, with a warning, so that the MIME type still decides.
            return BodyResult(payload=data, warning=f"unknown Content-Encoding {coding!r} left as is")
    except _TooLarge:
        return BodyResult(
            payload=None,
            error_kind="too-large",
            error=f"Content-Encoding {coding} inflates past the cap of {max_bytes} bytes",
        )
    except _decoder_errors() as exc:
        return BodyResult(
            payload=None,
            error_kind="content-encoding",
            error=f"Content-Encoding {coding} could not be decoded: {exc}",
        )
    if len(result) > max_bytes:
        return BodyResult(
            payload=None,
            error_kind="too-large",
            error=f"payload of {len(result)} bytes is over the cap of {max_bytes} bytes",
        )
    warning = None if complete else f"Content-Encoding {coding} stream ends early; partial payload kept"
    return BodyResult(payload=result, warning=warning)


def _not_coded(coding: str) -> BodyResult:
    return BodyResult(
        payload=None,
        error_kind="content-encoding",
        error=f"Content-Encoding {coding} declared but the payload does not start like {coding}",
    )


def decode_body(
    body: bytes,
    headers: list[tuple[str, str]],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> BodyResult:
    """The payload of an HTTP message: ``body`` (bytes as stored) with transfer and content codings removed.

    RFC 9112 "Transfer-Encoding" first (only ``chunked`` is decoded; other transfer codings listed
    before it are content-like and handled as content codings), then RFC 9110 "Content-Encoding"
    codings removed in reverse order of application. ``max_bytes`` caps every intermediate and the
    final payload. Never raises; see ``BodyResult``.
    """
    te_values: list[str] = []
    ce_values: list[str] = []
    for k, v in headers:
        lk = k.lower()
        if lk == "content-encoding":
            ce_values.append(v)
        elif lk == "transfer-encoding":
            te_values.append(v)
    if not te_values and not ce_values and len(body) <= max_bytes:
        return BodyResult(payload=body)
    warnings: list[str] = []
    data = body
    te = _codings(te_values)
    extra: list[str] = []
    if te and te[-1] == "chunked":
        decoded, err, was_chunked = dechunk(data)
        if err is not None:
            return BodyResult(payload=None, error_kind="chunked", error=err)
        assert decoded is not None
        if not was_chunked:
            warnings.append("Transfer-Encoding chunked declared but the body is not chunked; taken as is")
        data = decoded
        extra = [c for c in te[:-1] if c != "chunked"]
    elif te:
        extra = [c for c in te if c != "chunked"]
    codings = _codings(ce_values) + extra
    if len(data) > max_bytes:
        return BodyResult(
            payload=None,
            error_kind="too-large",
            error=f"payload of {len(data)} bytes is over the cap of {max_bytes} bytes",
        )
    for i, coding in enumerate(reversed(codings)):
        res = decode_content(data, coding, max_bytes=max_bytes)
        if res.payload is None:
            if i == 0 and res.error_kind == "content-encoding" and sniff_unknown_mime_type(data).startswith("text/"):
                return BodyResult(payload=None, error_kind=res.error_kind, error=res.error, identity=data)
            return res
        if res.warning:
            warnings.append(res.warning)
        data = res.payload
    return BodyResult(payload=data, warning="; ".join(warnings) or None)
