from html.parser import HTMLParser

from crawllib.report.figures import FETCH, CrawlFigures
from crawllib.report.page import headline, render_page
from crawllib.webpage import new_page

HOSTILE_HOST = "<img src=x onerror=alert(1)>"


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []
        self.text = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def _figures(host=HOSTILE_HOST):
    figures = CrawlFigures(has_crawldb=True)
    url = f"http://{host}/"
    figures.add_crawldb_page(new_page(url, status=2, markers={"dist": "0"}))
    status = {"code": 16, "args": [], "lastModified": 0}
    figures.add_segment_page("s1", FETCH, new_page(url, protocolStatus=status))
    figures.notes.append("a note with <b>markup</b>")
    return figures


def test_a_host_that_spells_markup_is_shown_as_text():
    page = render_page(_figures(), "/crawl/<dir>", 0)
    parsed = _Tags()
    parsed.feed(page)

    assert not {"script", "img"} & set(parsed.tags)
    assert "a note with &lt;b&gt;markup&lt;/b&gt;" in page
    assert HOSTILE_HOST in "".join(parsed.text)
    assert "a note with <b>markup</b>" in "".join(parsed.text)


def test_the_page_refers_to_nothing_outside_it():
    page = render_page(_figures("a.example"), "/crawl", 0)
    parsed = _Tags()
    parsed.feed(page)

    assert not {"script", "link", "img", "iframe", "object"} & set(parsed.tags)
    assert not any(word in page for word in ("href=", "src=", "url(", "@import"))


def test_headline_numbers():
    figures = _figures()

    assert dict(headline(figures)) == {
        "URLs in the crawldb": 1,
        "fetched (status_fetched)": 1,
        "hosts": 1,
        "rounds recorded": 0,
        "segments": 1,
        "fetch records": 1,
        "failed fetches": 1,
    }
