"""``labels.get_encoding``'s per-label cache against the uncached lookup (``labels._lookup``).

The lookup itself (Encoding Standard "get an encoding") is pinned by ``test_labels.py``."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from redecode import labels
from redecode.labels import LABELS, get_encoding

_PIECES = [*sorted(LABELS)[:60], "UTF-8", "utf8", " ", "\t", "\x0b", "\x0c", "\xa0", "\u212a", "oi8-r", "-", "x"]
label_text = st.lists(st.sampled_from(_PIECES), max_size=4).map("".join)


@settings(max_examples=1000, deadline=None)
@given(label_text | st.text(max_size=12))
def test_cached_equals_uncached(label):
    want = labels._lookup(label)
    for _ in range(2):  # the second call is answered from the cache
        assert get_encoding(label) == want
    raw = label.encode("utf-8")
    want_raw = labels._lookup(raw)
    for arg in (raw, raw, bytearray(raw), memoryview(raw), memoryview(bytearray(raw))):
        assert get_encoding(arg) == want_raw


def test_str_and_bytes_labels_are_separate_keys():
    assert get_encoding("koi8-r") == get_encoding(b"koi8-r") == "KOI8-R"
    assert get_encoding(b"\xe9") is None and get_encoding("\xe9") is None


def test_cache_is_bounded():
    assert get_encoding("x" * 100) is None
    assert "x" * 100 not in labels._CACHE
    for i in range(labels._CACHE_MAX + 10):
        get_encoding(f"label-{i}")
    assert len(labels._CACHE) <= labels._CACHE_MAX
    assert get_encoding(" Latin1\n") == "windows-1252"
