"""Command-line inputs -> the sorted list of archive paths and URLs a command reads.

Contract. :func:`expand_inputs` is the one expansion of every command that reads archives
(``run``, ``diff --rules``; ``backfill`` reads the inputs its prior run recorded). Each input is
one of:

- a local file, taken as given whatever its name;
- a local directory, walked recursively, or a local glob (``**`` allowed), whose matching files
  are filtered and whose matching directories are walked (:func:`iter_inputs`);
- a URL (``s3://...``, any fsspec filesystem, :mod:`redecode.storage`) of an object, of a
  "directory" (a prefix, listed recursively) or of a glob, filtered like local ones;
- a WACZ (``.wacz``, taken like an archive wherever one would be): the WARC files under its
  ``archive/``, each read where it lies as ``CRAWL.wacz#archive/NAME`` (:mod:`redecode.wacz`);
- ``@LIST``: a manifest file, local or remote, plain or gzip (told from its first bytes, as
  Common Crawl's ``warc.paths.gz``), naming one path or URL per line (blank lines and ``#``
  comments skipped). ``list_prefix``, when given, is prepended to every line as written
  (``s3://commoncrawl/`` before Common Crawl's ``crawl-data/...`` lines); then a relative line is
  relative to the list's folder (for a local list, joined to it with ``..`` and ``.`` resolved, so
  that a message names the file looked for: ``/data/lists/../x.warc`` is ``/data/x.warc``). Entries are taken as
  files, unchecked and unexpanded: a 90,000-line list must not cost 90,000 requests before the
  first task starts; a missing entry fails its own shard. The one check: when the relative lines
  of a local list name files missing from its folder that exist from the current directory (a
  list written relative to where the command runs), a warning says so, with a line, before any
  input is read (one ``stat`` per relative line of a local list).

Directories, prefixes and globs keep the files whose names end in :data:`INPUT_SUFFIXES` (the
suffixes of the readers registered in :data:`redecode.archive.READERS`). Files they hold under
other names that still look like crawl data (:func:`looks_like_archive`: ``.wacz``,
``.warc.gz.bad``, ``.warc.1``...) are reported through ``not_read``, never passed over in
silence. Raises :class:`FileNotFoundError` naming the input that matches nothing.

Local walks (directories, and globs with ``**``) follow symbolic links, each directory once: a
directory already walked (by device and inode: a symlink loop, or a second link to it) is not
walked again, and a file reached under several names (symlinks, hard links) is read once, under
the first of its names in sorted order. A directory that cannot be listed, an input-named file
that cannot be read and a broken symlink with an input name are reported through ``unreadable``
(path -> the error, with its errno) and through ``not_read``: the run lists them in
``files_not_read`` and exits 1. File names are taken as the operating system gives them,
whatever their bytes (Python's ``surrogateescape`` for bytes that are not UTF-8; see
:func:`redecode.storage.path_text` for how such a name is written to Parquet and JSON).

This module reads names and listings only, never an archive's bytes (kinds are sniffed from the
bytes by :mod:`redecode.archive` when the archive is read).
"""

from __future__ import annotations

import errno as _errno
import fnmatch
import glob as _glob
import gzip
import logging
import os
import posixpath
from collections.abc import Iterable, Iterator

from . import lazy as _lazy
from . import storage, wacz
from .archive import INPUT_SUFFIXES

__all__ = ["INPUT_SUFFIXES", "expand_inputs", "iter_inputs", "list_entry", "looks_like_archive", "suffix_list"]

log = logging.getLogger(__name__)

_ARCHIVE_LIKE = _lazy.pattern(__name__, "_ARCHIVE_LIKE", r"\.(?:w?arc|wacz)(?:\.|$)|\.gz$")
_GLOB_CHARS = frozenset("*?[")


def suffix_list() -> str:
    """The input file names expansion takes, as users read them: :data:`INPUT_SUFFIXES` and a
    WACZ's (``.warc, .warc.gz, .warc.lz4, .arc, .arc.gz, .parquet or .wacz``)."""
    names = (*INPUT_SUFFIXES, wacz.SUFFIX)
    return ", ".join(names[:-1]) + " or " + names[-1]


def _is_input_name(name: str) -> bool:
    return name.lower().endswith(INPUT_SUFFIXES + (wacz.SUFFIX,))


