"""Top-level domains: the one of a record's URL (:func:`tld_of`, a row's ``tld``, the detectors' hint)
and the browser's default encoding by top-level domain (:data:`TLD_DEFAULTS`, step 8 of
:mod:`redecode.sniff`, which re-exports these names).

Apart from :mod:`redecode.sniff` so that a row and a rule set's digest (the ``browser``
procedure's versions name the table) need no more of the decision than this (issue 27: a run's
start-up).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from . import lazy as _lazy

_native = _lazy.module(__name__, "_native", "redecode.native")

__all__ = ["DEFAULT_ENCODING", "TLD_DEFAULTS", "default_encoding", "tld_of"]

#: The fallback for a page that declares nothing and is not decided by the steps before, per
#: top-level domain (lower case, no dot). Measured in Chromium (issue "Browser-exact encoding
#: decisions", step 8): .jp Shift_JIS, .ru windows-1251, .cn GBK, .tw Big5, .kr EUC-KR; every
#: other TLD windows-1252. The HTML Standard's suggested-defaults table is keyed by *user
#: locale*, not TLD, and differs in places (zh-CN -> GB18030, not GBK; it also lists e.g.
#: uk/be/bg/kk -> windows-1251, th -> windows-874, pl/hu -> ISO-8859-2...); those TLDs were not
#: measured, so they are not claimed here and get windows-1252.
TLD_DEFAULTS: dict[str, str] = {
    "jp": "Shift_JIS",
    "ru": "windows-1251",
    "cn": "GBK",
    "tw": "Big5",
    "kr": "EUC-KR",
}
#: The default for every TLD not in :data:`TLD_DEFAULTS` (and for records without a URL).
DEFAULT_ENCODING = "windows-1252"


def tld_of(url: str | None) -> str | None:
    """The top-level domain of *url*'s host, lower case without the dot (``"jp"``), or None for
    no URL, no host, an IP address or a single-label host. ``"http://WWW.Example.CO.JP:80/x"``
    -> ``"jp"``. A URL without a scheme (``"example.jp/x"``) is read as a host first. Never
    raises."""
    if not url:
        return None
    # Fastest path, one regular expression for the commonest shape: a scheme without ":", then a
    # host of dot-separated LDH labels whose last label starts with a letter, an optional final
    # dot and port, then the end or "/", "?", "#". The next path gives the same answer for
    # these (the last label, lower-cased); tests/test_sniff_fast.py compares the two. With the
    # compiled core, its twin _core.url_tld (the same answers, also tests/test_sniff_fast.py).
    core = _native.core
    if core is not None and type(url) is str:
        tld = core.url_tld(url)
        if tld is not None:
            return tld
    else:
        m = _SIMPLE_URL_TLD.match(url)
        if m is not None:
            return m.group(1).lower()
    # Fast path for the usual "scheme://host[:port]/..." without userinfo or IPv6 brackets.
    k = url.find("://")
    if 0 < k < 16:
        start = k + 3
        end = len(url)
        for ch in "/?#":
            e = url.find(ch, start, end)
            if e >= 0:
                end = e
        host = url[start:end]
        if host and "@" not in host and "[" not in host and "\\" not in host and host.isascii():
            host = host.split(":", 1)[0].rstrip(".").lower()
            dot = host.rfind(".")
            if dot < 0:
                return None
            tld = host[dot + 1 :]
            return tld if tld and not tld.isdigit() else None
    u = url.strip().strip("<>")
    if "//" not in u:
        u = "//" + u
    try:
        host = urlsplit(u).hostname
    except ValueError:
        return None
    if not host:
        return None
    host = host.rstrip(".")
    if "." not in host or ":" in host:
        return None
    tld = host.rsplit(".", 1)[1]
    if not tld or tld.isdigit():
        return None
    return tld


# ASCII classes only (no re.IGNORECASE, whose Unicode folding would let U+212A KELVIN SIGN match
# "k"), and \Z, not $ (which also matches before a final newline).
_SIMPLE_URL_TLD = _lazy.pattern(__name__, "_SIMPLE_URL_TLD",
    r"[^:]{1,15}://(?:[A-Za-z0-9-]+\.)+([A-Za-z][A-Za-z0-9-]*)\.?(?::[0-9]*)?(?:[/?#]|\Z)"
)


def default_encoding(tld: str | None) -> str:
    """The ``default`` step's encoding for *tld* (:data:`TLD_DEFAULTS`, else windows-1252)."""
    if tld is None:
        return DEFAULT_ENCODING
    return TLD_DEFAULTS.get(tld.lower(), DEFAULT_ENCODING)
