import dataclasses

import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from crawllib.config import GenerateConfig, PartitionConfig, UrlConfig, load_properties
from crawllib.db.generate import GENERATE_TIME_KEY, PARTITION_MARKER
from crawllib.status import CrawlStatus
from crawllib.urls.partition import UrlPartitioner
from crawllib.webpage import new_page
from pipelines.generate import CRAWLDB_TAG, Generate, segment_tag
from pipelines.runtime.options import counters

NOW = 1_700_000_000_000
CONFIG = GenerateConfig(urls=UrlConfig.from_properties(load_properties()))


def _page(url, score=1.0, **fields):
    fields.setdefault("fetchTime", NOW - 1)
    return new_page(url, status=CrawlStatus.UNFETCHED, score=score, **fields)


def _site(hosts=3, pages=4):
    """Host h has pages with scores h.0, h.1 ... (host 2's are the best)."""
    return [
        _page(f"http://h{h}.example.com/p{i}.html", score=h + i / 10)
        for h in range(hosts)
        for i in range(pages)
    ]


def _counters(result, namespace="Generator"):
    return counters(result, namespace)


def _run(pipeline, pages, config, expected, batch_ids=("b1",)):
    """Run Generate, check each segment's URLs, return the counters."""
    with pipeline as p:
        outputs = (
            p | beam.Create(pages) | Generate(config, NOW, NOW + 7, list(batch_ids))
        )
        for tag, urls in expected.items():
            found = outputs[tag] | f"Urls{tag}" >> beam.Map(lambda page: page["url"])
            assert_that(found, equal_to(urls), label=f"Check{tag}")
    return _counters(p.result)


def test_every_due_page_without_limits(pipeline):
    pages = [*_site(), _page("http://later.com/", fetchTime=NOW + 1)]
    counters = _run(pipeline, pages, CONFIG, {"segment1": [p["url"] for p in _site()]})
    assert counters == {"CANDIDATES": 12, "GENERATED": 12, "SCHEDULE_REJECTED": 1}


def test_nutch_top_n_takes_the_highest_scores(pipeline):
    config = dataclasses.replace(CONFIG, top_n=3)
    best = ["http://h2.example.com/p3.html", "http://h2.example.com/p2.html",
            "http://h2.example.com/p1.html"]  # fmt: skip
    counters = _run(pipeline, _site(), config, {"segment1": best})
    assert counters["GENERATED"] == 3


def test_nutch_max_count_per_host_with_top_n(pipeline):
    config = dataclasses.replace(CONFIG, top_n=4, max_count=2)
    expected = [
        "http://h2.example.com/p3.html",
        "http://h2.example.com/p2.html",
        "http://h1.example.com/p3.html",
        "http://h1.example.com/p2.html",
    ]
    counters = _run(pipeline, _site(), config, {"segment1": expected})
    # beamcrawl counts every URL over its host's limit, also those past the
    # topN cut that Nutch's reducer never reaches (Nutch would say 1 and 1)
    assert counters["URLS_SKIPPED_PER_HOST_OVERFLOW"] == 4
    assert counters["HOSTS_AFFECTED_PER_HOST_OVERFLOW"] == 3


def test_nutch_max_count_per_domain(pipeline):
    pages = [_page(f"http://w{i}.example.com/", score=i) for i in range(3)]
    pages.append(_page("http://other.org/", score=0.5))
    config = dataclasses.replace(CONFIG, max_count=1, count_by_domain=True)
    expected = ["http://w2.example.com/", "http://other.org/"]
    counters = _run(pipeline, pages, config, {"segment1": expected})
    assert counters["URLS_SKIPPED_PER_HOST_OVERFLOW"] == 2


def test_nutch_max_num_segments_spills_host_overflow(pipeline):
    config = dataclasses.replace(CONFIG, max_count=2, max_num_segments=3)
    pages = _site(hosts=1, pages=7)
    urls = [f"http://h0.example.com/p{i}.html" for i in (6, 5, 4, 3, 2, 1)]
    counters = _run(
        pipeline,
        pages,
        config,
        {"segment1": urls[:2], "segment2": urls[2:4], "segment3": urls[4:]},
        batch_ids=("b1", "b2", "b3"),
    )
    assert counters["URLS_SKIPPED_PER_HOST_OVERFLOW"] == 1