def looks_like_archive(name: str) -> bool:
    """Whether a file name that :data:`INPUT_SUFFIXES` does not take still looks like crawl data
    (``.warc`` or ``.arc`` inside the name, ``.wacz``, or a ``.gz`` ending): such files in an
    input directory are reported as not read rather than passed over in silence; READMEs, licences
    and other text beside the archives are not."""
    return _ARCHIVE_LIKE.search(os.path.basename(name).lower()) is not None


def iter_inputs(paths: Iterable[str | os.PathLike[str]], not_read: list[str] | None = None,
                unreadable: dict[str, str] | None = None) -> list[str]:
    """Expand local inputs (files, directories, globs) to a sorted, de-duplicated list of file paths.

    A file is taken as given (whatever its name); a directory is walked recursively for names
    ending in one of :data:`INPUT_SUFFIXES`; anything else is a glob pattern (``**`` allowed), whose
    matching files are filtered the same way and whose matching directories are walked. Files a
    directory or glob held whose names look like archives but end otherwise
    (:func:`looks_like_archive`) are appended to ``not_read`` when it is given; what cannot be
    read (see the module docstring) is added to ``unreadable`` (path -> error) and to
    ``not_read``. Symlinks are followed, each directory walked once; each file is listed once.
    Raises ``FileNotFoundError`` naming the argument when it matches nothing.
    """
    walk = _Walk()
    for p in paths:
        p = os.fspath(p)
        if os.path.isfile(p):
            walk.take(p)
        elif os.path.isdir(p):
            walk.walk(p)
        else:
            matches = _recursive_glob(p, walk.unreadable) if "**" in p else _glob.glob(p)
            if not matches:
                raise FileNotFoundError(f"no input file matches {p!r}")
            for m in matches:
                if os.path.isdir(m):
                    walk.walk(m)
                else:
                    walk.file(m)
    found = walk.found()
    if not_read is not None:
        not_read.extend(sorted((walk.other | set(walk.unreadable)) - set(found)))
    if unreadable is not None:
        unreadable.update(walk.unreadable)
    return found


def _error(exc: OSError, what: str) -> str:
    name = _errno.errorcode.get(exc.errno, "") if exc.errno is not None else ""
    number = f" (errno {exc.errno}{', ' + name if name else ''})" if exc.errno is not None else ""
    return f"cannot read {what}: {exc.strerror or exc}{number}"


class _Walk:
    """One expansion's walks: every directory walked once (by device and inode), every file taken
    once (by device and inode, the first name in sorted order kept)."""

    def __init__(self) -> None:
        self.dirs: set[tuple[int, int]] = set()
        self.files: dict[tuple[int, int], str] = {}
        self.other: set[str] = set()
        self.unreadable: dict[str, str] = {}

    def take(self, path: str) -> None:
        """A file to read (named, or with an input name in a walk)."""
        try:
            st = os.stat(path)
        except OSError:  # gone, or a broken link named on the command line: its shard says so
            self.files[("path", path)] = path  # type: ignore[index]
            return
        key = (st.st_dev, st.st_ino)
        if key not in self.files or path < self.files[key]:
            self.files[key] = path

    def file(self, path: str) -> None:
        """A file met in a walk or a glob: taken, reported, or left (by its name)."""
        name = os.path.basename(path)
        if _is_input_name(name):
            if not os.access(path, os.R_OK):
                try:
                    open(path, "rb").close()
                except OSError as exc:
                    self.unreadable[path] = _error(exc, "file")
                    return
            self.take(path)
        elif looks_like_archive(name):
            self.other.add(path)

    def walk(self, top: str) -> None:
        """Walk directory ``top`` (depth first, names sorted), following symlinks once."""
        stack = [top]
        while stack:
            directory = stack.pop()
            try:
                st = os.stat(directory)
                key = (st.st_dev, st.st_ino)
                if key in self.dirs:
                    continue  # a loop, or a directory reached twice: walked once
                self.dirs.add(key)
                with os.scandir(directory) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as exc:
                self.unreadable[directory] = _error(exc, "directory")
                continue
            subdirs = []
            for entry in entries:
                try:
                    if entry.is_dir():  # (follows symlinks)
                        subdirs.append(entry.path)
                    elif entry.is_file():
                        self.file(entry.path)
                    elif entry.is_symlink() and (_is_input_name(entry.name) or looks_like_archive(entry.name)):
                        self.unreadable[entry.path] = "cannot read file: broken symbolic link"
                except OSError as exc:
                    self.unreadable[entry.path] = _error(exc, "file")
            stack.extend(reversed(subdirs))

    def found(self) -> list[str]:
        return sorted(set(self.files.values()))


