"""WARC export settings: the file size limit and what the warcinfo record says."""

from __future__ import annotations

from dataclasses import dataclass

from crawllib.config.fetch import HttpConfig, agent_string
from crawllib.config.properties import Properties, bad_value

DEFAULT_MAX_SIZE = 1_000_000_000
"""Roll to a new file past this many bytes (about 1 GB, as Common Crawl)."""


@dataclass(frozen=True, slots=True)
class WarcConfig:
    """What ``beamcrawl warc`` writes (no Nutch counterpart: beamcrawl's own).

    Attributes:
        http: the ``http.*`` settings, for the ``User-Agent`` in warcinfo and
            for requests rebuilt when a segment did not store them
            (``store.http.request`` off).
        max_size: ``warc.export.max.size``: a file is closed once it holds
            this many bytes (compressed), so a file overshoots by at most
            one fetch's records.
        is_part_of: ``warc.export.ispartof``: warcinfo's ``isPartOf``.
        operator: ``http.agent.email``: warcinfo's ``operator``.
        description: ``http.agent.description``: warcinfo's ``description``.
    """

    http: HttpConfig
    max_size: int = DEFAULT_MAX_SIZE
    is_part_of: str = ""
    operator: str = ""
    description: str = ""

    @classmethod
    def from_properties(cls, props: Properties) -> WarcConfig:
        """Read ``warc.export.*`` and the agent; no agent name is allowed here."""
        max_size = props.get_int("warc.export.max.size")
        if max_size <= 0:
            raise bad_value("warc.export.max.size", str(max_size), "1 or more bytes")
        http = HttpConfig(
            user_agent=agent_string(props),
            agent_name=props.get_str("http.agent.name"),
            accept=props.get_str("http.accept"),
            accept_language=props.get_str("http.accept.language"),
            accept_charset=props.get_str("http.accept.charset"),
            content_limit=props.get_int("http.content.limit"),
        )
        return cls(
            http=http,
            max_size=max_size,
            is_part_of=props.get_str("warc.export.ispartof"),
            operator=props.get_str("http.agent.email"),
            description=props.get_str("http.agent.description"),
        )
