"""The pure parts of a one-shot fetch: URL requests to fetch-list records.

A request is a URL, or a ``(URL, metadata)`` pair whose values are str or
bytes. :func:`as_request` checks one, :func:`merge_metadata` joins the
metadata of requests for the same URL, and :func:`fetch_list_page` builds the
record Fetch expects: an injected page (:func:`crawllib.db.inject.seed_page`) as
generate writes it into a fetch list (:func:`crawllib.db.generate.generated_page`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from crawllib.config import GenerateConfig, InjectConfig
from crawllib.db.generate import generated_page
from crawllib.db.inject import Seed, seed_page
from crawllib.urls.zone import ZONE_KEY, Zone, with_zone
from crawllib.webpage import WebPage

Metadata = dict[str, bytes]


def as_request(element: Any) -> tuple[str, Metadata]:
    """``element`` (a URL, or a ``(URL, metadata)`` pair) as (URL, metadata bytes).

    str metadata values are encoded as UTF-8.

    Raises:
        ValueError: ``element`` is neither, or a metadata key is not a str or
            a value neither str nor bytes.
    """
    if isinstance(element, str):
        return element, {}
    if not (
        isinstance(element, tuple)
        and len(element) == 2
        and isinstance(element[0], str)
        and isinstance(element[1], Mapping)
    ):
        raise ValueError("expected a URL or a (URL, metadata dict) pair")
    url, given = element
    metadata: Metadata = {}
    for key, value in given.items():
        if not isinstance(key, str):
            raise ValueError(f"metadata key {key!r} is not a str")
        if isinstance(value, str):
            metadata[key] = value.encode("utf-8")
        elif isinstance(value, bytes):
            metadata[key] = value
        else:
            raise ValueError(f"metadata {key!r}: expected str or bytes")
    return url, metadata


def merge_metadata(requests: Iterable[Metadata]) -> Metadata:
    """One URL's metadata from several requests: each key's smallest value.

    Requests for one URL arrive in no fixed order; taking the smallest value
    of a key given differently makes the result the same on every runner.
    """
    merged: Metadata = {}
    for metadata in requests:
        for key, value in metadata.items():
            if key not in merged or value < merged[key]:
                merged[key] = value
    return merged


def fetch_list_page(
    url: str,
    metadata: Metadata,
    configs: tuple[InjectConfig, GenerateConfig],
    now_ms: int,
    batch_id: str,
    partition: int,
) -> WebPage:
    """The fetch-list record of ``url``: injected now, generated into ``batch_id``.

    The user's metadata is kept beside beamcrawl's own (a key both use keeps
    beamcrawl's value), but for ``_zone_``: a URL is the operator's (zone
    ``local``, :mod:`crawllib.urls.zone`) unless its metadata names another, as a
    pipeline fetching URLs taken from the web should (``public``).
    """
    inject, generate = configs
    page = seed_page(Seed(url=url, line=url), url, inject, now_ms)
    page = {**page, "metadata": {**metadata, **page["metadata"]}}
    if ZONE_KEY in metadata:
        page = with_zone(page, Zone.from_label(metadata[ZONE_KEY]))
    return generated_page(page, generate, now_ms, now_ms, batch_id, partition)
