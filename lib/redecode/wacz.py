"""WACZ: Web Archive Collection Zipped (WACZ 1.1.1, specs.webrecorder.net/wacz/1.1.1/): its WARC
files as inputs, and its CDXJ index as a record index.

Contract. A WACZ is a zip holding WARC files under ``archive/``, a CDX(J) index of their records
under ``indexes/`` (``index.cdx.gz``: CDXJ lines in gzip members, with ``index.idx`` locating the
members; or ``index.cdx``/``index.cdxj``), ``pages/`` and ``datapackage.json``. Its WARC files are
read where they lie, as :mod:`redecode.storage` reads a member of a zip: a path
``CRAWL.wacz#archive/NAME`` names one (:func:`warc_members`), and the rows of its records carry it
as ``warc_path``, naming the WACZ and the WARC; their offsets are the WARC's own (those of the
WACZ's index). :func:`expand` gives a WACZ's WARCs to a run that reads them in full;
:func:`index_members` its indexes to ``run --index CRAWL.wacz``, which reads the records its index
lists, their file names resolved under ``archive/`` (:func:`member_path`).

Deviations: the ``datapackage.json`` hashes are not checked (the WARC records' own digests and
the zip's CRC-32 are what reading relies on); ``pages/`` is not read.
"""

from __future__ import annotations

from . import storage

__all__ = ["WARC_FOLDER", "INDEX_FOLDER", "SUFFIX", "expand", "index_members", "is_wacz", "member_path",
           "warc_members"]

SUFFIX = ".wacz"
WARC_FOLDER = "archive/"
INDEX_FOLDER = "indexes/"
#: Member names under ``archive/`` read as WARC (or ARC) files.
_WARC_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz", ".warc.lz4")
#: Member names under ``indexes/`` read as record indexes (not ``.idx``: a ZipNum index of blocks).
_INDEX_SUFFIXES = (".cdx", ".cdxj", ".cdx.gz", ".cdxj.gz")


def is_wacz(path: str) -> bool:
    """Whether ``path`` names a WACZ file (by its name: ``.wacz``, any case)."""
    return path.lower().endswith(SUFFIX) and storage.split_member(path) is None


def member_path(wacz: str, member: str) -> str:
    """The path of ``member`` of ``wacz``: ``CRAWL.wacz#archive/data.warc.gz``."""
    return f"{wacz}#{member}"


def warc_members(wacz: str) -> list[str]:
    """The paths of the WARC (and ARC) files under ``archive/`` of ``wacz``, in zip order. Raises
    :class:`FileNotFoundError`, :class:`ValueError` (not a zip: "not a zip file (...)")."""
    return [member_path(wacz, n) for n in storage.zip_names(wacz)
            if n.startswith(WARC_FOLDER) and n.lower().endswith(_WARC_SUFFIXES)]


def index_members(wacz: str) -> list[str]:
    """The paths of the CDX(J) indexes under ``indexes/`` of ``wacz``. Raises as
    :func:`warc_members`."""
    return [member_path(wacz, n) for n in storage.zip_names(wacz)
            if n.startswith(INDEX_FOLDER) and n.lower().endswith(_INDEX_SUFFIXES)]


def expand(wacz: str) -> list[str]:
    """The inputs a WACZ stands for in a run that reads it in full: :func:`warc_members`. Raises
    :class:`ValueError` saying what is wrong when it holds none or is not a zip (the message does
    not repeat the path)."""
    members = warc_members(wacz)
    if not members:
        raise ValueError(f"no WARC file in it: nothing under {WARC_FOLDER} named {', '.join(_WARC_SUFFIXES)}")
    return members
