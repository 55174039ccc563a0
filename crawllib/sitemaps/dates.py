"""Sitemap dates to epoch ms: W3C datetimes (``lastmod``, Atom) and RFC 822 (RSS).

crawler-commons ``AbstractSiteMap.convertToDate`` accepts the W3C profile of
ISO 8601 (``YYYY``, ``YYYY-MM``, ``YYYY-MM-DD``, then ``Thh:mm``,
``Thh:mm:ss`` or ``Thh:mm:ss.s`` with a zone); anything else is no date. A
time without a zone is read as UTC (Java would use the JVM's zone).
"""

from __future__ import annotations

import email.utils
import re
from datetime import datetime, timedelta, timezone

_W3C = re.compile(
    r"(\d{4})(?:-(\d\d)(?:-(\d\d)"
    r"(?:T(\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?"
    r"(Z|[+-]\d\d:?\d\d)?)?)?)?"
)
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def parse_w3c_ms(text: str | None) -> int | None:
    """A W3C datetime as epoch ms; None if absent or not one."""
    if text is None:
        return None
    match = _W3C.fullmatch(text.strip())
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    try:
        moment = datetime(
            int(year),
            int(month or 1),
            int(day or 1),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            int((fraction or "0")[:6].ljust(6, "0")),
            tzinfo=_zone(zone),
        )
    except ValueError:  # month 13, Feb 30 ...
        return None
    return _epoch_ms(moment)


def parse_rfc822_ms(text: str | None) -> int | None:
    """An RSS ``pubDate`` (RFC 822 / 1123) as epoch ms; None if not one."""
    if text is None or not text.strip():
        return None
    try:
        moment = email.utils.parsedate_to_datetime(text.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return _epoch_ms(moment)


def _epoch_ms(moment: datetime) -> int:
    return (moment - _EPOCH) // timedelta(milliseconds=1)


def _zone(text: str | None) -> timezone:
    if text is None or text == "Z":
        return timezone.utc
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    return timezone(sign * offset)
