"""Versions of installed distributions, for the run manifest and the rules digest.

``importlib.metadata.version(name)`` is the reference; importing :mod:`importlib.metadata` (with
``email``, ``zipfile``, ``csv``...) costs every run about as much as decoding a megabyte of
pages, so :func:`version` reads the same answer directly: the first ``.dist-info`` directory on
``sys.path`` whose name is the distribution's (compared as the packaging specifications normalise
names: case-insensitive, runs of ``-``, ``_``, ``.`` alike), and the ``Version`` field of its
``METADATA``, which is what :mod:`importlib.metadata` returns. Anything else (egg-info, zip
imports, a directory without ``METADATA``) is left to :mod:`importlib.metadata`.
``tests/test_versions.py`` checks both agree.
"""

from __future__ import annotations

import os
import re
import sys
from functools import cache

__all__ = ["version"]

_NON_ALNUM = re.compile(r"[-_.]+")


def _normalize(name: str) -> str:
    return _NON_ALNUM.sub("_", name).lower()


@cache
def _dist_info_dirs() -> dict[str, str]:
    """Normalised distribution name -> its .dist-info directory: the first on ``sys.path``."""
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for n in names:
            if n.endswith(".dist-info"):
                key = _normalize(n[: -len(".dist-info")].split("-", 1)[0])
                found.setdefault(key, os.path.join(entry or ".", n))
            elif n.endswith(".egg-info"):
                # importlib.metadata reads those too; let it answer for such names
                found.setdefault(_normalize(n[: -len(".egg-info")].split("-", 1)[0]), "")
    return found


def version(dist: str) -> str | None:
    """The installed version of distribution *dist* (``importlib.metadata.version``), or None when
    it is not installed."""
    path = _dist_info_dirs().get(_normalize(dist))
    if path:
        try:
            with open(os.path.join(path, "METADATA"), encoding="utf-8") as f:
                for line in f:
                    if line.startswith("Version:"):
                        return line[len("Version:"):].strip()
                    if not line.strip():
                        break  # end of the header fields
        except OSError:
            pass
    import importlib.metadata  # noqa: PLC0415 - the general case, rare

    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None
