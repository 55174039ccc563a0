"""The dependencies beamcrawl imports, imported without their notices.

``beamcrawl/__init__.py`` imports everything it re-exports inside
:func:`imports_quieted` (``pipelines/runtime/quiet.py``): Google's client
libraries' ``FutureWarning`` s and Beam's ``apitools not found`` log line,
which Beam's import sets off, are not shown, and the process's warnings
filters and root logger are afterwards as they were before ``import
beamcrawl``. Nothing else happens on import.
"""

from pipelines.runtime.quiet import imports_quieted

__all__ = ["imports_quieted"]
