"""Progress arithmetic: rates, ETAs and the fetch progress line, in plain Python.

The fetcher (:mod:`crawllib.fetch.fetch`) takes a :class:`FetchSnapshot` of its
counts now and then; the job's display (``pipelines.runtime.progress``) adds up the
snapshots of its fetchers, and the log line and the live display both print
them with :func:`fetch_line`. No clock is read here: elapsed times come in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class FetchSnapshot:
    """A fetcher's counts at one moment (Nutch's fetcher status line)."""

    pages: int
    """Pages written, redirect hops included."""
    bytes: int
    done: int
    """Fetch-list items finished: written, or dropped unwritten."""
    total: int | None
    """The fetch list's size, when known."""
    queues: int
    queued: int
    active: int
    elapsed_s: float
    eta_s: float | None = None
    """Seconds left by the queues' politeness (:mod:`crawllib.fetch.eta`);
    None: estimate from the rate so far."""


def rate(count: int, elapsed_s: float) -> float:
    """``count`` per second over ``elapsed_s`` (0 before any time passed)."""
    return count / elapsed_s if elapsed_s > 0 else 0.0


def eta_s(done: int, total: int | None, elapsed_s: float) -> float | None:
    """Seconds left at the rate so far; None while unknown (no total, no rate).

    Items beyond ``total`` (redirect hops counted as items) leave 0 seconds.
    """
    if total is None:
        return None
    remaining = max(total - done, 0)
    if remaining == 0:
        return 0.0
    per_s = rate(done, elapsed_s)
    return remaining / per_s if per_s > 0 else None


def duration(seconds: float | None) -> str:
    """``H:MM:SS`` (``M:SS`` under an hour); ``?`` for an unknown duration."""
    if seconds is None:
        return "?"
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def combine(snapshots: Iterable[FetchSnapshot]) -> FetchSnapshot:
    """The sum of several fetchers' snapshots, over the longest one's time.

    The total is known only when every fetcher's is.
    """
    items = list(snapshots)
    totals = [s.total for s in items]
    etas = [s.eta_s for s in items]
    return FetchSnapshot(
        pages=sum(s.pages for s in items),
        bytes=sum(s.bytes for s in items),
        done=sum(s.done for s in items),
        total=None if None in totals else sum(t or 0 for t in totals),
        queues=sum(s.queues for s in items),
        queued=sum(s.queued for s in items),
        active=sum(s.active for s in items),
        elapsed_s=max((s.elapsed_s for s in items), default=0.0),
        eta_s=None if None in etas or not etas else max(e or 0.0 for e in etas),
    )


def with_total(snapshot: FetchSnapshot, total: int | None) -> FetchSnapshot:
    """The snapshot of a job whose fetch lists hold ``total`` items in all.

    Items of fetch lists no fetcher has started add their share at the rate
    so far to the fetchers' polite ETA (fetchers run side by side, and one
    that starts later adds to the time).
    """
    if total is None or snapshot.total is None or snapshot.eta_s is None:
        return replace(snapshot, total=total)
    unstarted = total - snapshot.total
    if unstarted <= 0:
        return replace(snapshot, total=total)
    per_s = rate(snapshot.done, snapshot.elapsed_s)
    extra = unstarted / per_s if per_s > 0 else None
    eta = None if extra is None else snapshot.eta_s + extra
    return replace(snapshot, total=total, eta_s=eta)


def fetch_line(snapshot: FetchSnapshot) -> str:
    """The fetcher's log line: pages, bytes, pages/s, queues and the ETA."""
    s = snapshot
    listed = "" if s.total is None else f" ({s.done} of {s.total} listed)"
    eta = "" if s.total is None else f"; ETA {duration(fetch_eta_s(s))}"
    return (
        f"fetched {s.pages} pages{listed}, {s.bytes} bytes, "
        f"{rate(s.pages, s.elapsed_s):.1f} pages/s; {s.queues} queues, "
        f"{s.queued} queued, {s.active} active{eta}"
    )


def fetch_words(snapshot: FetchSnapshot) -> str:
    """The fetcher's counts in short, for a live display's line."""
    s = snapshot
    eta = "" if s.total is None else f", ETA {duration(fetch_eta_s(s))}"
    return (
        f"{s.pages} pages, {s.bytes} bytes, {rate(s.pages, s.elapsed_s):.1f} "
        f"pages/s, {s.queues} queues, {s.active} active{eta}"
    )


def fetch_eta_s(snapshot: FetchSnapshot) -> float | None:
    """Seconds until the fetch list is done: the polite ETA, else at the rate so far."""
    if snapshot.eta_s is not None:
        return snapshot.eta_s
    return eta_s(snapshot.done, snapshot.total, snapshot.elapsed_s)


def records_line(label: str, count: int, elapsed_s: float) -> str:
    """The periodic line of a job that counts records: ``generate: N records``."""
    return f"{label}: {count} records, {rate(count, elapsed_s):.0f} records/s"
