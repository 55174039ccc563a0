"""beamcrawl as a library: the one place to import it from.

``import beamcrawl as bc`` gives every crawl step as a Beam composite
transform, one configuration object for all of them, a polite one-shot fetch
for URLs a pipeline produced, hooks for the user's link policy and page
processing, and the readers and writers of crawldbs and segments. Every
transform that takes a config accepts either its own step config (as the
command line builds it) or a :class:`CrawlConfig`; clocks (``now_ms``) are
optional and default to the time the transform is made.

Configuration
    :class:`CrawlConfig` (``from_dict``, ``load``, ``from_properties``,
    ``with_overrides``, ``with_link_policy``; ``.fetch``, ``.parse`` ...
    build the step configs), :func:`step_config`.

Whole jobs, in one pipeline
    :class:`FetchUrls` (URLs or ``(URL, metadata)`` -> fetched and parsed
    WebPages, polite per host, no crawldb), :class:`CrawlRound` (crawldb
    pages -> :class:`RoundResult`: generate, fetch, parse, updatedb).

Page processors and link policies
    :class:`ProcessPages` (a :class:`PageProcessor`, a function or a
    PTransform over WebPages), :func:`page_error`; :class:`LinkPolicy`,
    :class:`NutchLinkPolicy` (the default), :class:`Link`,
    :class:`LinkKind`, :func:`as_link_policy`, :func:`load_link_policy`.

Crawl steps (Nutch's jobs)
    :class:`ReadSeeds` (:class:`ReadSeedLines`: each line a :class:`SeedLine`
    with its file and number), :class:`Inject`, :class:`MergeIntoCrawlDb`,
    :class:`Generate`, :class:`Fetch`, :class:`Parse`,
    :class:`ParseForUpdate`, :class:`UpdateDb`, :class:`Dedup`,
    :class:`InvertLinks`, :class:`IndexPages`, :class:`WriteIndexFiles`,
    :class:`ReadSitemaps`, :class:`Sitemap`, :class:`WarcRecords`,
    :class:`WriteWarc`; the embedded search index after
    :class:`WriteIndexFiles`: :func:`apply_index_actions`,
    :func:`search_index`; statistics: :class:`CrawlDbStats`,
    :class:`UrlStates` (:class:`UrlState`, :func:`url_state`).

Data on disk
    :class:`ReadCrawlDb`, :func:`new_crawldb_version`, :class:`ReadSegment`,
    :class:`ReadWebPages`, :class:`WriteWebPages`; records are
    :class:`WebPage` dicts with Nutch's codes (:class:`CrawlStatus`,
    :class:`ProtocolStatus`, :class:`ParseMajor`).

Errors
    :class:`CrawlError` (and :class:`ConfigError`): a user error, raised
    when a transform or config is built, before the pipeline runs.

Speed-ups (opt-in)
    :func:`install_speedups`: what the ``beamcrawl`` command does to Beam
    before it builds a pipeline. Importing ``beamcrawl`` leaves Beam, boto3
    and fastavro as they are; only this call changes them.

Importing it before Beam imports Beam without the notices Beam's import
sets off (with the ``gcp`` extra, Google's client libraries'
``FutureWarning`` s; without it, Beam 2.77's ``apitools not found``), as
the ``beamcrawl`` command does; the process's warnings filters and logging
are afterwards as they were.
"""

from beamcrawl import _quiet

# Google's clients and Beam speak up when Beam is first imported: not here
with _quiet.imports_quieted():
    from crawllib.config import CrawlConfig, step_config
    from crawllib.db.seedlines import SeedLine
    from crawllib.db.urlstates import UrlState, url_state
    from crawllib.errors import ConfigError, CrawlError
    from crawllib.fetch.outcome import PageProcessor, page_error
    from crawllib.status import CrawlStatus, ParseMajor, ProtocolStatus
    from crawllib.urls.linkpolicy import (
        Link,
        LinkKind,
        LinkPolicy,
        NutchLinkPolicy,
        as_link_policy,
        load_link_policy,
    )
    from crawllib.webpage import WebPage
    from pipelines.dedup import Dedup
    from pipelines.fetch import Fetch
    from pipelines.generate import Generate
    from pipelines.index import IndexPages, WriteIndexFiles
    from pipelines.inject import Inject, MergeIntoCrawlDb
    from pipelines.invertlinks import InvertLinks
    from pipelines.parse import Parse, ParseForUpdate
    from pipelines.readdb import CrawlDbStats
    from pipelines.sitemap import ReadSitemaps, Sitemap
    from pipelines.storage.io import ReadWebPages, WriteWebPages
    from pipelines.transforms.library import (
        CrawlRound,
        ReadCrawlDb,
        ReadSegment,
        RoundResult,
        apply_index_actions,
        new_crawldb_version,
        search_index,
    )
    from pipelines.transforms.oneshot import FetchUrls
    from pipelines.transforms.processors import ProcessPages
    from pipelines.transforms.seedfiles import ReadSeedLines, ReadSeeds
    from pipelines.transforms.urlstates import UrlStates
    from pipelines.updatedb import UpdateDb
    from pipelines.warc import WarcRecords, WriteWarc

__all__ = [
    "ConfigError",
    "CrawlConfig",
    "CrawlDbStats",
    "CrawlError",
    "CrawlRound",
    "CrawlStatus",
    "Dedup",
    "Fetch",
    "FetchUrls",
    "Generate",
    "IndexPages",
    "Inject",
    "InvertLinks",
    "Link",
    "LinkKind",
    "LinkPolicy",
    "MergeIntoCrawlDb",
    "NutchLinkPolicy",
    "PageProcessor",
    "Parse",
    "ParseForUpdate",
    "ParseMajor",
    "ProcessPages",
    "ProtocolStatus",
    "ReadCrawlDb",
    "ReadSeedLines",
    "ReadSeeds",
    "ReadSegment",
    "ReadSitemaps",
    "ReadWebPages",
    "RoundResult",
    "SeedLine",
    "Sitemap",
    "UpdateDb",
    "UrlState",
    "UrlStates",
    "WarcRecords",
    "WebPage",
    "WriteIndexFiles",
    "WriteWarc",
    "WriteWebPages",
    "apply_index_actions",
    "as_link_policy",
    "install_speedups",
    "load_link_policy",
    "new_crawldb_version",
    "page_error",
    "search_index",
    "step_config",
    "url_state",
]


def install_speedups() -> None:
    """Make Beam build and run pipelines faster in this process, as ``beamcrawl`` does.

    An explicit opt-in, for the whole process (every pipeline in it, not
    only beamcrawl's); calling it again changes nothing. It replaces
    ``apache_beam.transforms.userstate.get_dofn_specs`` and
    ``apache_beam.transforms.core.get_function_args_defaults`` by versions
    that remember Beam's answer per DoFn and per function (Beam asks each
    many times while it builds, translates and runs a pipeline: about half a
    second per pipeline), and, with apache-beam[aws], makes Beam's S3
    filesystem share one boto3 client per set of S3 options instead of
    making one per file operation (about 0.2 s of CPU each). Results do not
    change. Reading crawldbs and segments inflates by ISA-L without it.
    """
    from pipelines.runtime import beamspeed

    beamspeed.install()
