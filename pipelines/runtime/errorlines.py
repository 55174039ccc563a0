"""The one line a command prints for a user error or a failed job.

Shared by the command line (``pipelines/cli/__init__.py``) and a crawl's side jobs
(``pipelines/runtime/sidejob.py``), so that a step fails with the same line
in the crawl's process as in a child process.
"""

from __future__ import annotations

from crawllib.errors import CrawlError
from pipelines.storage import failures as storefailures


def error_line(command: str, exc: BaseException) -> str | None:
    """The one line ``command`` prints for a user error or a failed job.

    None for anything else: a bug keeps its traceback.
    """
    if isinstance(exc, CrawlError):
        return f"beamcrawl: {exc}"
    store = storefailures.failure(exc)
    if store is not None:
        return store.line()
    if isinstance(exc, RuntimeError):
        from pipelines.runtime import runners  # Beam: only once a job failed

        reason = runners.failed_job_reason(exc)
        if reason is not None:
            return f"beamcrawl: {command}: the job failed: {reason}"
        staging = runners.staging_failure_reason(exc)
        if staging is not None:
            return f"beamcrawl: {command}: Beam could not stage the job: {staging}"
    return None
