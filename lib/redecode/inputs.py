"""Command-line inputs -> the sorted list of archive paths and URLs a command reads.

Contract. :func:`expand_inputs` is the one expansion of every command that reads archives
(``run``, ``diff --rules``; ``backfill`` reads the inputs its prior run recorded). Each input is
one of:

- a local file, taken as given whatever its name;
- a local directory, walked recursively, or a local glob (``**`` allowed), whose matching files
  are filtered and whose matching directories are walked (:func:`iter_inputs`);
- a URL (``s3://...``, any fsspec filesystem, :mod:`redecode.storage`) of an object, of a
  "directory" (a prefix, listed recursively) or of a glob, filtered like local ones;
- ``@LIST``: a manifest file, local or remote, plain or gzip (told from its first bytes, as
  Common Crawl's ``warc.paths.gz``), naming one path or URL per line (blank lines and ``#``
  comments skipped). ``list_prefix``, when given, is prepended to every line as written
  (``s3://commoncrawl/`` before Common Crawl's ``crawl-data/...`` lines); then a relative line is
  relative to the list's folder. Entries are taken as files, unchecked and unexpanded: a
  90,000-line list must not cost 90,000 requests before the first task starts; a missing entry
  fails its own shard.

Directories, prefixes and globs keep the files whose names end in :data:`INPUT_SUFFIXES` (the
suffixes of the readers registered in :data:`redecode.archive.READERS`). Files they hold under
other names that still look like crawl data (:func:`looks_like_archive`: ``.wacz``,
``.warc.gz.bad``, ``.warc.1``...) are reported through ``not_read``, never passed over in
silence. Raises :class:`FileNotFoundError` naming the input that matches nothing.

This module reads names and listings only, never an archive's bytes (kinds are sniffed from the
bytes by :mod:`redecode.archive` when the archive is read).
"""

from __future__ import annotations

import glob as _glob
import gzip
import os
import posixpath
import re
from collections.abc import Iterable

from . import storage
from .archive import INPUT_SUFFIXES

__all__ = ["INPUT_SUFFIXES", "expand_inputs", "iter_inputs", "looks_like_archive", "outside", "suffix_list"]

_ARCHIVE_LIKE = re.compile(r"\.(?:w?arc|wacz)(?:\.|$)|\.gz$")
_GLOB_CHARS = frozenset("*?[")


def suffix_list() -> str:
    """:data:`INPUT_SUFFIXES` as users read them: ``.warc, .warc.gz, .arc, .arc.gz or .parquet``."""
    return ", ".join(INPUT_SUFFIXES[:-1]) + " or " + INPUT_SUFFIXES[-1]


def _is_input_name(name: str) -> bool:
    return name.lower().endswith(INPUT_SUFFIXES)


def looks_like_archive(name: str) -> bool:
    """Whether a file name that :data:`INPUT_SUFFIXES` does not take still looks like crawl data
    (``.warc`` or ``.arc`` inside the name, ``.wacz``, or a ``.gz`` ending): such files in an
    input directory are reported as not read rather than passed over in silence; READMEs, licences
    and other text beside the archives are not."""
    return _ARCHIVE_LIKE.search(os.path.basename(name).lower()) is not None


def iter_inputs(paths: Iterable[str | os.PathLike[str]], not_read: list[str] | None = None) -> list[str]:
    """Expand local inputs (files, directories, globs) to a sorted, de-duplicated list of file paths.

    A file is taken as given (whatever its name); a directory is walked recursively for names
    ending in one of :data:`INPUT_SUFFIXES`; anything else is a glob pattern (``**`` allowed), whose
    matching files are filtered the same way and whose matching directories are walked. Files a
    directory or glob held whose names look like archives but end otherwise
    (:func:`looks_like_archive`) are appended to ``not_read`` when it is given.
    Raises ``FileNotFoundError`` naming the argument when it matches nothing.
    """
    found: set[str] = set()
    other: set[str] = set()

    def walk(d: str) -> None:
        for root, dirs, files in os.walk(d):
            dirs.sort()
            for f in files:
                if _is_input_name(f):
                    found.add(os.path.join(root, f))
                elif looks_like_archive(f):
                    other.add(os.path.join(root, f))

    for p in paths:
        p = os.fspath(p)
        if os.path.isfile(p):
            found.add(p)
        elif os.path.isdir(p):
            walk(p)
        else:
            matches = _glob.glob(p, recursive=True)
            if not matches:
                raise FileNotFoundError(f"no input file matches {p!r}")
            for m in matches:
                if os.path.isdir(m):
                    walk(m)
                elif _is_input_name(m):
                    found.add(m)
                elif looks_like_archive(m):
                    other.add(m)
    if not_read is not None:
        not_read.extend(sorted(other - found))
    return sorted(found)


