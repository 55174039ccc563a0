"""The fetcher against real servers on 127.0.0.x, checked from the servers' logs."""

import dataclasses
import itertools

import pytest

from crawllib.config import FetcherConfig, load_properties
from crawllib.fetched import REDIRECT_DISCOVERED
from crawllib.fetcher import Fetcher
from crawllib.protocol.registry import Protocols
from crawllib.protocol.robots import RobotsCache
from crawllib.status import CrawlStatus, ProtocolStatus
from crawllib.webpage import new_page
from tests.sites import refused_url

DELAY = 0.3


def _config(**props):
    defines = ["http.agent.name=testbot", f"fetcher.server.delay={DELAY}",
               "fetcher.threads.fetch=8", "http.timeout=2000"]  # fmt: skip
    defines += [f"{name.replace('_', '.')}={value}" for name, value in props.items()]
    return FetcherConfig.from_properties(load_properties(defines=defines))


def _fetch(config, urls):
    protocols = Protocols(config.http)
    fetcher = Fetcher(
        config, protocols.for_url, RobotsCache(config.robots, protocols.for_url)
    )
    try:
        pages = list(fetcher.run(new_page(url, fetchTime=1) for url in urls))
    finally:
        protocols.close()
    return {page["url"]: page for page in pages}, fetcher.stats


def _code(page):
    return ProtocolStatus(page["protocolStatus"]["code"])


def _gaps(requests):
    return [b.started - a.ended for a, b in itertools.pairwise(requests)]


def test_nutch_politeness_one_request_at_a_time_and_the_delay_between(sites):
    hosts = [sites("127.0.0.2"), sites("127.0.0.3")]
    urls = [host.url(f"/page/{n}") for n in range(6) for host in hosts]
    pages, stats = _fetch(_config(), urls)
    assert {_code(p) for p in pages.values()} == {ProtocolStatus.SUCCESS}
    assert stats.pages == 12
    for host in hosts:
        served = host.requests_for("/page/")
        assert len(served) == 6
        assert max(r.in_flight for r in host.requests_for("/")) == 1
        # as in Nutch, robots.txt is fetched right before the first page
        assert min(_gaps(served)) >= DELAY - 0.01
    # the two hosts were fetched side by side, not one after the other
    first, second = (h.requests_for("/page/") for h in hosts)
    assert first[0].started < second[-1].started
    assert second[0].started < first[-1].started


def test_nutch_threads_per_queue_allow_parallel_requests(sites):
    host = sites("127.0.0.4")
    config = _config(fetcher_threads_per_queue=3, fetcher_server_min_delay=0)
    urls = [host.url(f"/slow/0.2?{n}") for n in range(6)]
    pages, _ = _fetch(dataclasses.replace(config, urls=config.urls), urls)
    assert len(pages) == 6
    assert max(r.in_flight for r in host.requests_for("/slow/")) == 3


def test_nutch_robots_disallow_is_robots_denied_without_a_request(sites):
    host = sites("127.0.0.5", robots="User-agent: *\nDisallow: /page/secret\n")
    pages, _ = _fetch(_config(), [host.url("/page/secret"), host.url("/page/open")])
    denied = pages[host.url("/page/secret")]
    assert _code(denied) is ProtocolStatus.ROBOTS_DENIED
    assert denied["status"] == CrawlStatus.GONE
    assert _code(pages[host.url("/page/open")]) is ProtocolStatus.SUCCESS
    assert [r.path for r in host.requests_for("/")] == ["/robots.txt", "/page/open"]


def test_nutch_robots_crawl_delay_slows_the_queue(sites):
    host = sites("127.0.0.6", robots="User-agent: *\nCrawl-delay: 1\n")
    config = _config(fetcher_min_crawl_delay=0)
    _fetch(config, [host.url(f"/page/{n}") for n in range(3)])
    assert min(_gaps(host.requests_for("/page/"))) >= 1.0 - 0.01


def test_nutch_crawl_delay_above_the_max_skips_the_host(sites):
    host = sites("127.0.0.7", robots="User-agent: *\nCrawl-delay: 60\n")
    pages, _ = _fetch(_config(), [host.url(f"/page/{n}") for n in range(3)])
    assert {_code(p) for p in pages.values()} == {ProtocolStatus.ROBOTS_DENIED}
    assert (
        "fetcher.max.crawl.delay"
        in next(iter(pages.values()))["protocolStatus"]["args"][0]
    )
    assert host.requests_for("/page/") == []


