"""beamcrawl's crawl logic: plain Python, no Beam.

Every function here takes and returns plain values (WebPage dicts, URLs,
bytes) so it can be unit-tested without a runner; ``pipelines`` wires them
into Beam transforms.
"""

__version__ = "0.1.0"
