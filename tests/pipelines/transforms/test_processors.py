import apache_beam as beam
import pytest
from apache_beam.testing.util import assert_that, equal_to

from crawllib.config import CrawlConfig
from crawllib.fetch.outcome import PageProcessor, page_error
from crawllib.webpage import new_page
from pipelines.runtime.options import counters
from pipelines.transforms.oneshot import FetchUrls
from pipelines.transforms.processors import ProcessPages

CONFIG = CrawlConfig.from_dict(
    {"http.agent.name": "testbot", "fetcher.server.delay": 0, "http.timeout": 2000}
)


def _page(url, protocol, status, parse_major=None):
    return new_page(
        url,
        status=status,
        title=url.rsplit("/", 1)[-1],
        protocolStatus={"code": protocol, "args": [], "lastModified": 0},
        parseStatus=None
        if parse_major is None
        else {"majorCode": parse_major, "minorCode": 0, "args": []},
    )


PAGES = [
    _page("http://a/good", 1, 2, 1),
    _page("http://a/gone", 14, 3),
    _page("http://a/failed", 1, 2, 2),
]


class _Spider(PageProcessor):
    def process_page(self, page):
        return {"processed": page["url"], "title": page["title"]}

    def complete_page(self, page, error):
        return [("completed", page["url"], error)]


def test_a_page_processor_sees_successes_then_every_page_with_its_error(
    pipeline, sites
):
    site = sites("127.0.0.2", robots="User-agent: *\nDisallow: /private\n")
    urls = [site.url("/ok"), site.url("/status/404"), site.url("/private/x")]
    with pipeline as p:
        outputs = p | beam.Create(urls) | FetchUrls(CONFIG) | ProcessPages(_Spider())
        assert_that(
            outputs,
            equal_to(
                [
                    {"processed": site.url("/ok"), "title": "ok"},
                    ("completed", site.url("/ok"), None),
                    ("completed", site.url("/status/404"), "NOTFOUND"),
                    ("completed", site.url("/private/x"), "ROBOTS_DENIED"),
                ]
            ),
        )
    assert counters(p.result, "PageProcessor") == {"pages": 3, "failed_pages": 2}


def test_a_page_processor_class_is_instantiated(pipeline):
    with pipeline as p:
        outputs = p | beam.Create(PAGES[:1]) | ProcessPages(_Spider)
        assert_that(
            outputs,
            equal_to(
                [
                    {"processed": "http://a/good", "title": "good"},
                    ("completed", "http://a/good", None),
                ]
            ),
        )


def test_a_function_gets_every_page(pipeline):
    def describe(page):
        error = page_error(page)
        if error == "NOTFOUND":
            return None
        return [page["url"], error]

    with pipeline as p:
        outputs = p | beam.Create(PAGES) | ProcessPages(describe)
        assert_that(
            outputs,
            equal_to(["http://a/good", None, "http://a/failed", "parse failed: ok"]),
        )


def test_a_ptransform_is_applied_as_it_is(pipeline):
    titles = beam.Map(lambda page: page["title"].upper())
    with pipeline as p:
        outputs = p | beam.Create(PAGES) | ProcessPages(titles)
        assert_that(outputs, equal_to(["GOOD", "GONE", "FAILED"]))
    assert counters(p.result, "PageProcessor") == {}


def test_an_exception_loses_one_pages_outputs_and_the_job_goes_on(pipeline, caplog):
    def fragile(page):
        yield page["url"]
        if page["url"].endswith("gone"):
            raise ValueError("cannot handle this one")

    with pipeline as p:
        outputs = p | beam.Create(PAGES) | ProcessPages(fragile)
        assert_that(outputs, equal_to(["http://a/good", "http://a/failed"]))
    assert counters(p.result, "PageProcessor") == {
        "pages": 3,
        "failed_pages": 2,
        "errors": 1,
    }
    assert [
        r.getMessage() for r in caplog.records if "processor" in r.getMessage()
    ] == [
        "page processor failed on http://a/gone: ValueError: cannot handle this one"
        " (further ones only counted as PageProcessor/errors)"
    ]


def test_anything_else_is_refused():
    with pytest.raises(TypeError) as error:
        ProcessPages("not a processor")  # type: ignore[arg-type]
    assert str(error.value) == (
        "expected a PageProcessor, a function of a page or a PTransform, got str"
    )
