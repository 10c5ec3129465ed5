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


#: ``corpus/chardet-tests`` folder name -> the Encoding Standard encoding of its pages (MANIFEST.md
#: of the corpus: iso-8859-1 and ascii decode as windows-1252, TIS-620 as windows-874, iso-8859-9
#: as windows-1254, GB2312 as GBK, CP949 as EUC-KR), or None when the standard has no decoder for
#: it (EUC-TW, Johab, IBM855, the UTF-32 family; iso-2022-kr is the replacement encoding).
CHARDET_FOLDERS: dict[str, str | None] = {
    "Big5": "Big5", "CP932": "Shift_JIS", "CP949": "EUC-KR", "EUC-JP": "EUC-JP", "EUC-KR": "EUC-KR",
    "EUC-TW": None, "GB2312": "GBK", "IBM855": None, "IBM866": "IBM866", "Johab": None,
    "KOI8-R": "KOI8-R", "MacCyrillic": "x-mac-cyrillic", "MacRoman": "macintosh",
    "SHIFT_JIS": "Shift_JIS", "TIS-620": "windows-874", "UTF-16": "UTF-16BE", "UTF-16BE": "UTF-16BE",
    "UTF-16LE": "UTF-16LE", "UTF-32": None, "UTF-32BE": None, "UTF-32LE": None,
    "ascii": "windows-1252", "iso-2022-jp": "ISO-2022-JP", "iso-2022-kr": None,
    "iso-8859-1": "windows-1252", "iso-8859-2-croatian": "ISO-8859-2", "iso-8859-2-czech": "ISO-8859-2",
    "iso-8859-2-hungarian": "ISO-8859-2", "iso-8859-2-polish": "ISO-8859-2",
    "iso-8859-2-slovak": "ISO-8859-2", "iso-8859-2-slovene": "ISO-8859-2",
    "iso-8859-5-bulgarian": "ISO-8859-5", "iso-8859-5-russian": "ISO-8859-5",
    "iso-8859-6-arabic": "ISO-8859-6", "iso-8859-7-greek": "ISO-8859-7",
    "iso-8859-9-turkish": "windows-1254", "utf-8": "UTF-8", "utf-8-sig": "UTF-8",
    "windows-1250-croatian": "windows-1250", "windows-1250-czech": "windows-1250",
    "windows-1250-hungarian": "windows-1250", "windows-1250-polish": "windows-1250",
    "windows-1250-romanian": "windows-1250", "windows-1250-slovak": "windows-1250",
    "windows-1250-slovene": "windows-1250", "windows-1251-bulgarian": "windows-1251",
    "windows-1251-russian": "windows-1251", "windows-1252": "windows-1252",
    "windows-1254-turkish": "windows-1254", "windows-1255-hebrew": "windows-1255",
    "windows-1256-arabic": "windows-1256",
}
