"""Object storage: ``s3://`` (and any other fsspec filesystem) for inputs, outputs and manifests.

The only module that imports :mod:`fsspec` (and, through it, s3fs). Local paths pass through
unchanged to the ``os`` and ``open`` calls they would have made, so the default install (no ``[s3]``
extra) never imports fsspec and behaves exactly as before.

| need | function |
|---|---|
| is this a URL of a remote filesystem? | `is_remote` |
| the fsspec filesystem of a URL, configured from the AWS environment | `filesystem`, `storage_options` |
| stream an archive, or read one record by offset (ranged GETs, never a whole download) | `open_input` |
| size, existence, listing | `size`, `exists`, `listdir` |
| what a completion marker records about an input (size, mtime, hash of its ends) | `fingerprint` |
| whole small files (markers, manifests, ``@list`` files) | `read_bytes`, `write_bytes` |
| the temporary name a local file is written under before its rename | `temp_path`, `TMP_PREFIX` |
| publish a finished local file under its final name | `publish_file` |
| what a URL names: file, "directory" (prefix), glob matches, every file under a prefix | `isfile`, `isdir`, `glob`, `find` |
| bytes fetched from remote storage (for backfill's "bytes read" and tests) | `STATS`, `ReadStats` |
| transient errors of a remote store retried (with backoff), and counted | `retrying`, `counting_retries`, `RETRIES`, `RETRY_WAIT` |

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

import errno as _errno
import io
import os
import posixpath
import random
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

__all__ = [
    "RETRIES",
    "RETRY_WAIT",
    "STATS",
    "OutputError",
    "counting_retries",
    "create_bytes",
    "retrying",
    "RangedReader",
    "ReadStats",
    "exists",
    "find",
    "fingerprint",
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
    "remove",
    "size",
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


def is_remote(path: str | os.PathLike[str]) -> bool:
    """True for a URL with a scheme other than ``file`` (``s3://b/k``, ``gs://...``, ``https://...``)."""
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
    if not is_remote(path):
        return os.path.getsize(_local(path))
    fs, p = filesystem(path)
    return int(retrying(lambda: fs.size(p), f"size of {path}"))


#: Bytes hashed at each end of an input by :func:`fingerprint`.
FINGERPRINT_EDGE = 64 * 1024


def fingerprint(path: str) -> dict | None:
    """What a completion marker records about input ``path`` before it is read, to tell on a
    rerun whether the file is still the one that was read: ``{"size": bytes, "mtime": ...,
    "sha256": hex}``. ``mtime`` is the modification time in nanoseconds (locally; remotely the
    object's ``LastModified`` and ``ETag`` as the store gives them); ``sha256`` is over the size
    (8 bytes, big-endian), the first and the last :data:`FINGERPRINT_EDGE` bytes: a file that grew
    (records appended), was cut short, was replaced or rewritten at either end differs. Costs one
    ``stat`` and two 64 KiB reads (two ranged GETs). None when the file cannot be read (its shard
    then records why)."""
    import hashlib  # noqa: PLC0415

    try:
        if is_remote(path):
            fs, p = filesystem(path)
            info = retrying(lambda: fs.info(p), f"info of {path}")
            size = int(info["size"])
            stamp = f"{info.get('LastModified') or info.get('mtime') or info.get('last_modified')}" \
                    f" {info.get('ETag') or info.get('etag') or ''}".strip()

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


def exists(path: str) -> bool:
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


class RangedReader(io.RawIOBase):
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

    # io protocol
    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_SET:
            pos = offset
        elif whence == io.SEEK_CUR:
            pos = self._pos + offset
        elif whence == io.SEEK_END:
            pos = self._size + offset
        else:
            raise ValueError(f"invalid whence {whence}")
        if pos < 0:
            raise OSError(22, "negative seek position")
        self._pos = pos
        return pos

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


def open_input(path: str | os.PathLike[str], *, min_block: int = MIN_BLOCK, max_block: int = MAX_BLOCK):
    """Open an archive (or any input) for binary reading; seekable.

    Local path: the built-in ``open(path, "rb")``. URL: a :class:`RangedReader` (ranged GETs, see
    there), whose ``name`` is the URL. Raises :class:`FileNotFoundError` when the object does not
    exist.
    """
    p = os.fspath(path)
    if not is_remote(p):
        return open(_local(p), "rb")
    fs, fp = filesystem(p)
    size = int(retrying(lambda: fs.size(fp), f"size of {p}"))
    return RangedReader(fs, fp, size, name=p, min_block=min_block, max_block=max_block)
