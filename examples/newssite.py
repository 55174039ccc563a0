"""A small local news site to crawl: the Riverton Daily, and a wire service.

Deterministic (no clock, no randomness) and pure standard library, so the
examples and their tests crawl the same pages everywhere. Two servers:

- the **Riverton Daily** on ``host``: a home page, sections ``/news/``,
  ``/sport/`` and ``/about/``, 20 news stories (``/news/YYYY/MM/slug.html``)
  and 4 sport stories (``newssite-articles.txt``), an archive whose content
  depends on ``?year=``, links carrying ``utm_source``/``utm_medium``
  parameters, ``mailto:`` and ``ftp:`` links, a ``robots.txt`` that disallows
  ``/private/``, and one link to a story that is gone (404);
- the **Coastal Wire** on ``wire_host`` (another 127.0.0.x), which the stories
  cite: links to it are external.

Run it on its own (Ctrl-C stops it)::

    python examples/newssite.py --host 127.0.0.9

In Python: ``site, url = newssite.start("127.0.0.9")`` ... ``site.stop()``.
"""

from __future__ import annotations

import argparse
import html
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import NamedTuple
from urllib.parse import parse_qs, urlsplit

PAPER = "Riverton Daily"
WIRE = "Coastal Wire"
ROBOTS_TXT = "User-agent: *\nDisallow: /private/\n"
DRAFTS = "/private/drafts.html"
"""Linked from the home page; robots.txt disallows it."""
GONE_STORY = "/news/2026/04/withdrawn-story.html"
"""Linked from ``/news/``; answers 404."""
ARCHIVE = "/news/archive.html"
YEARS = (2025, 2026)
UTM_HOME = "utm_source=home&utm_medium=web"
UTM_RELATED = "utm_source=related&utm_medium=article"
UTM_NEWSLETTER = "utm_source=newsletter&utm_medium=email"


class Article(NamedTuple):
    """One story: ``path`` is ``/<section>/YYYY/MM/<slug>.html``."""

    path: str
    title: str
    text: str

    @property
    def section(self) -> str:
        return self.path.split("/")[1]

    @property
    def year(self) -> int:
        return int(self.path.split("/")[2])

    @property
    def slug(self) -> str:
        return self.path.rsplit("/", 1)[1].removesuffix(".html")


def _read_articles() -> list[Article]:
    text = Path(__file__).with_name("newssite-articles.txt").read_text("utf-8")
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    blocks = "\n".join(lines).strip().split("\n\n")
    return [
        Article(path, title, " ".join(rest))
        for path, title, *rest in (block.split("\n") for block in blocks)
    ]


ARTICLES = _read_articles()
NEWS = [a for a in ARTICLES if a.section == "news"]
SPORT = [a for a in ARTICLES if a.section == "sport"]
TOP_STORIES = [NEWS[11], NEWS[1], NEWS[8], SPORT[0]]
"""On the home page, the first one with ``UTM_HOME``."""


