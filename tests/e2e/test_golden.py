"""Speed-ups change nothing that is crawled: two crawls against recorded digests.

The demo crawl and a small crawl of the crawl benchmark's synthetic web
(``bench/synthweb.py``) are run and every record they wrote (crawldb,
linkdb, each segment's generate, fetch and parse parts; wall clock masked
as in ``tests/crawlrecords.py``) is compared, by a digest of its fields,
with what the code wrote before the throughput work of issue 10. The
servers listen on fixed ports because URLs, and so pages and their
signatures, contain them.

After a change that is meant to change what is crawled, record new digests
with ``BEAMCRAWL_WRITE_GOLDEN=1 pytest tests/e2e/test_golden.py`` and say
why in the commit.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pipelines.cli import main
from pipelines.demo import DEMO_PROPERTIES, DemoSite
from pipelines.storage import bucketfiles, versions
from tests.avrofiles import read_pages
from tests.crawlrecords import crawl_records
from tests.e2e.crafted import write_pages

sys.path.insert(0, str(Path(__file__).parents[2] / "bench"))
from synthweb import SyntheticWeb  # type: ignore[import-not-found]

GOLDEN = Path(__file__).parents[1] / "data" / "golden"
SYNTH_PORT = 18931
DEMO_PORTS = (18932, 18933)


@contextlib.contextmanager
def _ports_held() -> Iterator[None]:
    """The fixed ports, for one test process at a time on this machine.

    The recorded URLs name them, so they cannot be free ports; CI runs these
    tests on two Beams at once (scripts/check), and others share the machine.
    """
    path = Path(tempfile.gettempdir()) / "beamcrawl-golden-ports.lock"
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        yield


def _digest(record: dict[str, Any]) -> str:
    def plain(value: Any) -> Any:
        return value.hex() if isinstance(value, bytes) else repr(value)

    text = json.dumps(record, sort_keys=True, default=plain)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _digests(crawl_dir: Path) -> dict[str, dict[str, str]]:
    return {
        part: {f"{r['batchId'] or ''} {r['url']}": _digest(r) for r in records}
        for part, records in crawl_records(crawl_dir).items()
    }


def _check(name: str, crawl_dir: Path) -> None:
    found = _digests(crawl_dir)
    path = GOLDEN / f"{name}.json"
    if os.environ.get("BEAMCRAWL_WRITE_GOLDEN"):
        path.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
    expected = json.loads(path.read_text())
    assert sorted(found) == sorted(expected)
    for part in expected:
        differing = [
            key
            for key in sorted(set(found[part]) | set(expected[part]))
            if found[part].get(key) != expected[part].get(key)
        ]
        assert differing == [], f"{part}: {len(differing)} records differ"


def test_demo_crawl_writes_the_recorded_records(tmp_path):
    site = DemoSite(main_host="127.0.3.1", blog_host="127.0.3.2", ports=DEMO_PORTS)
    with _ports_held():
        _crawl_demo(site, tmp_path)
    _check("demo", tmp_path / "crawl")


def _crawl_demo(site: DemoSite, tmp_path: Path) -> None:
    site.start()
    try:
        seeds = tmp_path / "seeds.txt"
        seeds.write_text(site.url("main") + "/\n")
        flags = [f"-D{p}" for p in DEMO_PROPERTIES]
        crawl_dir = tmp_path / "crawl"
        assert main(["crawl", "--seeds", str(seeds), str(crawl_dir), "3", *flags]) == 0
    finally:
        site.stop()


def test_a_crawl_continued_across_the_bucket_layout_writes_the_recorded_records(
    tmp_path,
):
    """A crawl an older beamcrawl began (its crawldb and linkdb not bucketed),
    continued by this one, writes what the crawl that never changed writes."""
    site = DemoSite(main_host="127.0.3.1", blog_host="127.0.3.2", ports=DEMO_PORTS)
    crawl_dir = tmp_path / "crawl"
    with _ports_held():
        site.start()
        try:
            seeds = tmp_path / "seeds.txt"
            seeds.write_text(site.url("main") + "/\n")
            flags = [f"-D{p}" for p in DEMO_PROPERTIES]
            argv = ["crawl", "--seeds", str(seeds), str(crawl_dir)]
            assert main([*argv, "1", *flags]) == 0
            for db in ("crawldb", "linkdb"):
                _unbucket(str(crawl_dir / db))
            assert main([*argv, "3", *flags]) == 0
        finally:
            site.stop()
    for db in ("crawldb", "linkdb"):  # bucketed again by the rounds that followed
        assert bucketfiles.read_layout(str(crawl_dir / db / "current")) is not None
    _check("demo", crawl_dir)


def _unbucket(db: str) -> None:
    """Publish ``db``'s records again as one plain part file, as before buckets."""
    current = versions.current_version(db)
    assert current is not None
    assert bucketfiles.read_layout(current) is not None
    with versions.locked(db):
        new_dir = versions.new_version_dir(db)
        write_pages(new_dir, read_pages(current))
        versions.publish(db, new_dir)
    assert bucketfiles.read_layout(str(Path(db) / "current")) is None


def test_synthetic_web_crawl_writes_the_recorded_records(tmp_path):
    with _ports_held(), SyntheticWeb(hosts=4, pages=40, port=SYNTH_PORT) as web:
        seeds = tmp_path / "seeds.txt"
        seeds.write_text("".join(url + "\n" for url in web.seeds))
        crawl_dir = tmp_path / "crawl"
        flags = ["-Dhttp.agent.name=beamcrawl-test", "-Dfetcher.server.delay=0",
                 "-Dfetcher.threads.fetch=64", "-Dfetcher.threads.per.queue=1",
                 "--topN", "10000000"]  # fmt: skip
        assert main(["crawl", "--seeds", str(seeds), str(crawl_dir), "20", *flags]) == 0
    found = crawl_records(crawl_dir)
    assert len(found["crawldb"]) == 160
    _check("synthweb", crawl_dir)
