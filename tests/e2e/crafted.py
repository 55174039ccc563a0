"""Crafted crawldbs, linkdbs and segments, written straight as Avro files."""

from __future__ import annotations

import copy
import os
from collections.abc import Iterable
from typing import Any

import fastavro

from crawllib.webpage import schema


def write_pages(directory: Any, pages: Iterable[Any], part: int = 0) -> None:
    """Write ``pages`` as ``directory/part-0000N-of-00001.avro``, as a job would."""
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(str(directory), f"part-{part:05d}-of-00001.avro")
    parsed = fastavro.parse_schema(copy.deepcopy(schema()))
    with open(path, "wb") as handle:
        fastavro.writer(handle, parsed, list(pages))
