"""Silence Google's client libraries' FutureWarnings before Beam imports them.

Beam loads its GCS and BigQuery modules when the ``gcp`` extra is installed,
and Google's libraries then warn about grpcio and Python versions, which is
nothing a beamcrawl user can act on; the ``beamcrawl`` command filters the
same warnings (``pipelines/cli.py``).
"""

import warnings

warnings.filterwarnings("ignore", category=FutureWarning, module=r"google\.")
