import struct

import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from crawllib.config import InjectConfig, UrlConfig, load_properties
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page
from pipelines.inject import Inject, MergeIntoCrawlDb, list_seed_files
from pipelines.runtime.options import counters
from pipelines.transforms.seedfiles import ReadSeeds

NOW_MS = 1_700_000_000_000
CONFIG = InjectConfig.from_properties(load_properties())


def _counters(result, namespace="injector"):
    return counters(result, namespace)


def _injected(url, score=1.0, interval=2592000, metadata=None):
    return new_page(
        url,
        status=CrawlStatus.UNFETCHED,
        fetchTime=NOW_MS,
        fetchInterval=interval,
        score=score,
        metadata={
            **(metadata or {}),
            "_zone_": b"local",  # a seed is the operator's
            "_csh_": struct.pack(">f", score),
        },
        markers={"_injmrk_": "y", "dist": "0"},
    )


def test_nutch_inject_normalizes_filters_and_deduplicates(pipeline):
    lines = [
        "# seeds",
        "",
        "HTTP://Example.COM:80/a/../b.html#top\tnutch.score=2\tsource=list",
        "http://example.com/b.html",  # the same URL once normalized
        "http://example.com/logo.gif",  # the default filter rejects images
        "mailto:someone@example.com",
        "no scheme at all",
        "http://other.org/\tnutch.fetchInterval=60\tnutch.score=oops",
    ]
    with pipeline as p:
        pages = p | beam.Create(lines) | Inject(CONFIG, NOW_MS)
        assert_that(
            pages,
            equal_to(
                [
                    _injected("http://example.com/b.html", score=2.0,
                              metadata={"source": b"list"}),
                    _injected("http://other.org/", interval=60),
                ]
            ),
        )  # fmt: skip
    assert _counters(p.result) == {
        "urls_injected": 3,
        "urls_injected_unique": 2,
        "urls_filtered": 2,
        "urls_rejected": 1,
        "fields_invalid": 1,
    }


def test_beamcrawl_duplicate_lines_resolve_the_same_on_every_run(pipeline):
    lines = ["http://a.com/\tnutch.score=5", "http://a.com/\tnutch.score=3"]
    with pipeline as p:
        pages = p | beam.Create(lines) | Inject(CONFIG, NOW_MS)
        assert_that(pages, equal_to([_injected("http://a.com/", score=3.0)]))


def test_nutch_no_filter_no_normalize_flags(pipeline):
    config = InjectConfig(urls=CONFIG.urls, normalize=False, filter_urls=False)
    with pipeline as p:
        pages = p | beam.Create(["HTTP://A.com/x.gif"]) | Inject(config, NOW_MS)
        assert_that(pages, equal_to([_injected("HTTP://A.com/x.gif")]))


def test_nutch_merge_keeps_existing_state_and_counts(pipeline):
    fetched = new_page("http://a.com/", status=CrawlStatus.FETCHED, score=4.0)
    gone = new_page("http://gone.com/", status=CrawlStatus.GONE)
    other = new_page("http://b.com/", status=CrawlStatus.FETCHED)
    with pipeline as p:
        injected = p | "Injected" >> beam.Create(
            [_injected("http://a.com/"), _injected("http://new.com/")]
        )
        current = p | "Current" >> beam.Create([fetched, gone, other])
        merged = (injected, current) | MergeIntoCrawlDb(CONFIG)
        # Nutch's state is kept; the URL becomes the operator's (its zone)
        seeded = {**fetched, "metadata": {"_zone_": b"local"}}
        assert_that(
            merged, equal_to([seeded, gone, other, _injected("http://new.com/")])
        )
    assert _counters(p.result) == {"urls_merged": 1}


def test_nutch_purge_404_and_filter_normalize_all(pipeline):
    config = InjectConfig(
        urls=UrlConfig.from_properties(load_properties()),
        purge_404=True,
        filter_normalize_all=True,
    )
    gone = new_page("http://gone.com/", status=CrawlStatus.GONE)
    image = new_page("http://a.com/x.png", status=CrawlStatus.FETCHED)
    unnormal = new_page("HTTP://B.com", status=CrawlStatus.FETCHED)
    with pipeline as p:
        injected = p | "Injected" >> beam.Create([])
        current = p | "Current" >> beam.Create([gone, image, unnormal])
        merged = (injected, current) | MergeIntoCrawlDb(config)
        assert_that(merged, equal_to([{**unnormal, "url": "http://b.com/"}]))
    assert _counters(p.result) == {"urls_purged_404": 1, "urls_purged_filter": 1}


def test_read_seeds_skips_hidden_files_subdirs_and_undecodable_lines(
    pipeline, tmp_path
):
    seeds = tmp_path / "seeds"
    (seeds / "sub").mkdir(parents=True)
    (seeds / "sub" / "ignored.txt").write_text("http://sub.com/\n")
    (seeds / ".hidden").write_text("http://hidden.com/\n")
    (seeds / "a.txt").write_bytes(
        b"\xef\xbb\xbfhttp://a.com/\r\nhttp://\xff\xfe.com/\n"
    )
    (seeds / "b.txt").write_text("http://b.com/")
    files = list_seed_files(str(seeds))
    assert [f.rsplit("/", 1)[1] for f in files] == ["a.txt", "b.txt"]
    with pipeline as p:
        lines = p | ReadSeeds(files)
        assert_that(lines, equal_to(["http://a.com/", "http://b.com/"]))
    assert _counters(p.result) == {"urls_rejected": 1}
