"""Protocols: what one fetch of one URL returns (Nutch's ProtocolOutput).

``http`` (requests) and ``file`` implement :class:`Protocol`; ``robots`` reads
robots.txt through them. :func:`crawl_status` maps a protocol status to the
page status the fetcher writes (Nutch 2.x FetcherReducer).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol as TypingProtocol

from crawllib.status import CrawlStatus, ProtocolStatus
from crawllib.urls.zone import OPERATOR, Zone


@dataclass(frozen=True, slots=True)
class FetchResult:
    """The outcome of one request, success or not (never an exception).

    Attributes:
        url: the URL requested.
        status: Nutch's ProtocolStatus code.
        args: the ProtocolStatus args: the absolute redirect target for
            MOVED / TEMP_MOVED / NOTMODIFIED, a message for failures.
        http_code: the HTTP status code; 0 when there was no response.
        content: the (decompressed, possibly truncated) body; None without one.
        content_type: the response's Content-Type (media type and parameters).
        headers: response headers in arrival order, names as sent.
        truncated: the body is not whole: cut at the content limit, the
            time limit or a read timeout, or its compressed stream broke.
        undecoded: the Content-Encoding codings the content is still in,
            when the fetcher cannot undo them (``compress``, an unknown
            name): the content is the body as sent; "" otherwise.
        last_modified_ms: the ``Last-Modified`` header as epoch ms; 0 if none.
        response_time_ms: time from request to the end of the body.
        ip_address: the server's address the response came from, when
            ``store.ip.address`` is set (Nutch's ``_ip_``); "" otherwise.
        request_head: the request line and headers as sent, when
            ``store.http.request`` is set (Nutch's ``_request_``); b"" otherwise.
        response_head: the status line and headers as received, when
            ``store.http.headers`` is set (Nutch's ``_response.headers_``).
        found_zone: the class of the address the response came from (LOCAL
            for a file), given to the links found in it
            (:mod:`crawllib.urls.zone`); PUBLIC when nothing came.
    """

    url: str
    status: ProtocolStatus
    args: tuple[str, ...] = ()
    http_code: int = 0
    content: bytes | None = None
    content_type: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    truncated: bool = False
    undecoded: str = ""
    last_modified_ms: int = 0
    response_time_ms: int = 0
    ip_address: str = ""
    request_head: bytes = b""
    response_head: bytes = b""
    found_zone: Zone = Zone.PUBLIC

    @property
    def redirect_target(self) -> str | None:
        """The absolute redirect target of a MOVED / TEMP_MOVED result."""
        if (
            self.status in (ProtocolStatus.MOVED, ProtocolStatus.TEMP_MOVED)
            and self.args
        ):
            return self.args[0]
        return None


class Protocol(TypingProtocol):
    """Fetches URLs of its schemes; thread-safe; built once per worker."""

    def fetch(
        self, url: str, modified_time_ms: int = 0, zone: Zone = OPERATOR
    ) -> FetchResult:
        """Fetch ``url``; ``modified_time_ms`` > 0 asks for If-Modified-Since.

        ``zone`` is the URL's (:mod:`crawllib.urls.zone`): the addresses it may
        reach. A URL handed over directly is the operator's; the crawl's
        own paths always pass the zone their record carries.
        """
        ...

    def close(self) -> None:
        """Release connections."""
        ...


_CRAWL_STATUS = {
    ProtocolStatus.SUCCESS: CrawlStatus.FETCHED,
    ProtocolStatus.MOVED: CrawlStatus.REDIR_PERM,
    ProtocolStatus.TEMP_MOVED: CrawlStatus.REDIR_TEMP,
    ProtocolStatus.NOTMODIFIED: CrawlStatus.NOTMODIFIED,
    ProtocolStatus.GONE: CrawlStatus.GONE,
    ProtocolStatus.NOTFOUND: CrawlStatus.GONE,
    ProtocolStatus.ACCESS_DENIED: CrawlStatus.GONE,
    ProtocolStatus.ROBOTS_DENIED: CrawlStatus.GONE,
    ProtocolStatus.ADDRESS_DENIED: CrawlStatus.GONE,
}


def crawl_status(status: int) -> CrawlStatus:
    """The page status for a protocol status (2.x FetcherReducer's switch).

    SUCCESS is FETCHED; MOVED and TEMP_MOVED the redirect statuses;
    NOTMODIFIED stays; GONE, NOTFOUND, ACCESS_DENIED and ROBOTS_DENIED (and
    beamcrawl's ADDRESS_DENIED) are GONE; everything else (EXCEPTION, RETRY,
    FAILED, BLOCKED, unknown codes) is RETRY.
    """
    try:
        return _CRAWL_STATUS.get(ProtocolStatus(status), CrawlStatus.RETRY)
    except ValueError:
        return CrawlStatus.RETRY
