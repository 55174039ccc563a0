"""The fetch output record: a fetch-list page plus what its fetch returned.

As Nutch 2.x FetcherReducer writes a row: ``status`` from the protocol
status, ``protocolStatus``, ``prevFetchTime`` = the old fetchTime,
``fetchTime`` = now, the response headers (replaced), content, contentType
and baseUrl when there is content, and the fetch mark. A redirect that is
not followed is recorded 2.x-style: the target in ``outlinks`` and the
``___rdrdsc__`` metadata flag, with ``reprUrl`` chosen by
:func:`~crawllib.fetch.redirects.choose_repr`.
"""

from __future__ import annotations

import mimetypes
import struct

from crawllib.db.scoring import initial_score
from crawllib.fetch.protocol import FetchResult, crawl_status
from crawllib.status import CrawlStatus, Mark
from crawllib.urls.zone import FOUND_ZONE_KEY, Zone, with_zone
from crawllib.webpage import WebPage

REDIRECT_DISCOVERED = "___rdrdsc__"
"""metadata flag: a redirect target was added to outlinks (2.x)."""
TRUNCATED = "http.content.truncated"
"""metadata flag ``true``: the content was cut at the content limit (1.x key)."""
UNDECODED = "http.content.undecoded"
"""metadata (beamcrawl's): the Content-Encoding codings the content is still
in, which the fetcher cannot undo (``compress``); the parse step fails it."""
RESPONSE_TIME = "_rs_"
"""metadata: response time in ms, 4-byte big-endian int (2.x ``_rs_``)."""
IP_ADDRESS = "_ip_"
"""metadata: the server's IP address (1.x ``Response.IP_ADDRESS``)."""
REQUEST = "_request_"
"""metadata: the request line and headers as sent (1.x ``Response.REQUEST``)."""
RESPONSE_HEADERS = "_response.headers_"
"""metadata: status line and headers as received (1.x ``RESPONSE_HEADERS``)."""
WIRE_METADATA = (IP_ADDRESS, REQUEST, RESPONSE_HEADERS)
"""Per-fetch metadata for a WARC: kept in segments, never in the crawldb."""


def fetched_page(
    page: WebPage,
    result: FetchResult,
    fetch_time_ms: int,
    store_content: bool = True,
    store_response_time: bool = True,
) -> WebPage:
    """The page after ``result``: status, times, content, headers, fetch mark."""
    has_content = result.content is not None
    metadata = dict(page["metadata"])
    for key in (TRUNCATED, UNDECODED, FOUND_ZONE_KEY, *WIRE_METADATA):
        metadata.pop(key, None)
    if result.http_code or has_content:  # links found here get its zone
        metadata[FOUND_ZONE_KEY] = result.found_zone.label.encode()
    for key, value in (
        (IP_ADDRESS, result.ip_address.encode("ascii")),
        (REQUEST, result.request_head),
        (RESPONSE_HEADERS, result.response_head),
    ):
        if value:
            metadata[key] = value
    if result.truncated:
        metadata[TRUNCATED] = b"true"
    if result.undecoded and has_content:
        metadata[UNDECODED] = result.undecoded.encode("latin-1", errors="replace")
    if store_response_time and result.http_code:
        metadata[RESPONSE_TIME] = struct.pack(
            ">i", min(result.response_time_ms, 2**31 - 1)
        )
    markers = dict(page["markers"])
    batch = markers.get(Mark.GENERATE.value) or page["batchId"] or ""
    markers[Mark.FETCH.value] = batch
    fetched: WebPage = {
        **page,
        "status": int(crawl_status(result.status)),
        "protocolStatus": {
            "code": int(result.status),
            "args": list(result.args),
            "lastModified": result.last_modified_ms,
        },
        "prevFetchTime": page["fetchTime"],
        "fetchTime": fetch_time_ms,
        "headers": _headers(result),
        "markers": markers,
        "metadata": metadata,
    }
    if has_content:
        fetched["content"] = result.content if store_content else b""
        fetched["contentType"] = media_type(result)
        fetched["baseUrl"] = result.url
    else:
        fetched["content"] = None
    return fetched


def _headers(result: FetchResult) -> dict[str, str | None]:
    values: dict[str, list[str]] = {}  # joined once: a name may come 10**5 times
    for name, value in result.headers:
        values.setdefault(name, []).append(value)
    return {name: ", ".join(repeats) for name, repeats in values.items()}


def media_type(result: FetchResult) -> str:
    """The content's media type: the Content-Type header, else guessed from the URL."""
    if result.content_type:
        media = result.content_type.split(";", 1)[0].strip().lower()
        if media:
            return media
    guessed, _ = mimetypes.guess_type(result.url)
    return guessed or "application/octet-stream"


def with_redirect_recorded(page: WebPage, target: str, repr_url: str) -> WebPage:
    """Record a redirect target for updatedb to add (2.x FetcherReducer)."""
    return {
        **page,
        "outlinks": {**page["outlinks"], target: ""},
        "metadata": {**page["metadata"], REDIRECT_DISCOVERED: b"y"},
        "reprUrl": repr_url,
    }


def redirect_target_page(
    source: WebPage, target: str, repr_url: str, zone: Zone
) -> WebPage:
    """A followed redirect's target as a fetch-list page of its own.

    1.x FetcherThread.queueRedirect: unfetched, the source's interval and
    metadata, score 0 (OPIC's initial score), the representative URL; and
    ``zone``, the class of the address the redirect came from.
    """
    hop: WebPage = {
        **source,
        "url": target,
        "status": int(CrawlStatus.UNFETCHED),
        "score": 0.0,
        "reprUrl": repr_url,
        "metadata": {
            k: v
            for k, v in source["metadata"].items()
            if k not in WIRE_METADATA and k != FOUND_ZONE_KEY
        },
        "protocolStatus": None,
        "content": None,
        "contentType": None,
        "baseUrl": None,
        "headers": {},
        "outlinks": {},
        "inlinks": {},
        "modifiedTime": 0,
        "prevModifiedTime": 0,
        "signature": None,
        "prevSignature": None,
    }
    return initial_score(with_zone(hop, zone))
