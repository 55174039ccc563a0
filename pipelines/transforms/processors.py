"""ProcessPages: hand every page to the user's code, its outputs to the user's sinks.

The seed spider's controller processes each page itself (processPage) and
is told when a page completes, with or without an error (completePage).
:class:`ProcessPages` is that hook on a PCollection of WebPages: a
:class:`~crawllib.fetch.outcome.PageProcessor`, a plain function, or the user's own
PTransform.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import apache_beam as beam
from apache_beam.metrics.metric import Metrics
from apache_beam.pvalue import PCollection

from crawllib.fetch.outcome import (
    PageFunction,
    PageProcessor,
    page_error,
    processor_outputs,
)
from crawllib.logonce import warn_first
from crawllib.webpage import WebPage

_LOG = logging.getLogger(__name__)
NAMESPACE = "PageProcessor"

Processor = PageProcessor | PageFunction | beam.PTransform[Any, Any]
"""What :class:`ProcessPages` takes."""


class ProcessPages(beam.PTransform[PCollection[WebPage], PCollection[Any]]):
    """WebPages to whatever the user's processor makes of them.

    ``processor`` is one of:

    - a :class:`~crawllib.fetch.outcome.PageProcessor` (an instance, or a subclass,
      which is instantiated): ``process_page(page)`` for each page fetched
      and parsed successfully, then ``complete_page(page, error)`` for every
      page, ``error`` None or :func:`~crawllib.fetch.outcome.page_error`'s words;
    - a function ``fn(page)``, called for every page (``page_error(page)``
      tells a failure);
    - a PTransform, applied to the pages as it is.

    A processor's return value: None gives no output, a list or generator
    one output per item, anything else (a tuple too) one output. An exception
    in the processor loses that page's outputs only: it is counted, logged
    in one line, and the job goes on.

    Counters, namespace ``PageProcessor`` (not for a PTransform): ``pages``
    (pages in), ``failed_pages`` (pages with an error) and ``errors``
    (pages whose processor raised).

    Raises:
        TypeError: ``processor`` is none of these.
    """

    def __init__(self, processor: Processor | type[PageProcessor]) -> None:
        super().__init__()
        if isinstance(processor, type) and issubclass(processor, PageProcessor):
            processor = processor()
        known = isinstance(processor, beam.PTransform | PageProcessor)
        if not known and not callable(processor):
            raise TypeError(
                "expected a PageProcessor, a function of a page or a PTransform,"
                f" got {type(processor).__name__}"
            )
        self._processor = processor

    def expand(self, pages: PCollection[WebPage]) -> PCollection[Any]:
        if isinstance(self._processor, beam.PTransform):
            return pages | "UserTransform" >> self._processor
        return pages | "ProcessPage" >> beam.ParDo(_ProcessFn(self._processor))


class _ProcessFn(beam.DoFn):
    """Calls the user's processor; its exceptions stop at the page."""

    pages = Metrics.counter(NAMESPACE, "pages")
    failed_pages = Metrics.counter(NAMESPACE, "failed_pages")
    errors = Metrics.counter(NAMESPACE, "errors")

    def __init__(self, processor: PageProcessor | PageFunction) -> None:
        self._processor = processor

    def process(self, page: WebPage) -> Iterator[Any]:
        self.pages.inc()
        if page_error(page) is not None:
            self.failed_pages.inc()
        try:
            outputs = processor_outputs(self._processor, page)
        except Exception as exc:  # noqa: BLE001 - the user's code: any error, one page
            self.errors.inc()
            warn_first(
                _LOG,
                "errors",
                "page processor failed on %s",
                page["url"],
                cause=f"{type(exc).__name__}: {exc}",
                counter=f"{NAMESPACE}/errors",
            )
            return
        yield from outputs
