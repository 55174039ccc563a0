"""The protocol for a URL's scheme (Nutch's ProtocolFactory): http(s) and file.

``file:`` is offered only when ``protocol-file`` is in ``plugin.includes``,
as in Nutch, whose default leaves it out: a crawler on a shared machine
should not read its disk unless told to.
"""

from __future__ import annotations

from crawllib.config import HttpConfig
from crawllib.fetch.protocol import Protocol
from crawllib.fetch.protocol.file import FileProtocol
from crawllib.fetch.protocol.http import HttpProtocol


class Protocols:
    """One instance of each protocol, shared by every fetcher thread of a worker."""

    def __init__(self, config: HttpConfig) -> None:
        self._http = HttpProtocol(config)
        self._file = FileProtocol(config) if config.file_enabled else None

    def for_url(self, url: str) -> Protocol | None:
        """The protocol for ``url``'s scheme; None for schemes without one."""
        scheme = url.split(":", 1)[0].lower()
        if scheme in ("http", "https"):
            return self._http
        if scheme == "file":
            return self._file
        return None

    def close(self) -> None:
        """Release pooled connections."""
        self._http.close()
