"""``beamcrawl report CRAWL_DIR [--html FILE]``: the crawl in figures and plots.

Reads what a crawl directory holds, in this process and without a pipeline:
the round records ``crawl`` writes (:mod:`pipelines.storage.rounds`), the
crawldb's current version and every segment's generate, fetch and parse
records (:mod:`pipelines.storage.pagestream`). The figures are counted by
:mod:`crawllib.report` as the records stream by, in bounded memory, and
written as one self-contained HTML page, by default ``CRAWL_DIR/report.html``.
A directory made by the separate commands (no round records) gets the
charts its crawldb and segments allow, and the page says what is missing.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from crawllib.errors import CrawlError
from crawllib.report.figures import FETCH, GENERATE, PARSE, CrawlFigures
from crawllib.terminal import printable
from pipelines.runtime.arguments import ArgumentParser, job_parser

if TYPE_CHECKING:
    from pipelines.runtime.options import Job, JobArgs

DEFAULT_NAME = "report.html"
"""The report's file name in the crawl directory when ``--html`` is not given."""


@dataclass(frozen=True)
class ReportRequest:
    """``beamcrawl report``: which crawl directory, and where the page goes."""

    crawl_dir: str
    html: str | None = None
    """The output file; None: ``CRAWL_DIR/report.html``."""


def parser() -> ArgumentParser:
    """The command line of ``beamcrawl report``."""
    parser = job_parser(
        "beamcrawl report",
        "Write an HTML report of a crawl directory: figures and plots.",
    )
    parser.add_argument("crawl_dir", metavar="CRAWL_DIR")
    parser.add_argument(
        "--html",
        metavar="FILE",
        help=f"where to write the report (default: CRAWL_DIR/{DEFAULT_NAME})",
    )
    return parser


def request(cli: JobArgs) -> ReportRequest:
    """The request a parsed ``beamcrawl report`` command line makes."""
    return ReportRequest(cli.args.crawl_dir, cli.args.html)


def run(argv: Sequence[str] | None = None) -> int:
    """Run ``report``: write the page, print where it is and the headline.

    Beam's flags (``--s3_endpoint_url`` ...) configure the filesystems, as
    for every command; no pipeline runs.
    """
    from pipelines.runtime.options import parse_job_args

    cli = parse_job_args(parser(), sys.argv[1:] if argv is None else argv)
    return execute(request(cli), cli)


def execute(request: ReportRequest, job: Job) -> int:
    """Read the crawl directory, write the report; the exit code (0)."""
    from apache_beam.io.filesystems import FileSystems

    from crawllib.report.page import headline, render_page
    from pipelines.storage import fs, paths

    job.pipeline_options()  # the filesystems' settings (endpoints, keys)
    crawl_dir = request.crawl_dir
    if not fs.dir_exists(crawl_dir):
        raise CrawlError(f"no crawl directory at {crawl_dir}")
    out = request.html or FileSystems.join(crawl_dir, DEFAULT_NAME)
    parent = os.path.dirname(os.path.abspath(out))
    if paths.is_local(out) and not os.path.isdir(parent):
        raise CrawlError(f"cannot write {out}: no directory {parent}")
    started = time.monotonic()
    figures = gather(crawl_dir)
    page = render_page(figures, crawl_dir, int(time.time() * 1000))
    _write(out, page.encode("utf-8"))
    seconds = time.monotonic() - started
    lines = [
        f"report: {printable(out)} ({len(page) // 1024} KiB, {seconds:.1f} s)",
        ", ".join(f"{name}: {value}" for name, value in headline(figures)),
        *(f"not shown: {printable(note)}" for note in figures.notes),
    ]
    sys.stdout.write("\n".join(lines) + "\n")  # one write: `| head -1` takes it whole
    sys.stdout.flush()
    return 0


def _write(path: str, data: bytes) -> None:
    """Write the page whole: locally by a rename, elsewhere by one object."""
    from apache_beam.io.filesystems import FileSystems

    from pipelines.storage import paths

    if not paths.is_local(path):
        with FileSystems.create(path) as f:
            f.write(data)
        return
    partial = f"{path}.partial"
    with open(partial, "wb") as f:
        f.write(data)
    os.replace(partial, path)


def gather(crawl_dir: str) -> CrawlFigures:
    """The figures of the crawl in ``crawl_dir``; what is missing is in ``notes``."""
    from apache_beam.io.filesystems import FileSystems

    from pipelines.storage import pagestream, rounds, segments, versions

    figures = CrawlFigures(rounds=list(rounds.read_rounds(crawl_dir)))
    skipped: list[str] = []
    crawldb = FileSystems.join(crawl_dir, "crawldb")
    current = versions.current_version(crawldb)
    if current is None:
        figures.notes.append(f"No crawldb at {crawldb}: no status, depth or score.")
    else:
        figures.has_crawldb = True
        for page in pagestream.pages(current, skipped):
            figures.add_crawldb_page(page)
    segments_dir = FileSystems.join(crawl_dir, "segments")
    listed = segments.list_segments(segments_dir)
    for segment in listed:
        name = segment.rstrip("/").rsplit("/", 1)[-1]
        figures.segment(name)
        for part in (GENERATE, FETCH, PARSE):
            for page in pagestream.pages(FileSystems.join(segment, part), skipped):
                figures.add_segment_page(name, part, page)
    figures.notes += _notes(figures, segments_dir, skipped)
    return figures


def _notes(figures: CrawlFigures, segments_dir: str, skipped: list[str]) -> list[str]:
    notes = []
    if not figures.rounds:
        notes.append(
            "No round records (made by crawl, in CRAWL_DIR/rounds): the crawldb "
            "by status over the rounds and its growth cannot be shown; the "
            "fetch charts come from the segments."
        )
    if not figures.segments:
        notes.append(f"No segments in {segments_dir}: no fetch or parse figures.")
    for segment in figures.segments.values():
        if GENERATE in segment.parts and FETCH not in segment.parts:
            notes.append(f"Segment {segment.name} was generated but not fetched.")
    if figures.hosts.dropped:
        notes.append(
            f"The crawl has more hosts than the report holds ({len(figures.hosts)}): "
            "the host count is an estimate and the host charts' counts may be low."
        )
    notes += [f"Damaged file left out: {problem}" for problem in skipped]
    return notes


if __name__ == "__main__":  # as `beamcrawl report`: a user error is one line
    from pipelines.cli import main

    sys.exit(main(["report", *sys.argv[1:]]))
