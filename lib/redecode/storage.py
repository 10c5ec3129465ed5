"""Object storage: ``s3://`` (and any other fsspec filesystem) for inputs, outputs and manifests.

The only module that imports :mod:`fsspec` (and, through it, s3fs). Local paths pass through
unchanged to the ``os`` and ``open`` calls they would have made, so the default install (no ``[s3]``
extra) never imports fsspec and behaves exactly as before.

| need | function |
|---|---|
| is this a URL of a remote filesystem? | `is_remote` |
| the fsspec filesystem of a URL, configured from the AWS environment | `filesystem`, `storage_options` |
| stream an archive, or read one record by offset (ranged GETs, never a whole download) | `open_input` |
| the bytes of the records an index or a prior run locates (a local ``pread``, ranged GETs) | `read_range`, `read_ranges` |
| size, existence, listing | `size`, `exists`, `listdir` |
| what a completion marker records about an input (size, mtime, hash of its ends; an object's ETag) | `fingerprint` |
| whether objects changed, without reading them: their listing (size, ETag) | `find_details`, `stat_objects`, `etag_of` |
| whole small files (markers, manifests, ``@list`` files) | `read_bytes`, `write_bytes` |
| the temporary name a local file is written under before its rename | `temp_path`, `TMP_PREFIX` |
| publish a finished local file under its final name | `publish_file` |
| what a URL names: file, "directory" (prefix), glob matches, every file under a prefix | `isfile`, `isdir`, `glob`, `find` |
| bytes fetched from remote storage (for backfill's "bytes read" and tests) | `STATS`, `ReadStats` |
| transient errors of a remote store retried (with backoff), and counted | `retrying`, `counting_retries`, `RETRIES`, `RETRY_WAIT` |
| a file inside a WACZ (a zip): ``CRAWL.wacz#archive/data.warc.gz``, read where it lies | `split_member`, `zip_names`, `is_plain_file` |

Files inside a WACZ. A path ``<container>.wacz#<member>`` (the last ``.wacz#`` splits it, any case)
names the member of the zip ``<container>.wacz`` (local or a URL): :func:`open_input`,
:func:`read_range`, :func:`read_ranges`, :func:`size`, :func:`exists` and :func:`fingerprint` read it
in place. A member stored without compression (as WACZ 1.1.1 asks of its WARCs) is a window of the
container's bytes: ranged reads of the container (one ranged GET per record for a URL); a
compressed member is inflated from its start (slower; :func:`open_input` only, through
:mod:`zipfile`). Its fingerprint is the container's ``stat`` (mtime, or an object's ETag) with the
member's size and CRC-32 from the zip directory.

Atomicity. A reader must never see a part or marker under its final name before it is complete.
Locally that is a temporary name and ``os.replace`` (same directory, so same filesystem). On S3 a
PUT (and a multipart upload, at ``CompleteMultipartUpload``) is atomic: the object appears whole or
not at all, and an overwrite replaces it whole. So remote outputs are written locally first and
uploaded once complete (`publish_file`); nothing is ever streamed to a final remote name.

Retries. Every call to a remote store goes through :func:`retrying`: an error a store or the
network means as temporary (S3's ``SlowDown`` and ``ServiceUnavailable``, 500s, throttling, a
connection refused, reset or timed out) is retried after a wait that starts at
``REDECODE_RETRY_WAIT`` seconds (default 0.5), doubles at each attempt (at most 30 s, with random
jitter, as AWS advises), up to ``REDECODE_RETRIES`` times (default 5; 0 turns retries off); botocore's
and s3fs's own retries are turned off, so that these are the only ones and each is counted
(:func:`counting_retries`: a run's closing line says how many). What still fails then is raised: an
:class:`OutputError` for a write (a command's exit 4), the error itself for a read.

Credentials and endpoint (S3). botocore reads ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``,
``AWS_SESSION_TOKEN``, ``AWS_PROFILE`` and the config files itself; `storage_options` adds the
endpoint from ``AWS_ENDPOINT_URL_S3`` or else ``AWS_ENDPOINT_URL`` (S3-compatible stores: MinIO,
Ceph, moto) and the region from ``AWS_DEFAULT_REGION`` or ``AWS_REGION``. ``REDECODE_S3_ANON=1``
reads public buckets without credentials (docs/object-storage.md).

Deviations: none from S3 semantics; listing is eventually consistent on some S3-compatible stores
(AWS S3 itself is strongly consistent since 2020), which only matters for resume, and a missed
marker there costs a redone shard, never a duplicate row (parts have deterministic names).
"""

from __future__ import annotations

import contextlib
import errno as _errno
import io
import os
import posixpath
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from . import lazy as _lazy
from .dataclass_code import dataclass

# (used by retries of remote reads and by copies of local files, not by every run: imported then)
random = _lazy.module(__name__, "random", "random")
shutil = _lazy.module(__name__, "shutil", "shutil")

__all__ = [
    "RETRIES",
    "RETRY_WAIT",
    "STATS",
    "OutputError",
    "counting_retries",
    "create_bytes",
    "retrying",
    "store_error",
    "unreachable",
    "RangedReader",
    "ReadStats",
    "etag_of",
    "exists",
    "is_plain_file",
    "split_member",
    "zip_names",
    "find",
    "find_details",
    "fingerprint",
    "known_while_read",
    "glob",
    "isdir",
    "isfile",
    "filesystem",
    "is_remote",
    "join",
    "listdir",
    "makedirs",
    "open_input",
    "publish_file",
    "read_bytes",
    "read_range",
    "read_ranges",
    "remember",
    "remove",
    "size",
    "stat_objects",
    "temp_path",
    "storage_options",
    "write_bytes",
    "os_error_message",
    "path_text",
]

#: First ranged GET after a seek (bytes): small, so that reading one record by offset fetches
#: little more than the record (a per-record gzip member of an HTML page is a few KiB to ~100 KiB;
#: warcio reads 16 KiB at a time, so a record costs one to three GETs).
MIN_BLOCK = 16 * 1024
#: Largest ranged GET (bytes): sequential reads double the block up to this, so streaming a 1 GiB
#: WARC costs ~130 GETs, each long enough to run at the connection's full bandwidth.
MAX_BLOCK = 8 * 1024 * 1024

_LOCAL_SCHEMES = ("file",)

