"""The local executor's worker processes and signals (redecode.executors)."""

from __future__ import annotations

import signal

import pytest

import redecode.executors as executors
from redecode.executors import Local, map_shards


def _sigint_state(_item) -> tuple[bool, bool]:
    """(SIGINT ignored, SIGINT blocked) in the process that runs the item."""
    return signal.getsignal(signal.SIGINT) == signal.SIG_IGN, signal.SIGINT in signal.pthread_sigmask(
        signal.SIG_BLOCK, set())


@pytest.fixture
def sigint_default():
    """SIGINT raising KeyboardInterrupt here during the test (a test runner's worker process may
    ignore it), as it was afterwards."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_workers_ignore_sigint_and_nothing_stays_blocked(sigint_default):
    """Workers start with SIGINT blocked (a Ctrl-C to the process group between a worker's fork and
    its initializer must not raise KeyboardInterrupt in it), then ignore it and unblock it; this
    process's signal mask is what it was before the map."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    assert map_shards(_sigint_state, [1, 2, 3], Local(2)) == [(True, False)] * 3
    assert signal.pthread_sigmask(signal.SIG_BLOCK, set()) == before
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_sigint_while_workers_are_made_reaches_this_process_after(sigint_default, monkeypatch):
    """A SIGINT that arrives while the workers are being made (SIGINT blocked here) is delivered
    when the pool is up: KeyboardInterrupt in this process, the workers stopped."""
    real = executors._restore_mask

    def restore_after_a_sigint(mask):
        signal.raise_signal(signal.SIGINT)  # (blocked: pending until the mask is restored)
        real(mask)

    monkeypatch.setattr(executors, "_restore_mask", restore_after_a_sigint)
    with pytest.raises(KeyboardInterrupt):
        map_shards(_sigint_state, [1, 2], Local(2))