def _recursive_glob(pattern: str, unreadable: dict[str, str] | None = None) -> list[str]:
    """What a glob with ``**`` matches, as :func:`glob.glob` with ``recursive=True`` would (``**``
    a whole path component: zero or more directories; other wildcards within a component; names
    starting with a dot only for a component that starts with one), but walking with symlinks
    followed once (:class:`_Walk`), so that a symlink loop neither repeats files nor hangs.
    A directory that could hold a match but cannot be listed is added to ``unreadable`` (its path
    spelt as the matches are -> the error) when it is given; a fixed part that does not exist is
    no error here (the pattern matches nothing)."""
    parts = pattern.split(os.sep)
    fixed = 0
    while fixed < len(parts) - 1 and not _glob.has_magic(parts[fixed]):
        fixed += 1
    base = os.sep.join(parts[:fixed]) or ("" if not pattern.startswith(os.sep) else os.sep)
    rest = parts[fixed:]

    def spelt(rel: str) -> str:
        return os.path.join(base, rel) if base and rel else (base or rel or os.curdir)

    def report(rel: str, exc: OSError) -> None:
        if unreadable is None or (not rel and isinstance(exc, (FileNotFoundError, NotADirectoryError))):
            return
        if _may_hold(rest, rel.split(os.sep) if rel else []):
            unreadable[spelt(rel)] = _error(exc, "directory")

    matches = []
    for rel in _relative_entries(base or os.curdir, _Walk(), report):
        if _match(rest, rel.split(os.sep) if rel else []):
            matches.append(os.path.join(base, rel) if base else rel)
    return sorted(matches)


def _relative_entries(base: str, walker: _Walk, report) -> Iterator[str]:
    """Every path under ``base`` (directories and files), relative to it, following symlinks
    with each directory once; the empty string for ``base`` itself. ``report(rel, exc)`` is called
    for each directory that cannot be listed."""
    yield ""
    stack = [""]
    while stack:
        rel = stack.pop()
        directory = os.path.join(base, rel) if rel else base
        try:
            st = os.stat(directory)
            key = (st.st_dev, st.st_ino)
            if key in walker.dirs:
                continue
            walker.dirs.add(key)
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            report(rel, exc)
            continue
        subdirs = []
        for entry in entries:
            path = os.path.join(rel, entry.name) if rel else entry.name
            yield path
            try:
                if entry.is_dir():
                    subdirs.append(path)
            except OSError:
                pass
        stack.extend(reversed(subdirs))


def _may_hold(pattern: list[str], parts: list[str]) -> bool:
    """Whether the directory at path components ``parts`` can hold a match of glob components
    ``pattern`` (a path below it can match; the rules of :func:`_match`)."""
    if not parts:
        return bool(pattern)
    if not pattern:
        return False
    head = pattern[0]
    if head == "**":
        return _may_hold(pattern[1:], parts) or (not parts[0].startswith(".") and _may_hold(pattern, parts[1:]))
    if parts[0].startswith(".") and not head.startswith("."):
        return False
    return fnmatch.fnmatchcase(parts[0], head) and _may_hold(pattern[1:], parts[1:])


def _match(pattern: list[str], parts: list[str]) -> bool:
    """Whether path components ``parts`` match glob components ``pattern`` (``**``: any number of
    components, none of them hidden)."""
    if not pattern:
        return not parts
    head = pattern[0]
    if head == "**":
        if _match(pattern[1:], parts):
            return True
        return bool(parts) and not parts[0].startswith(".") and _match(pattern, parts[1:])
    if not parts:
        return False
    if parts[0].startswith(".") and not head.startswith("."):
        return False
    return fnmatch.fnmatchcase(parts[0], head) and _match(pattern[1:], parts[1:])


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
    remote = storage.is_remote(list_path)
    base = posixpath.dirname(list_path) if remote else os.path.dirname(storage.local_path(list_path))
    entries = []
    relative = 0
    from_here: list[tuple[int, str, str]] = []  # (line number, line, where it was looked for)
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if prefix:
            line = prefix + line
        if storage.is_remote(line) or os.path.isabs(line) or line.startswith("file://"):
            entries.append(line)
        elif remote:
            entries.append(storage.join(base, line) if base else line)
        else:
            path = os.path.normpath(os.path.join(base, line)) if base else line
            entries.append(path)
            relative += 1
            if base and not os.path.exists(path) and os.path.exists(line):
                from_here.append((number, line, path))
    if from_here:
        number, line, path = from_here[0]
        log.warning(
            "@%s: %d of its %d relative line(s) name no file in the list's folder %s, but do from the "
            "current directory (line %d, %s: no %s); the relative lines of an @LIST are relative to "
            "its folder: write absolute paths, or add --prefix %s/",
            list_path, len(from_here), relative, base, number, line, path, os.getcwd())
    return entries


