"""The fetcher against real servers on 127.0.0.x, checked from the servers' logs.

No test here times the fetcher. Politeness is read from the servers' logs of
arrivals and answers, whose gaps the fetcher's own waits bound from below
(tests/sites.py, ``Request``), and where an outcome depends on what happens
first, the servers hold answers until the event it depends on.
"""

import dataclasses
import itertools
import threading

import pytest

from crawllib.config import FetcherConfig, load_properties
from crawllib.fetch.fetch import Fetcher
from crawllib.fetch.progress import FetchSnapshot
from crawllib.fetch.protocol.registry import Protocols
from crawllib.fetch.protocol.robots import RobotsCache
from crawllib.fetch.records import REDIRECT_DISCOVERED
from crawllib.status import CrawlStatus, ProtocolStatus
from crawllib.urls.zone import OPERATOR, with_zone
from crawllib.webpage import new_page
from tests.sites import RawReply, RawSite, refused_url

DELAY = 0.3
FLOAT_ERROR = 1e-6  # the only slack a gap needs: a slow machine lengthens gaps
TIMEOUT_MS = 60_000  # longer than a hold (HOLD_CAP_S): no answer is a timeout


def _config(**props):
    defines = ["http.agent.name=testbot", f"fetcher.server.delay={DELAY}",
               "fetcher.threads.fetch=8", f"http.timeout={TIMEOUT_MS}"]  # fmt: skip
    defines += [f"{name.replace('_', '.')}={value}" for name, value in props.items()]
    return FetcherConfig.from_properties(load_properties(defines=defines))


def _seed(url, **fields):
    """A fetch-list page of an injected URL: the operator's (zone local)."""
    return with_zone(new_page(url, **fields), OPERATOR)


def _fetch(config, urls):
    protocols = Protocols(config.http)
    fetcher = Fetcher(
        config, protocols.for_url, RobotsCache(config.robots, protocols.for_url)
    )
    try:
        pages = list(fetcher.run(_seed(url, fetchTime=1) for url in urls))
    finally:
        protocols.close()
    return {page["url"]: page for page in pages}, fetcher.stats


def _has(site, prefix):
    """An event for ``Site.hold``: the site got a request for ``prefix``."""
    return lambda: bool(site.requests_for(prefix))


def _code(page):
    return ProtocolStatus(page["protocolStatus"]["code"])


def _gaps(requests):
    return [b.started - a.ended for a, b in itertools.pairwise(requests)]


def test_nutch_politeness_one_request_at_a_time_and_the_delay_between(sites):
    hosts = [sites("127.0.0.2"), sites("127.0.0.3")]
    one, two = hosts
    # each host answers its first page once the other has a page request: a
    # fetcher taking the hosts one after the other waits out the hold's cap
    # (tests/sites.py HOLD_CAP_S) and fails the side-by-side check below
    one.hold("/page/0", _has(two, "/page/"))
    two.hold("/page/0", _has(one, "/page/"))
    urls = [host.url(f"/page/{n}") for n in range(6) for host in hosts]
    pages, stats = _fetch(_config(), urls)
    assert {_code(p) for p in pages.values()} == {ProtocolStatus.SUCCESS}
    assert stats.pages == 12
    for host in hosts:
        served = host.requests_for("/page/")
        assert len(served) == 6
        assert max(r.in_flight for r in host.requests_for("/")) == 1
        # as in Nutch, robots.txt is fetched right before the first page
        assert min(_gaps(served)) >= DELAY - FLOAT_ERROR
    # the two hosts were fetched side by side, not one after the other
    first, second = (h.requests_for("/page/") for h in hosts)
    assert first[0].started < second[-1].started
    assert second[0].started < first[-1].started


