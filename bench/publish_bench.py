"""What installing a new crawldb version costs: local disk, S3 (moto), GCS (emulator).

A crawldb of ``--records`` WebPage records in ``--shards`` part files is
written to each store; then, ``--repeat`` times each, a new version of the
same files is installed two ways and timed:

- **publish** (beamcrawl now, ``pipelines.storage.versions.publish``): write the
  next ``published/<seq>.json`` and delete the version two back;
- **rename install** (beamcrawl before, Nutch's ``CrawlDb.install``): rename
  ``current`` to ``old`` and the new version to ``current``, which on an
  object store is a copy and a delete of every part file.

The store servers run on 127.0.0.1 (tests/objectstores.py); moto and the
emulator keep objects in memory, so the figures show the number and size of
the requests, not a real network. Run from the repository root:

    python bench/publish_bench.py --records 100000 --repeat 5
"""

from __future__ import annotations

import argparse
import io as io_module
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fastavro
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import PipelineOptions

from crawllib.webpage import new_page, schema
from pipelines.runtime import beamspeed, gcpauth
from pipelines.storage import fs, partfiles, versions
from tests.objectstores import start_server


def _records(count: int) -> list[dict[str, object]]:
    """Fetched pages as a crawl's crawldb holds them (~150 bytes each, deflated)."""
    rng = random.Random(7)
    records = []
    for n in range(count):
        url = f"http://host{n % 997}.example.com/section/{n}/page.html"
        fetched = 1_796_245_000_000 + rng.randrange(10**8)
        records.append(
            new_page(
                url,
                baseUrl=url,
                status=2,
                score=rng.random(),
                fetchTime=fetched + 2_592_000_000,
                prevFetchTime=fetched - 2_592_000_000,
                modifiedTime=fetched,
                fetchInterval=2_592_000,
                protocolStatus={"code": 1, "args": [], "lastModified": fetched},
                contentType="text/html",
                signature=rng.randbytes(16),
                title=f"Host {n % 997} page {n}",
                parseStatus={"majorCode": 1, "minorCode": 0, "args": []},
                headers={
                    "Server": "nginx/1.22.1",
                    "Content-Type": "text/html",
                    "Content-Length": str(rng.randrange(5_000, 50_000)),
                },
                inlinks={f"http://host{n % 997}.example.com/p{n // 3}.html": "a link"},
                markers={"dist": str(n % 5)},
                metadata={"_csh_": rng.randbytes(4), "_rs_": rng.randbytes(4)},
                batchId="20261202210739",
            )
        )
    return records


def _encode(records: list[dict[str, object]], shards: int) -> list[bytes]:
    parsed = fastavro.parse_schema(schema())
    blobs = []
    for shard in range(shards):
        buffer = io_module.BytesIO()
        fastavro.writer(buffer, parsed, records[shard::shards], "deflate")
        blobs.append(buffer.getvalue())
    return blobs


def _write_version(directory: str, blobs: list[bytes]) -> None:
    for shard, blob in enumerate(blobs):
        name = f"part-{shard:05d}-of-{len(blobs):05d}.avro"
        path = FileSystems.join(directory, name)
        with FileSystems.create(
            path, compression_type=CompressionTypes.UNCOMPRESSED
        ) as f:
            f.write(blob)


def _rename_install(db: str, new_dir: str) -> None:
    """beamcrawl's install before versions (Nutch's CrawlDb.install)."""
    current, old = FileSystems.join(db, "current"), FileSystems.join(db, "old")
    fs.remove_dir(old)
    if fs.is_local(db):  # directory renames
        os.rename(current, old)
        os.rename(new_dir, current)
        return
    partfiles.move_parts(current, old)  # a copy and a delete of every part file
    partfiles.move_parts(new_dir, current)
    fs.remove_dir(new_dir)


def _timed(action: Callable[[], None]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _measure(root: str, blobs: list[bytes], repeat: int) -> tuple[float, float, float]:
    db = FileSystems.join(root, "crawldb")
    publishes, commits = [], []
    for n in range(repeat + 1):
        new_dir = versions.new_version_dir(db)
        _write_version(new_dir, blobs)
        publishes.append(_timed(lambda d=new_dir: versions.publish(db, d)))
        # the one write that makes a version current, alone (a same-size object)
        probe = FileSystems.join(root, "probe", f"{n:010d}.json")
        commits.append(_timed(lambda p=probe: _write_version_pointer(p)))
    old_db = FileSystems.join(root, "renamed")
    _write_version(FileSystems.join(old_db, "current"), blobs)
    renames = []
    for n in range(repeat + 1):
        new_dir = FileSystems.join(old_db, f"tmp-{n}")
        _write_version(new_dir, blobs)
        renames.append(_timed(lambda d=new_dir: _rename_install(old_db, d)))
    # the first publish has no version to replace: not counted
    return (
        statistics.median(publishes[1:]),
        statistics.median(commits[1:]),
        statistics.median(renames[1:]),
    )


def _write_version_pointer(path: str) -> None:
    body = b'{"version": "versions/20261203T114512Z-5f0c2a91", "previous": null}\n'
    if fs.is_local(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path + ".tmp", "wb") as f:
            f.write(body)
            f.flush()
            os.fsync(f.fileno())
        os.replace(path + ".tmp", path)
        return
    with FileSystems.create(path, compression_type=CompressionTypes.UNCOMPRESSED) as f:
        f.write(body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    beamspeed.install()
    blobs = _encode(_records(args.records), args.shards)
    size_mb = sum(len(b) for b in blobs) / 1e6
    print(f"{args.records:,} records in {args.shards} part files, {size_mb:.1f} MB")
    print(
        "| store | publish: all (median) | of which the commit write "
        "| rename install (median) | rename / publish |"
    )
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        rows = [("local disk", scratch, None)]
        servers = [start_server(s, Path(scratch)) for s in ("s3", "gs")]
        try:
            stores = [server.bucket() for server in servers]
            for store in stores:
                os.environ.update(store.env)
                label = "S3 (moto)" if store.scheme == "s3" else "GCS (emulator)"
                rows.append((label, store.url("bench"), store))
            options = PipelineOptions([f for store in stores for f in store.flags])
            gcpauth.honour_no_auth(options)
            FileSystems.set_options(options)
            for label, root, _ in rows:
                publish_s, commit_s, rename_s = _measure(root, blobs, args.repeat)
                print(
                    f"| {label} | {publish_s * 1000:.0f} ms | {commit_s * 1000:.1f} ms "
                    f"| {rename_s * 1000:.0f} ms | {rename_s / publish_s:.1f}x |"
                )
        finally:
            for server in servers:
                server.stop()


if __name__ == "__main__":
    main()