def _list_file_entries(list_path: str, prefix: str | None = None) -> list[str]:
    """Lines of an ``@LIST`` file (see the module docstring), ``prefix`` prepended to each.

    Raises :class:`ValueError` for a list that is neither UTF-8 text nor gzip of it."""
    data = storage.read_bytes(list_path)
    if data[:2] == b"\x1f\x8b":  # gzip magic (RFC 1952): Common Crawl's warc.paths.gz
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise ValueError(f"@{list_path}: a gzip list that does not inflate ({exc})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"@{list_path}: not a list of paths (not UTF-8 text, nor gzip of it: byte "
                         f"{exc.start} is 0x{data[exc.start]:02x}); an @LIST names one path or URL "
                         "per line") from None
    base = (posixpath.dirname(list_path) if storage.is_remote(list_path)
            else os.path.dirname(storage.local_path(list_path)))
    entries = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if prefix:
            line = prefix + line
        if storage.is_remote(line) or os.path.isabs(line) or line.startswith("file://"):
            entries.append(line)
        else:
            entries.append(storage.join(base, line) if base else line)
    return entries


def _expand_remote(url: str, not_read: list[str]) -> list[str]:
    def split(names: list[str]) -> list[str]:
        keep = []
        for f in names:
            if _is_input_name(f):
                keep.append(f)
            elif looks_like_archive(f):
                not_read.append(f)
        return keep

    if _GLOB_CHARS & set(url.partition("://")[2]):
        found = []
        for m in storage.glob(url):
            found.extend(split(storage.find(m) if storage.isdir(m) else [m]))
        if not found:
            raise FileNotFoundError(f"no input file matches {url!r}")
        return found
    if storage.isfile(url):
        return [url]
    if storage.isdir(url):
        found = split(storage.find(url))
        if found:
            return found
    raise FileNotFoundError(f"no input file matches {url!r}")


def expand_inputs(inputs: Iterable[str | os.PathLike[str]], not_read: list[str] | None = None, *,
                  list_prefix: str | None = None) -> list[str]:
    """Expand command-line inputs to a sorted, de-duplicated list of paths and URLs (see the module
    docstring). Files that directories, prefixes and globs held under other names that still look
    like archives are appended to ``not_read`` when it is given. ``list_prefix`` is prepended to
    every line of the ``@LIST`` files.

    Raises :class:`FileNotFoundError` for an input that matches nothing, :class:`ValueError` for
    an ``@LIST`` that is not a list of paths.
    """
    other: list[str] = []
    local: list[str] = []
    found: set[str] = set()
    for item in inputs:
        s = os.fspath(item)
        if s.startswith("@"):
            found.update(_list_file_entries(s[1:], list_prefix))
        elif storage.is_remote(s):
            found.update(_expand_remote(s, other))
        else:
            local.append(storage.local_path(s))
    if local:
        found.update(iter_inputs(local, other))
    if not_read is not None:
        not_read.extend(sorted(set(other) - found))
    return sorted(found)


def outside(paths: list[str], directory: str) -> list[str]:
    """``paths`` without the local files inside ``directory`` (a run's own parts are not
    raw-response inputs when ``redecode run . --out out`` runs twice); all of them when
    ``directory`` is a URL."""
    if storage.is_remote(directory):
        return paths
    inside = os.path.realpath(directory) + os.sep
    return [p for p in paths if storage.is_remote(p) or not os.path.realpath(p).startswith(inside)]
