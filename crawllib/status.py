"""Nutch's status codes and job marks, with Nutch's numbers and names.

Mirrors 2.x ``CrawlStatus``, ``ProtocolStatusCodes``, ``ParseStatusCodes`` and
``Mark``. The numbers are what the Avro records store; the names are what
``readdb --stats`` and the Beam counters print.
"""

from __future__ import annotations

import enum


class CrawlStatus(enum.IntEnum):
    """``WebPage.status``: the 2.x CrawlStatus codes (1-5 equal 1.x db codes).

    ``DUPLICATE`` (7) is 1.x ``db_duplicate``; 2.x has no duplicate status,
    beamcrawl's dedup needs one, so it takes the 1.x number.
    """

    UNFETCHED = 0x01
    FETCHED = 0x02
    GONE = 0x03
    REDIR_TEMP = 0x04
    REDIR_PERM = 0x05
    DUPLICATE = 0x07
    RETRY = 0x22
    NOTMODIFIED = 0x26

    @property
    def label(self) -> str:
        """Nutch 2.x ``CrawlStatus.getName``: ``status_unfetched`` and so on."""
        return f"status_{self.name.lower()}"

    @property
    def db_label(self) -> str:
        """The 1.x CrawlDatum name of the same state: ``db_unfetched`` ..."""
        return _DB_LABELS[self]


_DB_LABELS = {
    CrawlStatus.UNFETCHED: "db_unfetched",
    CrawlStatus.FETCHED: "db_fetched",
    CrawlStatus.GONE: "db_gone",
    CrawlStatus.REDIR_TEMP: "db_redir_temp",
    CrawlStatus.REDIR_PERM: "db_redir_perm",
    CrawlStatus.DUPLICATE: "db_duplicate",
    CrawlStatus.RETRY: "fetch_retry",
    CrawlStatus.NOTMODIFIED: "db_notmodified",
}


def crawl_status_label(code: int) -> str:
    """The name ``readdb`` prints for a status code, also for unknown codes."""
    try:
        return CrawlStatus(code).label
    except ValueError:
        return "null" if code == 0 else f"status_unknown_{code}"


def crawl_status_from_label(label: str) -> CrawlStatus:
    """Parse a status name as ``generate.restrict.status`` gives it.

    Accepts the 2.x name (``status_fetched``), the 1.x name (``db_fetched``)
    and the bare constant (``FETCHED``), in any case.

    Raises:
        ValueError: the name is not a known status.
    """
    wanted = label.strip().lower()
    for status in CrawlStatus:
        if wanted in (status.label, status.db_label, status.name.lower()):
            return status
    raise ValueError(f"unknown crawl status {label!r}")


class ProtocolStatus(enum.IntEnum):
    """``WebPage.protocolStatus.code``: Nutch's ProtocolStatusCodes.

    ``ADDRESS_DENIED`` (24) is beamcrawl's own: the address policy refused
    the connection (:mod:`crawllib.urls.addresses`); nothing was sent.
    """

    SUCCESS = 1
    FAILED = 2
    PROTO_NOT_FOUND = 10
    GONE = 11
    MOVED = 12
    TEMP_MOVED = 13
    NOTFOUND = 14
    RETRY = 15
    EXCEPTION = 16
    ACCESS_DENIED = 17
    ROBOTS_DENIED = 18
    REDIR_EXCEEDED = 19
    NOTFETCHING = 20
    NOTMODIFIED = 21
    WOULDBLOCK = 22
    BLOCKED = 23
    ADDRESS_DENIED = 24


def protocol_status_label(code: int) -> str:
    """Nutch's name for a protocol status code; ``UNKNOWN_CODE_<n>`` if unknown."""
    try:
        return ProtocolStatus(code).name
    except ValueError:
        return f"UNKNOWN_CODE_{code}"


class ParseMajor(enum.IntEnum):
    """``WebPage.parseStatus.majorCode``."""

    NOTPARSED = 0
    SUCCESS = 1
    FAILED = 2

    @property
    def label(self) -> str:
        """Nutch's major name, also the ``ParserStatus`` counter name."""
        return self.name.lower()


class ParseMinor(enum.IntEnum):
    """``WebPage.parseStatus.minorCode``."""

    OK = 0
    REDIRECT = 100
    EXCEPTION = 200
    TRUNCATED = 202
    INVALID_FORMAT = 203
    MISSING_PARTS = 204
    MISSING_CONTENT = 205

    @property
    def label(self) -> str:
        """Nutch's minor name (``ok``, ``redirect``, ``truncated`` ...)."""
        return self.name.lower()


class Mark(str, enum.Enum):
    """Job marks kept in ``WebPage.markers``, keyed exactly as Nutch 2.x."""

    INJECT = "_injmrk_"
    GENERATE = "_gnmrk_"
    FETCH = "_ftcmrk_"
    PARSE = "__prsmrk__"
    UPDATEDB = "_updmrk_"
    INDEX = "_idxmrk_"
    SITEMAP = "_stmmrk_"


DISTANCE_MARKER = "dist"
"""``markers['dist']``: link distance from a seed, as a decimal string."""
