"""Avro encoding benchmark: fastavro's writer vs the generated WebPage encoder.

Usage: python bench/avro_bench.py [--pages 1000] [--repeat 7]

Records: the first N pages of the crawl benchmark's web (bench/synthweb.py,
~15 KB of HTML, ~30 links each) as the fetcher writes them
(``fetched_page``), as the parser writes them (``parse_without_content``)
and as updatedb writes the crawldb (``update_page``: the fetched pages and
the new pages their links make). For each kind, in the same process,
old and new alternating, ``--repeat`` rounds:

- encode: ``fastavro.schemaless_writer`` vs ``crawllib.avro.encode.encode_webpage``
  (every record checked byte for byte first);
- write: a whole deflate file as ``WriteWebPages`` writes it
  (256 KB blocks at level 1, by ISA-L), by fastavro's ``Writer.write`` vs
  ``EncodedBlocks.write`` (files checked byte for byte);
- read: that file read back by ``fastavro.reader`` (zlib) vs
  ``crawllib.avro.blocks.records`` (ISA-L, as ``ReadWebPages`` reads;
  records checked equal);

and prints microseconds per record, min and median, before and after.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import fastavro

from crawllib.avro import blocks as avroblocks
from crawllib.avro import deflate as avrodeflate
from crawllib.avro import encode as avroencode
from crawllib.config import ParseConfig, UpdateConfig, load_properties
from crawllib.db.updatedb import links_from, update_page
from crawllib.fetch.protocol import FetchResult
from crawllib.fetch.records import fetched_page
from crawllib.parse.parse import PageParser
from crawllib.parse.pool import parse_without_content
from crawllib.status import CrawlStatus, ProtocolStatus
from crawllib.webpage import new_page, schema

NOW_MS = 1_700_000_000_000
SYNC_MARKER = b"0123456789abcdef"


def _records(count: int) -> dict[str, list[Any]]:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from synthweb import page_html, page_url

    fetched = []
    for n in range(count):
        url = page_url(n % 40, n // 40)
        result = FetchResult(
            url, ProtocolStatus.SUCCESS, http_code=200,
            content=page_html(n % 40, n // 40, 40, 250),
            content_type="text/html; charset=utf-8",
            headers=(("Content-Type", "text/html; charset=utf-8"),
                     ("Server", "nginx"), ("Content-Length", "15000")),
            response_time_ms=2,
        )  # fmt: skip
        page = new_page(url, status=int(CrawlStatus.UNFETCHED), batchId="b")
        page["markers"] = {"_gnmrk_": "b"}
        fetched.append(fetched_page(page, result, NOW_MS))
    parser = PageParser(ParseConfig.from_properties(load_properties()), use_alarm=True)
    parsed = [parse_without_content(parser, page) for page in fetched]
    config = UpdateConfig.from_properties(load_properties())
    crawldb = [update_page(p["url"], None, p, [], config, NOW_MS) for p in parsed]
    targets: dict[str, list[Any]] = {}
    for page in parsed:
        for target, link in links_from(page, config)[1]:
            targets.setdefault(target, []).append(link)
    crawldb += [
        update_page(t, None, None, links, config, NOW_MS)
        for t, links in targets.items()
    ]
    return {
        "fetched": fetched,
        "parsed": parsed,
        "crawldb": [page for page in crawldb if page is not None],
    }


def _fastavro_encode(records: list[Any]) -> list[bytes]:
    parsed = fastavro.parse_schema(schema())
    out = []
    for record in records:
        buffer = io.BytesIO()
        fastavro.schemaless_writer(buffer, parsed, record)
        out.append(buffer.getvalue())
    return out


def _generated_encode(records: list[Any]) -> list[bytes]:
    return [avroencode.encode_webpage(record) for record in records]


def _file(records: list[Any], generated: bool) -> bytes:
    out = io.BytesIO()
    writer = fastavro.write.Writer(
        out, schema(), "deflate", sync_interval=256 * 1024,
        compression_level=1, sync_marker=SYNC_MARKER,
    )  # fmt: skip
    writer.block_writer = avrodeflate.block_writer()
    if generated:
        blocks = avroencode.EncodedBlocks(writer, avroencode.encode_webpage)
        for record in records:
            blocks.write(record)
        blocks.end_block()
    else:
        for record in records:
            writer.write(record)
    writer.flush()
    return out.getvalue()


def _read(data: bytes, records: Callable[[Any], Any]) -> list[Any]:
    return list(records(io.BytesIO(data)))


def _us_per_record(run: Callable[[], Any], count: int) -> float:
    started = time.perf_counter()
    run()
    return (time.perf_counter() - started) / count * 1e6


def main() -> None:
    """Print the table."""
    args = argparse.ArgumentParser()
    args.add_argument("--pages", type=int, default=1000)
    args.add_argument("--repeat", type=int, default=7)
    options = args.parse_args()
    kinds = _records(options.pages)
    print(f"{'records':<8} {'n':>6} {'step':<7} {'before us':>18} {'after us':>18}")
    for kind, records in kinds.items():
        assert _fastavro_encode(records) == _generated_encode(records)
        data = _file(records, False)
        assert data == _file(records, True)
        assert _read(data, fastavro.reader) == _read(data, avroblocks.records)
        steps: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {
            "encode": (partial(_fastavro_encode, records),
                       partial(_generated_encode, records)),
            "write": (partial(_file, records, False), partial(_file, records, True)),
            "read": (partial(_read, data, fastavro.reader),
                     partial(_read, data, avroblocks.records)),
        }  # fmt: skip
        for step, (old, new) in steps.items():
            times: tuple[list[float], list[float]] = ([], [])
            for _ in range(options.repeat):
                times[0].append(_us_per_record(old, len(records)))
                times[1].append(_us_per_record(new, len(records)))
            cells = [
                f"{min(t):7.1f} / {statistics.median(t):7.1f}" for t in times
            ]  # min / median
            print(
                f"{kind:<8} {len(records):>6} {step:<7} {cells[0]:>18} {cells[1]:>18}"
            )


if __name__ == "__main__":
    main()
