"""WebPage records read one by one in this process, for tools that only count.

``beamcrawl report`` folds every record of a crawldb version or a segment
part into running figures; a pipeline would add nothing but start-up time.
Files are opened through Beam's ``FileSystems`` (so ``gs://`` and ``s3://``
work), each checked whole first (:func:`crawllib.avro.check.check_file`);
a damaged file is skipped and named in the caller's ``skipped`` list, never
fatal and never read as fewer records without saying so.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

from crawllib.avro import blocks as avroblocks
from crawllib.avro import check as avrocheck
from crawllib.webpage import WebPage
from pipelines.storage import fs, partfiles

_LOG = logging.getLogger(__name__)


def pages(directory: str, skipped: list[str]) -> Iterator[WebPage]:
    """The records of the part files in ``directory``, file by file in name order.

    A file that is not whole WebPage Avro is left out and appended to
    ``skipped`` as ``"<path>: <what is wrong>"``.
    """
    name, fields = partfiles.webpage_schema_check()
    for path, size in partfiles.part_paths(partfiles.parts_pattern(directory)):
        try:
            with fs.open_raw(path) as stream:
                avrocheck.check_file(stream, size, name, fields)
        except (avrocheck.AvroFileError, OSError) as exc:
            _LOG.warning("skipped %s: %s", path, exc)
            skipped.append(f"{path}: {exc}")
            continue
        with fs.open_raw(path) as stream:
            yield from avroblocks.records(stream)