def _page(title: str, *body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def _link(href: str, text: str) -> str:
    return f'<a href="{html.escape(href)}">{html.escape(text, quote=False)}</a>'


def _list(links: list[str]) -> str:
    return "<ul>\n" + "\n".join(f"<li>{link}</li>" for link in links) + "\n</ul>"


def _stories(articles: list[Article]) -> str:
    return _list([_link(a.path, a.title) for a in articles])


def home_page(wire: str) -> str:
    """The front page: sections, top stories, and links of every kind."""
    first, *rest = TOP_STORIES
    stories = [_link(f"{first.path}?{UTM_HOME}", first.title)]
    stories += [_link(a.path, a.title) for a in rest]
    sections = [("/news/", "News"), ("/sport/", "Sport"), ("/about/", "About us")]
    return _page(
        PAPER,
        f"<h1>{PAPER}</h1>",
        "<p>" + " | ".join(_link(href, text) for href, text in sections) + "</p>",
        "<h2>Top stories</h2>",
        _list(stories),
        "<p>" + _link(f"{ARCHIVE}?year=2026", "This year in the archive") + "</p>",
        "<p>" + _link(DRAFTS, "Drafts (staff only)") + "</p>",
        "<p>News from the coast: " + _link(wire + "/", WIRE) + "</p>",
        "<p>" + _link("mailto:newsroom@riverton.example", "Write to us") + " or read "
        "the back issues on "
        + _link("ftp://ftp.riverton.example/pub/", "FTP")
        + ".</p>",
    )


def article_page(article: Article, wire: str) -> str:
    """A story: its text, two related stories, a share link, its wire source."""
    pool = NEWS if article.section == "news" else SPORT
    at = pool.index(article)
    one, two = pool[(at + 1) % len(pool)], pool[(at + 2) % len(pool)]
    related = [
        _link(one.path, one.title),
        _link(f"{two.path}?{UTM_RELATED}", two.title),
    ]
    share = "mailto:?subject=" + article.title.replace(" ", "%20")
    source = f"{wire}/wire/{article.slug}.html"
    return _page(
        article.title,
        "<p>"
        + _link("/", PAPER)
        + " &gt; "
        + _link(f"/{article.section}/", "More")
        + "</p>",
        f"<h1>{html.escape(article.title)}</h1>",
        f"<p>{html.escape(article.text)}</p>",
        "<h2>Related</h2>",
        _list(related),
        "<p>"
        + _link(share, "Share")
        + " | "
        + _link(source, "Source: " + WIRE)
        + "</p>",
    )


def section_page(section: str) -> str:
    """``/news/`` or ``/sport/``: every story of the section, newest first."""
    if section == "sport":
        return _page(f"Sport - {PAPER}", "<h1>Sport</h1>", _stories(SPORT))
    return _page(
        f"News - {PAPER}",
        "<h1>News</h1>",
        _stories(NEWS),
        "<p>" + _link(GONE_STORY, "A withdrawn story") + "</p>",
        "<p>" + _link(ARCHIVE, "The archive") + "</p>",
    )


def archive_page(year: int | None) -> str:
    """The archive: its years, or (``?year=``) that year's news."""
    if year in YEARS:
        stories = [a for a in NEWS if a.year == year]
        return _page(f"{year} - {PAPER}", f"<h1>{year}</h1>", _stories(stories))
    links = [_link(f"{ARCHIVE}?year={y}", str(y)) for y in YEARS]
    links.append(_link(f"{ARCHIVE}?{UTM_NEWSLETTER}&year=2025", "2025 (newsletter)"))
    return _page(f"Archive - {PAPER}", "<h1>Archive</h1>", _list(links))


def about_page() -> str:
    """Who we are, with a mail link and an FTP link."""
    return _page(
        f"About - {PAPER}",
        f"<h1>About the {PAPER}</h1>",
        "<p>Printed on the quay since 1925, online since the tram came back.</p>",
        "<p>"
        + _link("mailto:editor@riverton.example", "The editor")
        + " | "
        + _link("ftp://ftp.riverton.example/pub/", "FTP")
        + " | "
        + _link("/", "Home")
        + "</p>",
    )


def paper_page(path: str, query: str, wire: str) -> str | None:
    """A page of the paper, or None (404)."""
    pages: dict[str, Callable[[], str]] = {
        "/": lambda: home_page(wire),
        "/about/": about_page,
        "/news/": lambda: section_page("news"),
        "/sport/": lambda: section_page("sport"),
        DRAFTS: lambda: _page("Drafts", "<p>Not for the crawler.</p>"),
    }
    if path in pages:
        return pages[path]()
    if path == ARCHIVE:
        year = parse_qs(query).get("year", [""])[0]
        return archive_page(int(year) if year.isdigit() else None)
    found = [a for a in ARTICLES if a.path == path]
    return article_page(found[0], wire) if found else None


def wire_page(path: str, paper: str) -> str | None:
    """A page of the wire service, or None (404)."""
    if path == "/":
        links = [_link(f"/wire/{a.slug}.html", a.title) for a in ARTICLES]
        return _page(WIRE, f"<h1>{WIRE}</h1>", _list(links))
    found = [a for a in ARTICLES if path == f"/wire/{a.slug}.html"]
    if not found:
        return None
    return _page(
        f"{found[0].title} - {WIRE}",
        f"<h1>{html.escape(found[0].title)}</h1>",
        "<p>As reported to the " + _link(paper + "/", PAPER) + ".</p>",
    )


@dataclass
class NewsSite:
    """The paper on ``host`` and the wire service on ``wire_host``; port 0 = free."""

    host: str = "127.0.0.1"
    wire_host: str | None = None
    """Default: the address after ``host`` (127.0.0.9 -> 127.0.0.10)."""
    port: int = 0
    wire_port: int = 0
    servers: dict[str, ThreadingHTTPServer] = field(default_factory=dict)

    def start(self) -> NewsSite:
        """Serve both, each in a daemon thread."""
        wire_host = self.wire_host or _next_address(self.host)
        for name, host, port in (
            ("paper", self.host, self.port),
            ("wire", wire_host, self.wire_port),
        ):
            server = ThreadingHTTPServer((host, port), _Handler)
            server.daemon_threads = True
            server.news_site = self  # type: ignore[attr-defined]
            server.name = name  # type: ignore[attr-defined]
            self.servers[name] = server
            threading.Thread(target=server.serve_forever, daemon=True).start()
        return self

    @property
    def url(self) -> str:
        """The paper's ``http://host:port`` (no trailing slash)."""
        return self._url("paper")

    @property
    def wire_url(self) -> str:
        """The wire service's ``http://host:port``."""
        return self._url("wire")

    def _url(self, name: str) -> str:
        host, port = self.servers[name].server_address[:2]
        return f"http://{host!s}:{port}"

    def stop(self) -> None:
        """Shut both servers down."""
        for server in self.servers.values():
            server.shutdown()
            server.server_close()


def start(
    host: str = "127.0.0.1", wire_host: str | None = None
) -> tuple[NewsSite, str]:
    """Serve the site on free ports: ``(site, the paper's URL)``; ``site.stop()``."""
    site = NewsSite(host, wire_host).start()
    return site, site.url


def _next_address(host: str) -> str:
    *head, last = host.split(".")
    return ".".join([*head, str(int(last) + 1)])


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        site: NewsSite = self.server.news_site  # type: ignore[attr-defined]
        paper = self.server.name == "paper"  # type: ignore[attr-defined]
        parts = urlsplit(self.path)
        if parts.path == "/robots.txt":
            self._reply(200, ROBOTS_TXT if paper else "", "text/plain")
            return
        if paper:
            page = paper_page(parts.path, parts.query, site.wire_url)
        else:
            page = wire_page(parts.path, site.url)
        if page is None:
            self._reply(404, _page("Not found", "<p>No such page.</p>"), "text/html")
        else:
            self._reply(200, page, "text/html; charset=utf-8")

    def _reply(self, code: int, text: str, content_type: str) -> None:
        body = text.encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main() -> None:
    """Serve until Ctrl-C."""
    parser = argparse.ArgumentParser(description="Serve the local news site.")
    parser.add_argument("--host", default="127.0.0.1", help="the paper's address")
    parser.add_argument("--wire-host", help="the wire service's (default: the next)")
    parser.add_argument(
        "--port", type=int, default=8000, help="the paper's; the wire's is the next"
    )
    args = parser.parse_args()
    wire_port = args.port + 1 if args.port else 0
    site = NewsSite(args.host, args.wire_host, args.port, wire_port).start()
    try:  # a Ctrl-C right after the line is printed stops it quietly too
        print(f"{PAPER}: {site.url}/  ({WIRE}: {site.wire_url}/)", flush=True)
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        site.stop()


if __name__ == "__main__":
    main()
