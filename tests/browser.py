"""A real headless browser for the tests: Debian's chromium over the DevTools protocol.

:func:`ensure_chromium` installs the ``chromium`` package when it is missing
(as ``.ci/run`` does; CI runs as root with apt reachable). :class:`Browser`
starts it headless on 127.0.0.1 with a throw-away profile, and
:meth:`Browser.load` opens a page, waits for its load event and returns what
the page logged and requested beside the value of a script run in it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

CHROMIUM = "chromium"
_START_S = 60  # how long chromium may take to open its DevTools port
_REPLY_S = 120  # how long one DevTools call may take


def ensure_chromium() -> str:
    """The chromium executable, installed with apt-get when missing."""
    found = shutil.which(CHROMIUM)
    if found:
        return found
    install = ["apt-get", "install", "-y", "-q", CHROMIUM]
    if subprocess.run(install, capture_output=True, check=False).returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], capture_output=True, check=True)
        subprocess.run(install, capture_output=True, check=True)
    found = shutil.which(CHROMIUM)
    if not found:
        raise RuntimeError("apt-get installed chromium, yet it is not on PATH")
    return found


@dataclass
class Loaded:
    """A loaded page: the script's value, console errors, requested URLs."""

    value: Any
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


class Browser:
    """Headless chromium on 127.0.0.1, driven over its DevTools websocket."""

    def __init__(self) -> None:
        self._profile = tempfile.mkdtemp(prefix="chromium-")
        self._process = subprocess.Popen(
            [
                ensure_chromium(), "--headless", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--disable-extensions",
                "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
                f"--user-data-dir={self._profile}", "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self._port = self._wait_for_port()

    def _wait_for_port(self) -> int:
        active = Path(self._profile) / "DevToolsActivePort"
        deadline = time.monotonic() + _START_S
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"chromium exited with {self._process.returncode}")
            lines = active.read_text().split() if active.exists() else []
            if lines:
                return int(lines[0])
            time.sleep(0.1)
        raise RuntimeError("chromium did not open its DevTools port")

    def _page_socket(self) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{self._port}/json/list") as r:
            targets = json.load(r)
        return next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")

    def load(self, url: str, script: str) -> Loaded:
        """Open ``url``, wait for its load event, evaluate ``script`` there."""
        with connect(self._page_socket(), max_size=None, open_timeout=_START_S) as ws:
            session = _Session(ws)
            for domain in ("Page", "Runtime", "Log", "Network"):
                session.call(f"{domain}.enable")
            session.call("Page.navigate", url=url)
            session.wait_for("Page.loadEventFired")
            reply = session.call(
                "Runtime.evaluate", expression=script, returnByValue=True
            )
            if "exceptionDetails" in reply:
                raise RuntimeError(f"the script failed: {reply['exceptionDetails']}")
            return Loaded(reply["result"].get("value"), *session.logged())

    def close(self) -> None:
        """Stop chromium and remove its profile."""
        self._process.terminate()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        shutil.rmtree(self._profile, ignore_errors=True)


class _Session:
    """Calls and events on one page's DevTools connection."""

    def __init__(self, ws: ClientConnection) -> None:
        self._ws = ws
        self._next_id = 0
        self._events: list[dict[str, Any]] = []

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        call_id = self._next_id
        self._send(call_id, method, params)
        while True:
            message = self._receive()
            if message.get("id") == call_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message["result"]
                return result

    def _send(self, call_id: int, method: str, params: dict[str, Any]) -> None:
        message = {"id": call_id, "method": method, "params": params}
        self._ws.send(json.dumps(message))

    def wait_for(self, event: str) -> None:
        while not any(e.get("method") == event for e in self._events):
            self._receive()

    def _receive(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self._ws.recv(timeout=_REPLY_S))
        if "method" in message:
            self._events.append(message)
        if message.get("method") == "Page.javascriptDialogOpening":
            # a dialog holds the page's load event: dismiss it, report it
            self._next_id += 1
            self._send(self._next_id, "Page.handleJavaScriptDialog", {"accept": False})
        return message

    def logged(self) -> tuple[list[str], list[str]]:
        """(console errors and uncaught exceptions, URLs the page requested)."""
        errors, requests = [], []
        for event in self._events:
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params["type"] in (
                "error",
                "assert",
            ):
                errors.append(json.dumps(params["args"]))
            elif method == "Runtime.exceptionThrown":
                errors.append(json.dumps(params["exceptionDetails"]))
            elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
                errors.append(params["entry"]["text"])
            elif method == "Page.javascriptDialogOpening":
                errors.append(f"a script opened a dialog: {params['message']}")
            elif method == "Network.requestWillBeSent":
                requests.append(params["request"]["url"])
        return errors, requests
