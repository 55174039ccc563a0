"""Shim for tools that still call setup.py.

Dataflow stages a multi-module pipeline with ``--setup_file ./setup.py``; all
metadata lives in pyproject.toml.
"""

from setuptools import setup

setup()
