"""The scale benchmark's baseline: each command as one plain-Python process.

Usage: python bench/scale_baseline.py generate CRAWLDB SEGMENTS TOP_N MAX_COUNT NOW_MS
       python bench/scale_baseline.py updatedb CRAWLDB SEGMENT
       python bench/scale_baseline.py invertlinks LINKDB SEGMENT
       python bench/scale_baseline.py readdb CRAWLDB NOW_MS

No Beam: fastavro reads and writes, crawllib's own functions do the work in
memory in one pass, as a careful Python programmer would write it. The
outputs go where the commands put theirs (``current/part-00000-of-00001.avro``
under the crawldb or linkdb, ``SEGMENTS/<name>/generate/``), written fresh
(no versions, no locks). Prints one line: ``records: N`` written (readdb:
counted).
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Iterable, Iterator

import fastavro

from crawllib.config import (
    CrawlConfig,
    LinkDbConfig,
    Properties,
    UpdateConfig,
)
from crawllib.db import invertlinks as linkdb
from crawllib.db.generate import (
    GenerateSkip,
    SegmentAssigner,
    Selector,
    generated_page,
    host_cap,
    rank_key,
)
from crawllib.db.readdb import DbStats
from crawllib.db.updatedb import Inlink, choose_record, links_from, update_page
from crawllib.urls.cleaner import UrlCleaner
from crawllib.urls.normalize import UrlNormalizers
from crawllib.urls.partition import UrlPartitioner
from crawllib.webpage import WebPage, schema
from pipelines.cli.generate import generate_config

PART = "part-00000-of-00001.avro"


def _read(path: str) -> Iterator[WebPage]:
    with open(path, "rb") as handle:
        yield from fastavro.reader(handle)  # type: ignore[misc]


def _write(path: str, records: Iterable[WebPage]) -> int:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    count = 0

    def counted() -> Iterator[WebPage]:
        nonlocal count
        for record in records:
            count += 1
            yield record

    with open(path, "wb") as handle:
        fastavro.writer(
            handle, fastavro.parse_schema(schema()), counted(), codec="deflate"
        )
    return count


def generate(crawldb: str, segments: str, top_n: int, max_count: int, now: int) -> int:
    """Select, keep each host's best, rank all, write the fetch list."""
    props = Properties({"generate.max.count": str(max_count)})
    config = generate_config(props, top_n=top_n)
    selector = Selector(config, now)
    cap = host_cap(config.max_count, config.max_num_segments) or top_n
    per_host: dict[str, list[tuple[float, str, WebPage]]] = {}
    for page in _read(os.path.join(crawldb, "current", PART)):
        sort = selector.select(page)
        if isinstance(sort, GenerateSkip):
            continue
        key = selector.count_key(page["url"])
        if key is None:
            continue
        best = per_host.setdefault(key, [])
        best.append((rank_key(sort, page["url"])[0], page["url"], page))
        if len(best) > cap + cap // 4 + 1:
            best.sort(key=lambda c: c[:2])
            del best[cap:]
    ranked = sorted(
        (
            (neg, url, key, page)
            for key, best in per_host.items()
            for neg, url, page in best
        ),
        key=lambda c: c[:2],
    )
    assigner = SegmentAssigner(top_n, config.max_count, config.max_num_segments)
    partitioner = UrlPartitioner(config.partition)
    normalizers = UrlNormalizers(config.urls, "partition")
    name = time.strftime("%Y%m%d%H%M%S", time.localtime(now // 1000))

    def selected() -> Iterator[WebPage]:
        for _, url, key, page in ranked:
            segment = assigner.assign(key)
            if assigner.done:
                break
            if segment is None:
                continue
            part = partitioner.partition(
                normalizers.normalize(url) or url, config.num_fetchers
            )
            yield generated_page(page, config, now, now, name, part)

    return _write(os.path.join(segments, name, "generate", PART), selected())


def updatedb(crawldb: str, segment: str) -> int:
    """Segment records by URL, their links by target, then one crawldb pass."""
    config = UpdateConfig.from_properties(Properties())
    now = int(time.time() * 1000)
    records: dict[str, list[WebPage]] = {}
    for part in ("fetch", "parse"):
        for page in _read(os.path.join(segment, part, PART)):
            page["content"] = page["text"] = None
            records.setdefault(page["url"], []).append(page)
    cleaner = UrlCleaner(
        config.urls, "crawldb", normalize=config.normalize,
        filter_urls=config.filter_urls,
    )  # fmt: skip
    fetched: dict[str, WebPage] = {}
    links: dict[str, list[Inlink]] = {}
    for url, group in records.items():
        best = choose_record(group)
        if best is None:
            continue
        chosen, outlinks = links_from(best, config)
        fetched[url] = chosen
        for target, inlink in outlinks:
            cleaned = cleaner.clean(target)
            if isinstance(cleaned, str):
                links.setdefault(cleaned, []).append(inlink)
    del records

    def updated() -> Iterator[WebPage]:
        for old in _read(os.path.join(crawldb, "current", PART)):
            url = old["url"]
            page = update_page(
                url, old, fetched.pop(url, None), links.pop(url, []), config, now
            )
            if page is not None:
                yield page
        for url in sorted(fetched.keys() | links.keys()):
            page = update_page(
                url, None, fetched.get(url), links.get(url, []), config, now
            )
            if page is not None:
                yield page

    out = os.path.join(crawldb, "new", PART)
    count = _write(out, updated())
    os.replace(os.path.join(crawldb, "current", PART), out + ".old")
    os.replace(out, os.path.join(crawldb, "current", PART))
    os.remove(out + ".old")
    return count


def invertlinks(linkdb_dir: str, segment: str) -> int:
    """The parse records' outlinks inverted into one InlinkSet per target."""
    props = Properties()
    config = linkdb.check_config(LinkDbConfig.from_properties(props))
    inverter = linkdb.LinkInverter(config)
    targets: dict[str, linkdb.InlinkSet] = {}
    for page in _read(os.path.join(segment, "parse", PART)):
        if not linkdb.is_link_source(page):
            continue
        for item in inverter.invert(page["url"], page["outlinks"], page["fetchTime"]):
            if isinstance(item, linkdb.LinkSkip):
                continue
            target, inlink = item
            inlinks = targets.get(target)
            if inlinks is None:
                inlinks = targets[target] = linkdb.InlinkSet(config.max_inlinks)
            inlinks.add(inlink)
    pages = (
        linkdb.linkdb_page(target, found)
        for target, inlinks in targets.items()
        if (found := inlinks.inlinks())
    )
    return _write(os.path.join(linkdb_dir, "current", PART), pages)


def readdb(crawldb: str, now: int) -> int:
    """``readdb --stats``: the counts and the exact score quantiles."""
    config = CrawlConfig.from_dict({}).stats
    stats = DbStats()
    scores = []
    for page in _read(os.path.join(crawldb, "current", PART)):
        stats.add(page, now, config.gen_delay_ms)
        if not math.isnan(page["score"]):
            scores.append(page["score"])
    scores.sort()
    median = scores[len(scores) // 2] if scores else math.nan
    print(f"TOTAL urls: {stats.total} score median {median:.3f}")
    return stats.total


def main(argv: list[str]) -> int:
    command, *args = argv
    if command == "generate":
        count = generate(args[0], args[1], *(int(a) for a in args[2:5]))
    elif command == "updatedb":
        count = updatedb(args[0], args[1])
    elif command == "invertlinks":
        count = invertlinks(args[0], args[1])
    elif command == "readdb":
        count = readdb(args[0], int(args[1]))
    else:
        print(f"scale_baseline: no command {command!r}", file=sys.stderr)
        return 2
    print(f"records: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
