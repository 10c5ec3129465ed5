"""The small public API: decode one payload, read the records of one archive, name a rule set.

Contract. Three entry points, exported by the package (``import redecode``):

=========================================  ===================================================
need                                       function
=========================================  ===================================================
the text of one HTTP payload, and how its  :func:`decode_payload` -> :class:`DecodedPayload`
encoding was chosen
every record of a WARC, ARC or raw-        :func:`redecode.archive.iter_records` (as
response Parquet file                      ``redecode.iter_records``)
a shipped rule set by name                 :func:`redecode.rules.get_rules` (as
                                           ``redecode.get_rules``)
=========================================  ===================================================

:func:`decode_payload` makes the same decision and text as the job makes for a record with that
payload, Content-Type and URL (:func:`redecode.row.record_row`): the text kind (``html``,
``xml``, ``text``) comes from the Content-Type, else from sniffing the payload, as there.

    >>> import redecode
    >>> page = "<p>Le café de la gare est fermé à cause des grèves.</p>".encode("windows-1252")
    >>> result = redecode.decode_payload(page, content_type="text/html; charset=utf-8",
    ...                                  url="http://example.fr/")
    >>> result.text
    '<p>Le café de la gare est fermé à cause des grèves.</p>'
    >>> result.decision.encoding, result.decision.source, result.decision.browser_encoding
    ('windows-1252', 'validated', 'UTF-8')

The header said UTF-8 and a browser would have believed it (four U+FFFD); the default rules
(``author-2026.12``) found that windows-1252 decodes the bytes cleanly and say so in
``decision.validation``. The browser rules show what a browser showed:

    >>> shown = redecode.decode_payload(page, content_type="text/html; charset=utf-8",
    ...                                 rules="browser-2026.11")
    >>> shown.decoded.errors, shown.decision.source, shown.decision.confidence
    (4, 'transport', 'certain')

Deviations: none.
"""

from __future__ import annotations

from collections.abc import Sequence

from .dataclass_code import dataclass
from .mime import extract_mime_type, sniff_unknown_mime_type, text_kind
from .procedures import Decoded
from .rules import DEFAULT_RULES, Rules, as_rules
from .sniff import Decision

__all__ = ["DecodedPayload", "decode_payload"]

#: The text kinds the decision procedures take (:func:`redecode.mime.text_kind`).
KINDS = ("html", "xml", "text")


@dataclass(frozen=True, slots=True, kw_only=True)
class DecodedPayload:
    """What :func:`decode_payload` returns: the text and how it was made.

    ``text``: the decoded text (str, characters; no BOM); ``decision``: how the encoding was
    chosen (:class:`redecode.sniff.Decision`: ``encoding`` as an Encoding Standard name,
    ``source``, ``confidence``, every declaration seen, ``browser_encoding``, ``validation``);
    ``decoded``: how the text was made (:class:`redecode.procedures.Decoded`: the encoding
    actually used, which a BOM can override, the decoder, ``errors`` = number of U+FFFD inserted,
    ``bom_removed``); ``kind``: the text kind decided for (``html``, ``xml`` or ``text``);
    ``rules``: the rule set that decided (its ``name`` and ``digest`` are what a row records).
    """

    text: str
    decision: Decision
    decoded: Decoded
    kind: str
    rules: Rules


def decode_payload(
    payload: bytes | bytearray | memoryview,
    *,
    content_type: str | Sequence[str] | None = None,
    url: str | None = None,
    rules: str | Rules = DEFAULT_RULES,
    kind: str | None = None,
) -> DecodedPayload:
    """Decide the encoding of one HTTP payload and decode it, as the job does for a record.

    ``payload``: the HTTP entity body (bytes, after any transfer and content coding is undone),
    e.g. :attr:`redecode.record.ArchiveRecord.payload`. ``content_type``: the Content-Type header
    value, or every Content-Type value in header order (Fetch "extract a MIME type" combines
    them), or None. ``url``: the target URI; its top-level domain is the detector's hint and
    picks the default encoding (HTML Standard "determining the character encoding", step "the
    implementation-defined or user-specified default"). ``rules``: a rule set or the name of a
    shipped one (:data:`redecode.rules.RULES`; default :data:`redecode.rules.DEFAULT_RULES`).
    ``kind``: ``html``, ``xml`` or ``text``; None: from the Content-Type's MIME type, else from
    MIME Sniffing's "rules for identifying an unknown MIME type" over the payload.

    Raises ``TypeError`` for a payload that is not bytes-like (a ``str`` is already text),
    ``KeyError`` for an unknown rules name (the message lists the known ones), ``ValueError`` for
    an unknown ``kind`` or a payload whose MIME type is not text (``image/png``: the job skips
    such records as ``not-text``; pass ``kind`` to decode it anyway). Never raises for the
    payload's bytes themselves.

    >>> r = decode_payload(b"\\xef\\xbb\\xbf<p>caf\\xc3\\xa9</p>", content_type="text/html; charset=windows-1252")
    >>> r.text, r.decision.source, r.decoded.bom_removed
    ('<p>café</p>', 'bom', True)
    """
    if isinstance(payload, str):
        raise TypeError("payload must be bytes (the archived body), not str: it is already text")
    if not isinstance(payload, bytes):
        # memoryview, not bytes(): bytes(12) would be twelve zero bytes; TypeError for what is not
        # bytes-like, with Python's message
        payload = memoryview(payload).tobytes()
    values: tuple[str, ...]
    if content_type is None:
        values = ()
    elif isinstance(content_type, str):
        values = (content_type,)
    else:
        values = tuple(content_type)
    resolved = as_rules(rules)
    if kind is None:
        mime, _ = extract_mime_type(values)
        essence = mime.essence if mime is not None else sniff_unknown_mime_type(payload)
        kind = text_kind(essence)
        if kind is None:
            raise ValueError(f"not text: the payload's MIME type is {essence}; pass kind='html', 'xml' "
                             "or 'text' to decode it anyway")
    elif kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    decision, decoded = resolved.decide_and_decode(payload, content_type=values, url=url, kind=kind)
    return DecodedPayload(text=decoded.text, decision=decision, decoded=decoded, kind=kind,
                          rules=resolved)
