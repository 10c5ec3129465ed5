"""Where the tests find the large shared data that is not in the repository.

``REDECODE_SHARED`` names the folder holding ``bench/`` (``make_bench_warc.py``) and ``corpus/``
(the real WARCs, chardet's test pages, the WHATWG index files...); default: ``../shared`` beside the
repository. Tests that need it skip with :func:`absent`'s reason when the part they read is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = "REDECODE_SHARED"
SHARED = Path(os.path.abspath(os.environ.get(ENV) or ROOT.parent / "shared"))
CORPUS = SHARED / "corpus"
BENCH = SHARED / "bench"


def absent(path: str | os.PathLike[str]) -> str:
    """The skip reason for a missing shared path: which one, and how to point the tests elsewhere."""
    return (f"{path} not present (set {ENV} to the folder holding bench/ and corpus/; "
            f"default: ../shared beside the repository)")