def test_nutch_threads_per_queue_allow_parallel_requests(sites):
    host = sites("127.0.0.4")

    def three_in_flight():
        return max(r.in_flight for r in host.requests_for("/page/")) >= 3

    host.hold("/page/", three_in_flight)  # no answer before three are waiting
    config = _config(fetcher_threads_per_queue=3, fetcher_server_min_delay=0)
    urls = [host.url(f"/page/{n}") for n in range(6)]
    pages, _ = _fetch(config, urls)
    assert {_code(p) for p in pages.values()} == {ProtocolStatus.SUCCESS}
    assert len(pages) == 6
    assert max(r.in_flight for r in host.requests_for("/page/")) == 3


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
    assert min(_gaps(host.requests_for("/page/"))) >= 1.0 - FLOAT_ERROR


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
    # the fetcher's clock passes the limit when /page/2 reaches the server,
    # which answers it only once the fetcher has dropped what was queued
    host = sites("127.0.0.9")
    config = _config(fetcher_server_delay=0)
    protocols = Protocols(config.http)
    fetcher = Fetcher(
        dataclasses.replace(config, time_limit_s=1.0),
        protocols.for_url,
        None,
        clock=lambda: 100.0 if host.requests_for("/page/2") else 0.0,
    )
    host.hold("/page/2", lambda: fetcher.stats.dropped["hit_by_timelimit"] > 0)
    urls = [host.url(f"/page/{n}") for n in range(20)]
    try:
        pages = list(fetcher.run(_seed(url) for url in urls))
    finally:
        protocols.close()
    assert [page["url"] for page in pages] == urls[:3]
    assert {_code(page) for page in pages} == {ProtocolStatus.SUCCESS}
    assert fetcher.stats.dropped["hit_by_timelimit"] == 17
    assert [r.path for r in host.requests_for("/")] == [f"/page/{n}" for n in range(3)]


def test_time_limit_counts_the_urls_never_read_as_dropped(sites):
    # one thread, one item queued at a time: the list is read as it goes, and
    # the URLs not read yet when the limit passes are dropped (and counted) too
    host = sites("127.0.0.9")
    config = _config(
        fetcher_server_delay=0,
        fetcher_threads_fetch=1,
        fetcher_queue_depth_multiplier=1,
    )
    protocols = Protocols(config.http)
    fetcher = Fetcher(
        dataclasses.replace(config, time_limit_s=1.0),
        protocols.for_url,
        None,
        clock=lambda: 100.0 if host.requests_for("/page/2") else 0.0,
    )
    host.hold("/page/2", lambda: fetcher.stats.dropped["hit_by_timelimit"] > 0)
    urls = [host.url(f"/page/{n}") for n in range(20)]
    try:
        pages = list(fetcher.run(_seed(url) for url in urls))
    finally:
        protocols.close()
    assert [page["url"] for page in pages] == urls[:3]
    assert fetcher.stats.dropped["hit_by_timelimit"] == 17
    assert fetcher.stats.done + sum(fetcher.stats.dropped.values()) == 20


def test_the_eta_waits_out_the_delays_of_the_queue_left(sites):
    # a fast host and a delayed one: once the fast host is done, the rate so
    # far would promise the rest at once; the polite ETA counts the delays
    slow, fast = sites("127.0.0.13"), sites("127.0.0.14")
    config = _config()
    protocols = Protocols(config.http)
    shown: list[FetchSnapshot] = []
    fetcher = Fetcher(config, protocols.for_url, None, on_progress=shown.append)
    urls = [slow.url(f"/page/{n}") for n in range(5)]
    urls += [fast.url(f"/page/{n}") for n in range(1)]
    try:
        list(fetcher.run((_seed(u) for u in urls), total=len(urls)))
    finally:
        protocols.close()
    waiting = [s for s in shown if s.queued]
    assert waiting  # snapshots come every 0.25 s, the fetch takes over 1.2 s
    for snapshot in waiting:
        assert snapshot.eta_s is not None
        assert snapshot.eta_s >= (snapshot.queued - 1) * DELAY - FLOAT_ERROR
    assert shown[-1].eta_s == 0.0


