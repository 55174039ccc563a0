# A Beam SDK worker image with beamcrawl installed, for Dataflow
# (--sdk_container_image) and for Flink or any portable runner
# (--environment_type DOCKER): the workers run beamcrawl's DoFns in it.
# Build it from the repository root:
#
#   docker build -t beamcrawl-sdk:0.1.0 .
#
# Dataflow pulls it from a registry its workers reach (Artifact Registry):
#
#   docker tag beamcrawl-sdk:0.1.0 REGION-docker.pkg.dev/PROJECT/REPO/beamcrawl-sdk:0.1.0
#   docker push REGION-docker.pkg.dev/PROJECT/REPO/beamcrawl-sdk:0.1.0
#   beamcrawl ... --runner DataflowRunner \
#       --sdk_container_image REGION-docker.pkg.dev/PROJECT/REPO/beamcrawl-sdk:0.1.0
#
# On Flink every TaskManager host pulls it:
#
#   --environment_type DOCKER --environment_config beamcrawl-sdk:0.1.0
#
# The base image's Beam must be the SDK's (pyproject.toml pins 2.62.0) and
# its Python the one beamcrawl runs with on the launching machine
# (docs/running-on-dataflow.md). The aws and gcp extras give the workers
# Beam's s3:// and gs:// filesystems.
FROM apache/beam_python3.11_sdk:2.62.0

COPY pyproject.toml setup.py README.md /opt/beamcrawl/
COPY crawllib /opt/beamcrawl/crawllib
COPY pipelines /opt/beamcrawl/pipelines
RUN pip install --no-cache-dir "/opt/beamcrawl[aws,gcp]" && rm -rf /opt/beamcrawl

# The base image's entrypoint (/opt/apache/beam/boot) starts the SDK worker.
