"""``--no_auth`` for Google Cloud Storage too, not only for Dataflow's API.

Beam looks up Application Default Credentials the first time a job touches
``gs://``, retrying for about half a minute when there are none. With a GCS
emulator (``STORAGE_EMULATOR_HOST``) or a public bucket no credentials are
wanted: ``--no_auth`` makes Beam's GCS client anonymous at once.
"""

from __future__ import annotations

from apache_beam.options.pipeline_options import GoogleCloudOptions, PipelineOptions


def honour_no_auth(options: PipelineOptions) -> None:
    """With ``--no_auth``, GCS is reached without credentials (no lookup)."""
    if not options.view_as(GoogleCloudOptions).no_auth:
        return
    try:
        from apache_beam.internal.gcp import auth
    except ImportError:  # no apache-beam[gcp]: Beam has no GCS client either
        return
    credentials = auth._Credentials  # Beam caches them here, once per process
    with credentials._credentials_lock:
        credentials._credentials = None
        credentials._credentials_init = True
