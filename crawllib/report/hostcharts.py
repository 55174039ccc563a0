"""The report's host charts: the most pages, the most errors, status and HTTP code."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from crawllib.report.figures import CrawlFigures, is_error
from crawllib.report.hosts import HostTally
from crawllib.report.section import Section, ordered, series_of
from crawllib.report.svg import Chart
from crawllib.status import ProtocolStatus, protocol_status_label

TOP_HOSTS = 20
"""Hosts shown in each host chart."""


def _host_chart(
    key: str,
    title: str,
    ranked: list[tuple[str, HostTally]],
    counter: Callable[[HostTally], Mapping[str, int]],
    x_label: str,
) -> Chart:
    counters = [counter(tally) for _, tally in ranked]
    names = ordered(counters)
    return Chart(
        key, "hbars", title, tuple(host for host, _ in ranked),
        series_of(names, lambda n, i: counters[i].get(n, 0), len(ranked)),
        x_label,
    )  # fmt: skip


def _host_note(figures: CrawlFigures) -> str:
    dropped = figures.hosts.dropped
    if not dropped:
        return ""
    return (
        f" The crawl has more hosts than the report keeps: {dropped} with few "
        "pages were let go along the way, so these counts may be low."
    )


def hosts_by_pages(figures: CrawlFigures) -> Section:
    """The hosts with the most crawldb records, by status."""
    title = f"The {TOP_HOSTS} hosts with the most pages"
    ranked = figures.hosts.top(TOP_HOSTS, lambda t: t.pages)
    if not ranked:
        return Section("hosts-pages", title, "No crawldb records.")
    chart = _host_chart(
        "hosts-pages", title, ranked, lambda t: t.pages_by_status, "URLs in the crawldb"
    )
    text = "Crawldb records per host, by status." + _host_note(figures)
    return Section(chart.key, title, text, chart)


def hosts_by_errors(figures: CrawlFigures) -> Section:
    """The hosts with the most failed fetches, by protocol status."""
    title = f"The {TOP_HOSTS} hosts with the most errors"
    ranked = figures.hosts.top(TOP_HOSTS, lambda t: t.errors)
    if not ranked:
        return Section("hosts-errors", title, "No fetch failed: no host had an error.")

    def errors(tally: HostTally) -> dict[str, int]:
        return {
            name: count
            for name, count in tally.fetch_statuses.items()
            if is_error(_code(name))
        }

    chart = _host_chart("hosts-errors", title, ranked, errors, "failed fetches")
    text = (
        "Fetches that brought neither a page, a redirect nor 'not modified', "
        "per host, by protocol status." + _host_note(figures)
    )
    return Section(chart.key, title, text, chart)


def _code(label: str) -> int:
    try:
        return int(ProtocolStatus[label])
    except KeyError:
        return 0


def host_fetch_status(figures: CrawlFigures) -> Section:
    """Fetch records by protocol status for the most fetched hosts."""
    title = "Fetch status by host"
    ranked = figures.hosts.top(TOP_HOSTS, lambda t: t.fetches)
    if not ranked:
        return Section("host-fetch-status", title, "No fetch records.")
    chart = _host_chart(
        "host-fetch-status", title, ranked, lambda t: t.fetch_statuses, "fetch records"
    )
    text = (
        f"The {TOP_HOSTS} most fetched hosts: their fetch records (all rounds) by "
        f"protocol status ({protocol_status_label(1)} is a page)." + _host_note(figures)
    )
    return Section(chart.key, title, text, chart)


def host_http_codes(figures: CrawlFigures) -> Section:
    """Fetch records by HTTP status code for the most fetched hosts."""
    title = "HTTP status code by host"
    ranked = figures.hosts.top(TOP_HOSTS, lambda t: t.fetches)
    if not ranked:
        return Section("host-http-codes", title, "No fetch records.")
    chart = _host_chart(
        "host-http-codes", title, ranked, lambda t: t.http_codes, "fetch records"
    )
    text = (
        "The same hosts' fetch records by the HTTP code of the response "
        "('none': no HTTP response, as for a refused connection or a robots.txt "
        "denial; 'not stored': store.http.headers was off)." + _host_note(figures)
    )
    return Section(chart.key, title, text, chart)
