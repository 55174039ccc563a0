"""Storage: files and Avro part directories, versions, locks, segments.

Every path goes through Beam's ``FileSystems``, so the same code serves
local disk, ``s3://`` and ``gs://``.
"""
