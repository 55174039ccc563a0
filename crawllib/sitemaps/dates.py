"""Sitemap dates to epoch ms: W3C datetimes (``lastmod``, Atom) and RFC 822 (RSS).

crawler-commons ``AbstractSiteMap.convertToDate`` accepts the W3C profile of
ISO 8601 (``YYYY``, ``YYYY-MM``, ``YYYY-MM-DD`` at midnight UTC, then
``Thh:mm``, ``Thh:mm:ss`` or ``Thh:mm:ss.s`` with a zone); anything else is
no date. ``parseRSSTimestamp`` reads RSS dates as RFC 1123 with an optional
weekday and seconds, and a two-digit year as 19yy from 80, else 20yy; a date
without a zone is no date.

Where beamcrawl is more lenient: a W3C time without a zone is read as UTC
(crawler-commons: no date), a ``+hhmm`` zone and white space around the
value are accepted; RSS dates may use the RFC 822 zone names (``UT``,
``EST`` ... ``PDT``), not only ``GMT`` and ``+hhmm``.
"""

from __future__ import annotations

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
    match = _RFC822.fullmatch((text or "").strip())
    if match is None:
        return None
    weekday, day, month, year, hour, minute, second, zone = match.groups()
    full_year = int(year) + (0 if len(year) == 4 else 1900 if int(year) >= 80 else 2000)
    try:
        moment = datetime(
            full_year,
            _MONTHS.index(month.lower()) // 3 + 1,
            int(day),
            int(hour),
            int(minute),
            int(second or 0),
            tzinfo=_rfc822_zone(zone),
        )
    except ValueError:  # Feb 30, 25:00, an unknown zone ...
        return None
    if weekday and _WEEKDAYS.find(weekday.lower()) != 3 * moment.weekday():
        return None  # java.time refuses a weekday that is not the date's
    return _epoch_ms(moment)


_MONTHS = "janfebmaraprmayjunjulaugsepoctnovdec"
_WEEKDAYS = "montuewedthufrisatsun"
_RFC822 = re.compile(
    r"(?:([A-Za-z]{3}),\s*)?(\d{1,2})\s+"
    r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\s+(\d{4}|\d{2})"
    r"\s+(\d\d):(\d\d)(?::(\d\d))?\s+([+-]\d{4}|[A-Za-z]{1,3})",
    re.ASCII | re.IGNORECASE,
)
_RFC822_ZONES = {"GMT": 0, "UT": 0, "UTC": 0, "Z": 0, "EST": -5, "EDT": -4,
                 "CST": -6, "CDT": -5, "MST": -7, "MDT": -6, "PST": -8,
                 "PDT": -7}  # fmt: skip


def _rfc822_zone(text: str) -> timezone:
    """``+hhmm`` or a zone name; ValueError for an unknown name or offset."""
    if text[0] in "+-":
        minutes = int(text[1:3]) * 60 + int(text[3:])
        return timezone(timedelta(minutes=-minutes if text[0] == "-" else minutes))
    hours = _RFC822_ZONES.get(text.upper())
    if hours is None:
        raise ValueError(f"unknown zone {text!r}")
    return timezone(timedelta(hours=hours))


def _epoch_ms(moment: datetime) -> int:
    return (moment - _EPOCH) // timedelta(milliseconds=1)


def _zone(text: str | None) -> timezone:
    if text is None or text == "Z":
        return timezone.utc
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    return timezone(sign * offset)