#: Prefix and suffix of the temporary name a local file is written under before it is renamed into
#: place: ``.tmp-<name>.tmp``. The suffix keeps a part being written (or left by a killed command)
#: out of ``DIR/*.parquet``, the glob DuckDB users query run directories with (DuckDB's glob, unlike
#: the shell's, matches names that start with a dot).
TMP_PREFIX = ".tmp-"
TMP_SUFFIX = ".tmp"


class OutputError(OSError):
    """Writing output failed for a reason of the operating system (no space left, no inodes left,
    quota, read-only file system, permissions, I/O error): ``errno``, ``strerror`` and
    ``filename`` (the file or directory being written) as in :class:`OSError`. Raised by the
    writers of a run directory (:func:`write_bytes`, :func:`publish_file`, :func:`makedirs`,
    :class:`redecode.writer.PartWriter`) instead of the bare error, so a command tells it from an
    input that cannot be read (that is the input's outcome, never an exception)."""

    def __str__(self) -> str:
        return os_error_message(self)


#: What to do about an OS error while writing, by errno (the rest: fix the cause and run again).
_ADVICE = {
    _errno.ENOSPC: "free space or inodes on that file system (or write to another --out)",
    _errno.EDQUOT: "raise the disk quota or free space (or write to another --out)",
    _errno.EROFS: "the file system is mounted read-only: write to another --out",
    _errno.EACCES: "make the directory writable for this user, or write to another --out",
    _errno.EPERM: "make the directory writable for this user, or write to another --out",
    _errno.EFBIG: "a file grew past the size limit (ulimit -f or the file system's): raise it",
}


def os_error_message(exc: OSError, action: str = "cannot write") -> str:
    """One line for an OS error: ``cannot write PATH: No space left on device (errno 28,
    ENOSPC); free space ...``: the path, the error, its errno number and name, what to do."""
    code = exc.errno
    name = _errno.errorcode.get(code, "") if code is not None else ""
    reason = exc.strerror or (exc.args[0] if exc.args else type(exc).__name__)
    where = f" {exc.filename}" if exc.filename is not None else ""
    number = f" (errno {code}{', ' + name if name else ''})" if code is not None else ""
    advice = _ADVICE.get(code, "fix the cause") if code is not None else "fix the cause"
    return f"{action}{where}: {reason}{number}; {advice}"


