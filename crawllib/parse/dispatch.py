"""Pick the parser for a content type and run it under ``parser.timeout`` (ParseUtil).

HTML and XHTML go to ``html``; RSS, RDF and Atom feeds, and other XML, to
``feed``; other ``text/*`` to ``text``. Anything else has no parser: the result is
``notparsed`` with the reason (Nutch skips such documents with a warning).
A parser that raises, or runs past the timeout, gives ``failed/exception``:
one bad page never stops a job.

The timeout (:mod:`crawllib.parse.timelimit`): in a parse worker process the
parse runs in the main thread under a SIGALRM timer; elsewhere on one daemon
helper thread per :class:`Parsers`. A parse that overruns is stopped at its
next Python step. Until then it is *stuck* (inside libxml2, say), and the
next page waits for it up to ``parser.timeout``, then fails with "parser
busy" without being parsed: a worker never has more than one stuck parse,
and a stuck parse never keeps a process from exiting. (Nutch runs each parse
on a daemon thread of a cached pool and cancels one that times out: threads
that ignore the cancel pile up.)
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping

from crawllib.config import ParseConfig
from crawllib.parse import ParseResult, failed
from crawllib.parse.feed import looks_like_feed, parse_feed
from crawllib.parse.html import parse_html
from crawllib.parse.text import parse_text
from crawllib.parse.timelimit import (
    Busy,
    ParseThread,
    TimedOut,
    install_alarm,
    run_with_alarm,
)
from crawllib.status import ParseMajor, ParseMinor

_LOG = logging.getLogger(__name__)

_HTML_TYPES = frozenset(
    {"text/html", "application/xhtml+xml", "application/vnd.wap.xhtml+xml"}
)

Headers = Mapping[str, str | None]
Parser = Callable[[str, bytes, str | None, Headers], ParseResult]
"""A parser: URL, content, content type and response headers in, a result out."""


def _is_xml(media: str) -> bool:
    """Generic XML: the feed parser gives its text, as Tika's XML parser does."""
    return media in ("text/xml", "application/xml") or media.endswith("+xml")


class Parsers:
    """Nutch's ParserFactory + ParseUtil for one worker (not for concurrent use).

    With ``use_alarm`` (a parse worker process, whose main thread parses and
    owns its signals) the parse runs in the calling thread under a SIGALRM
    timer: no hand-over per page (a quarter of the parse's cost). Otherwise
    it runs on a helper thread, started on first use.

    Args:
        config: the parse settings.
        use_alarm: time parses with SIGALRM; ignored off the main thread.
        plugins: parsers by media type (lowercased, without parameters), used
            before the built-in ones, as ``parse-plugins.xml`` maps a content
            type to a parse plugin in Nutch.
    """

    def __init__(
        self,
        config: ParseConfig,
        use_alarm: bool = False,
        plugins: Mapping[str, Parser] | None = None,
    ) -> None:
        self._config = config
        self._plugins = dict(plugins or {})
        self._thread: ParseThread | None = None
        self._use_alarm = use_alarm and install_alarm()

    def parse(
        self, url: str, content: bytes, content_type: str | None, headers: Headers
    ) -> ParseResult:
        """Parse ``content``; never raises."""
        parser = self._parser_for(content, content_type)
        if parser is None:
            return ParseResult(
                ParseMajor.NOTPARSED, ParseMinor.OK, (f"no parser for {content_type}",)
            )
        timeout = self._config.timeout_s
        try:
            if timeout is None:
                return parser(url, content, content_type, headers)
            call = functools.partial(parser, url, content, content_type, headers)
            if self._use_alarm:
                return run_with_alarm(call, timeout)
            if self._thread is None:
                self._thread = ParseThread()
            return self._thread.run(call, timeout)
        except TimedOut:
            _LOG.warning("parser timed out after %g s on %s", timeout, url)
            return failed(ParseMinor.EXCEPTION, f"parse timed out after {timeout:g} s")
        except Busy:
            _LOG.warning("parser still busy with an earlier page; skipped %s", url)
            return failed(
                ParseMinor.EXCEPTION,
                f"parser busy: an earlier parse still runs after {timeout:g} s",
            )
        except Exception as exc:  # noqa: BLE001 - the per-page parse boundary
            _LOG.warning("parser failed on %s: %s: %s", url, type(exc).__name__, exc)
            return failed(ParseMinor.EXCEPTION, f"{type(exc).__name__}: {exc}")

    def _parser_for(self, content: bytes, content_type: str | None) -> Parser | None:
        media = (content_type or "").split(";", 1)[0].strip().lower()
        plugin = self._plugins.get(media)
        if plugin is not None:
            return plugin
        config = self._config
        if media in _HTML_TYPES:
            return lambda u, c, t, h: parse_html(u, c, t, h, config.html)
        encoding = config.html.default_encoding
        confidence = config.html.charset_min_confidence
        if looks_like_feed(content, media) or _is_xml(media):
            return lambda u, c, t, h: parse_feed(u, c, t, h, encoding, confidence)
        if media.startswith("text/"):
            return lambda u, c, t, h: parse_text(u, c, t, h, encoding, confidence)
        return None

    def close(self) -> None:
        """Let the helper thread end (a stuck one is abandoned: it is a daemon)."""
        if self._thread is not None:
            self._thread.close()
            self._thread = None
