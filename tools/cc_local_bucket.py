#!/usr/bin/env python3
"""Lay WARC files out in a local S3 server as Common Crawl publishes a crawl, to try docs/operations.md's
Common Crawl walk-through without the real bucket.

Writes, into the S3 server that ``AWS_ENDPOINT_URL`` names (refused without one: this tool never
writes to AWS itself), bucket ``commoncrawl`` (``--bucket``):

- each WARC as ``crawl-data/<crawl>/segments/<segment>/warc/<name>``;
- ``crawl-data/<crawl>/warc.paths.gz``, the crawl's list of WARC files (relative to the bucket);
- the columnar index, ``cc-index/table/cc-main/warc/crawl=<crawl>/subset=warc/part-00000.parquet``,
  and the CDXJ index, ``cc-index/collections/<crawl>/indexes/cdx-00000.gz``, both built by
  ``tools/make_cc_index.py`` (warcio's offsets and lengths);

and creates the empty bucket ``redecoded`` (``--out-bucket``) for the output. Needs the ``[s3]`` and
``[test]`` extras (s3fs; boto3, which moto brings).

Usage::

    .venv/bin/moto_server -p 5555 &
    export AWS_ENDPOINT_URL=http://127.0.0.1:5555 AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing \\
           AWS_DEFAULT_REGION=us-east-1
    .venv/bin/python tools/cc_local_bucket.py sample_warcs/*.warc.gz
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def _tool():
    spec = importlib.util.spec_from_file_location("make_cc_index", os.path.join(HERE, "make_cc_index.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("warcs", nargs="+")
    ap.add_argument("--crawl", default="CC-MAIN-2026-44")
    ap.add_argument("--bucket", default="commoncrawl")
    ap.add_argument("--out-bucket", default="redecoded")
    args = ap.parse_args(argv)
    endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    if not endpoint:
        sys.exit("AWS_ENDPOINT_URL is not set: this tool writes only to a local S3 server (moto_server -p 5555)")
    import boto3

    client = boto3.client("s3", endpoint_url=endpoint, region_name=os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))
    for bucket in (args.bucket, args.out_bucket):
        try:
            client.create_bucket(Bucket=bucket)
        except client.exceptions.BucketAlreadyOwnedByYou:
            pass
    tool = _tool()
    rows, keys = [], []
    for n, path in enumerate(sorted(args.warcs)):
        key = f"crawl-data/{args.crawl}/segments/1761000000000.{n:02d}/warc/{os.path.basename(path)}"
        client.upload_file(path, args.bucket, key)
        keys.append(key)
        rows.extend(tool.index_rows(path, key, f"1761000000000.{n:02d}"))
    rows.sort(key=lambda r: (r["url_surtkey"], r["warc_filename"], r["warc_record_offset"]))
    client.put_object(Bucket=args.bucket, Key=f"crawl-data/{args.crawl}/warc.paths.gz",
                      Body=gzip.compress("".join(k + "\n" for k in keys).encode(), mtime=0))
    with tempfile.TemporaryDirectory() as tmp:
        part = tool.write_parquet(rows, tmp, crawl=args.crawl)
        client.upload_file(part, args.bucket, f"cc-index/table/cc-main/warc/{os.path.relpath(part, tmp)}")
        cdxj = os.path.join(tmp, "cdx-00000.gz")
        tool.write_cdxj(rows, cdxj)
        client.upload_file(cdxj, args.bucket, f"cc-index/collections/{args.crawl}/indexes/cdx-00000.gz")
    print(f"s3://{args.bucket}/: {len(keys)} WARC file(s) of {args.crawl}, {len(rows)} records in its "
          f"columnar index (s3://{args.bucket}/cc-index/table/cc-main/warc/) and CDXJ index; "
          f"s3://{args.out_bucket}/ for the output")
    return 0


if __name__ == "__main__":
    sys.exit(main())
