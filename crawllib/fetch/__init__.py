"""Fetching: the fetcher and its polite per-host queues, protocols, redirects.

``beamcrawl fetch`` is :mod:`crawllib.fetch.fetch`; one-shot fetches of
URLs without a crawldb are :mod:`crawllib.fetch.oneshot`.
"""
