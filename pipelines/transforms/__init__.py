"""Transforms that are not a command of their own.

Whole rounds (:mod:`~pipelines.transforms.crawlround`), one-shot fetches,
page processors, generate's ranking, URL states and the library's readers.
"""
