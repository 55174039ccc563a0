"""Read test output straight from the Avro files, as any other tool would."""

from __future__ import annotations

import glob
import os
from typing import Any

import fastavro


def read_pages(directory: Any) -> list[Any]:
    """Every record of the ``*.avro`` files in ``directory``, sorted by URL."""
    records: list[Any] = []
    for path in sorted(glob.glob(os.path.join(glob.escape(str(directory)), "*.avro"))):
        with open(path, "rb") as handle:
            records.extend(fastavro.reader(handle))
    return sorted(
        records, key=lambda record: (record.get("batchId") or "", record["url"])
    )
