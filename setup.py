"""Build script: the optional C walk over libxml2's tree; metadata is in pyproject.toml.

Dataflow stages a multi-module pipeline with ``--setup_file ./setup.py``.
``crawllib.parse._fastdom`` is compiled against the headers that lxml's wheel
ships (nothing links against libxml2). Without lxml or a C compiler at build
time the install goes on without it, and beamcrawl parses with
:mod:`crawllib.parse.htmldom` alone (:mod:`crawllib.parse.fastdom`).
"""

from setuptools import Extension, setup


def _lxml_headers() -> list[str]:
    try:
        import lxml
    except ImportError:  # the compile then fails, and is skipped
        return []
    return list(lxml.get_include())


setup(
    ext_modules=[
        Extension(
            "crawllib.parse._fastdom",
            ["crawllib/parse/_fastdom.c"],
            include_dirs=_lxml_headers(),
            optional=True,  # a failed compile leaves the pure-Python parse
        )
    ]
)
