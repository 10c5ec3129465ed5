"""-v/-vv and --log-file (issue 18, item 2): the commands log through :mod:`logging`; warcio's
warnings, silenced by default, are shown at -vv."""

from __future__ import annotations

import logging
import os

import pytest
from click.testing import CliRunner

from redecode_jobs.cli import cli

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.normpath(os.path.join(HERE, "..", "sample_warcs"))


@pytest.fixture(autouse=True)
def restore_logging():
    """Leave the loggers as a fresh process has them (the commands configure them)."""
    yield
    from redecode import logs

    logs.configure(0)


def spaced_uri_warc(tmp_path) -> str:
    """A WARC with LF-only header lines (so warcio, not FastWARC, reads it) and a space in its
    WARC-Target-URI, which warcio repairs with a logged warning."""
    body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>hi</p>"
    head = ("WARC/1.0\nWARC-Type: response\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000001>\n"
            "WARC-Date: 2026-01-01T00:00:00Z\nWARC-Target-URI: http://example.com/a b\n"
            f"Content-Type: application/http; msgtype=response\nContent-Length: {len(body)}\n\n").encode()
    path = tmp_path / "space.warc"
    path.write_bytes(head + body + b"\n\n")
    return str(path)


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_default_says_only_the_summary(tmp_path):
    result = run("run", SAMPLE, "--out", str(tmp_path / "o"))
    assert result.exit_code == 0
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]  # one line: the summary
    assert "info:" not in result.stderr


def test_v_says_what_is_planned_and_done(tmp_path):
    result = run("run", SAMPLE, "--out", str(tmp_path / "o"), "-v", "--workers", "1")
    assert result.exit_code == 0
    assert "redecode: info: 4 input(s), 4 shard(s)" in result.stderr
    assert "sample-crawl-00001.warc.gz [0, end): complete, 13 rows" in result.stderr
    assert "debug:" not in result.stderr


def test_warcio_is_heard_at_vv_only(tmp_path):
    warc = spaced_uri_warc(tmp_path)
    quiet = run("run", warc, "--out", str(tmp_path / "a"))
    assert "Replacing spaces" not in quiet.stderr
    loud = run("run", warc, "--out", str(tmp_path / "b"), "-vv")
    assert "warcio: warning: Replacing spaces in invalid WARC-Target-URI: http://example.com/a b" in loud.stderr
    assert "redecode: debug:" in loud.stderr  # the hand-over from FastWARC to warcio
    again = run("run", warc, "--out", str(tmp_path / "c"), "-v")
    assert "Replacing spaces" not in again.stderr  # silenced again below -vv
    assert logging.getLogger("warcio.recordloader").level == logging.ERROR


def test_log_file_gets_info_and_the_summary(tmp_path):
    log_file = tmp_path / "run.log"
    result = run("run", SAMPLE, "--out", str(tmp_path / "o"), "--log-file", str(log_file), "-q")
    assert result.exit_code == 0
    assert result.stderr == ""  # -q: nothing on stderr; the log file has it all
    text = log_file.read_text(encoding="utf-8")
    assert "redecode.job INFO 4 input(s), 4 shard(s)" in text
    assert "redecode.cli INFO 4 inputs, 44 records: 38 decoded, 6 skipped, 0 failed" in text
    run("run", SAMPLE, "--out", str(tmp_path / "o"), "--log-file", str(log_file), "-q")
    assert log_file.read_text(encoding="utf-8").startswith(text)  # appended


def test_errors_go_to_stderr_and_the_log_file(tmp_path):
    bad = tmp_path / "not.warc"
    bad.write_bytes(b"this is not an archive\n")
    log_file = tmp_path / "run.log"
    result = run("run", str(bad), "--out", str(tmp_path / "o"), "--log-file", str(log_file), "-q")
    assert result.exit_code == 1
    assert f"redecode: error: {bad}: at offset 0:" in result.stderr
    assert f"redecode.cli ERROR {bad}: at offset 0:" in log_file.read_text(encoding="utf-8")


def test_log_file_that_cannot_be_written_is_a_usage_error(tmp_path):
    result = run("run", SAMPLE, "--out", str(tmp_path / "o"), "--log-file", str(tmp_path / "no" / "such" / "f"))
    assert result.exit_code == 2 and "--log-file" in result.output
    assert not (tmp_path / "o").exists()
