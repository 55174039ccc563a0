"""``UrlStates``: how many crawldb records are waiting, running, in error, complete.

The seed spider's four URL states (:mod:`crawllib.db.urlstates`) counted in one
``CombineGlobally`` over a PCollection of crawldb records, for a user's own
pipeline; ``readdb --stats`` prints the same figures from its one pass.
"""

from __future__ import annotations

from collections.abc import Iterable

import apache_beam as beam
from apache_beam.pvalue import PCollection

from crawllib.config import CrawlConfig, GenerateConfig, StatsConfig, step_config
from crawllib.db.urlstates import UrlStateCounts
from crawllib.webpage import WebPage
from pipelines.runtime import options


class UrlStates(beam.PTransform[PCollection[WebPage], PCollection[dict[str, int]]]):
    """Crawldb pages -> one dict of counts by URL state (zeros for no pages).

    The dict: ``{"waiting": .., "running": .., "error": .., "complete": ..,
    "waiting_due": ..}``; the four states add up to the number of pages.
    ``config`` gives ``crawl.gen.delay`` (how long a generated URL is
    running) and ``generate.curTime``: a StatsConfig, a GenerateConfig or a
    CrawlConfig; None = Nutch's defaults. ``now_ms`` is the clock; default
    ``generate.curTime`` if set, else the time the transform is built.
    """

    def __init__(
        self,
        config: StatsConfig | GenerateConfig | CrawlConfig | None = None,
        now_ms: int | None = None,
    ) -> None:
        super().__init__()
        if config is None:
            config = StatsConfig()
        elif not isinstance(config, GenerateConfig):
            config = step_config(config, StatsConfig)
        self._gen_delay_ms = config.gen_delay_ms
        self._now_ms = options.clock_ms(config.fixed_time_ms, now_ms)

    def expand(self, pages: PCollection[WebPage]) -> PCollection[dict[str, int]]:
        return pages | "CountStates" >> beam.CombineGlobally(
            _UrlStatesFn(self._now_ms, self._gen_delay_ms)
        )


class _UrlStatesFn(beam.CombineFn):
    def __init__(self, now_ms: int, gen_delay_ms: int) -> None:
        self._now_ms = now_ms
        self._gen_delay_ms = gen_delay_ms

    def create_accumulator(self) -> UrlStateCounts:
        return UrlStateCounts()

    def add_input(self, counts: UrlStateCounts, page: WebPage) -> UrlStateCounts:
        counts.add(page, self._now_ms, self._gen_delay_ms)
        return counts

    def merge_accumulators(
        self, accumulators: Iterable[UrlStateCounts]
    ) -> UrlStateCounts:
        merged = UrlStateCounts()
        for counts in accumulators:
            merged.merge(counts)
        return merged

    def extract_output(self, counts: UrlStateCounts) -> dict[str, int]:
        return counts.as_dict()
