from crawllib.db.scoring import cash_of
from crawllib.sitemaps.formats import ChangeFreq, SitemapEntry
from crawllib.sitemaps.records import Merge, merge, preferred, sitemap_page
from crawllib.status import CrawlStatus
from crawllib.urls.zone import Zone, with_zone, zone_of
from crawllib.webpage import new_page

PUBLIC = Zone.PUBLIC

NOW_MS = 1_700_000_000_000
DEFAULT_S = 2_592_000


def test_nutch_listed_url_becomes_an_unfetched_record():
    entry = SitemapEntry("http://h/a", 1104537600000, ChangeFreq.DAILY, 0.8)

    page = sitemap_page(entry, "http://h/a", DEFAULT_S, NOW_MS, PUBLIC)

    assert page["status"] == CrawlStatus.UNFETCHED
    assert page["fetchTime"] == NOW_MS
    assert page["fetchInterval"] == 86400
    assert page["modifiedTime"] == 1104537600000
    assert page["score"] == 0.800000011920929  # (float) 0.8
    assert page["stmPriority"] == page["score"]
    assert cash_of(page) == page["score"]
    assert page["markers"] == {"dist": "0"}
    assert page["metadata"]["_zone_"] == b"public"


def test_nutch_changefreq_maps_to_intervals():
    intervals = [
        sitemap_page(SitemapEntry("u", changefreq=f), "u", DEFAULT_S, NOW_MS, PUBLIC)[
            "fetchInterval"
        ]
        for f in ChangeFreq
    ]

    assert intervals == [1, 3600, 86400, 604800, 2592000, 31536000, 2147483647]


def test_beamcrawl_no_changefreq_gets_the_default_interval():
    page = sitemap_page(SitemapEntry("u"), "u", DEFAULT_S, NOW_MS, PUBLIC)

    assert (page["fetchInterval"], page["modifiedTime"], page["score"]) == (
        DEFAULT_S,
        0,
        0.5,
    )


def test_nutch_reducer_keeps_an_existing_record():
    existing = new_page("u", status=int(CrawlStatus.FETCHED), score=2.0)
    listed = sitemap_page(
        SitemapEntry("u", 5, ChangeFreq.HOURLY, 0.1), "u", 9, NOW_MS, PUBLIC
    )

    existing = {**existing, "metadata": {"_zone_": b"public"}}
    assert merge(listed, existing, overwrite=False) == (existing, Merge.EXISTING)
    assert merge(None, existing, overwrite=False) == (existing, Merge.UNLISTED)
    assert merge(listed, None, overwrite=False) == (listed, Merge.NEW)


def test_nutch_overwrite_existing_takes_score_interval_and_modified_time():
    existing = new_page("u", status=int(CrawlStatus.FETCHED), score=2.0, fetchTime=7)
    listed = sitemap_page(
        SitemapEntry("u", 5, ChangeFreq.HOURLY, 0.25), "u", 9, NOW_MS, PUBLIC
    )

    page, what = merge(listed, existing, overwrite=True)

    assert what is Merge.EXISTING
    assert page == {**existing, "score": 0.25, "fetchInterval": 3600, "modifiedTime": 5}


def test_beamcrawl_of_several_entries_the_latest_then_highest_wins():
    def page(lastmod, priority, freq):
        return sitemap_page(
            SitemapEntry("u", lastmod, freq, priority), "u", 9, NOW_MS, PUBLIC
        )

    yearly, daily = ChangeFreq.YEARLY, ChangeFreq.DAILY
    pages = [page(5, 0.1, None), page(6, 0.1, yearly),
             page(6, 0.2, yearly), page(6, 0.2, daily)]  # fmt: skip

    assert preferred(pages) == pages[3]
    assert preferred(reversed(pages)) == pages[3]
    assert preferred([]) is None


def test_beamcrawl_a_url_keeps_the_innermost_zone_it_was_listed_in():
    def page(zone, lastmod):
        return sitemap_page(SitemapEntry("u", lastmod), "u", 9, NOW_MS, zone)

    pages = [page(Zone.PRIVATE, 1), page(Zone.PUBLIC, 2)]
    chosen = preferred(pages)
    assert chosen is not None
    assert chosen["modifiedTime"] == 2
    assert zone_of(chosen) is Zone.PRIVATE

    existing = new_page("u", status=int(CrawlStatus.FETCHED))
    kept, _ = merge(chosen, existing, overwrite=False)
    assert kept == {**existing, "metadata": {"_zone_": b"private"}}
    inner = with_zone(existing, Zone.LOCAL)
    assert merge(chosen, inner, overwrite=False) == (inner, Merge.EXISTING)
