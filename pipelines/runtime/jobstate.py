"""What the running command is doing: its step, what it changes, how to go on.

When a command stops early, interrupted (``pipelines.runtime.interrupts``) or
refused by its storage (``pipelines.storage.failures``), its one line says
which step stopped, what stays as it was, and the command that goes on::

    beamcrawl: updatedb interrupted by SIGINT: crawl/crawldb is unchanged;
    to go on, run it again: beamcrawl updatedb crawl/crawldb crawl/segments/...

This module is where that is known. The CLI names the command
(:func:`begin`); ``crawl`` names each step of its rounds (:func:`step`);
the helpers that write the stored data record each change from when it
starts until it is published (:func:`changing`, :func:`published`):
``pipelines.storage.versions`` a crawldb or linkdb version,
``pipelines.storage.segments`` a new segment or a segment's parts. A
change not published when the command stops is removed by the job's own
clean-up, so "unchanged" holds.

Resuming a crawl, or a stale lock's detection, would read the same record.
"""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from pipelines.runtime import interrupts


@dataclass
class _Change:
    pending: str
    """What stays as it was while the change is not published."""
    done: str
    """What is true once it is."""
    where: str
    """The directory it is written in."""
    published: bool = False


@dataclass
class _Journal:
    command: str = ""
    argv: tuple[str, ...] = ()
    steps: list[str] = field(default_factory=list)
    changes: dict[str, _Change] = field(default_factory=dict)
    """By the database or segment changed, in the order they began."""
    completed: str = ""
    """What of the command is complete (``rounds 1 to 2``); "": nothing yet."""


_JOURNAL = _Journal()
"""The driver process's record (workers never write or read it)."""


def begin(command: str, argv: Sequence[str]) -> None:
    """A new command starts: ``beamcrawl command argv...``."""
    _JOURNAL.command, _JOURNAL.argv = command, tuple(argv)
    _JOURNAL.steps.clear()
    _JOURNAL.changes.clear()
    _JOURNAL.completed = ""


def completed(what: str) -> None:
    """``what`` of the command (``rounds 1 to 2``) is complete: the line says so."""
    _JOURNAL.completed = what


@contextlib.contextmanager
def step(name: str) -> Iterator[None]:
    """A named step of the command (``round 2: generate``) runs in the block.

    What the step changes is recorded afresh: the earlier steps' changes
    are done. A step that raises stays recorded: it is the one that stopped.
    A signal that came before and was lost stops the command here
    (:func:`pipelines.runtime.interrupts.checkpoint`).
    """
    interrupts.checkpoint()
    _JOURNAL.steps.append(name)
    _JOURNAL.changes.clear()
    yield
    _JOURNAL.steps.pop()


def changing(key: str, where: str, pending: str, done: str) -> None:
    """A change of ``key`` (a database, a segment) starts, written in ``where``.

    Args:
        key: what is changed, as a path.
        where: the directory the change is written in before it is published.
        pending: what holds until it is published (``crawl/crawldb is unchanged``).
        done: what holds once it is (``crawl/crawldb was updated``).
    """
    _JOURNAL.changes.pop(key, None)
    _JOURNAL.changes[key] = _Change(pending, done, where)


def published(key: str) -> None:
    """The change of ``key`` is published: readers see it."""
    change = _JOURNAL.changes.get(key)
    if change is not None:
        change.published = True


def writing() -> str | None:
    """Where the latest unpublished change is written; None if there is none."""
    pending = [c.where for c in _JOURNAL.changes.values() if not c.published]
    return pending[-1] if pending else None


def stopped_line(how: str, advice: str = "") -> str:
    """The one line of a command that stopped ``how`` (``interrupted by SIGINT``).

    ``advice`` comes before the command to run again (``free some space``).
    """
    where = f" in {_JOURNAL.steps[-1]}" if _JOURNAL.steps else ""
    again = shlex.join(["beamcrawl", _JOURNAL.command, *_JOURNAL.argv])
    go_on = f"{advice}, then run it again" if advice else "to go on, run it again"
    return f"beamcrawl: {_JOURNAL.command}{where} {how}: {state()}; {go_on}: {again}"


def state() -> str:
    """What the stopped command left: unchanged, or changed, piece by piece."""
    said = [c.done if c.published else c.pending for c in _JOURNAL.changes.values()]
    if _JOURNAL.completed:
        said.insert(0, f"{_JOURNAL.completed} completed")
    return ", ".join(said) if said else "nothing was changed"
