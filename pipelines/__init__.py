"""beamcrawl's Beam jobs: one module per command, each a PTransform plus run(argv)."""
