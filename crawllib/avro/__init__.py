"""Avro files without Beam: the WebPage encoder, the deflate codec, checks.

The schema itself is ``crawllib/schema/webpage.avsc``, read by
:mod:`crawllib.webpage`.
"""
