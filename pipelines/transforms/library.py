"""Crawldbs, segments and whole rounds for users' own pipelines.

:class:`ReadCrawlDb` and :class:`ReadSegment` read what the command line
writes; :func:`new_crawldb_version` gives a user's pipeline a locked
crawldb's next version to write, published only if the block succeeds;
:class:`CrawlRound` is one generate -> fetch -> parse -> updatedb round as
one composite transform.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import Any, NamedTuple

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.pvalue import PBegin, PCollection

from crawllib.config import CrawlConfig
from crawllib.errors import CrawlError
from crawllib.index import search as searchindex
from crawllib.webpage import WebPage
from pipelines.fetch import Fetch
from pipelines.generate import Generate, segment_tag
from pipelines.index import read_actions
from pipelines.parse import ParseForUpdate
from pipelines.runtime.hints import NoExpandHints
from pipelines.runtime.options import clock_ms
from pipelines.storage import io, partfiles, versions
from pipelines.storage.segments import PARTS
from pipelines.transforms.processors import Processor, ProcessPages
from pipelines.updatedb import UpdateDb


class ReadCrawlDb(beam.PTransform[PBegin, PCollection[WebPage]]):
    """The pages of a crawldb's (or linkdb's) current version.

    The version is the one current when the transform is made.

    Raises:
        CrawlDbMissingError: ``crawldb`` has no published version.
    """

    def __init__(self, crawldb: str) -> None:
        super().__init__()
        self._pattern = versions.require(crawldb)

    def expand(self, begin: PBegin) -> PCollection[WebPage]:
        return begin | "ReadVersion" >> io.ReadWebPages(self._pattern)


class ReadSegment(beam.PTransform[PBegin, PCollection[WebPage]]):
    """The records of one part of a segment: ``generate``, ``fetch`` or ``parse``.

    Raises:
        ValueError: ``part`` is none of the three.
        CrawlError: the segment has no such part.
    """

    def __init__(self, segment: str, part: str = "parse") -> None:
        super().__init__()
        if part not in PARTS:
            raise ValueError(f"part {part!r}: expected one of {', '.join(PARTS)}")
        directory = FileSystems.join(segment, part)
        if not partfiles.has_parts(directory):
            raise CrawlError(f"segment {segment} has no {part}/ part")
        self._pattern = partfiles.parts_pattern(directory)

    def expand(self, begin: PBegin) -> PCollection[WebPage]:
        return begin | "ReadPart" >> io.ReadWebPages(self._pattern)


@contextlib.contextmanager
def new_crawldb_version(
    crawldb: str, keep_backup: bool = True, force: bool = False
) -> Iterator[str]:
    """Lock ``crawldb`` and give a directory for its new version's part files.

    Run the pipeline that writes it (``WriteWebPages(directory)``) inside
    the block. When the block exits without an exception the directory is
    published as the current version (the one it replaces kept as the
    backup when ``keep_backup``, as ``db.preserve.backup``); otherwise it
    is removed and the crawldb stays as it was. The crawldb need not exist
    yet.

    Raises:
        CrawlDbLockedError: another job holds the lock (unless ``force``).
        CrawlError: the block wrote no part files.
    """
    with (
        versions.locked(crawldb, force=force),
        versions.new_version(crawldb, keep_backup) as new_dir,
    ):
        yield new_dir


def apply_index_actions(actions_dir: str, index_dir: str) -> tuple[int, int]:
    """Apply the actions ``WriteIndexFiles(actions_dir, "tantivy")`` wrote.

    The embedded tantivy index at ``index_dir`` (created if missing) gets
    them in one commit, as ``beamcrawl index`` applies them after its
    pipeline: each URL's old document is deleted, its new one (if any)
    added. Run it after the pipeline that wrote ``actions_dir`` finished.
    Returns the numbers of documents added and of deletes applied.

    Raises:
        SearchIndexError: ``index_dir`` holds something else than an index.
    """
    return searchindex.apply_actions(index_dir, read_actions(actions_dir))


def search_index(index_dir: str, text: str, limit: int = 10) -> list[searchindex.Hit]:
    """The ``limit`` best hits for ``text`` in the index, best first.

    As ``beamcrawl search`` ranks them (title x3, anchors x2, URL x1.5,
    content x1, the page's boost); each hit has ``rank``, ``url``,
    ``title``, ``score`` and a snippet.
    """
    return searchindex.search(index_dir, text, limit)


class RoundResult(NamedTuple):
    """What a :class:`CrawlRound` gives."""

    crawldb: PCollection[WebPage]
    """The updated crawldb's pages."""
    fetched: PCollection[WebPage]
    """The segment's fetch records (with content): what ``fetch/`` holds."""
    parsed: PCollection[WebPage]
    """The segment's parse records: what ``parse/`` holds."""
    processed: PCollection[Any] | None
    """The processor's outputs, or None without a processor."""


class CrawlRound(NoExpandHints, beam.PTransform[PCollection[WebPage], RoundResult]):
    """Crawldb pages to the next crawldb: generate, fetch, parse, updatedb.

    One segment is generated (``generate.*``; ``top_n`` overrides
    ``generate.topN``), fetched, parsed and updated into the crawldb, all
    in this pipeline; ``now_ms`` is the round's clock (default: when the
    transform is made, or ``generate.curTime``). ``processor`` (see
    :class:`~pipelines.transforms.processors.ProcessPages`) gets every page fetched in
    the round, parsed or failed. Counters: those of the four steps.
    """

    def __init__(
        self,
        config: CrawlConfig,
        now_ms: int | None = None,
        top_n: int | None = None,
        processor: Processor | None = None,
    ) -> None:
        super().__init__()
        generate = config.generate
        generate = dataclasses.replace(
            generate,
            max_num_segments=1,
            top_n=generate.top_n if top_n is None else top_n,
        ).check()
        now_ms = clock_ms(generate.fixed_time_ms, now_ms)
        self._generate = Generate(generate, now_ms)
        self._fetch = Fetch(config.fetch)
        self._parse = ParseForUpdate(config.parse)
        self._update = UpdateDb(config.update, now_ms)
        self._process = None if processor is None else ProcessPages(processor)

    def expand(self, pages: PCollection[WebPage]) -> RoundResult:
        fetch_list = (pages | "Generate" >> self._generate)[segment_tag(1)]
        fetched = fetch_list | "Fetch" >> self._fetch
        parsed, for_update = fetched | "Parse" >> self._parse
        crawldb = (pages, for_update) | "UpdateDb" >> self._update
        processed = None
        if self._process is not None:
            processed = for_update | "ProcessPages" >> self._process
        return RoundResult(crawldb, fetched, parsed, processed)
