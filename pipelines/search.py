"""``beamcrawl search INDEX_DIR QUERY [--limit N] [--json]``: query the index.

Prints the best hits of a tantivy index that ``beamcrawl index`` built
(:func:`crawllib.index.search.search`), one block per hit::

    1. 4.213  The Lighthouse Keepers
       http://127.0.0.2:8000/docs/keepers.html
       ... the **keepers** wrote down the weather ...

On a terminal the query's terms are bold, otherwise between ``**``; what
the pages hold is :func:`~crawllib.terminal.printable` (control
characters escaped).
``--json`` prints one JSON object: the query and its hits (rank, score,
url, title, snippet and the highlighted character ranges). No Beam job
runs: the index is read in this process.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Sequence

from crawllib.errors import ConfigError
from crawllib.index import search as searchindex
from crawllib.terminal import printable, printable_json
from pipelines.runtime.arguments import ArgumentParser, job_parser

_BOLD, _PLAIN = ("\x1b[1m", "\x1b[0m"), ("**", "**")


def run(argv: Sequence[str] | None = None) -> int:
    """``beamcrawl search``: print the hits for a query."""
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    if args.limit < 1:
        raise ConfigError(f"beamcrawl search: --limit {args.limit}: must be 1 or more")
    hits = searchindex.search(args.index_dir, args.query, args.limit)
    if args.json:
        found = [dataclasses.asdict(hit) for hit in hits]
        text = json.dumps({"query": args.query, "hits": found}, ensure_ascii=False)
        print(printable_json(text))
        return 0
    if not hits:
        print(f"no hits for {args.query!r}", file=sys.stderr)
    start, end = _BOLD if sys.stdout.isatty() else _PLAIN
    for hit in hits:
        print(f"{hit.rank}. {hit.score:.3f}  {printable(hit.title) or '(no title)'}")
        print(f"   {printable(hit.url)}")
        snippet = searchindex.render_snippet(hit, start, end)
        if snippet:
            print(f"   {snippet}")
    return 0


def parser() -> ArgumentParser:
    """The command line of ``beamcrawl search``."""
    parser = job_parser("beamcrawl search", "Search an index built by index.")
    parser.add_argument("index_dir", metavar="INDEX_DIR")
    parser.add_argument("query", metavar="QUERY")
    parser.add_argument("--limit", type=int, default=10, help="hits shown (10)")
    parser.add_argument("--json", action="store_true", help="hits as JSON")
    return parser


if __name__ == "__main__":  # as `beamcrawl search`: a user error is one line
    from pipelines.cli import main

    sys.exit(main(["search", *sys.argv[1:]]))
