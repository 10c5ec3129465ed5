"""The ImportError messages for a missing optional extra say how to install it: from the checkout
(``pip install -e '.[...]'``), since there is no PyPI release of warc-redecode to name."""

from __future__ import annotations

import sys

import pytest

from redecode import executors, storage


def _check(message: str, extra: str) -> None:
    assert "warc-redecode[" not in message, message
    assert f"pip install -e '.[{extra}" in message, message


def test_spark_extra_message(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspark", None)  # makes ``import pyspark...`` raise ImportError
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    with pytest.raises(ImportError) as info:
        executors._spark_session("local[1]", "test", None)
    _check(str(info.value), "spark")


def test_s3_extra_message(monkeypatch):
    monkeypatch.setitem(sys.modules, "fsspec", None)
    with pytest.raises(ImportError) as info:
        storage.filesystem("s3://bucket/crawl/a.warc.gz")
    _check(str(info.value), "s3")
