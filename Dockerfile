# A Beam SDK worker image with beamcrawl installed, for Flink (or any
# portable runner) with --environment_type DOCKER: each TaskManager starts
# this image for its Python workers. Build it from the repository root:
#
#   docker build -t beamcrawl-sdk:0.1.0 .
#
# and run jobs with
#
#   --environment_type DOCKER --environment_config beamcrawl-sdk:0.1.0
#
# The base image's Beam must be the SDK's (pyproject.toml pins 2.62.0) and
# its Python the one beamcrawl runs with on the launching machine.
FROM apache/beam_python3.11_sdk:2.62.0

COPY pyproject.toml setup.py README.md /opt/beamcrawl/
COPY crawllib /opt/beamcrawl/crawllib
COPY pipelines /opt/beamcrawl/pipelines
RUN pip install --no-cache-dir /opt/beamcrawl && rm -rf /opt/beamcrawl

# The base image's entrypoint (/opt/apache/beam/boot) starts the SDK worker.
