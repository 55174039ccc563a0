"""Pick the parser for a content type and run it under ``parser.timeout`` (ParseUtil).

HTML and XHTML go to ``html``; RSS, RDF and Atom feeds, and other XML, to
``feed``; other ``text/*`` to ``text``. Anything else has no parser: the result is
``notparsed`` with the reason (Nutch skips such documents with a warning).
A parser that raises, or runs past the timeout, gives ``failed/exception``:
one bad page never stops a job.
"""

from __future__ import annotations

import concurrent.futures
import logging
import signal
import threading
from collections.abc import Callable, Mapping

from crawllib.config import ParseConfig
from crawllib.parse import ParseResult, failed
from crawllib.parse.feed import looks_like_feed, parse_feed
from crawllib.parse.html import parse_html
from crawllib.parse.text import parse_text
from crawllib.status import ParseMajor, ParseMinor

_LOG = logging.getLogger(__name__)

_HTML_TYPES = frozenset(
    {"text/html", "application/xhtml+xml", "application/vnd.wap.xhtml+xml"}
)

Headers = Mapping[str, str | None]


def _is_xml(media: str) -> bool:
    """Generic XML: the feed parser gives its text, as Tika's XML parser does."""
    return media in ("text/xml", "application/xml") or media.endswith("+xml")


class _Overrun(BaseException):
    """Raised by the alarm in a parse that ran past ``parser.timeout``.

    A BaseException, so no parser's ``except Exception`` swallows it.
    """


class Parsers:
    """Nutch's ParserFactory + ParseUtil for one worker.

    The timeout runs the parser on a helper thread; one that overruns is
    abandoned (Python cannot stop it) and a fresh thread takes the next page,
    as Nutch's ParseUtil abandons its FutureTask. With ``use_alarm`` (a
    parse worker process, whose main thread parses and owns its signals)
    the parse runs in the calling thread under a SIGALRM timer instead: no
    hand-over per page (a quarter of the parse's cost), and a parse that
    overruns is stopped, not left running.
    """

    def __init__(self, config: ParseConfig, use_alarm: bool = False) -> None:
        self._config = config
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._use_alarm = (
            use_alarm
            and hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
        )
        if self._use_alarm:
            signal.signal(signal.SIGALRM, _overrun)

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
            if self._use_alarm:
                return _with_alarm(parser, url, content, content_type, headers, timeout)
            return self._with_timeout(
                parser, url, content, content_type, headers, timeout
            )
        except Exception as exc:  # noqa: BLE001 - the per-page parse boundary
            _LOG.warning("parser failed on %s: %s: %s", url, type(exc).__name__, exc)
            return failed(ParseMinor.EXCEPTION, f"{type(exc).__name__}: {exc}")

    def _parser_for(
        self, content: bytes, content_type: str | None
    ) -> Callable[[str, bytes, str | None, Headers], ParseResult] | None:
        media = (content_type or "").split(";", 1)[0].strip().lower()
        config = self._config
        if media in _HTML_TYPES:
            return lambda u, c, t, h: parse_html(u, c, t, h, config.html)
        if looks_like_feed(content, media) or _is_xml(media):
            encoding = config.html.default_encoding
            return lambda u, c, t, h: parse_feed(u, c, t, h, encoding)
        if media.startswith("text/"):
            encoding = config.html.default_encoding
            return lambda u, c, t, h: parse_text(u, c, t, h, encoding)
        return None

    def _with_timeout(
        self,
        parser: Callable[[str, bytes, str | None, Headers], ParseResult],
        url: str,
        content: bytes,
        content_type: str | None,
        headers: Headers,
        timeout_s: float,
    ) -> ParseResult:
        if self._pool is None:
            self._pool = concurrent.futures.ThreadPoolExecutor(1, "parser")
        future = self._pool.submit(parser, url, content, content_type, headers)
        try:
            return future.result(timeout=timeout_s)
        except concurrent.futures.TimeoutError:
            _LOG.warning("parser timed out after %g s on %s", timeout_s, url)
            self._pool.shutdown(wait=False)
            self._pool = None
            return failed(
                ParseMinor.EXCEPTION, f"parse timed out after {timeout_s:g} s"
            )

    def close(self) -> None:
        """Stop the helper thread."""
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None


def _overrun(signum: int, frame: object) -> None:
    raise _Overrun


def _with_alarm(
    parser: Callable[[str, bytes, str | None, Headers], ParseResult],
    url: str,
    content: bytes,
    content_type: str | None,
    headers: Headers,
    timeout_s: float,
) -> ParseResult:
    signal.setitimer(signal.ITIMER_REAL, timeout_s)
    try:
        return parser(url, content, content_type, headers)
    except _Overrun:
        _LOG.warning("parser timed out after %g s on %s", timeout_s, url)
        return failed(ParseMinor.EXCEPTION, f"parse timed out after {timeout_s:g} s")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
