"""The tantivy index: one writer applies actions; search ranks and highlights."""

import dataclasses

import pytest
import tantivy

from crawllib.index.index import IndexDocument
from crawllib.index.search import (
    SearchIndexError,
    apply_actions,
    document_count,
    open_index,
    render_snippet,
    search,
)


def _doc(path, title, content, boost=1.0, anchor=()):
    url = f"http://example.com/{path}"
    return IndexDocument(
        id=url, url=url, content=content, host="example.com", tstamp_ms=1_000,
        boost=boost, title=title, anchor=anchor,
    )  # fmt: skip


PAGES = [
    _doc("a", "Lighthouses", "The keepers lit the lamp every evening at dusk."),
    _doc("b", "Café crème", "Le café du port sert un café crème très chaud."),
    _doc("c", "Storms", "The autumn storm broke the lamp.", anchor=("Weather",)),
]


@pytest.fixture
def index_dir(tmp_path):
    path = str(tmp_path / "index")
    assert apply_actions(path, [(d.id, d) for d in PAGES]) == (3, 0)
    return path


def test_a_phrase_ranks_its_page_first_with_its_terms_highlighted(index_dir):
    hits = search(index_dir, '"lit the lamp"')

    assert [hit.url for hit in hits] == ["http://example.com/a"]
    hit = hits[0]
    assert (hit.rank, hit.title) == (1, "Lighthouses")
    # every occurrence of a query term is marked, "The" too
    marked = [hit.snippet[s:e] for s, e in hit.highlights]
    assert marked == ["The", "lit", "the", "lamp"]
    assert render_snippet(hit, "[", "]").startswith("[The] keepers [lit] [the] [lamp]")


def test_highlights_are_character_ranges_in_non_ascii_text(index_dir):
    (hit,) = search(index_dir, "crème")

    assert [hit.snippet[s:e] for s, e in hit.highlights] == ["crème"]


def test_title_and_anchor_outweigh_content(index_dir):
    hits = search(index_dir, "storms OR weather OR lamp")

    assert hits[0].url == "http://example.com/c"


def test_the_page_boost_orders_equal_matches(tmp_path):
    path = str(tmp_path / "boosted")
    twins = [
        _doc("low", "Twin", "same words here", boost=0.5),
        _doc("high", "Twin", "same words here", boost=8.0),
    ]
    apply_actions(path, [(d.id, d) for d in twins])

    assert [h.url for h in search(path, "words")] == [
        "http://example.com/high",
        "http://example.com/low",
    ]


def test_reindexing_replaces_a_document_and_deletes_remove_it(index_dir):
    changed = dataclasses.replace(PAGES[0], title="Lighthouse keepers")

    assert apply_actions(index_dir, [(changed.id, changed), (PAGES[1].id, None)]) == (
        1,
        1,
    )

    assert document_count(index_dir) == 2
    assert [h.title for h in search(index_dir, "keepers")] == ["Lighthouse keepers"]
    assert search(index_dir, "café") == []


def test_a_hit_without_a_content_match_shows_the_start_of_the_content(index_dir):
    (hit,) = search(index_dir, "weather")

    assert (hit.snippet, hit.highlights) == ("The autumn storm broke the lamp.", ())


def test_a_query_with_a_syntax_slip_is_read_leniently(index_dir):
    hits = search(index_dir, '"keepers lit')

    assert hits[0].url == "http://example.com/a"


def test_a_missing_index_is_a_user_error(tmp_path):
    with pytest.raises(SearchIndexError, match="no search index at"):
        search(str(tmp_path / "none"), "x")
    (tmp_path / "empty").mkdir()
    with pytest.raises(SearchIndexError, match="no search index at"):
        document_count(str(tmp_path / "empty"))


def test_an_index_of_another_schema_is_refused(tmp_path):
    other = tantivy.SchemaBuilder().add_text_field("body", stored=True).build()
    path = tmp_path / "other"
    path.mkdir()
    tantivy.Index(other, path=str(path))

    with pytest.raises(SearchIndexError, match="another schema"):
        open_index(str(path))
