"""The crawl in figures and plots, for ``beamcrawl report`` (no Beam here).

:mod:`~crawllib.report.figures` counts WebPage records as they stream by
(crawldb, segments) in bounded memory; :mod:`~crawllib.report.hosts` keeps
the per-host tallies. :mod:`~crawllib.report.charts` and
:mod:`~crawllib.report.hostcharts` turn the figures into chart
specifications (:mod:`~crawllib.report.section`), which
:mod:`~crawllib.report.svg` draws as inline SVG and
:mod:`~crawllib.report.page` places on one self-contained HTML page.
"""
