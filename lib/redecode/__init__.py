"""warc-redecode: re-decode archived web pages into the text their authors wrote, and say what a browser showed.

The public API (:mod:`redecode.api`): :func:`decode_payload` decides one payload's encoding and
decodes it, :func:`iter_records` reads every record of a WARC, ARC or raw-response Parquet file,
:func:`get_rules` names a shipped rule set. Together they make what the job makes for one record (paths are relative to a checkout of the project):

    >>> import redecode
    >>> records = redecode.iter_records("sample_warcs/sample-crawl-00000.warc.gz")
    >>> record = next(r for r in records if r.record_type == "response")
    >>> record.target_uri, record.offset, record.content_type_values
    ('https://www.qq.com/', 997, ['text/html; charset=GB2312'])
    >>> result = redecode.decode_payload(record.payload, content_type=record.content_type_values,
    ...                                  url=record.target_uri)
    >>> result.decision.encoding, result.decision.source, result.decision.confidence
    ('GBK', 'transport', 'certain')
    >>> rules = redecode.get_rules("browser-2026.11")
    >>> redecode.decode_payload(b"<meta charset=koi8-r><p>\\xf0\\xd2\\xc9\\xd7\\xc5\\xd4", rules=rules).text
    '<meta charset=koi8-r><p>Привет'

The data flows one way: archive -> record -> decision -> text -> row -> Parquet. One module per
concept (docs/DESIGN.md has the table and where to change what): ``labels``, ``decode``, ``mime``,
``prescan``, ``sniff``, ``tld``, ``detect`` (the decision and the decoders); ``procedures``,
``rules``, ``params``, ``equivalence`` (rule sets); ``storage``, ``record``, ``warc``,
``rawparquet``, ``archive``, ``inputs`` (reading); ``schema``, ``writer``, ``row`` (rows and
Parquet); ``executors``, ``rundir``, ``job``, ``spark``, ``backfill``, ``diff``, ``query`` (runs
and their outputs); ``api`` (the entry points above).
"""

__version__ = "0.1.0"

#: The public names and the module each comes from. They are imported on first use (PEP 562
#: module ``__getattr__``): ``import redecode`` (and ``redecode --version``, which reads
#: ``__version__``) loads no decoder, detector, pyarrow or archive reader.
_EXPORTS = {
    "DecodedPayload": "api",
    "decode_payload": "api",
    "ArchiveError": "archive",
    "ArchiveRecord": "archive",
    "iter_records": "archive",
    "Decoded": "procedures",
    "DEFAULT_RULES": "rules",
    "RULES": "rules",
    "Rules": "rules",
    "get_rules": "rules",
    "Decision": "sniff",
}


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'redecode' has no attribute {name!r}")
    import importlib  # noqa: PLC0415

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # (later lookups do not come here)
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "DEFAULT_RULES",
    "RULES",
    "ArchiveError",
    "ArchiveRecord",
    "Decision",
    "Decoded",
    "DecodedPayload",
    "Rules",
    "__version__",
    "decode_payload",
    "get_rules",
    "iter_records",
]