def test_results_stream_out_before_the_run_ends(sites):
    host = sites("127.0.0.10")
    first_out = threading.Event()
    host.hold("/page/4", first_out.is_set)  # the last page waits for the first
    config = _config()
    protocols = Protocols(config.http)
    fetcher = Fetcher(config, protocols.for_url, None)
    urls = [host.url(f"/page/{n}") for n in range(5)]
    try:
        run = fetcher.run(_seed(u) for u in urls)
        first = next(run)
        last_unanswered = [r.ended for r in host.requests_for("/page/4")] in ([], [0])
        first_out.set()
        rest = list(run)
    finally:
        protocols.close()
    assert first["url"] == urls[0]
    assert last_unanswered  # the first page came out before the last was served
    assert [page["url"] for page in rest] == urls[1:]
    assert {_code(page) for page in rest} == {ProtocolStatus.SUCCESS}


def test_nutch_queue_by_ip_shares_one_queue_across_ports(sites):
    one, two = sites("127.0.0.11"), sites("127.0.0.11")
    urls = [one.url(f"/page/{n}") for n in range(3)] + [
        two.url(f"/page/{n}") for n in range(3)
    ]
    _fetch(_config(fetcher_queue_mode="byIP"), urls)
    log = sorted(
        one.requests_for("/page/") + two.requests_for("/page/"), key=lambda r: r.started
    )
    assert min(_gaps(log)) >= DELAY - FLOAT_ERROR


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


WITH_FILES = "protocol-(http|file)|urlfilter-regex|parse-html|urlnormalizer-basic"


def test_nutch_file_urls_are_fetched_with_protocol_file(tmp_path):
    (tmp_path / "a.html").write_text("<html>hi</html>")
    url = (tmp_path / "a.html").as_uri()
    pages, _ = _fetch(
        _config(plugin_includes=WITH_FILES), [url, tmp_path.as_uri() + "/"]
    )
    assert pages[url]["content"] == b"<html>hi</html>"
    assert _code(pages[tmp_path.as_uri() + "/"]) is ProtocolStatus.SUCCESS
    assert pages[url]["metadata"]["_foundzone_"] == b"local"


def test_nutch_file_urls_have_no_protocol_by_default(tmp_path):
    # Nutch's default plugin.includes has no protocol-file
    (tmp_path / "a.html").write_text("<html>hi</html>")
    url = (tmp_path / "a.html").as_uri()
    pages, _ = _fetch(_config(), [url])
    assert _code(pages[url]) is ProtocolStatus.PROTO_NOT_FOUND
    assert pages[url]["content"] is None


@pytest.mark.parametrize("store", [True, False])
def test_nutch_fetcher_store_content(site, store):
    config = dataclasses.replace(_config(), store_content=store)
    pages, _ = _fetch(config, [site.url("/ok")])
    content = pages[site.url("/ok")]["content"]
    assert (content != b"") is store


# --- redirect targets from Location bytes as the server sent them -----------

# (Location bytes, the target recorded from /dir/start); "{base}" is the server
RECORDED = [
    pytest.param(
        b"/\xc3\xbcn\xc3\xafc\xc3\xb6d\xc3\xa9",
        "{base}/%C3%BCn%C3%AFc%C3%B6d%C3%A9",
        id="utf-8",
    ),
    pytest.param(b"/caf\xe9", "{base}/caf%E9", id="latin-1"),
    pytest.param(b"/%C3%BCber", "{base}/%C3%BCber", id="percent-encoded"),
    pytest.param(b"/%c3%bcber", "{base}/%C3%BCber", id="percent-encoded-lowercase"),
    pytest.param(b"/\xc3\xbc%C3%BC\xe9", "{base}/%C3%BC%C3%BC%E9", id="mixed"),
    pytest.param(b"\xc3\xa9t\xc3\xa9/x", "{base}/dir/%C3%A9t%C3%A9/x", id="bare-path"),
    pytest.param(
        b"http://B\xc3\x9cCHER.example/\xc3\xbc",
        "http://bücher.example/%C3%BC",
        id="idn",
    ),
]


@pytest.fixture
def raw_site():
    server = RawSite("127.0.0.14", {})
    yield server
    server.stop()


