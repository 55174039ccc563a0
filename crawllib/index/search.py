"""The embedded search index: tantivy's schema, one writer, ranked search.

tantivy (a Rust library like Lucene) keeps the index in a local directory
and allows one writer at a time, so the index job's pipeline only produces
actions and :func:`apply_actions` applies them here in one writer: for every
action the document with that ``id`` is deleted, an add then adds the new
one, and one commit ends it. Re-indexing a URL thus replaces its document
(Solr's ``overwrite``, Lucene's ``updateDocument``).

:func:`search` parses a query over ``title``, ``content``, ``anchor`` and
``url`` (field boosts :data:`FIELD_BOOSTS`), weighs each hit by its page
boost (tantivy's ``weight_by_field``, which multiplies the score by
``log2(2 + boost)``) and returns hits with a snippet of the content, the
query's terms marked.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterable
from dataclasses import dataclass

import tantivy

from crawllib.errors import CrawlError
from crawllib.index.index import IndexDocument
from crawllib.terminal import printable

FIELD_BOOSTS = {"title": 3.0, "anchor": 2.0, "url": 1.5, "content": 1.0}
"""Query-time field weights: a title or anchor match outweighs one in the text."""
SNIPPET_CHARS = 200
_TEXT = "en_stem"
_WRITER_HEAP = 64_000_000


class SearchIndexError(CrawlError):
    """No search index where one was expected, or one of another schema."""


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result; ``highlights`` are character ranges in ``snippet``."""

    rank: int
    score: float
    url: str
    title: str
    snippet: str
    highlights: tuple[tuple[int, int], ...]


def schema() -> tantivy.Schema:
    """The index's fields: Nutch's basic and anchor fields, ``boost`` a fast float."""
    builder = tantivy.SchemaBuilder()
    for name in ("id", "orig", "site", "digest", "contentType"):
        builder.add_text_field(name, stored=True, tokenizer_name="raw")
    builder.add_text_field("url", stored=True)
    builder.add_text_field("host", stored=True)
    for name in ("title", "content", "anchor"):
        builder.add_text_field(name, stored=True, tokenizer_name=_TEXT)
    builder.add_date_field("tstamp", stored=True, indexed=True, fast=True)
    builder.add_float_field("boost", stored=True, indexed=False, fast=True)
    return builder.build()


def open_index(index_dir: str, create: bool = False) -> tantivy.Index:
    """The index in ``index_dir``; a new empty one if ``create``.

    Raises:
        SearchIndexError: no index there (and not ``create``), or one that
            is not a beamcrawl index of this version.
    """
    if not (os.path.isdir(index_dir) and tantivy.Index.exists(index_dir)):
        if not create:
            raise SearchIndexError(f"no search index at {index_dir}")
        os.makedirs(index_dir, exist_ok=True)
        return tantivy.Index(schema(), path=index_dir)
    try:
        index = tantivy.Index.open(index_dir)
    except ValueError as exc:
        raise SearchIndexError(f"{index_dir}: not a readable index ({exc})") from None
    if index.schema != schema():
        raise SearchIndexError(f"{index_dir}: an index of another schema")
    return index


def apply_actions(
    index_dir: str, actions: Iterable[tuple[str, IndexDocument | None]]
) -> tuple[int, int]:
    """Apply ``(url, document or None = delete)`` actions; one commit.

    Returns the numbers of documents added and of deletes applied.
    """
    index = open_index(index_dir, create=True)
    added = deleted = 0
    with index.writer(heap_size=_WRITER_HEAP, num_threads=1) as writer:
        for url, doc in actions:
            writer.delete_documents_by_term("id", url)
            if doc is None:
                deleted += 1
            else:
                writer.add_document(to_tantivy(doc))
                added += 1
        writer.commit()
        writer.wait_merging_threads()
    return added, deleted


def to_tantivy(doc: IndexDocument) -> tantivy.Document:
    """The tantivy document of an index document."""
    out = tantivy.Document()
    out.add_text("id", doc.id)
    out.add_text("url", doc.url)
    out.add_text("host", doc.host)
    out.add_text("site", doc.site)
    out.add_text("content", doc.content)
    optional = {
        "orig": doc.orig,
        "title": doc.title,
        "digest": doc.digest,
        "contentType": doc.content_type,
    }
    for name, value in optional.items():
        if value is not None:
            out.add_text(name, value)
    for anchor in doc.anchor:
        out.add_text("anchor", anchor)
    tstamp = datetime.datetime.fromtimestamp(
        doc.tstamp_ms / 1000, datetime.timezone.utc
    )
    out.add_date("tstamp", tstamp)
    out.add_float("boost", doc.boost)
    return out


def document_count(index_dir: str) -> int:
    """The number of live documents in the index."""
    return int(open_index(index_dir).searcher().num_docs)


def search(index_dir: str, text: str, limit: int = 10) -> list[Hit]:
    """The ``limit`` best hits for ``text``, best first.

    The query is read leniently: a syntax slip (an unclosed quote) is
    read as well as it can be, never an error.
    """
    index = open_index(index_dir)
    query, _errors = index.parse_query_lenient(
        text, list(FIELD_BOOSTS), field_boosts=FIELD_BOOSTS
    )
    searcher = index.searcher()
    found = searcher.search(query, limit, weight_by_field="boost").hits
    snippets = tantivy.SnippetGenerator.create(searcher, query, index.schema, "content")
    snippets.set_max_num_chars(SNIPPET_CHARS)
    hits = []
    for rank, (score, address) in enumerate(found, start=1):
        doc = searcher.doc(address)
        snippet, highlights = _snippet(snippets, doc)
        hits.append(
            Hit(
                rank=rank,
                score=float(score),
                url=str(doc.get_first("url")),
                title=str(doc.get_first("title") or ""),
                snippet=snippet,
                highlights=highlights,
            )
        )
    return hits


def _snippet(
    generator: tantivy.SnippetGenerator, doc: tantivy.Document
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The snippet text and its marked ranges, in characters, not bytes.

    Without a match in the content (a hit on title or anchor), the start
    of the content.
    """
    snippet = generator.snippet_from_doc(doc)
    fragment = snippet.fragment()
    if not fragment:
        content = str(doc.get_first("content") or "")
        return " ".join(content[:SNIPPET_CHARS].split()), ()
    raw = fragment.encode("utf-8")
    ranges = tuple(
        (len(raw[: r.start].decode("utf-8")), len(raw[: r.end].decode("utf-8")))
        for r in snippet.highlighted()
    )
    return fragment, ranges


def render_snippet(hit: Hit, start: str, end: str) -> str:
    """The snippet with each highlight between ``start`` and ``end``, on one line.

    Control characters in the page's text are escaped
    (:func:`~crawllib.terminal.printable`); ``start`` and ``end`` are not.
    """
    parts, at = [], 0
    for begin, stop in hit.highlights:
        parts += [
            printable(hit.snippet[at:begin], multiline=True),
            start,
            printable(hit.snippet[begin:stop], multiline=True),
            end,
        ]
        at = stop
    parts.append(printable(hit.snippet[at:], multiline=True))
    return " ".join("".join(parts).split())
