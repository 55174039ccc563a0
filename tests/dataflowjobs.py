"""Reading the job file of a Dataflow dry run (``pipelines.runtime.dryrun``) in tests.

The job is Beam's portable pipeline proto as JSON. What Dataflow's workers
get is in its payloads: protobuf bytes (base64 in the JSON) that hold
pickled Python objects (DoFns, sources, sinks, coders) as base64 text of a
bz2- (dill) or zlib-compressed (cloudpickle) pickle. :func:`blobs` peels
every layer, so a test can look for a string anywhere a worker would see it.
"""

from __future__ import annotations

import base64
import binascii
import bz2
import os
import re
import zlib
from collections.abc import Iterable, Iterator
from typing import Any

from apache_beam.internal import pickler
from apache_beam.portability.api import beam_runner_api_pb2

PARDO = "beam:transform:pardo:v1"
PICKLED_DOFN = "beam:dofn:pickled_python_info:v1"
DOCKER = "beam:env:docker:v1"

_BASE64_RUN = re.compile(rb"[A-Za-z0-9+/]{16,}={0,2}")
_URL = re.compile(rb"[a-z][a-z0-9+.-]*://[^\x00-\x20\"'<>\\]*")
_PATH_TAIL = rb"(?![A-Za-z0-9._-])[A-Za-z0-9._/+@%~-]*"
_MAX_DEPTH = 6


def transforms(job: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The pipeline's transforms by id."""
    found: dict[str, dict[str, Any]] = job["pipeline"]["components"]["transforms"]
    return found


def labels(job: dict[str, Any]) -> set[str]:
    """Every transform's full label (``Inject/ParseSeeds``)."""
    return {t["uniqueName"] for t in transforms(job).values()}


def leaf_count(job: dict[str, Any]) -> int:
    """How many transforms are not composites."""
    return sum(1 for t in transforms(job).values() if not t.get("subtransforms"))


def container_images(job: dict[str, Any]) -> set[str]:
    """The SDK container image of each environment; an environment not Docker fails."""
    images = set()
    for env_id, env in job["pipeline"]["components"]["environments"].items():
        assert env["urn"] == DOCKER, f"{env_id} is {env['urn']}: not a container"
        payload = beam_runner_api_pb2.DockerPayload.FromString(
            base64.b64decode(env["payload"])
        )
        images.add(payload.container_image)
    return images


def dofns(job: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(label, unpickled DoFn) of every ParDo, as a worker unpickles it."""
    for transform in transforms(job).values():
        spec = transform.get("spec", {})
        if spec.get("urn") != PARDO:
            continue
        payload = beam_runner_api_pb2.ParDoPayload.FromString(
            base64.b64decode(spec["payload"])
        )
        if payload.do_fn.urn == PICKLED_DOFN:
            yield transform["uniqueName"], pickler.loads(payload.do_fn.payload)[0]


def strings(value: Any) -> Iterator[bytes]:
    """Every string in a JSON value."""
    if isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, str):
        yield value.encode()


def blobs(data: bytes, depth: int = 0) -> Iterator[bytes]:
    """``data`` and whatever base64, bz2 and zlib layers it holds, decoded."""
    yield data
    if depth >= _MAX_DEPTH:
        return
    for run in _BASE64_RUN.finditer(data):
        inner = _decoded(run.group())
        if inner is not None:
            yield from blobs(inner, depth + 1)


def _decoded(run: bytes) -> bytes | None:
    """A base64 run's bytes, decompressed if compressed.

    A run inside binary data may start with a stray letter or three (a
    protobuf length byte), so each of the first four offsets is tried for a
    compressed stream; failing that, the run as it stands.
    """
    plain = None
    for skip in range(4):
        raw = _b64(run[skip:])
        if raw is None:
            continue
        try:
            return bz2.decompress(raw) if raw[:3] == b"BZh" else zlib.decompress(raw)
        except (OSError, ValueError, zlib.error):
            if skip == 0:
                plain = raw
    return plain


def _b64(text: bytes) -> bytes | None:
    try:
        return base64.b64decode(text + b"=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def local_paths(values: Iterable[Any], roots: Iterable[str]) -> set[str]:
    """Paths under ``roots`` (local directories) in any string of ``values``.

    URLs (``gs://bucket/tmp/...``) are not paths. A Python source file is
    allowed: a lambda or nested function is pickled by value, with its code
    object's file name, which only tracebacks read.
    """
    patterns = [
        re.compile(re.escape(root.rstrip("/").encode()) + _PATH_TAIL)
        for root in roots
        if root.rstrip("/")
    ]
    found: set[str] = set()
    for value in values:
        for text in strings(value):
            for blob in blobs(text):
                plain = _URL.sub(b" ", blob)
                for pattern in patterns:
                    for match in pattern.finditer(plain):
                        found.add(match.group().decode("utf-8", "replace"))
    return {path for path in found if not _source_file(path)}


def _source_file(path: str) -> bool:
    return path.endswith(".py") and os.path.isfile(path)


def pickles(job: dict[str, Any]) -> list[bytes]:
    """The decoded pickles in the job (protocol 2 or later: they start with 0x80)."""
    return [
        blob
        for text in strings(job["pipeline"])
        for blob in blobs(text)
        if blob[:1] == b"\x80"
    ]