def _redirecting(raw_site, location):
    raw_site.replies[b"/dir/start"] = RawReply(
        b"302 Found", (b"Location: " + location,), b"moved"
    )
    return raw_site.url("/dir/start")


@pytest.mark.parametrize(("location", "target"), RECORDED)
def test_redirect_target_is_recorded_as_the_server_meant_it(raw_site, location, target):
    # BasicURLNormalizer (scope fetcher) writes it in UTF-8 percent-encoding
    source = _redirecting(raw_site, location)
    pages, _ = _fetch(_config(), [source])
    assert pages[source]["outlinks"] == {target.format(base=raw_site.base): ""}
    assert raw_site.requested() == [b"/robots.txt", b"/dir/start"]


def test_nutch_idn_redirect_target_to_ascii(raw_site):
    # urlnormalizer.basic.host.idn=toAscii
    source = _redirecting(raw_site, b"http://b\xc3\xbccher.example/\xc3\xbc")
    config = _config(urlnormalizer_basic_host_idn="toAscii")
    pages, _ = _fetch(config, [source])
    assert pages[source]["outlinks"] == {"http://xn--bcher-kva.example/%C3%BC": ""}


@pytest.mark.parametrize(
    ("location", "request_target"),
    [
        (b"/\xc3\xbcber", b"/%C3%BCber"),
        (b"/caf\xe9", b"/caf%E9"),
        (b"/%C3%BCber", b"/%C3%BCber"),
    ],
    ids=["utf-8", "latin-1", "percent-encoded"],
)
def test_followed_redirect_asks_the_server_for_its_own_bytes(
    raw_site, location, request_target
):
    raw_site.replies[request_target] = RawReply(b"200 OK", (), b"<html>here</html>")
    source = _redirecting(raw_site, location)
    pages, _ = _fetch(_config(http_redirect_max=1), [source])
    hop = raw_site.url(request_target.decode())
    assert list(pages) == [source, hop]
    assert _code(pages[hop]) is ProtocolStatus.SUCCESS
    assert pages[hop]["content"] == b"<html>here</html>"
    assert raw_site.requested() == [b"/robots.txt", b"/dir/start", request_target]


def test_progress_snapshots_count_list_items_not_redirect_hops(site, caplog):
    # two list items, one of them followed through a redirect: three pages
    urls = [site.url("/redirect/301?to=/page/hop-target"), site.url("/page/plain")]
    config = _config(http_redirect_max=3)
    protocols = Protocols(config.http)
    shown: list[FetchSnapshot] = []
    fetcher = Fetcher(config, protocols.for_url, None, on_progress=shown.append)
    caplog.set_level("INFO", logger="crawllib.fetch.fetch")
    try:
        pages = list(fetcher.run((_seed(u, fetchTime=1) for u in urls), total=2))
    finally:
        protocols.close()
    assert len(pages) == 3
    last = shown[-1]  # the last snapshot is shown and logged
    assert (last.pages, last.done, last.total) == (3, 2, 2)
    assert (last.queued, last.active) == (0, 0)
    assert last.bytes == fetcher.stats.bytes
    assert [s.done for s in shown] == sorted(s.done for s in shown)
    assert fetcher.stats.redirect_hops == {"SUCCESS": 1}
    lines = [r.getMessage() for r in caplog.records if r.name == "crawllib.fetch.fetch"]
    assert len(lines) == 1  # with a display, no periodic lines
    assert lines[0].startswith(f"fetched 3 pages (2 of 2 listed), {last.bytes} bytes")
    assert lines[0].endswith("; 0 queues, 0 queued, 0 active; ETA 0:00")


def test_without_a_display_the_last_line_is_logged_without_an_eta(site, caplog):
    caplog.set_level("INFO", logger="crawllib.fetch.fetch")
    _, stats = _fetch(_config(), [site.url("/page/alone")])
    lines = [r.getMessage() for r in caplog.records if r.name == "crawllib.fetch.fetch"]
    assert lines[-1].startswith(f"fetched 1 pages, {stats.bytes} bytes, ")
    assert "ETA" not in lines[-1]
    assert stats.done == 1
