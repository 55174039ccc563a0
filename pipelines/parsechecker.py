"""``beamcrawl parsechecker URL``: fetch and parse one URL (Nutch's ParserChecker).

No pipeline runs: one request (robots.txt is not consulted, as in Nutch's
checker), one parse, a report on stdout for someone debugging a site.
Exit 1 when the fetch did not succeed. The URL is the operator's (zone
``local``); a redirect it follows is in the zone of the address that sent
it, as in a crawl (:mod:`crawllib.urls.zone`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence

from crawllib.config import FetcherConfig, ParseConfig
from crawllib.fetch.protocol.registry import Protocols
from crawllib.fetch.records import fetched_page
from crawllib.parse.parse import PageParser
from crawllib.status import (
    CrawlStatus,
    ParseMajor,
    ParseMinor,
    protocol_status_label,
)
from crawllib.terminal import printable
from crawllib.urls.normalize import UrlNormalizers
from crawllib.urls.zone import OPERATOR
from crawllib.webpage import WebPage, new_page, to_json_value
from pipelines.runtime.options import job_parser, parse_job_args


def run(argv: Sequence[str] | None = None) -> int:
    """Fetch, parse and print one URL."""
    parser = job_parser("beamcrawl parsechecker", "Fetch and parse one URL.")
    parser.add_argument("url")
    parser.add_argument(
        "--normalize", action="store_true", help="normalize the URL first"
    )
    parser.add_argument(
        "--followRedirects", action="store_true", help="follow redirects"
    )
    job = parse_job_args(parser, sys.argv[1:] if argv is None else argv)
    fetch_config = FetcherConfig.from_properties(job.properties)
    parse_config = ParseConfig.from_properties(job.properties)
    url = job.args.url
    if job.args.normalize:
        url = UrlNormalizers(parse_config.urls, "default").normalize(url) or url
    protocols = Protocols(fetch_config.http)
    page_parser = PageParser(parse_config)
    try:
        page = _fetch(protocols, url, job.args.followRedirects)
        print(f"fetching: {printable(page['url'])}")
        code = page["protocolStatus"]["code"] if page["protocolStatus"] else 0
        if page["status"] != CrawlStatus.FETCHED:
            print(f"Fetch failed with protocol status: {protocol_status_label(code)}")
            if page["protocolStatus"] and page["protocolStatus"]["args"]:
                print(f"  {printable(page['protocolStatus']['args'][0])}")
            return 1
        print(f"parsing: {printable(page['url'])}")
        parsed = page_parser.parse_page(page)
    finally:
        protocols.close()
        page_parser.close()
    print(render_check(parsed))
    return 0


def _fetch(protocols: Protocols, url: str, follow: bool) -> WebPage:
    page = new_page(url, markers={"_ftcmrk_": "parsechecker"})
    zone = OPERATOR
    for _ in range(6 if follow else 1):
        protocol = protocols.for_url(page["url"])
        if protocol is None:
            break
        result = protocol.fetch(page["url"], zone=zone)
        page = fetched_page(page, result, int(time.time() * 1000))
        target = result.redirect_target
        if target is None or not follow:
            break
        page, zone = (
            new_page(target, markers={"_ftcmrk_": "parsechecker"}),
            result.found_zone,
        )
    return page


def render_check(page: WebPage) -> str:
    """ParserChecker's report: content type, signature, Url, ParseData, ParseText.

    What the page holds is :func:`~crawllib.terminal.printable`: one line per
    value, the page text multi-line, control characters escaped.
    """
    status = page["parseStatus"]
    major = ParseMajor(status["majorCode"]) if status else ParseMajor.NOTPARSED
    minor = status["minorCode"] if status else 0
    minor_name = (
        ParseMinor(minor).label if minor in ParseMinor._value2member_map_ else minor
    )
    signature = page["signature"].hex() if page["signature"] else ""
    args = printable(",".join(status["args"])) if status and status["args"] else ""
    lines = [
        f"contentType: {printable(page['contentType'] or '')}",
        f"signature: {signature}",
        "---------\nUrl\n---------------\n" + printable(page["url"]),
        "---------\nParseData\n---------",
        "Version: 5",
        f"Status: {major.label}/{minor_name} ({int(major)},{minor})"
        + (f", args=[{args}]" if args else ""),
        f"Title: {printable(page['title'] or '')}",
        f"Outlinks: {len(page['outlinks'])}",
    ]
    lines += [
        f"  outlink: toUrl: {printable(u)} anchor: {printable(a or '')}"
        for u, a in page["outlinks"].items()
    ]
    lines.append(
        "Content Metadata: "
        + " ".join(
            f"{printable(k)}={printable(str(v))}" for k, v in page["headers"].items()
        )
    )
    lines.append(
        "Parse Metadata: "
        + " ".join(
            f"{printable(k)}={printable(str(to_json_value(v)))}"
            for k, v in sorted(page["metadata"].items())
        )
    )
    lines.append("---------\nParseText\n---------")
    lines.append(printable(page["text"] or "", multiline=True))
    return "\n".join(lines)


if __name__ == "__main__":  # as `beamcrawl parsechecker`: a user error is one line
    from pipelines.cli import main

    sys.exit(main(["parsechecker", *sys.argv[1:]]))
