"""OPIC scoring with cash (Nutch 2.x scoring-opic ``OPICScoringFilter``).

A page holds a score and some "cash". Inject gives a seed cash equal to its
score; updatedb spends a fetched page's cash over its outlinks (the page's
cash drops to 0) and adds the shares a page receives to both its score and
its cash. So cash moves through the link graph and the scores record how
much of it passed by.

The cash lives in the page's metadata under ``_csh_``, 4 bytes, the
big-endian IEEE-754 single-precision float of 2.x ``Bytes.toBytes(float)``,
and the arithmetic is Java's ``float`` arithmetic, so a crawldb's scores
and cash are what Nutch would write (``score`` is an Avro ``float`` too).
"""

from __future__ import annotations

import functools
import math
import struct
from collections.abc import Iterable, Sequence

from crawllib.config import ScoringConfig
from crawllib.javanum import f32
from crawllib.urls.javaurl import java_host
from crawllib.webpage import WebPage

CASH_KEY = "_csh_"
"""metadata: OPIC cash, 4-byte big-endian float (2.x ``OPICScoringFilter.CASH_KEY``)."""

_FLOAT = struct.Struct(">f")


def generator_sort_value(page: WebPage, init_sort: float = 1.0) -> float:
    """1.x ``OPICScoringFilter.generatorSortValue``: the score times ``init_sort``.

    A NaN score counts as 0 (beamcrawl's choice: Java's float order puts NaN
    ahead of every real score, and a broken score should not win the topN).
    """
    score = page["score"] * init_sort
    return 0.0 if math.isnan(score) else score


def cash_of(page: WebPage) -> float:
    """The page's cash; 0.0 if it has none or the stored value is not 4 bytes.

    A stored NaN also counts as 0.0 (beamcrawl's choice), so that one broken
    value cannot spread through the link graph.
    """
    raw = page["metadata"].get(CASH_KEY)
    if raw is None or len(raw) != _FLOAT.size:
        return 0.0
    cash: float = _FLOAT.unpack(raw)[0]
    return 0.0 if math.isnan(cash) else cash


def with_cash(page: WebPage, value: float) -> WebPage:
    """The page with its cash set to ``value`` (rounded to a Java ``float``)."""
    return {
        **page,
        "metadata": {**page["metadata"], CASH_KEY: _FLOAT.pack(f32(value))},
    }


def injected_score(page: WebPage) -> WebPage:
    """A seed's cash is its score (2.x ``injectedScore``)."""
    return with_cash(page, page["score"])


def initial_score(page: WebPage) -> WebPage:
    """A URL found by a link starts with score 0 and cash 0 (``initialScore``)."""
    return with_cash({**page, "score": 0.0}, 0.0)


def distribute_to_outlinks(
    page: WebPage, targets: Sequence[str], all_count: int, config: ScoringConfig
) -> tuple[WebPage, list[tuple[str, float]]]:
    """Spend the page's cash on its outlinks (``distributeScoreToOutlinks``).

    ``targets`` are the outlinks that receive a share (those kept after
    filtering); ``all_count`` is how many outlinks the page had before
    filtering. The cash is split in units of ``cash / len(targets)``, or
    ``cash / all_count`` with ``db.score.count.filtered`` (then the units of
    the filtered links are lost; an ``all_count`` below ``len(targets)``
    counts as ``len(targets)``, so no more than the cash is handed out). 2.x
    divides by the number of ``outlinks`` entries of the row, which are the
    kept links, and ignores ``db.score.count.filtered`` (a TODO there): that
    is this function with the property false, its default. Each target gets
    a unit times ``db.score.link.internal`` if its host equals the page's
    (case-insensitive), else times ``db.score.link.external``.

    Returns:
        The page with cash 0 and the (target, share) pairs in ``targets``
        order. A page without cash is returned unchanged with no shares. A
        page with cash but no targets gets none and loses its cash, as in
        2.x, where the cash is reset whether or not there are outlinks.
    """
    cash = cash_of(page)
    if cash == 0:
        return page, []
    count = max(all_count, len(targets)) if config.count_filtered else len(targets)
    if count == 0:
        return with_cash(page, 0.0), []
    unit = f32(cash / count)
    internal = f32(unit * f32(config.internal))
    external = f32(unit * f32(config.external))
    source_host = _lower_host(page["url"])
    shares = [
        (
            target,
            internal
            if source_host is not None and _lower_host(target) == source_host
            else external,
        )
        for target in targets
    ]
    return with_cash(page, 0.0), shares


def update_score(page: WebPage, inlink_scores: Iterable[float]) -> WebPage:
    """Add the inlinks' shares to the score and to the cash (2.x ``updateScore``).

    The shares are summed as Java ``float`` values, as Nutch does, but in
    ascending order (beamcrawl's choice): a float sum depends on its order,
    and Nutch's is the order its reducer happens to receive the links in,
    which changes from run to run and from runner to runner.
    """
    adjust = 0.0
    for score in sorted(inlink_scores):
        adjust = f32(adjust + f32(score))
    new_score = f32(f32(page["score"]) + adjust)
    return with_cash({**page, "score": new_score}, cash_of(page) + adjust)


@functools.lru_cache(maxsize=1 << 16)
def _lower_host(url: str) -> str | None:
    """The host as ``java.net.URL.getHost`` gives it, lowercased; None if malformed.

    A malformed URL never counts as the same host (2.x: external).
    """
    host = java_host(url)
    return None if host is None else host.lower()
