"""The crawldb's and linkdb's rules, one module per command.

``beamcrawl inject`` is :mod:`crawllib.db.inject`, ``generate``
:mod:`crawllib.db.generate`, ``updatedb`` :mod:`crawllib.db.updatedb`,
``readdb`` :mod:`crawllib.db.readdb`, ``invertlinks``
:mod:`crawllib.db.invertlinks`, ``dedup`` :mod:`crawllib.db.dedup`; fetch
schedules and scoring are what updatedb and generate share.
"""