def test_nutch_max_num_segments_with_top_n_fills_segments_in_order(pipeline):
    config = dataclasses.replace(CONFIG, top_n=5, max_num_segments=2)
    ranked = sorted(_site(), key=lambda page: -page["score"])
    urls = [page["url"] for page in ranked]
    _run(
        pipeline,
        _site(),
        config,
        {"segment1": urls[:5], "segment2": urls[5:10]},
        batch_ids=("b1", "b2"),
    )


def test_generated_pages_carry_marks_and_partitions(pipeline):
    config = dataclasses.replace(CONFIG, num_fetchers=4)
    with pipeline as p:
        outputs = p | beam.Create(_site()) | Generate(config, NOW, NOW + 7, ["seg1"])
        marks = outputs["segment1"] | beam.Map(
            lambda page: (
                page["url"].split("/")[2],
                page["batchId"],
                page["markers"]["_gnmrk_"],
                page["metadata"][GENERATE_TIME_KEY],
            )
        )
        expected = [(f"h{h}.example.com", "seg1", "seg1", str(NOW + 7).encode())
                    for h in range(3) for _ in range(4)]  # fmt: skip
        assert_that(marks, equal_to(expected))


def _check_partitions(pipeline, pages, partition, fetchers=8):
    """The pipeline's partitions are the partitioner's, per URL; returns them."""
    config = dataclasses.replace(CONFIG, num_fetchers=fetchers, partition=partition)
    partitioner = UrlPartitioner(partition)
    expected = {p["url"]: partitioner.partition(p["url"], fetchers) for p in pages}
    with pipeline as p:
        outputs = p | beam.Create(pages) | Generate(config, NOW, NOW, ["s"])
        pairs = outputs["segment1"] | beam.Map(
            lambda page: (page["url"], int(page["markers"][PARTITION_MARKER]))
        )
        assert_that(pairs, equal_to(list(expected.items())))
    return expected


def test_partitions_keep_each_host_in_one_list(pipeline):
    pages = _site(hosts=20, pages=5)
    parts = _check_partitions(pipeline, pages, PartitionConfig())
    by_host: dict[str, set[int]] = {}
    for url, partition in parts.items():
        by_host.setdefault(url.split("/")[2], set()).add(partition)
    assert len(by_host) == 20
    assert all(len(lists) == 1 for lists in by_host.values())
    assert len({min(lists) for lists in by_host.values()}) > 1


def test_a_different_seed_moves_hosts_to_other_lists(pipeline):
    pages = _site(hosts=20, pages=1)
    seeded = _check_partitions(pipeline, pages, PartitionConfig(seed=12345))
    unseeded = {
        p["url"]: UrlPartitioner(PartitionConfig()).partition(p["url"], 8)
        for p in pages
    }
    assert seeded != unseeded


def test_by_ip_groups_hosts_on_one_address_and_survives_lookup_failure(pipeline):
    pages = [
        _page("http://127.0.0.1:8080/a"),
        _page("http://127.0.0.1:9090/b"),
        _page("http://127.0.0.2/c"),
        _page("http://no-such-host.invalid/d"),
    ]
    parts = _check_partitions(pipeline, pages, PartitionConfig(mode="byIP"), 64)
    assert parts["http://127.0.0.1:8080/a"] == parts["http://127.0.0.1:9090/b"]
    assert parts["http://no-such-host.invalid/d"] == 0  # 1.x: failed lookup hashes 0


def test_update_crawldb_output_marks_only_selected_pages(pipeline):
    config = dataclasses.replace(CONFIG, top_n=1, update_crawldb=True)
    pages = [_page("http://a.com/", score=2.0), _page("http://b.com/", score=1.0)]
    with pipeline as p:
        outputs = p | beam.Create(pages) | Generate(config, NOW, NOW + 7, ["s"])
        marked = outputs[CRAWLDB_TAG] | beam.Map(
            lambda page: (page["url"], page["metadata"].get(GENERATE_TIME_KEY))
        )
        assert_that(
            marked,
            equal_to(
                [("http://a.com/", str(NOW + 7).encode()), ("http://b.com/", None)]
            ),
        )
        assert segment_tag(1) in outputs
