import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from crawllib.config import FetcherConfig, load_properties
from crawllib.urls.zone import OPERATOR, with_zone
from crawllib.webpage import new_page
from pipelines.fetch import Fetch
from pipelines.runtime.options import counters

CONFIG = FetcherConfig.from_properties(
    load_properties(
        defines=[
            "http.agent.name=testbot",
            "fetcher.server.delay=0",
            "http.timeout=2000",
        ]
    )
)


def _page(url, partition):
    markers = {"_gnmrk_": "seg", "_partition_": str(partition)}
    return with_zone(new_page(url, markers=markers), OPERATOR)  # a seed's


def test_every_page_comes_out_with_a_status(pipeline, sites):
    one, two = sites("127.0.0.2"), sites("127.0.0.3")
    pages = [
        _page(one.url("/ok"), 0),
        _page(one.url("/status/404"), 0),
        _page(two.url("/status/503"), 1),
        _page(two.url("/redirect/301?to=/ok"), 1),
    ]
    with pipeline as p:
        fetched = p | beam.Create(pages) | Fetch(CONFIG)
        codes = fetched | beam.Map(
            lambda page: (page["url"], page["protocolStatus"]["code"], page["status"],
                          page["markers"]["_ftcmrk_"])
        )  # fmt: skip
        assert_that(
            codes,
            equal_to(
                [
                    (one.url("/ok"), 1, 2, "seg"),
                    (one.url("/status/404"), 14, 3, "seg"),
                    (two.url("/status/503"), 16, 34, "seg"),
                    (two.url("/redirect/301?to=/ok"), 12, 5, "seg"),
                ]
            ),
        )
    assert counters(p.result, "FetcherStatus") == {
        "SUCCESS": 1,
        "NOTFOUND": 1,
        "EXCEPTION": 1,
        "MOVED": 1,
    }
    assert counters(p.result, "Fetcher")["bytes_downloaded"] > 0
