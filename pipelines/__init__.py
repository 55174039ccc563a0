"""beamcrawl's Beam shell: one module per command, each a PTransform plus run(argv).

Every module at this level is a command (``pipelines/generate.py`` is
``beamcrawl generate`` and ``python -m pipelines.generate``); its command line
(parser and request, without Beam) is in :mod:`pipelines.cli`, with the
``beamcrawl`` command itself; the rest lives in three packages:
:mod:`pipelines.storage` (files, Avro parts, versions, locks, segments),
:mod:`pipelines.runtime` (options, runners, progress, interrupts) and
:mod:`pipelines.transforms` (transforms that are not a command of their own:
whole rounds, one-shot fetches, page processors). docs/architecture.md
draws the picture.
"""