def list_entry(name: str, prefix: str | None, base: str) -> str:
    """The path or URL a list's line names (an index's file name, :mod:`redecode.index`), as an
    ``@LIST``'s lines are read: ``prefix`` prepended as written, then, when relative, joined to
    ``base`` (the list's folder; ``""``: the current directory), ``..`` resolved for a local path."""
    if prefix:
        name = prefix + name
    if storage.is_remote(name) or os.path.isabs(name) or name.startswith("file://"):
        return name
    if storage.is_remote(base):
        return storage.join(base, name)
    return os.path.normpath(os.path.join(base, name)) if base else name


def _expand_remote(url: str, not_read: list[str], listed: dict[str, dict] | None = None) -> list[str]:
    def split(names: list[str]) -> list[str]:
        keep = []
        for f in names:
            if _is_input_name(f):
                keep.append(f)
            elif looks_like_archive(f):
                not_read.append(f)
        return keep

    def under(prefix: str) -> list[str]:
        details = storage.find_details(prefix)
        if listed is not None:
            listed.update(details)
        return list(details)

    if _GLOB_CHARS & set(url.partition("://")[2]):
        found = []
        for m in storage.glob(url):
            found.extend(split(under(m) if storage.isdir(m) else [m]))
        if not found:
            raise FileNotFoundError(f"no input file matches {url!r}")
        return found
    # one listing of the prefix (no probe before it): an object URL lists as itself
    found = split(under(url))
    if found:
        return found
    if storage.isfile(url):
        return [url]
    raise FileNotFoundError(f"no input file matches {url!r}")


def expand_inputs(inputs: Iterable[str | os.PathLike[str]], not_read: list[str] | None = None,
                  unreadable: dict[str, str] | None = None, *, list_prefix: str | None = None,
                  listed: dict[str, dict] | None = None) -> list[str]:
    """Expand command-line inputs to a sorted, de-duplicated list of paths and URLs (see the module
    docstring). Files that directories, prefixes and globs held under other names that still look
    like archives are appended to ``not_read`` when it is given; directories and files that could
    not be read go to ``unreadable`` (path -> error) and ``not_read``. ``list_prefix`` is prepended
    to every line of the ``@LIST`` files. ``listed``, when given, gets the listing's entry of every
    object found under a remote prefix or glob (URL -> ``size``, ``ETag``...:
    :func:`redecode.storage.find_details`), which a rerun compares with its markers instead of
    asking about each object again.

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
            found.update(_expand_remote(s, other, listed))
        else:
            local.append(storage.local_path(s))
    if local:
        found.update(iter_inputs(local, other, unreadable))
    if not_read is not None:
        not_read.extend(sorted(set(other) - found))
    return _with_wacz_members(sorted(found), not_read, unreadable)


def _with_wacz_members(paths: list[str], not_read: list[str] | None,
                       unreadable: dict[str, str] | None) -> list[str]:
    """``paths`` with each WACZ replaced by the WARC files inside it (:func:`redecode.wacz.expand`:
    ``CRAWL.wacz#archive/NAME``); a WACZ that holds none, or is no zip, goes to ``unreadable``
    (and ``not_read``), or raises :class:`ValueError` when they are not given."""
    out = []
    for path in paths:
        if not wacz.is_wacz(path):
            out.append(path)
            continue
        try:
            out.extend(wacz.expand(path))
        except (OSError, ValueError) as exc:
            if unreadable is None:
                raise ValueError(str(exc)) from None
            unreadable[path] = f"cannot read the WACZ: {exc}"
            if not_read is not None:
                not_read.append(path)
    return sorted(out)

