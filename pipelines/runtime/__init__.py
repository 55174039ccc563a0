"""Running a command: options, runners, progress, interrupts, job state.

Nothing here is a crawl step; the commands in :mod:`pipelines` use it.
"""
