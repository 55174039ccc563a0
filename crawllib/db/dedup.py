"""Duplicate detection by signature, as Nutch 1.x ``DeduplicationJob``.

Only FETCHED or NOTMODIFIED pages with a signature take part
(:func:`group_key`). Pages with the same signature (and, with ``--group
host`` or ``domain``, the same host or registrable domain) form a group; one
of them is kept and the others are marked DUPLICATE. Within a group pages
are compared by the criteria of ``--compareOrder`` (:func:`compare`, Nutch's
``DedupReducer.getDuplicate``):

- ``score``: the lower score is the duplicate;
- ``fetchTime``: the older fetch is the duplicate;
- ``httpsOverHttp``: of two URLs that differ only by ``https://`` against
  ``http://``, the http one is the duplicate;
- ``urlLength``: the longer URL, after percent-decoding as Java's
  ``URLDecoder`` does, is the duplicate (length in UTF-16 code units).

**Deterministic choice (beamcrawl).** Nutch's reducer folds over the group in
whatever order the shuffle delivers: it keeps an "existing" document,
compares each further one with it, and when no criterion decides it marks
neither. The result depends on that order: with A and B equal in every
criterion and C better than both, the order A, B, C marks only A (B was
only ever compared with A, and tied), while C, A, B marks A and B. Some
ties therefore leave duplicates in the index, and which ones differs from
run to run. :func:`duplicates` instead folds over the group sorted by URL
and, when no criterion decides, keeps the smaller URL. So exactly one page
per group survives, and which one depends only on the group's contents:
with a consistent order (every order Nutch accepts where ``httpsOverHttp``,
if present, comes just before ``urlLength``) it is the best page under the
criteria, the smallest URL among equals; otherwise (``httpsOverHttp``
earlier, which can make the criteria cyclic) it is still the same page for
the same group on every runner.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from crawllib.errors import ConfigError
from crawllib.status import CrawlStatus
from crawllib.urls.domain import domain_of, host_of
from crawllib.webpage import WebPage

Entry = tuple[str, float, int]
"""What dedup needs of a page: (url, score, fetchTime in ms)."""

TAKING_PART = frozenset({int(CrawlStatus.FETCHED), int(CrawlStatus.NOTMODIFIED)})
"""Statuses of the pages that take part (1.x ``db_fetched``, ``db_notmodified``)."""


class Group(enum.Enum):
    """``-group``: what, beside the signature, puts pages in one group."""

    NONE = "none"
    HOST = "host"
    DOMAIN = "domain"


class Criterion(enum.Enum):
    """One ``-compareOrder`` criterion, named as on Nutch's command line."""

    SCORE = "score"
    FETCH_TIME = "fetchTime"
    HTTPS_OVER_HTTP = "httpsOverHttp"
    URL_LENGTH = "urlLength"


DEFAULT_COMPARE_ORDER = "score,fetchTime,urlLength"
_REQUIRED = frozenset({Criterion.SCORE, Criterion.FETCH_TIME, Criterion.URL_LENGTH})


@dataclass(frozen=True, slots=True)
class DedupConfig:
    """The dedup command's settings: ``-group`` and ``-compareOrder``."""

    group: Group = Group.NONE
    compare_order: tuple[Criterion, ...] = (
        Criterion.SCORE,
        Criterion.FETCH_TIME,
        Criterion.URL_LENGTH,
    )

    @classmethod
    def from_args(
        cls, group: str = "none", compare_order: str = DEFAULT_COMPARE_ORDER
    ) -> DedupConfig:
        """Check and read the command-line values.

        Raises:
            ConfigError: an unknown group, or a compare order that is not a
                comma-separated list of distinct criteria including
                ``score``, ``fetchTime`` and ``urlLength``.
        """
        try:
            mode = Group(group)
        except ValueError:
            raise ConfigError(
                f"--group {group!r} is invalid: expected none, host or domain"
            ) from None
        return cls(group=mode, compare_order=parse_compare_order(compare_order))


def parse_compare_order(text: str) -> tuple[Criterion, ...]:
    """Parse ``-compareOrder``; stricter than Nutch, which ignores unknown names.

    Raises:
        ConfigError: see :meth:`DedupConfig.from_args`.
    """
    names = [name.strip() for name in text.split(",")]
    known = {criterion.value: criterion for criterion in Criterion}
    unknown = [name for name in names if name not in known]
    order = tuple(known[name] for name in names if name in known)
    if unknown or len(set(order)) != len(order) or not set(order) >= _REQUIRED:
        raise ConfigError(
            f"--compareOrder {text!r} is invalid: expected score, fetchTime and "
            "urlLength, optionally httpsOverHttp, comma-separated, each once"
        )
    return order


