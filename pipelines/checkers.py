"""``beamcrawl normalizerchecker`` / ``filterchecker``: URLs in, verdicts out.

Like Nutch's URLNormalizerChecker / URLFilterChecker, for checking rule
files: ``normalizerchecker [--scope S]`` prints each URL normalized (an empty
line when a normalizer drops it); ``filterchecker`` prints ``+url`` for
accepted and ``-url`` for rejected URLs. No pipeline runs.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from crawllib.config import UrlConfig
from crawllib.urls.filter import UrlFilters
from crawllib.urls.normalize import UrlNormalizers
from pipelines.runtime.options import job_parser, parse_job_args


def run(
    command: str,
    argv: Sequence[str],
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Check every line of stdin with the normalizers or the filters."""
    source = sys.stdin if stdin is None else stdin
    sink = sys.stdout if stdout is None else stdout
    parser = job_parser(f"beamcrawl {command}", "Check URLs read from stdin.")
    if command == "normalizerchecker":
        parser.add_argument("--scope", default="default", help="normalizer scope")
    job = parse_job_args(parser, argv)
    config = UrlConfig.from_properties(job.properties)
    if command == "normalizerchecker":
        normalizers = UrlNormalizers(config, job.args.scope)
        for line in source:
            sink.write((normalizers.normalize(line.strip()) or "") + "\n")
    else:
        filters = UrlFilters(config)
        for line in source:
            url = line.strip()
            sink.write(("+" if filters.filter(url) is not None else "-") + url + "\n")
        sink.flush()
    return 0