def test_nutch_redirect_max_0_records_the_target(site):
    url = site.url("/redirect/302?to=/page/target")
    pages, _ = _fetch(_config(), [url])
    assert list(pages) == [url]
    page = pages[url]
    assert _code(page) is ProtocolStatus.TEMP_MOVED
    assert page["status"] == CrawlStatus.REDIR_TEMP
    assert page["outlinks"] == {site.url("/page/target"): ""}
    assert page["metadata"][REDIRECT_DISCOVERED] == b"y"
    # URLUtil.chooseRepr, temporary, same host: the path with fewer parts
    assert page["reprUrl"] == site.url("/page/target")
    assert site.requests_for("/page/target") == []


def test_nutch_redirect_max_3_follows_and_keeps_the_repr_url(site):
    source = site.url("/redirect/301?to=/page/final")
    pages, _ = _fetch(_config(http_redirect_max=3), [source])
    assert _code(pages[source]) is ProtocolStatus.MOVED
    final = pages[site.url("/page/final")]
    assert _code(final) is ProtocolStatus.SUCCESS
    assert final["reprUrl"] == site.url("/page/final")  # permanent: dst
    assert final["score"] == 0.0


def test_redirect_loop_stops_after_redirect_max_hops(site):
    pages, _ = _fetch(_config(http_redirect_max=3), [site.url("/loop/0")])
    assert sorted(pages) == [site.url(f"/loop/{n}") for n in range(4)]
    last = pages[site.url("/loop/3")]
    assert last["outlinks"] == {site.url("/loop/4"): ""}
    assert len(site.requests_for("/loop/")) == 4


def test_nutch_exceptions_per_queue_drop_the_rest_of_the_queue():
    base = refused_url("127.0.0.8").rsplit("/", 1)[0]
    urls = [f"{base}/p{n}" for n in range(6)]
    config = _config(
        fetcher_max_exceptions_per_queue=2, fetcher_exceptions_per_queue_delay=0
    )
    pages, stats = _fetch(config, urls)
    assert len(pages) == 2
    assert {_code(p) for p in pages.values()} == {ProtocolStatus.EXCEPTION}
    assert {p["status"] for p in pages.values()} == {CrawlStatus.RETRY}
    assert stats.dropped["above_exception_threshold"] == 4


def test_nutch_time_limit_drops_what_is_left(sites):
    host = sites("127.0.0.9")
    config = dataclasses.replace(_config(), time_limit_s=1.0)
    pages, stats = _fetch(config, [host.url(f"/page/{n}") for n in range(20)])
    assert 1 <= len(pages) < 20
    assert stats.dropped["hit_by_timelimit"] == 20 - len(pages)


def test_results_stream_out_before_the_run_ends(sites):
    host = sites("127.0.0.10")
    config = _config()
    protocols = Protocols(config.http)
    fetcher = Fetcher(config, protocols.for_url, None)
    urls = [host.url(f"/page/{n}") for n in range(5)]
    run = fetcher.run(new_page(u) for u in urls)
    first = next(run)
    assert first["url"] == urls[0]
    assert len(host.requests_for("/page/")) < 5  # the rest are still to come
    assert len(list(run)) == 4
    protocols.close()


def test_nutch_queue_by_ip_shares_one_queue_across_ports(sites):
    one, two = sites("127.0.0.11"), sites("127.0.0.11")
    urls = [one.url(f"/page/{n}") for n in range(3)] + [
        two.url(f"/page/{n}") for n in range(3)
    ]
    _fetch(_config(fetcher_queue_mode="byIP"), urls)
    log = sorted(
        one.requests_for("/page/") + two.requests_for("/page/"), key=lambda r: r.started
    )
    assert min(_gaps(log)) >= DELAY - 0.01


def test_nutch_robots_5xx_defers_then_drops_the_host(sites):
    host = sites("127.0.0.12", robots="oops")
    host.robots_status = 503
    config = _config(
        http_robots_503_defer_visits_delay=100, http_robots_503_defer_visits_retries=1
    )
    pages, stats = _fetch(config, [host.url(f"/page/{n}") for n in range(3)])
    assert pages == {}
    assert stats.dropped["robots_defer_visits_dropped"] == 3
    assert len(host.requests_for("/robots.txt")) == 2
    assert host.requests_for("/page/") == []


def test_file_urls_are_fetched(tmp_path):
    (tmp_path / "a.html").write_text("<html>hi</html>")
    url = (tmp_path / "a.html").as_uri()
    pages, _ = _fetch(_config(), [url, tmp_path.as_uri() + "/"])
    assert pages[url]["content"] == b"<html>hi</html>"
    assert _code(pages[tmp_path.as_uri() + "/"]) is ProtocolStatus.SUCCESS


@pytest.mark.parametrize("store", [True, False])
def test_nutch_fetcher_store_content(site, store):
    config = dataclasses.replace(_config(), store_content=store)
    pages, _ = _fetch(config, [site.url("/ok")])
    content = pages[site.url("/ok")]["content"]
    assert (content != b"") is store
