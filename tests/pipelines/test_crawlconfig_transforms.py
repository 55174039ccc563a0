import pytest

from crawllib.config import CrawlConfig, SitemapConfig
from crawllib.config.warc import WarcConfig
from crawllib.db.dedup import DedupConfig
from pipelines.dedup import Dedup
from pipelines.fetch import Fetch
from pipelines.generate import Generate
from pipelines.index import IndexPages
from pipelines.inject import Inject, MergeIntoCrawlDb
from pipelines.invertlinks import InvertLinks
from pipelines.parse import Parse, ParseForUpdate
from pipelines.readdb import CrawlDbStats
from pipelines.sitemap import ReadSitemaps, Sitemap
from pipelines.storage.segments import segment_names
from pipelines.updatedb import UpdateDb
from pipelines.warc import WarcRecords, WriteWarc

CONFIG = CrawlConfig.from_dict(
    {
        "http.agent.name": "testbot",
        "fetcher.server.delay": 0.25,
        "db.max.outlinks.per.page": 7,
        "generate.max.count": 3,
        "db.fetch.retry.max": 5,
        "linkdb.max.inlinks": 9,
        "indexer.max.title.length": 11,
        "warc.export.max.size": 2048,
    }
)
FIXED_MS = 1_700_000_000_000


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda c: Inject(c), lambda c: c.inject),
        (lambda c: MergeIntoCrawlDb(c), lambda c: c.inject),
        (lambda c: Generate(c), lambda c: c.generate),
        (lambda c: Fetch(c), lambda c: c.fetch),
        (lambda c: Parse(c), lambda c: c.parse),
        (lambda c: ParseForUpdate(c), lambda c: c.parse),
        (lambda c: UpdateDb(c), lambda c: c.update),
        (lambda c: Dedup(c), lambda c: DedupConfig()),
        (lambda c: InvertLinks(c), lambda c: c.linkdb),
        (lambda c: IndexPages(c), lambda c: c.index),
        (lambda c: CrawlDbStats("crawldb", c), lambda c: c.stats),
        (lambda c: ReadSitemaps(c), lambda c: c.get(SitemapConfig)),
        (lambda c: Sitemap(c), lambda c: c.get(SitemapConfig)),
        (lambda c: WarcRecords(c), lambda c: c.get(WarcConfig)),
        (lambda c: WriteWarc("out", c), lambda c: c.get(WarcConfig)),
    ],
)
def test_every_transform_takes_a_crawl_config_or_its_step_config(make, expected):
    step = expected(CONFIG)
    assert make(CONFIG)._config == step
    assert make(step)._config is step


def test_the_step_configs_read_the_properties():
    assert CONFIG.fetch.server_delay_s == 0.25
    assert CONFIG.parse.max_outlinks == 7
    assert CONFIG.generate.max_count == 3
    assert CONFIG.update.retry_max == 5
    assert CONFIG.linkdb.max_inlinks == 9
    assert CONFIG.index.max_title_length == 11
    assert CONFIG.get(WarcConfig).max_size == 2048


def test_a_wrong_config_is_refused_naming_both_types():
    with pytest.raises(TypeError) as error:
        Fetch(CONFIG.parse)  # type: ignore[arg-type]
    assert str(error.value) == (
        "expected a FetcherConfig or a CrawlConfig, got ParseConfig"
    )


def test_clocks_default_to_the_fixed_time_properties():
    config = CONFIG.with_overrides(
        {"injector.current.time": FIXED_MS, "generate.curTime": FIXED_MS + 1}
    )
    assert Inject(config)._now_ms == FIXED_MS
    assert Sitemap(config)._now_ms == FIXED_MS
    generate = Generate(config)
    assert generate._cur_time_ms == FIXED_MS + 1
    assert generate._generate_time_ms == FIXED_MS + 1
    assert generate._batch_ids == segment_names("/nonexistent", FIXED_MS + 1, 1)


def test_given_clocks_win():
    assert Inject(CONFIG, 5)._now_ms == 5
    assert UpdateDb(CONFIG, 6)._now_ms == 6
    assert WriteWarc("out", CONFIG, 7)._date_ms == 7
    generate = Generate(CONFIG, 8, 9, ["seg"])
    assert (generate._cur_time_ms, generate._generate_time_ms) == (8, 9)
    assert generate._batch_ids == ["seg"]


def test_without_a_clock_they_read_the_time_once_when_made():
    inject, update = Inject(CONFIG), UpdateDb(CONFIG)
    assert inject._now_ms > FIXED_MS
    assert update._now_ms >= inject._now_ms
