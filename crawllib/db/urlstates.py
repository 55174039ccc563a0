"""The four URL states of the seed article's spider, as a view of the crawldb.

The spider moves each URL through waiting, running, error and complete;
Nutch has no such states, only its crawldb statuses. :func:`url_state` reads
them off a crawldb record, so that every record is in exactly one state.
The rules, in order (the first that holds wins):

1. RUNNING: generated and not yet updated: the record carries a generate
   time (``_ngt_``, written only with ``generate.update.crawldb``) and
   ``_ngt_ + crawl.gen.delay > now``, the test by which generate passes it
   over (``WAIT_FOR_UPDATE``). Updatedb clears ``_ngt_``.
2. COMPLETE: fetched (``db_fetched``), not modified, redirected (temporarily
   or permanently) or a duplicate. beamcrawl has no ``db_orphan`` status.
3. ERROR: gone (``db_gone``), a ``status_retry`` record, or any other
   record with ``retriesSinceFetch > 0``: an unfetched page whose fetch failed
   transiently and will be tried again.
4. WAITING: the rest, in practice ``db_unfetched`` without retries. Of these,
   :class:`UrlStateCounts` also counts those due now (``fetchTime <= now``)
   as ``waiting_due``.

Complete is tested before error: a record whose last fetch settled it keeps
that state even if it carries a retry count (updatedb resets it anyway).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from crawllib.db.generate import generate_time
from crawllib.status import CrawlStatus
from crawllib.webpage import WebPage

_COMPLETE = frozenset(
    {
        CrawlStatus.FETCHED,
        CrawlStatus.NOTMODIFIED,
        CrawlStatus.REDIR_TEMP,
        CrawlStatus.REDIR_PERM,
        CrawlStatus.DUPLICATE,
    }
)
_ERROR = frozenset({CrawlStatus.GONE, CrawlStatus.RETRY})


class UrlState(str, enum.Enum):
    """A URL's state in the seed's spider: waiting, running, error, complete."""

    WAITING = "waiting"
    RUNNING = "running"
    ERROR = "error"
    COMPLETE = "complete"


def url_state(page: WebPage, now_ms: int, gen_delay_ms: int) -> UrlState:
    """The state of a crawldb record at ``now_ms`` (rules in the module doc).

    Args:
        page: a crawldb record.
        now_ms: the clock, epoch milliseconds.
        gen_delay_ms: ``crawl.gen.delay``, how long a generated URL waits for
            its update before generate may select it again.
    """
    generated_ms = generate_time(page)
    if generated_ms is not None and generated_ms + gen_delay_ms > now_ms:
        return UrlState.RUNNING
    status = page["status"]
    if status in _COMPLETE:
        return UrlState.COMPLETE
    if status in _ERROR or page["retriesSinceFetch"] > 0:
        return UrlState.ERROR
    return UrlState.WAITING


def is_due(page: WebPage, now_ms: int) -> bool:
    """Whether the record's fetch time has come (``fetchTime <= now``)."""
    return page["fetchTime"] <= now_ms


@dataclass(slots=True)
class UrlStateCounts:
    """How many records are in each state (a mergeable accumulator)."""

    waiting: int = 0
    running: int = 0
    error: int = 0
    complete: int = 0
    waiting_due: int = 0

    def add(self, page: WebPage, now_ms: int, gen_delay_ms: int) -> None:
        """Count one crawldb record."""
        state = url_state(page, now_ms, gen_delay_ms)
        if state is UrlState.WAITING:
            self.waiting += 1
            if is_due(page, now_ms):
                self.waiting_due += 1
        elif state is UrlState.RUNNING:
            self.running += 1
        elif state is UrlState.ERROR:
            self.error += 1
        else:
            self.complete += 1

    def merge(self, other: UrlStateCounts) -> None:
        """Fold another tally into this one."""
        self.waiting += other.waiting
        self.running += other.running
        self.error += other.error
        self.complete += other.complete
        self.waiting_due += other.waiting_due

    def as_dict(self) -> dict[str, int]:
        """The four states by name, then ``waiting_due``."""
        return {
            UrlState.WAITING.value: self.waiting,
            UrlState.RUNNING.value: self.running,
            UrlState.ERROR.value: self.error,
            UrlState.COMPLETE.value: self.complete,
            "waiting_due": self.waiting_due,
        }
