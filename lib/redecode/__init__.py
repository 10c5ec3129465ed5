"""warc-redecode: re-decode archived web pages into the text their authors wrote, and say what a browser showed.

The data flows one way: archive -> record -> decision -> text -> row -> Parquet. One module per
concept (docs/DESIGN.md has the table and where to change what): ``labels``, ``decode``, ``mime``,
``prescan``, ``sniff``, ``detect`` (the decision and the decoders); ``procedures``, ``rules``,
``equivalence`` (rule sets); ``storage``, ``record``, ``warc``, ``rawparquet``, ``archive``,
``inputs`` (reading); ``schema``, ``writer``, ``row`` (rows and Parquet); ``executors``,
``rundir``, ``job``, ``spark``, ``backfill``, ``diff``, ``query`` (runs and their outputs).
"""

__version__ = "0.1.0"
