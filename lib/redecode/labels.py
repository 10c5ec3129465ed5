"""Encoding Standard labels: "get an encoding".

Spec concept -> function:

============================================  =======================
Encoding Standard                             here
============================================  =======================
"get an encoding" (label -> encoding)         :func:`get_encoding`
the encodings' names (``encodings.json``)     :data:`ENCODING_NAMES`
============================================  =======================

The table is generated from whatwg/encoding's ``encodings.json`` (revision
:data:`WHATWG_ENCODING_REVISION`) into :mod:`redecode._tables` by ``tools/gen_tables.py``.

Deviations: none.
"""

from __future__ import annotations

from ._tables import ENCODING_NAMES as _NAMES
from ._tables import LABELS as _LABELS
from ._tables import WHATWG_ENCODING_REVISION

__all__ = ["ENCODING_NAMES", "LABELS", "WHATWG_ENCODING_REVISION", "get_encoding"]

#: The 40 canonical encoding names of the Encoding Standard, in ``encodings.json`` order
#: (e.g. ``"UTF-8"``, ``"windows-1252"``, ``"Shift_JIS"``, ``"UTF-16LE"``, ``"replacement"``).
ENCODING_NAMES: tuple[str, ...] = _NAMES

#: Every label (lower case, no whitespace) -> canonical name. Read-only by convention.
LABELS: dict[str, str] = _LABELS

# ASCII whitespace in the Infra Standard's sense: TAB, LF, FF, CR, SPACE. Not VT, not NBSP, not
# U+0085, which Python's ``str.strip()`` would also remove.
_ASCII_WS = "\t\n\f\r "
_ASCII_WS_BYTES = b"\t\n\f\r "


def get_encoding(label: str | bytes) -> str | None:
    """Encoding Standard "get an encoding": the canonical name for *label*, or None.

    *label* is a ``str``, or ``bytes`` as found in a header or a document (only ASCII bytes can
    match). Leading and trailing ASCII whitespace (TAB, LF, FF, CR, SPACE) is removed, and the
    comparison is ASCII case-insensitive: ``" Latin1\\n"`` -> ``"windows-1252"``,
    ``"utf-16"`` -> ``"UTF-16LE"``, ``"x-user-defined"`` -> ``"x-user-defined"``,
    ``"utf-7"`` -> None. Non-ASCII characters never match (so U+212A KELVIN SIGN, which Python
    lower-cases to ``k``, does not turn ``"\\u212aoi8-r"`` into KOI8-R). Never raises for ``str`` or
    ``bytes`` input.
    """
    if type(label) is str or type(label) is bytes:
        # Pages and headers repeat a few dozen labels: cache the answer per short label (a str and
        # a bytes label are different keys; the answer depends only on the characters).
        enc = _CACHE.get(label, _MISS)
        if enc is _MISS:
            enc = _lookup(label)
            if len(label) <= 64 and len(_CACHE) < _CACHE_MAX:
                _CACHE[label] = enc
        return enc  # type: ignore[return-value]
    return _lookup(label)


def _lookup(label: str | bytes) -> str | None:
    """Uncached :func:`get_encoding`."""
    if isinstance(label, (bytes, bytearray, memoryview)):
        raw = bytes(label).strip(_ASCII_WS_BYTES)
        if not raw.isascii():
            return None
        key = raw.decode("ascii")
    else:
        key = label.strip(_ASCII_WS)
        if not key.isascii():
            return None
    # str.lower() on an ASCII-only string only maps A-Z to a-z.
    return _LABELS.get(key.lower())


_MISS = object()
_CACHE: dict[str | bytes, str | None] = {}
_CACHE_MAX = 4096
