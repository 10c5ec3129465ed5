"""warc-redecode: re-decode archived web pages into the text their authors wrote, and say what a browser showed.

The data flows one way: archive -> record -> decision -> text -> row -> Parquet.
One module per concept: ``labels`` (Encoding Standard labels), ``mime`` (MIME types),
``prescan`` (HTML prescan and head scan), ``sniff`` (the encoding decision), ``detect``
(statistical detection), ``decode`` (Encoding Standard decoders), ``archive`` (WARC/ARC
reading), ``schema`` and ``writer`` (Parquet), ``job`` (the run), ``diff``, ``backfill``,
``query``, ``rules`` (named, versioned rule sets).
"""

__version__ = "0.1.0"