def _store_error(exc: BaseException, path: str) -> OutputError:
    """An error of a remote store's client that is not an :class:`OSError` (botocore's, aiohttp's),
    when writing ``path``, as an :class:`OutputError` (EIO, its message in one line)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return OutputError(_errno.EIO, f"{type(exc).__name__}: {text[:300]}", path)


def output_error(exc: OSError, path: str) -> OutputError:
    """``exc``, an error writing ``path``, as an :class:`OutputError` (the errno of ``exc``; its
    file name if it has one, else ``path``). pyarrow puts the errno in ``errno`` but not the file
    name, and writes "Detail: [errno 28] ..." into its message."""
    if isinstance(exc, OutputError):
        return exc
    # the system's words for the errno (pyarrow's strerror is a sentence of its own)
    reason = os.strerror(exc.errno) if exc.errno is not None else (exc.strerror or str(exc))
    return OutputError(exc.errno, reason, exc.filename if exc.filename is not None else path)


def store_error(exc: BaseException, path: str) -> OutputError:
    """``exc``, an error met working on ``path`` of the output (writing it, or reading back what
    the run wrote there: its lock, a marker) that lasted past :func:`retrying`'s retries, as an
    :class:`OutputError` (exit 4, one line): an :class:`OSError` by :func:`output_error`, an error
    of a store's client that is not one (botocore's ``EndpointConnectionError``: the endpoint is
    gone) as EIO with its message."""
    if isinstance(exc, OSError):
        return output_error(exc, path)
    return _store_error(exc, path)


def output_error_of_message(message: str, path: str) -> OutputError:
    """An error writing ``path`` that a library reported as text only (DuckDB's ``IO Error: Could
    not write file "...": No space left on device``) as an :class:`OutputError`: the errno whose
    words (``os.strerror``) the text holds, else EIO."""
    for code in (_errno.ENOSPC, _errno.EDQUOT, _errno.EFBIG, _errno.EROFS, _errno.EACCES, _errno.EPERM, _errno.EIO):
        if os.strerror(code) in message:
            return OutputError(code, os.strerror(code), path)
    return OutputError(_errno.EIO, " ".join(message.split())[:300], path)


def path_text(path: str) -> str:
    """``path`` as text that is valid UTF-8, for a Parquet column, the ``runs`` view and a part's
    file name: unchanged when it is (nearly always); else each byte that was not UTF-8 (held by
    Python as a lone surrogate, ``surrogateescape``) written as ``\\xNN``, as Python's
    ``backslashreplace`` does: ``caf\\xe9.warc.gz`` for the Latin-1 name ``caf<E9>.warc.gz``.
    The exact name stays in the JSON files (markers, ``_run.json``), where such a byte is the
    escape ``\\udcNN`` (Python's ``json`` reads it back to the same name)."""
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def split_member(path: str | os.PathLike[str]) -> tuple[str, str] | None:
    """``(container, member)`` for a path naming a file inside a WACZ
    (``crawl.wacz#archive/data.warc.gz`` -> ``("crawl.wacz", "archive/data.warc.gz")``; the last
    ``.wacz#`` splits, any case), else None."""
    p = os.fspath(path)
    i = p.lower().rfind(".wacz#")
    if i < 0 or i + 6 >= len(p):
        return None
    return p[: i + 5], p[i + 6 :]


def is_plain_file(path: str | os.PathLike[str]) -> bool:
    """True for a local file of its own (not a URL, not a member of a WACZ): what readers that
    need a file descriptor (FastWARC, ``pread``) can open."""
    return not is_remote(path) and split_member(path) is None


def is_remote(path: str | os.PathLike[str]) -> bool:
    """True for a URL with a scheme other than ``file`` (``s3://b/k``, ``gs://...``,
    ``https://...``), and for a member of a WACZ that is one."""
    p = os.fspath(path)
    scheme, sep, _ = p.partition("://")
    return (
        bool(sep)
        and bool(scheme)
        and all(c.isalnum() or c in "+.-" for c in scheme)
        and scheme.lower() not in _LOCAL_SCHEMES
    )


def _local(path: str) -> str:
    return path[len("file://"):] if path.startswith("file://") else path


def local_path(path: str | os.PathLike[str]) -> str:
    """``path`` with a ``file://`` scheme removed (``file:///tmp/x`` -> ``/tmp/x``); other paths
    and URLs unchanged."""
    return _local(os.fspath(path))


def local_directory(path: str | os.PathLike[str], command: str, hint: str = "") -> str:
    """The local directory an ``--out`` names (:func:`local_path`), for commands that write only
    local directories. Raises :class:`ValueError` naming ``command`` (and ``hint``) for a URL of
    another filesystem, before anything is created."""
    p = local_path(path)
    if is_remote(p):
        raise ValueError(f"--out {p}: {command} writes a local directory, not a URL{hint}")
    return p


# ---------------------------------------------------------------------------------------------
# filesystems


def storage_options(protocol: str) -> dict:
    """fsspec options for ``protocol`` taken from the environment (see the module docstring)."""
    if protocol not in ("s3", "s3a"):
        return {}
    opts: dict = {}
    endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    if endpoint:
        opts["endpoint_url"] = endpoint
    region = os.environ.get("AWS_DEFAULT_REGION") or os.environ.get("AWS_REGION")
    if region:
        opts["client_kwargs"] = {"region_name": region}
    if os.environ.get("REDECODE_S3_ANON") == "1":
        opts["anon"] = True
    # one attempt per call at botocore's level (and s3fs's: filesystem()): retrying() retries
    opts["config_kwargs"] = {"retries": {"total_max_attempts": 1, "mode": "standard"}}
    return opts


# ---------------------------------------------------------------------------------------------
# retries

T = TypeVar("T")

#: Retries of a remote call that failed for a transient reason (``REDECODE_RETRIES``; 0: none).
RETRIES = 5
#: Seconds waited before the first retry (``REDECODE_RETRY_WAIT``); doubled at each, at most 30.
RETRY_WAIT = 0.5
_MAX_WAIT = 30.0

#: errno values a store or the network gives for something temporary: s3fs makes SlowDown and
#: ServiceUnavailable (503) EBUSY, InternalError (500) EREMOTEIO.
_TRANSIENT_ERRNOS = frozenset(
    getattr(_errno, name) for name in ("EBUSY", "EREMOTEIO", "ETIMEDOUT", "ECONNRESET", "ECONNREFUSED", "ECONNABORTED",
                                       "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "ENETDOWN", "EAGAIN")
    if hasattr(_errno, name))
#: Exception classes of botocore, aiobotocore and aiohttp (by name: not imported here) that mean the
#: connection, not the request, failed.
_TRANSIENT_CLASSES = frozenset({
    "EndpointConnectionError", "ConnectionClosedError", "ReadTimeoutError", "ConnectTimeoutError",
    "ConnectionError", "ProxyConnectionError", "ResponseStreamingError", "IncompleteReadError",
    "ClientPayloadError", "ServerDisconnectedError", "ClientConnectionError", "ClientOSError",
    "ServerTimeoutError", "HTTPClientError",
})
#: S3 error codes that mean "try again later" (botocore's ClientError, when s3fs passes one on).
_TRANSIENT_CODES = frozenset({"SlowDown", "Throttling", "ThrottlingException", "RequestTimeout", "InternalError",
                              "ServiceUnavailable", "RequestLimitExceeded", "500", "502", "503", "504"})


def _setting(name: str, default: float) -> float:
    try:
        return max(float(os.environ[name]), 0.0)
    except (KeyError, ValueError):
        return default


def _transient(exc: BaseException) -> bool:
    if isinstance(exc, (FileNotFoundError, FileExistsError, PermissionError, IsADirectoryError, NotADirectoryError)):
        return False
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return True
    if isinstance(exc, OSError) and exc.errno in _TRANSIENT_ERRNOS:
        return True
    if {c.__name__ for c in type(exc).__mro__} & _TRANSIENT_CLASSES:
        return True
    code = (getattr(exc, "response", None) or {}).get("Error", {}).get("Code")
    return code in _TRANSIENT_CODES


def unreachable(exc: BaseException) -> bool:
    """Whether ``exc``, an error of a remote store's client that is not an :class:`OSError`
    (botocore's ``EndpointConnectionError``, aiohttp's ...), means the store or the network failed
    (what :func:`retrying` retries: a connection refused or lost, a timeout, SlowDown), not the
    request: raised past the retries, the store stayed unreachable (exit 4, not a bug)."""
    return not isinstance(exc, OSError) and _transient(exc)


class _Retries:
    """The retries counted in one scope (:func:`counting_retries`)."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0


_COUNTERS: list[_Retries] = []  # the scopes open in this process, innermost last
_COUNTERS_LOCK = threading.Lock()


@contextmanager
def counting_retries() -> Iterator[_Retries]:
    """Count the retries :func:`retrying` makes in this process while the block runs, in
    ``counter.count``; a scope opened inside another takes its retries from the outer one (a
    shard's from its run's), so that nothing is counted twice."""
    counter = _Retries()
    with _COUNTERS_LOCK:
        _COUNTERS.append(counter)
    try:
        yield counter
    finally:
        with _COUNTERS_LOCK:
            _COUNTERS.remove(counter)


def retrying(call: Callable[[], T], what: str = "") -> T:
    """``call()``, called again after a transient error (see the module docstring) until it
    succeeds or :data:`RETRIES` retries (``REDECODE_RETRIES``) failed too; then the last error is
    raised. ``what`` names the call in the debug log."""
    retries = int(_setting("REDECODE_RETRIES", RETRIES))
    wait = _setting("REDECODE_RETRY_WAIT", RETRY_WAIT)
    attempt = 0
    while True:
        try:
            return call()
        except Exception as exc:
            if attempt >= retries or not _transient(exc):
                raise
            attempt += 1
            with _COUNTERS_LOCK:
                if _COUNTERS:
                    _COUNTERS[-1].count += 1
            pause = min(wait * 2 ** (attempt - 1), _MAX_WAIT) * random.uniform(0.5, 1.0)
            import logging  # noqa: PLC0415

            logging.getLogger(__name__).debug("%s: %s; retry %d of %d in %.1f s", what or "remote call",
                                              " ".join(str(exc).split())[:200], attempt, retries, pause)
            time.sleep(pause)


#: How to get the [s3] extra (there is no PyPI release), for ImportError messages.
_S3_INSTALL = "pip install -e '.[s3]'"


def filesystem(url: str):
    """``(fs, path_in_fs)`` for a remote URL; fsspec caches the filesystem instance per options.

    Raises :class:`ImportError` naming the extra to install when fsspec (or the protocol's
    implementation, e.g. s3fs) is missing.
    """
    try:
        import fsspec  # noqa: PLC0415 - the [s3] extra; local runs never import it
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(f"{url}: remote paths need the [s3] extra; there is no PyPI release: "
                          f"install it from the checkout with {_S3_INSTALL}") from exc
    protocol = url.split("://", 1)[0].lower()
    try:
        fs, path = fsspec.core.url_to_fs(url, **storage_options(protocol))
    except ImportError as exc:
        raise ImportError(f"{url}: {exc} (the [s3] extra: install it from the checkout with {_S3_INSTALL})") from exc
    if hasattr(fs, "retries"):
        fs.retries = 1  # s3fs's own retries of connection errors: retrying() does them, counted
    return fs, path


def join(base: str, *names: str) -> str:
    """``base`` joined with ``names``: ``/`` for URLs, :func:`os.path.join` for local paths."""
    if is_remote(base):
        return posixpath.join(base, *names)
    return os.path.join(base, *names)


def size(path: str) -> int:
    """Size of a file in bytes. Raises :class:`FileNotFoundError` when it does not exist."""
    if split_member(path) is not None:
        return _member(path).size
    if not is_remote(path):
        return os.path.getsize(_local(path))
    known = _KNOWN.get(path)
    if known is not None:
        return known["size"]
    fs, p = filesystem(path)
    return int(retrying(lambda: fs.size(p), f"size of {path}"))


#: Objects whose listing entry this process was given (:func:`remember`): URL -> size, ETag,
#: LastModified.
_KNOWN: dict[str, dict] = {}


def remember(url: str, entry: dict) -> None:
    """Take ``entry``, the listing's entry of object ``url`` (:func:`find_details`: ``size``,
    ``ETag``, ``LastModified``), as what :func:`size`, :func:`fingerprint` and :func:`open_input`
    would ask the store: a task reading thousands of small objects a run listed makes no HEAD
    request for them. The entry is what the store said when the run listed them; an object changed
    since is read as it is now, its marker records the listing's ETag, and the next run reads it
    again (its ETag differs)."""
    if entry and entry.get("size") is not None:
        _KNOWN[url] = {"size": int(entry["size"]), "etag": _etag(entry),
                       "mtime": entry.get("LastModified") or entry.get("mtime")}


@contextlib.contextmanager
def known_while_read(path: str, state: dict | None) -> Iterator[None]:
    """While an object is read: its size and ETag as :func:`fingerprint` just took them (one HEAD)
    stand for what :func:`size`, :func:`read_ranges` and :func:`open_input` would ask the store
    again, so reading it costs its GETs and no more HEAD requests; forgotten when the block ends
    (a later run in this process asks again). Nothing for a local file, a WACZ member, an object
    already known (:func:`remember`) or a state without an ETag."""
    if (state is None or state.get("etag") is None or state.get("size") is None or not is_remote(path)
            or split_member(path) is not None or path in _KNOWN):
        yield
        return
    etag = str(state["etag"])
    stamp = str(state.get("mtime") or "")
    _KNOWN[path] = {"size": int(state["size"]), "etag": etag,
                    "mtime": stamp[: -len(etag)].strip() if stamp.endswith(etag) else stamp or None}
    try:
        yield
    finally:
        _KNOWN.pop(path, None)


#: Bytes hashed at each end of an input by :func:`fingerprint`.
FINGERPRINT_EDGE = 64 * 1024


def fingerprint(path: str) -> dict | None:
    """What a completion marker records about input ``path`` before it is read, to tell on a
    rerun whether the file is still the one that was read: ``{"size": bytes, "mtime": ...,
    "sha256": hex}`` locally; ``mtime`` is the modification time in nanoseconds, ``sha256`` over
    the size (8 bytes, big-endian), the first and the last :data:`FINGERPRINT_EDGE` bytes: a file
    that grew (records appended), was cut short, was replaced or rewritten at either end differs.
    Costs one ``stat`` and two 64 KiB reads. An object (a URL): ``{"size", "mtime"
    (``LastModified`` and ``ETag`` as the store gives them), "etag"}``, one request (HEAD): its
    ETag changes with its content, so no byte is read; the hash of both ends as locally only when
    the store gives no ETag. None when the file cannot be read (its shard then records why)."""
    import hashlib  # noqa: PLC0415

    if split_member(path) is not None:
        try:
            member = _member(path)
        except (OSError, KeyError, ValueError):
            return None
        outer = fingerprint(member.container)
        if outer is None:
            return None
        return {"size": member.size, "mtime": outer.get("mtime"), "etag": outer.get("etag"), "crc32": member.crc,
                "container_size": outer.get("size")}
    known = _KNOWN.get(path)
    if known is not None and known["etag"] is not None:
        return {"size": known["size"], "mtime": f"{known['mtime']} {known['etag']}".strip(), "etag": known["etag"]}
    try:
        if is_remote(path):
            fs, p = filesystem(path)
            info = retrying(lambda: fs.info(p), f"info of {path}")
            size = int(info["size"])
            tag = _etag(info)
            stamp = f"{info.get('LastModified') or info.get('mtime') or info.get('last_modified')}" \
                    f" {tag or ''}".strip()
            if tag is not None:
                return {"size": size, "mtime": stamp, "etag": tag}

            def read(start: int, end: int) -> bytes:
                return retrying(lambda: fs.cat_file(p, start=start, end=end), f"read of {path}") if end > start else b""
        else:
            local = _local(path)
            st = os.stat(local)
            size, stamp = st.st_size, st.st_mtime_ns
            fh = open(local, "rb")

            def read(start: int, end: int) -> bytes:
                return os.pread(fh.fileno(), end - start, start)
        try:
            digest = hashlib.sha256(size.to_bytes(8, "big"))
            digest.update(read(0, min(size, FINGERPRINT_EDGE)))
            digest.update(read(max(size - FINGERPRINT_EDGE, 0), size))
        finally:
            if not is_remote(path):
                fh.close()
    except (OSError, ValueError, KeyError):
        return None
    return {"size": size, "mtime": stamp, "sha256": digest.hexdigest()}


def _etag(info: dict) -> str | None:
    tag = info.get("ETag") or info.get("etag")
    return str(tag) if tag else None


def etag_of(state: dict | None) -> str | None:
    """The ETag a fingerprint (:func:`fingerprint`) or a listing's entry (:func:`stat_objects`)
    holds, or None: ``etag``, else the last word of a remote ``mtime`` (``"<LastModified>
    <ETag>"``, as markers made before ``etag`` have it; an ETag is quoted)."""
    if not state:
        return None
    if state.get("etag"):
        return str(state["etag"])
    stamp = state.get("mtime")
    if isinstance(stamp, str) and stamp.endswith('"') and " " in stamp:
        return stamp.rsplit(" ", 1)[1]
    return None


def stat_objects(urls: list[str], listed: dict[str, dict] | None = None) -> dict[str, dict | None]:
    """``{url: {"size", "etag"} or None}`` for objects ``urls``, without reading any: from
    ``listed`` (``{url: listing entry}``, what :func:`find_details` gave) where it has them, else
    from one listing of each folder holding two or more of them, else one HEAD each (32 at a
    time). None: no such object."""
    listed = listed or {}
    out: dict[str, dict | None] = {}
    rest = []
    for url in urls:
        if url in listed:
            out[url] = _state(listed[url])
        elif url in _KNOWN:
            out[url] = {"size": _KNOWN[url]["size"], "etag": _KNOWN[url]["etag"]}
        else:
            rest.append(url)
    by_folder: dict[str, list[str]] = {}
    for url in rest:
        by_folder.setdefault(url.rsplit("/", 1)[0], []).append(url)
    single = []
    for folder, members in by_folder.items():
        if len(members) < 2:
            single.extend(members)
            continue
        try:
            entries = find_details(folder, depth=1)
        except OSError:
            entries = {}
        for url in members:
            out[url] = _state(entries[url]) if url in entries else None

    def head(url: str) -> dict | None:
        try:
            fs, p = filesystem(url)
            return _state(retrying(lambda: fs.info(p), f"info of {url}"))
        except (OSError, ValueError, KeyError):
            return None

    if single:
        from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415

        with ThreadPoolExecutor(max_workers=32) as pool:
            out.update(zip(single, pool.map(head, single)))
    return out


def _state(info: dict) -> dict:
    return {"size": int(info.get("size") or 0), "etag": _etag(info)}


def find_details(url: str, depth: int | None = None) -> dict[str, dict]:
    """``{full URL: listing entry}`` of every object under the remote prefix ``url`` (``depth``
    levels down; None: all), from one (paginated) listing: each entry has ``size`` and, on S3,
    ``ETag`` and ``LastModified``."""
    fs, p = filesystem(url)
    entries = retrying(lambda: fs.find(p, maxdepth=depth, detail=True), f"listing of {url}")
    fs.invalidate_cache(p)  # (s3fs keeps the listing: this process keeps what it needs of it)
    keep = ("size", "ETag", "etag", "LastModified", "mtime")
    return {fs.unstrip_protocol(name): {k: info[k] for k in keep if k in info}
            for name, info in entries.items() if info.get("type") != "directory"}


def locate(path: str, bases: Iterable[str | None] = ()) -> str:
    """Where to read *path*, a file a prior run named: a relative local path is taken relative to
    the first of *bases* (directories, such as the ``cwd`` a run's manifest records) under which it
    exists, else as it is (relative to the current directory); absolute paths and URLs as they are.
    Checks existence only (``os.path.exists``); raises nothing."""
    if os.path.isabs(path) or is_remote(path):
        return path
    for base in bases:
        if base:
            there = os.path.join(base, path)
            if os.path.exists(there):
                return there
    return path


def exists(path: str) -> bool:
    if split_member(path) is not None:
        try:
            _member(path)
        except (OSError, KeyError, ValueError):
            return False
        return True
    if not is_remote(path):
        return os.path.exists(_local(path))
    fs, p = filesystem(path)
    return bool(retrying(lambda: fs.exists(p), f"exists {path}"))


def listdir(path: str) -> list[str]:
    """Names (not paths) directly under ``path``; ``[]`` when it does not exist."""
    if not is_remote(path):
        try:
            return sorted(os.listdir(_local(path)))
        except FileNotFoundError:
            return []
    fs, p = filesystem(path)
    try:
        entries = retrying(lambda: fs.ls(p, detail=False, refresh=True), f"listing of {path}")
    except FileNotFoundError:
        return []
    return sorted(posixpath.basename(e.rstrip("/")) for e in entries)


def listdir_sizes(url: str) -> dict[str, int | None]:
    """``{name: size in bytes}`` of what is directly under the remote prefix ``url`` (None: a
    folder), from one listing (what :func:`listdir` lists, with the sizes the listing gives);
    ``{}`` when there is nothing."""
    fs, p = filesystem(url)
    try:
        entries = retrying(lambda: fs.ls(p, detail=True, refresh=True), f"listing of {url}")
    except FileNotFoundError:
        return {}
    return {posixpath.basename(e["name"].rstrip("/")):
            None if e.get("type") == "directory" else int(e.get("size") or 0) for e in entries}


def isfile(url: str) -> bool:
    """Whether remote ``url`` names an object (a file)."""
    fs, p = filesystem(url)
    return bool(retrying(lambda: fs.isfile(p), f"isfile {url}"))


def isdir(url: str) -> bool:
    """Whether remote ``url`` names a "directory": a prefix that other objects are under."""
    fs, p = filesystem(url)
    return bool(retrying(lambda: fs.isdir(p), f"isdir {url}"))


def find(url: str) -> list[str]:
    """Full URLs of every object under the remote prefix ``url``, recursively, in listing order."""
    fs, p = filesystem(url)
    return [fs.unstrip_protocol(f) for f in retrying(lambda: fs.find(p), f"listing of {url}")]


def glob(url: str) -> list[str]:
    """Full URLs of what the remote glob ``url`` matches (``*``, ``?``, ``[...]``, ``**``): objects and
    prefixes, in listing order."""
    fs, p = filesystem(url)
    return [fs.unstrip_protocol(m) for m in retrying(lambda: fs.glob(p), f"glob {url}")]


def makedirs(path: str) -> None:
    """Create a local directory (and parents); object stores have no directories, so a no-op there.
    Raises :class:`OutputError`."""
    if not is_remote(path):
        try:
            os.makedirs(_local(path), exist_ok=True)
        except OSError as exc:
            raise output_error(exc, _local(path)) from exc


def remove(path: str) -> None:
    """Delete a file; a missing one is not an error."""
    if not is_remote(path):
        try:
            os.unlink(_local(path))
        except FileNotFoundError:
            pass
        return
    fs, p = filesystem(path)
    try:
        retrying(lambda: fs.rm_file(p), f"removal of {path}")
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise output_error(exc, path) from exc
    except Exception as exc:  # noqa: BLE001 - botocore's own errors: the store refused or is gone
        raise _store_error(exc, path) from exc


def read_bytes(path: str) -> bytes:
    """The whole content of a (small) file: markers, manifests, ``@list`` files."""
    if not is_remote(path):
        with open(_local(path), "rb") as f:
            return f.read()
    fs, p = filesystem(path)
    return retrying(lambda: fs.cat_file(p), f"read of {path}")


def temp_path(path: str) -> str:
    """The temporary name a local file is written under, beside it, before its rename to ``path``:
    ``.tmp-<name>.tmp`` (so a reader never sees an incomplete file under its final name, and no
    glob for the final names' suffix, ``*.parquet``, matches it; see :data:`TMP_PREFIX`)."""
    return os.path.join(os.path.dirname(path), TMP_PREFIX + os.path.basename(path) + TMP_SUFFIX)


def write_bytes(path: str, data: bytes) -> None:
    """Write a whole (small) file atomically: tmp + fsync + rename locally, one PUT remotely.
    Raises :class:`OutputError` (locally; the temporary file is removed)."""
    if is_remote(path):
        fs, p = filesystem(path)
        try:
            retrying(lambda: fs.pipe_file(p, data), f"upload of {path}")
        except OSError as exc:
            raise output_error(exc, path) from exc
        except Exception as exc:  # noqa: BLE001 - botocore's own errors: the store refused or is gone
            raise _store_error(exc, path) from exc
        return
    path = _local(path)
    tmp = temp_path(path)
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        _unlink_quietly(tmp)
        raise output_error(exc, path) from exc


def create_bytes(path: str, data: bytes) -> None:
    """Create a whole (small) file that must not exist yet: :class:`FileExistsError` when it does.
    Remotely one conditional PUT (``If-None-Match: *``: of two writers, one creates it); locally
    ``O_EXCL``. Other errors as :func:`write_bytes`."""
    if is_remote(path):
        fs, p = filesystem(path)
        try:
            retrying(lambda: fs.pipe_file(p, data, mode="create"), f"creation of {path}")
        except FileExistsError:
            raise
        except OSError as exc:
            raise output_error(exc, path) from exc
        except Exception as exc:  # noqa: BLE001 - botocore's own errors: the store refused or is gone
            raise _store_error(exc, path) from exc
        return
    path = _local(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        raise
    except OSError as exc:
        raise output_error(exc, path) from exc
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def publish_file(local_path: str, dest: str) -> None:
    """Move a finished local file to its final name ``dest`` (a local path or a URL), atomically.

    Local ``dest``: ``os.replace`` when on the same filesystem (the caller stages next to ``dest``),
    else a copy to ``.tmp-<name>`` beside ``dest`` and a rename. Remote ``dest``: one upload (s3fs
    switches to a multipart upload above 50 MiB, which S3 also makes visible only when complete),
    then the local file is removed.
    """
    if is_remote(dest):
        fs, p = filesystem(dest)
        try:
            retrying(lambda: fs.put_file(local_path, p), f"upload of {dest}")
        except OSError as exc:
            raise output_error(exc, dest) from exc
        except Exception as exc:  # noqa: BLE001 - botocore's own errors: the store refused or is gone
            raise _store_error(exc, dest) from exc
        os.unlink(local_path)
        return
    dest = _local(dest)
    try:
        os.replace(local_path, dest)
    except OSError:  # EXDEV: another filesystem
        tmp = temp_path(dest)
        try:
            shutil.copyfile(local_path, tmp)
            with open(tmp, "rb") as f:
                os.fsync(f.fileno())
            os.replace(tmp, dest)
        except OSError as exc:
            _unlink_quietly(tmp)
            raise output_error(exc, dest) from exc
        os.unlink(local_path)


# ---------------------------------------------------------------------------------------------
# reading


class PositionedRaw(io.RawIOBase):
    """A readable, seekable raw file whose position is ``self._pos`` (bytes): the io protocol's
    ``readable``, ``seekable``, ``tell`` and ``seek`` (``whence`` as :meth:`io.IOBase.seek`;
    ``ValueError`` for another; ``OSError`` (EINVAL) for a position before :meth:`_first`).
    Subclasses set ``_pos`` and give :meth:`_end` (the position ``SEEK_END`` counts from) and
    ``read``."""

    _pos: int

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def _end(self) -> int:
        raise NotImplementedError

    def _first(self) -> int:
        """The lowest position there is (0: the file's start)."""
        return 0

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_CUR:
            offset += self._pos
        elif whence == io.SEEK_END:
            offset += self._end()
        elif whence != io.SEEK_SET:
            raise ValueError(f"invalid whence {whence}")
        if offset < self._first():
            raise OSError(22, "negative seek position" if self._first() == 0 else
                          f"position {offset} is before the bytes read (from {self._first()})")
        self._pos = offset
        return offset


@dataclass(slots=True)
class ReadStats:
    """Ranged GETs issued and bytes fetched from remote storage (bytes, before any decompression)."""

    requests: int = 0
    bytes_fetched: int = 0

    def add(self, nbytes: int) -> None:
        self.requests += 1
        self.bytes_fetched += nbytes


#: Totals of every `RangedReader` of this process (each reader also has its own ``stats``).
STATS = ReadStats()
_STATS_LOCK = threading.Lock()


class RangedReader(PositionedRaw):
    """A read-only, seekable binary file over a remote object, read with ranged GETs.

    Each miss fetches ``[pos, pos + block)`` with one ranged GET (``fs.cat_file(path, start,
    end)``). The block starts at ``min_block`` bytes and doubles, up to ``max_block``, while reads
    stay sequential; a seek elsewhere resets it. So streaming a whole archive costs few large GETs,
    and reading one record at an offset fetches about the record, not the file. Only the last block
    is kept in memory (at most ``max_block`` bytes plus one read request).
    """

    def __init__(
        self,
        fs,
        path: str,
        size: int,
        *,
        name: str | None = None,
        min_block: int = MIN_BLOCK,
        max_block: int = MAX_BLOCK,
    ) -> None:
        super().__init__()
        self._fs = fs
        self._path = path
        self._size = size
        self.name = name or path
        self._min_block = min_block
        self._max_block = max_block
        self._block = min_block
        self._pos = 0
        self._buf = b""
        self._buf_start = 0
        self.stats = ReadStats()

    def _end(self) -> int:
        return self._size

    def _fetch(self, pos: int, want: int) -> None:
        sequential = bool(self._buf) and pos == self._buf_start + len(self._buf)
        self._block = min(self._block * 2, self._max_block) if sequential else self._min_block
        end = min(self._size, pos + max(self._block, want))
        data = retrying(lambda: self._fs.cat_file(self._path, start=pos, end=end), f"read of {self.name}")
        self.stats.add(len(data))
        with _STATS_LOCK:
            STATS.add(len(data))
        self._buf, self._buf_start = data, pos

    def read(self, n: int | None = -1) -> bytes:
        if self.closed:
            raise ValueError("I/O operation on closed file")
        if n is None or n < 0:
            n = max(0, self._size - self._pos)
        out: list[bytes] = []
        while n > 0 and self._pos < self._size:
            i = self._pos - self._buf_start
            if not 0 <= i < len(self._buf):
                self._fetch(self._pos, n)
                i = 0
                if not self._buf:  # the object shrank under us
                    break
            chunk = self._buf[i : i + n]
            out.append(chunk)
            self._pos += len(chunk)
            n -= len(chunk)
        return b"".join(out)

    def readinto(self, b) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def readall(self) -> bytes:
        return self.read(-1)

    def close(self) -> None:
        self._buf = b""
        super().close()


#: Ranges of one remote file closer than this (bytes) are fetched by one ranged GET
#: (:func:`read_ranges`): a GET costs a round trip (tens of milliseconds on S3), a few KiB more
#: in it nearly nothing.
COALESCE_GAP = 64 * 1024
#: Ranged GETs :func:`read_ranges` has in flight at once (fsspec ``cat_ranges``): an index's
#: records far apart in one file cost a round trip each, which concurrency hides.
CONCURRENT_GETS = 16


def read_range(path: str | os.PathLike[str], offset: int, length: int) -> bytes:
    """The bytes ``[offset, offset + length)`` of the file ``path`` (bytes; fewer when the file
    ends first, ``b""`` when ``offset`` is at or past its end): a local ``pread``, or one ranged GET
    (HTTP ``Range: bytes=offset-(offset+length-1)``, RFC 9110 section 14) of a remote object.
    What an index entry or a prior run's row (file, offset, length) locates is read with it.
    Raises :class:`FileNotFoundError` when the file does not exist, :class:`OSError` when it
    cannot be read, :class:`ValueError` for a negative offset or length."""
    for data in read_ranges(path, [(offset, length)]):
        return data
    return b""  # pragma: no cover - read_ranges yields once per range


def read_ranges(path: str | os.PathLike[str], ranges: Iterable[tuple[int, int]]) -> Iterator[bytes]:
    """The bytes of each ``(offset, length)`` of ``ranges`` (bytes), in the order given, as
    :func:`read_range` reads one: the file is opened once. Remotely, consecutive ranges in
    increasing order that lie within :data:`COALESCE_GAP` bytes of each other are fetched by one
    ranged GET (at most :data:`MAX_BLOCK` bytes, or one range's length when larger), so records an
    index selects close together cost one request, and up to :data:`CONCURRENT_GETS` GETs are in
    flight at once (fetched ahead of the bytes asked for: at most that many GETs, or about 4 x
    :data:`MAX_BLOCK` bytes). Raises as :func:`read_range`, when the first range is asked for."""
    p = os.fspath(path)
    if split_member(p) is not None:
        yield from _member_ranges(p, ranges)
        return
    if not is_remote(p):
        with open(_local(p), "rb") as fh:
            fd = fh.fileno()
            for offset, length in ranges:
                _check_range(p, offset, length)
                yield os.pread(fd, length, offset) if length else b""
        return
    spans = list(ranges)
    for offset, length in spans:
        _check_range(p, offset, length)
    fs, fp = filesystem(p)
    size = _KNOWN[p]["size"] if p in _KNOWN else int(retrying(lambda: fs.size(fp), f"size of {p}"))
    # the GETs: runs of ranges close together, each one GET
    groups: list[tuple[int, int, int, int]] = []  # (start, stop, first span, end span)
    i = 0
    while i < len(spans):
        start = spans[i][0]
        stop = min(start + spans[i][1], size)
        j = i + 1
        while j < len(spans):
            offset, length = spans[j]
            end = min(offset + length, size)
            if offset < spans[j - 1][0] or offset - stop > COALESCE_GAP or max(end, stop) - start > MAX_BLOCK:
                break
            stop = max(stop, end)
            j += 1
        groups.append((start, stop, i, j))
        i = j
    # fetched CONCURRENT_GETS at a time (a GET's round trip, not its bytes, is what a record costs)
    g = 0
    while g < len(groups):
        batch, budget = [], 0
        while g < len(groups) and len(batch) < CONCURRENT_GETS and (not batch or budget < MAX_BLOCK * 4):
            batch.append(groups[g])
            budget += groups[g][1] - groups[g][0]
            g += 1
        blocks = _fetch_many(fs, fp, [(a, b) for a, b, _, _ in batch])
        for (start, _stop, first, last), block in zip(batch, blocks):
            for offset, length in spans[first:last]:
                yield block[offset - start : max(min(offset + length, size) - start, offset - start)]


def _fetch_many(fs, fp: str, ranges: list[tuple[int, int]]) -> list[bytes]:
    """The bytes of each ``(start, end)`` of object ``fp``: one ranged GET each, concurrently when
    the filesystem can (fsspec's ``cat_ranges``; s3fs runs them on its event loop)."""
    wanted = [(a, b) for a, b in ranges if b > a]
    if len(wanted) > 1 and hasattr(fs, "cat_ranges"):
        got = retrying(lambda: fs.cat_ranges([fp] * len(wanted), [a for a, _ in wanted], [b for _, b in wanted],
                                             on_error="raise"), f"ranged reads of {fp}")
        with _STATS_LOCK:
            for data in got:
                STATS.add(len(data))
        blocks = iter(got)
    else:
        blocks = iter([_fetch(fs, fp, a, b) for a, b in wanted])
    return [next(blocks) if b > a else b"" for a, b in ranges]


def _fetch(fs, fp: str, start: int, end: int) -> bytes:
    data = retrying(lambda: fs.cat_file(fp, start=start, end=end), f"read of {fp}")
    with _STATS_LOCK:
        STATS.add(len(data))
    return data


def _check_range(path: str, offset: int, length: int) -> None:
    if offset < 0 or length < 0:
        raise ValueError(f"{path}: a range needs a non-negative offset and length, not ({offset}, {length})")


def open_input(path: str | os.PathLike[str], *, min_block: int = MIN_BLOCK, max_block: int = MAX_BLOCK):
    """Open an archive (or any input) for binary reading; seekable.

    Local path: the built-in ``open(path, "rb")``. URL: a :class:`RangedReader` (ranged GETs, see
    there), whose ``name`` is the URL. Raises :class:`FileNotFoundError` when the object does not
    exist.
    """
    p = os.fspath(path)
    if split_member(p) is not None:
        return _open_member(p, min_block, max_block)
    if not is_remote(p):
        return open(_local(p), "rb")
    fs, fp = filesystem(p)
    known = _KNOWN.get(p)
    size = known["size"] if known else int(retrying(lambda: fs.size(fp), f"size of {p}"))
    return RangedReader(fs, fp, size, name=p, min_block=min_block, max_block=max_block)


# ---------------------------------------------------------------------------------------------
# files inside a WACZ (a zip)


@dataclass(frozen=True, slots=True)
class _Member:
    container: str
    name: str
    data_offset: int  # where the member's bytes start in the container (after its local header)
    size: int  # bytes, as stored
    stored: bool  # ZIP_STORED: its bytes are the file's
    crc: int


_MEMBERS: dict[tuple[str, str], _Member] = {}
_MEMBERS_LOCK = threading.Lock()


def zip_names(container: str) -> list[str]:
    """The member names of the zip ``container`` (local or a URL), in the order of its central
    directory (APPNOTE.TXT 4.3.12). Raises :class:`FileNotFoundError`, :class:`ValueError` for a
    file that is not a zip."""
    import zipfile  # noqa: PLC0415

    with open_input(container) as fh:
        try:
            with zipfile.ZipFile(fh) as zf:
                return [i.filename for i in zf.infolist()]
        except zipfile.BadZipFile as exc:
            raise ValueError(f"not a zip file ({exc})") from None


def _member(path: str) -> _Member:
    """Where member ``path`` lies in its container (read once per process: the container's zip
    directory and the member's local header, APPNOTE.TXT 4.3.7). Raises :class:`FileNotFoundError`
    (no container, no member), :class:`ValueError` (not a zip)."""
    import struct  # noqa: PLC0415
    import zipfile  # noqa: PLC0415

    container, name = split_member(path)
    key = (container, name)
    with _MEMBERS_LOCK:
        found = _MEMBERS.get(key)
    if found is not None:
        return found
    with open_input(container) as fh:
        try:
            with zipfile.ZipFile(fh) as zf:
                infos = {i.filename: i for i in zf.infolist()}
        except zipfile.BadZipFile as exc:
            raise ValueError(f"{container}: not a zip file ({exc})") from None
        info = infos.get(name)
        if info is None:
            raise FileNotFoundError(2, f"no member {name!r} in {container}", path)
        fh.seek(info.header_offset)
        header = fh.read(30)
        if len(header) < 30 or header[:4] != b"PK\x03\x04":
            raise ValueError(f"{container}: the local header of {name!r} is damaged")
        name_length, extra_length = struct.unpack("<HH", header[26:30])
    found = _Member(container, name, info.header_offset + 30 + name_length + extra_length, info.file_size,
                    info.compress_type == zipfile.ZIP_STORED, info.CRC)
    with _MEMBERS_LOCK:
        _MEMBERS[key] = found
    return found


def _open_member(path: str, min_block: int, max_block: int):
    member = _member(path)
    if member.stored:
        return _Window(open_input(member.container, min_block=min_block, max_block=max_block), member.data_offset,
                       member.size, path)
    import zipfile  # noqa: PLC0415

    outer = open_input(member.container)
    zf = zipfile.ZipFile(outer)
    inner = zf.open(member.name)
    inner.name = path
    return inner


def _member_ranges(path: str, ranges: Iterable[tuple[int, int]]) -> Iterator[bytes]:
    member = _member(path)
    spans = list(ranges)
    for offset, length in spans:
        _check_range(path, offset, length)
    if member.stored:
        # the container's bytes, each range cut to the member's end
        shifted = [(member.data_offset + o, max(min(n, member.size - o), 0)) for o, n in spans]
        yield from read_ranges(member.container, shifted)
        return
    with _open_member(path, MIN_BLOCK, MAX_BLOCK) as fh:
        for offset, length in spans:
            fh.seek(offset)
            yield fh.read(length)


class _Window(PositionedRaw):
    """The bytes ``[start, start + size)`` of the open file ``inner``, as a file of their own
    (seekable; closing it closes ``inner``)."""

    def __init__(self, inner, start: int, size: int, name: str) -> None:
        super().__init__()
        self._inner, self._start, self._size, self.name = inner, start, size, name
        self._pos = 0

    def _end(self) -> int:
        return self._size

    def read(self, n: int | None = -1) -> bytes:
        left = max(self._size - self._pos, 0)
        n = left if n is None or n < 0 else min(n, left)
        if n <= 0:
            return b""
        self._inner.seek(self._start + self._pos)
        data = self._inner.read(n)
        self._pos += len(data)
        return data

    def readinto(self, b) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._inner.close()
        super().close()