def group_key(page: WebPage, group: Group) -> str | None:
    """The page's group (DBFilter's key), or None when it does not take part.

    The signature as hex, followed for ``host`` / ``domain`` by a space and
    the URL's lowercased host / registrable domain (Nutch appends their
    bytes to the signature's).
    """
    signature = page["signature"]
    if page["status"] not in TAKING_PART or signature is None:
        return None
    key = signature.hex()
    if group is Group.HOST:
        return f"{key} {host_of(page['url'])}"
    if group is Group.DOMAIN:
        return f"{key} {domain_of(page['url'])}"
    return key


def entry(page: WebPage) -> Entry:
    """The light (url, score, fetchTime) tuple that is shuffled instead of the page."""
    return page["url"], page["score"], page["fetchTime"]


def compare(existing: Entry, new: Entry, order: Iterable[Criterion]) -> int:
    """Which of two pages is the duplicate: -1 ``existing``, 1 ``new``, 0 undecided.

    Nutch's ``getDuplicate``: the first criterion in ``order`` that tells
    the two apart decides. A NaN score decides nothing, as in Java.
    """
    for criterion in order:
        verdict = _CRITERIA[criterion](existing, new)
        if verdict:
            return verdict
    return 0


def _by_score(existing: Entry, new: Entry) -> int:
    if existing[1] < new[1]:
        return -1
    return 1 if existing[1] > new[1] else 0


def _by_fetch_time(existing: Entry, new: Entry) -> int:
    if existing[2] > new[2]:
        return 1
    return -1 if existing[2] < new[2] else 0


def _https_over_http(existing: Entry, new: Entry) -> int:
    one, other = existing[0], new[0]
    if one.startswith("https://") and other.startswith("http://"):
        return 1 if one[8:] == other[7:] else 0
    if other.startswith("https://") and one.startswith("http://"):
        return -1 if other[8:] == one[7:] else 0
    return 0


def _by_url_length(existing: Entry, new: Entry) -> int:
    one = decoded_length(existing[0])
    other = decoded_length(new[0])
    if one < other:
        return 1
    return -1 if one > other else 0


_CRITERIA = {
    Criterion.SCORE: _by_score,
    Criterion.FETCH_TIME: _by_fetch_time,
    Criterion.HTTPS_OVER_HTTP: _https_over_http,
    Criterion.URL_LENGTH: _by_url_length,
}


def duplicates(entries: Iterable[Entry], order: Iterable[Criterion]) -> list[str]:
    """The URLs of a group to mark DUPLICATE: all but one (see the module doc).

    Nutch's fold over the group, in URL order, where an undecided comparison
    keeps the smaller URL. Entries with the same URL count once.
    """
    criteria = tuple(order)
    ordered = sorted(entries)
    unique = [e for i, e in enumerate(ordered) if i == 0 or e[0] != ordered[i - 1][0]]
    if not unique:
        return []
    marked: list[str] = []
    existing = unique[0]
    for new in unique[1:]:
        if compare(existing, new, criteria) < 0:
            marked.append(existing[0])
            existing = new
        else:
            marked.append(new[0])
    return marked


def decoded_length(url: str) -> int:
    """The URL's length after Java's ``URLDecoder.decode(url, UTF-8)``.

    Counted in UTF-16 code units, as Java's ``String.length``. A URL the
    decoder rejects (a ``%`` without two hex digits) counts undecoded, as
    Nutch falls back to the encoded URL.
    """
    decoded = java_url_decode(url)
    text = url if decoded is None else decoded
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def java_url_decode(text: str) -> str | None:
    """Java's ``URLDecoder.decode(text, UTF-8)``; None where it throws.

    ``+`` becomes a space; each run of ``%XX`` escapes is decoded as UTF-8,
    malformed bytes becoming U+FFFD.
    """
    if "%" not in text and "+" not in text:
        return text
    out: list[str] = []
    index, size = 0, len(text)
    while index < size:
        char = text[index]
        if char == "+":
            out.append(" ")
            index += 1
        elif char != "%":
            out.append(char)
            index += 1
        else:
            raw = bytearray()
            while index + 2 < size and text[index] == "%":
                value = _java_hex(text[index + 1 : index + 3])
                if value is None:
                    return None
                raw.append(value)
                index += 3
            if index < size and text[index] == "%":
                return None  # "Incomplete trailing escape (%) pattern"
            out.append(raw.decode("utf-8", "replace"))
    return "".join(out)


def _java_hex(pair: str) -> int | None:
    """``Integer.parseInt(pair, 16)`` for URLDecoder: None where it fails or is < 0."""
    digits = pair[1:] if pair[:1] in ("+", "-") else pair
    if not digits or any(c not in "0123456789abcdefABCDEF" for c in digits):
        return None
    value = int(digits, 16)
    if pair[0] == "-":
        value = -value
    return value if value >= 0 else None
