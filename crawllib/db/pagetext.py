"""One WebPage as text: what ``readdb --url`` prints (Nutch 2.x WebTableReader).

One ``name:<TAB>value`` line per field that is set; times in epoch
milliseconds followed by the UTC date; status codes followed by their names;
signatures in hex; markers and metadata one line per key. Every value
from the page is :func:`~crawllib.terminal.printable` (one line each): a
title holding terminal escapes or a newline cannot rewrite the screen or
pass for another field.
"""

from __future__ import annotations

import time

from crawllib.status import (
    ParseMajor,
    ParseMinor,
    crawl_status_label,
    protocol_status_label,
)
from crawllib.terminal import printable
from crawllib.webpage import WebPage, to_json_value

_TIME_FIELDS = ("fetchTime", "prevFetchTime", "modifiedTime", "prevModifiedTime")


def render_page(page: WebPage) -> str:
    """The page as Nutch 2.x ``readdb -url`` shows a row, one field per line."""
    lines = [f"url:\t{printable(page['url'])}"]
    if page["baseUrl"]:
        lines.append(f"baseUrl:\t{printable(page['baseUrl'])}")
    lines.append(f"status:\t{page['status']} ({crawl_status_label(page['status'])})")
    for name in _TIME_FIELDS:
        lines.append(f"{name}:\t{page[name]}{_date(page[name])}")  # type: ignore[literal-required]
    lines.append(f"fetchInterval:\t{page['fetchInterval']}")
    lines.append(f"retriesSinceFetch:\t{page['retriesSinceFetch']}")
    protocol = page["protocolStatus"]
    if protocol is not None:
        code = protocol["code"]
        lines.append(
            f"protocolStatus:\t{protocol_status_label(code)} ({code}), "
            f"args=[{printable(','.join(protocol['args']))}]"
        )
    for name in ("prevSignature", "signature"):
        value = page[name]  # type: ignore[literal-required]
        if value:
            lines.append(f"{name}:\t{value.hex()}")
    parse = page["parseStatus"]
    if parse is not None:
        lines.append(
            f"parseStatus:\t{_parse_status(parse['majorCode'], parse['minorCode'])}"
        )
    for name in ("contentType", "title", "reprUrl", "batchId"):
        if page[name]:  # type: ignore[literal-required]
            value = printable(page[name])  # type: ignore[literal-required]
            lines.append(f"{name}:\t{value}")
    lines.append(f"score:\t{page['score']:.6g}")
    for key, value in sorted(page["markers"].items()):
        lines.append(f"marker {printable(key)} :\t{printable(str(value))}")
    for key, raw in sorted(page["metadata"].items()):
        value = printable(str(to_json_value(raw)))
        lines.append(f"metadata {printable(key)} :\t{value}")
    lines.append(f"outlinks:\t{len(page['outlinks'])}")
    lines.append(f"inlinks:\t{len(page['inlinks'])}")
    return "\n".join(lines)


def _date(epoch_ms: int) -> str:
    if epoch_ms <= 0:
        return ""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch_ms / 1000))
    return f" ({stamp})"


def _parse_status(major: int, minor: int) -> str:
    try:
        names = f"{ParseMajor(major).label}/{ParseMinor(minor).label}"
    except ValueError:
        names = "unknown"
    return f"{names} ({major}/{minor})"
