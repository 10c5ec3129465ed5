"""Files being written never match ``DIR/*.parquet`` (issue 17, case 5): the README's DuckDB query
``select ... from 'DIR/*.parquet'`` works while a run writes and after a run was killed (DuckDB's
glob, unlike the shell's, matches names that start with a dot)."""

from __future__ import annotations

import fnmatch
import shutil
from pathlib import Path

import duckdb

from redecode import storage, writer
from redecode.job import run

ROOT = Path(__file__).resolve().parent.parent
ARCHIVES = sorted((ROOT / "sample_warcs").glob("*.warc.gz"))


def test_temp_path_is_not_a_part_name():
    for name in ("x.parquet", "_run.json", "a.warc.gz.1234abcd.0000.parquet"):
        tmp = storage.temp_path(f"/d/{name}")
        assert not fnmatch.fnmatch(Path(tmp).name, "*.parquet"), tmp
        assert Path(tmp).name.startswith(storage.TMP_PREFIX)


def _count(out: Path) -> int:
    with duckdb.connect() as con:
        return con.execute(f"select count(*) from '{out}/*.parquet'").fetchone()[0]


def test_duckdb_glob_works_while_a_part_is_being_written(tmp_path, monkeypatch):
    out = tmp_path / "out"
    run([str(ARCHIVES[0])], str(out))
    before = _count(out)
    seen: list[int] = []
    close = writer.PartWriter.close

    def close_and_look(self):
        self.flush()  # the part's row groups are on disk under the temporary name, no footer yet
        assert Path(self.tmp_path).exists()
        seen.append(_count(out))  # on main: "No magic bytes found at end of file '.tmp-...parquet'"
        close(self)

    monkeypatch.setattr(writer.PartWriter, "close", close_and_look)
    run([str(ARCHIVES[0]), str(ARCHIVES[1])], str(out))
    assert seen == [before]


def test_duckdb_glob_works_after_a_killed_run(tmp_path):
    """What a killed run leaves (a part cut before its footer under the temporary name)."""
    out = tmp_path / "out"
    run([str(ARCHIVES[0])], str(out))
    part = next(out.glob("*.parquet"))
    shutil.copyfile(part, storage.temp_path(str(out / ("other" + part.name))))
    with open(storage.temp_path(str(out / ("other" + part.name))), "r+b") as f:
        f.truncate(100)
    assert _count(out) > 0
