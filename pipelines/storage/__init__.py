"""Storage: where a crawl's records live and how a job replaces them.

- :mod:`~pipelines.storage.fs`: files and directories (exists, remove, an
  output directory undone on failure, scratch space, reading as stored).
- :mod:`~pipelines.storage.paths`: quoting literal paths in Beam's globs.
- :mod:`~pipelines.storage.partfiles`: directories of WebPage Avro part
  files, checked whole before any job reads them.
- :mod:`~pipelines.storage.io`: the Beam transforms that read and write them.
- :mod:`~pipelines.storage.versions` and :mod:`~pipelines.storage.locks`:
  a crawldb's (or linkdb's) published versions and the lock a job holds
  while it writes the next (:func:`~pipelines.storage.versions.replacing`).
  :mod:`~pipelines.storage.lockowner`: who wrote a lock, so that a dead
  holder's (stale) lock is known as such.
- :mod:`~pipelines.storage.segments`: a segment's parts, staged and published.
- :mod:`~pipelines.storage.damaged` and :mod:`~pipelines.storage.failures`:
  damaged files found and salvaged; a store's errors as one line.

Every path goes through Beam's ``FileSystems``, so the same code serves
local disk, ``s3://`` and ``gs://``.
"""
