"""Transforms that are not a command of their own.

A round's fetch to update as one pipeline
(:mod:`~pipelines.transforms.fetchupdate`), one-shot fetches, page
processors, generate's ranking, URL states and the library's readers.
"""
