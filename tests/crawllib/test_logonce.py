"""The first failures of a kind, logged once per process with their cause."""

import logging
import socket
import threading

import pytest
import requests

from crawllib import logonce
from crawllib.logonce import root_cause, warn_first

_LOG = logging.getLogger("tests.logonce")


def _messages(caplog):
    return [r.getMessage() for r in caplog.records if r.name == _LOG.name]


def test_the_first_of_a_kind_once_from_every_thread(caplog):
    def meet(n):
        for _ in range(50):
            warn_first(_LOG, "failed", "fetch of %s failed", f"u{n}",
                       cause="timeout", counter="Group/failed")  # fmt: skip

    threads = [threading.Thread(target=meet, args=(n,)) for n in range(8)]
    with caplog.at_level(logging.WARNING):
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    [message] = _messages(caplog)
    assert message.startswith("fetch of u")
    assert message.endswith(": timeout (further ones only counted as Group/failed)")
    assert logonce.logged(_LOG, "failed") == 1


def test_a_limit_logs_that_many_and_says_so_on_the_last(caplog):
    with caplog.at_level(logging.WARNING):
        logged = [warn_first(_LOG, "seed", "line %d", n, limit=3) for n in range(5)]
        warn_first(_LOG, "other", "another kind")

    assert logged == [True, True, True, False, False]
    assert _messages(caplog) == [
        "line 0",
        "line 1",
        "line 2 (further ones only counted)",
        "another kind (further ones only counted)",
    ]


def test_forget_starts_over(caplog):
    with caplog.at_level(logging.WARNING):
        warn_first(_LOG, "kind", "one")
        warn_first(_LOG, "kind", "two")
        logonce.forget()
        warn_first(_LOG, "kind", "three")
    assert [m.split(" ")[0] for m in _messages(caplog)] == ["one", "three"]


def test_root_cause_of_a_real_dns_failure():
    with pytest.raises(requests.ConnectionError) as failed:
        requests.get("http://nothing.beamcrawl.invalid/", timeout=5)

    cause = root_cause(failed.value)

    assert cause.startswith("gaierror: ")
    with pytest.raises(socket.gaierror) as direct:
        socket.getaddrinfo("nothing.beamcrawl.invalid", 80)
    assert cause == f"gaierror: {direct.value}"


def _read():
    try:
        raise OSError("disk gone")
    except OSError as exc:
        raise ValueError("cannot read") from exc


def test_root_cause_follows_explicit_and_implicit_chains():
    with pytest.raises(ValueError, match="cannot read") as failed:
        _read()
    assert root_cause(failed.value) == "OSError: disk gone"
    assert root_cause(KeyError()) == "KeyError"
