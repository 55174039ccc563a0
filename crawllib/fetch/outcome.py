"""A fetched page's outcome, and page processors: the seed's processPage/completePage.

:func:`page_error` says in a few words why a page is not a success (None if it
is). A page processor is the user's code that sees each page: a
:class:`PageProcessor` subclass, whose :meth:`~PageProcessor.process_page` gets
every page fetched and parsed successfully and
:meth:`~PageProcessor.complete_page` every page with its error, or a plain
function of the page. :func:`processor_outputs` calls it and turns what it
returned into a list of outputs (:func:`outputs_of`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from crawllib.status import (
    CrawlStatus,
    ParseMajor,
    ParseMinor,
    ProtocolStatus,
    crawl_status_label,
    protocol_status_label,
)
from crawllib.webpage import WebPage

NOT_FETCHED = "not fetched"
NOT_PARSED = "not parsed"
PARSE_FAILED = "parse failed"


def page_error(page: WebPage) -> str | None:
    """None when ``page`` was fetched and parsed successfully, else why not.

    The rules, in order:

    1. no ``protocolStatus``: ``"not fetched"``;
    2. a protocol status other than SUCCESS: its Nutch name, as the
       ``FetcherStatus`` counters spell it (``"NOTFOUND"``,
       ``"ROBOTS_DENIED"``, ``"EXCEPTION"``, ``"MOVED"``, ``"NOTMODIFIED"``
       ...);
    3. fetched, but no ``parseStatus`` or major code NOTPARSED (not parsed,
       e.g. truncated content with ``parser.skip.truncated``): ``"not parsed"``;
    4. major code FAILED: ``"parse failed: "`` and the status's args joined
       with ``", "``, or its minor code's name (``"parse failed: exception"``)
       when it has no args;
    5. parsed, but a crawl status other than FETCHED (a crawldb record marked
       duplicate, say): that status's name (``"status_duplicate"``);
    6. otherwise None: a success (a parse that found a meta refresh is one).
    """
    protocol = page["protocolStatus"]
    if protocol is None:
        return NOT_FETCHED
    if protocol["code"] != ProtocolStatus.SUCCESS:
        return protocol_status_label(protocol["code"])
    parse = page["parseStatus"]
    if parse is None or parse["majorCode"] == ParseMajor.NOTPARSED:
        return NOT_PARSED
    if parse["majorCode"] != ParseMajor.SUCCESS:
        return f"{PARSE_FAILED}: {_parse_failure(parse['minorCode'], parse['args'])}"
    if page["status"] != CrawlStatus.FETCHED:
        return crawl_status_label(page["status"])
    return None


def _parse_failure(minor: int, args: list[str]) -> str:
    if args:
        return ", ".join(args)
    try:
        return ParseMinor(minor).label
    except ValueError:
        return f"minor code {minor}"


class PageProcessor:
    """The user's code for each page: the seed spider's processPage and completePage.

    Subclass it and override either method or both. Each may return None
    (no output), a list or generator (each item is an output) or any other
    value, a tuple included (one output: a ``(key, value)`` pair stays a
    pair). An instance is pickled to the workers, so keep what it holds
    picklable.
    """

    def process_page(self, page: WebPage) -> Any:
        """Called for each page fetched and parsed successfully (processPage)."""
        return None

    def complete_page(self, page: WebPage, error: str | None) -> Any:
        """Called for every page after :meth:`process_page`, if any (completePage).

        ``error`` is None on success, else :func:`page_error`'s description.
        """
        return None


PageFunction = Callable[[WebPage], Any]
"""A plain processor: called for every page, success or not."""


def outputs_of(value: Any) -> list[Any]:
    """What a processor returned, as its outputs.

    None: none; a list or an iterator (a generator, ``map`` ...): each
    item; anything else (a tuple, dict, str, bytes, object): itself, so a
    ``(key, value)`` pair is one output, as Beam's ``Map`` would give it.
    """
    if value is None:
        return []
    if isinstance(value, list | Iterator):
        return list(value)
    return [value]


def processor_outputs(
    processor: PageProcessor | PageFunction, page: WebPage
) -> list[Any]:
    """Call ``processor`` on ``page``; its outputs (exceptions pass through).

    A :class:`PageProcessor` gets ``process_page`` when the page is a success,
    then ``complete_page`` with its error; a function gets the page.
    """
    if isinstance(processor, PageProcessor):
        error = page_error(page)
        outputs = [] if error is not None else outputs_of(processor.process_page(page))
        return outputs + outputs_of(processor.complete_page(page, error))
    return outputs_of(processor(page))
