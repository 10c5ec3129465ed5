"""redecode.versions reads installed versions as importlib.metadata does (its reference)."""

from __future__ import annotations

import importlib.metadata

import pytest

from redecode import versions
from redecode.detect import ENGINES
from redecode.rundir import dependency_versions

NAMES = sorted({*dependency_versions(), "warc-redecode", *filter(None, ENGINES.values()), "FastWARC",
                "chardetng_py", "Charset_Normalizer", "pytest", "no-such-distribution-here"}
               - {"python", "decode-core"})


@pytest.mark.parametrize("name", NAMES)
def test_same_as_importlib_metadata(name):
    try:
        want = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        want = None
    assert versions.version(name) == want
