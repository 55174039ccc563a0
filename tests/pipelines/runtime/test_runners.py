"""The checks made before a job runs, against real (fake-Flink) HTTP servers."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from apache_beam.options.pipeline_options import PipelineOptions, PortableOptions
from apache_beam.runners.dataflow.dataflow_runner import DataflowRuntimeException

from crawllib.errors import RunnerError
from pipelines.runtime import runners
from tests.sites import refused_url


def _serve_overview(overview):
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps(overview).encode()
            self.send_response(200 if self.path == "/overview" else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.7", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def fake_flink():
    servers = []

    def start(**overview):
        server = _serve_overview(
            {"taskmanagers": 1, "flink-version": "1.19.3", **overview}
        )
        servers.append(server)
        return f"127.0.0.7:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_a_running_cluster_of_the_right_version_passes(fake_flink):
    master = fake_flink()
    assert runners.check_flink_cluster(master, "1.19")["taskmanagers"] == 1


def test_another_flink_version_is_refused(fake_flink):
    master = fake_flink(**{"flink-version": "1.20.3"})
    with pytest.raises(
        RunnerError, match=r"runs Flink 1\.20\.3, but --flink_version is 1\.19"
    ):
        runners.check_flink_cluster(master, "1.19")


def test_a_cluster_without_taskmanagers_is_refused(fake_flink):
    master = fake_flink(taskmanagers=0)
    with pytest.raises(RunnerError, match="has no TaskManager"):
        runners.check_flink_cluster(master, "1.19")


def test_no_cluster_is_one_line_naming_the_address():
    address = refused_url().split("/")[2]
    with pytest.raises(
        RunnerError, match=f"no Flink cluster answers at http://{address}"
    ):
        runners.prepare(
            PipelineOptions(["--runner=FlinkRunner", f"--flink_master={address}"])
        )


def test_a_missing_job_server_jar_is_refused_before_anything_starts(
    fake_flink, tmp_path
):
    jar = tmp_path / "job-server.jar"
    flags = [
        "--runner=flink",
        f"--flink_master={fake_flink()}",
        "--flink_version=1.19",  # the fake's; Beam's default differs by release
        f"--flink_job_server_jar={jar}",
    ]
    with pytest.raises(RunnerError, match=r"job-server\.jar: no such file"):
        runners.prepare(PipelineOptions(flags))


def test_a_job_endpoint_nobody_listens_on_is_refused():
    address = refused_url().split("/")[2]
    flags = ["--runner=PortableRunner", f"--job_endpoint={address}"]
    with pytest.raises(RunnerError, match=f"no job service .* listens at {address}"):
        runners.prepare(PipelineOptions(flags))


def test_the_direct_runner_needs_nothing():
    options = PipelineOptions(["--direct_num_workers=2"])
    assert runners.prepare(options) is options
    assert options.view_as(PortableOptions).job_endpoint is None


def test_a_failed_portable_job_is_told_by_its_first_reason_line():
    failed = RuntimeError(
        "Pipeline BeamApp-x failed in state FAILED: java.io.IOException: lost\n\tat a.b"
    )
    assert runners.failed_job_reason(failed) == "java.io.IOException: lost"
    assert runners.failed_job_reason(RuntimeError("some bug")) is None
    assert runners.failed_job_reason(ValueError("failed in state FAILED: x")) is None


def test_a_failed_dataflow_job_is_told_by_its_first_error_line():
    # the message DataflowPipelineResult.wait_until_finish raises with
    failed = DataflowRuntimeException(
        "Dataflow pipeline failed. State: FAILED, Error:\n"
        "Workflow failed. Causes: S05:Fetch/FetchPartition failed.\n  at ...",
        None,
    )
    reason = runners.failed_job_reason(runners.dataflow_failure(failed))
    assert reason == "Workflow failed. Causes: S05:Fetch/FetchPartition failed."
    no_message = DataflowRuntimeException(
        "Dataflow pipeline failed. State: CANCELLED, Error:\nNone", None
    )
    assert str(runners.dataflow_failure(no_message)) == (
        "Dataflow pipeline failed. State: CANCELLED,"
    )


def test_a_staging_command_beam_ran_is_told_by_its_first_output_line():
    # the message apache_beam.utils.processes.check_output raises with
    failed = RuntimeError(
        "Full trace: Traceback (most recent call last):\n"
        "subprocess.CalledProcessError: Command '['/venv/bin/python', '-m', "
        "'build']' returned non-zero exit status 1.\n"
        "subprocess.CalledProcessError: Command '['/venv/bin/python', 'setup.py', "
        "'sdist', '--dist-dir', '/tmp/x']' returned non-zero exit status 2.\n, "
        "output of the failed child process b'\\nerror: bad license\\nmore' "
    )
    assert runners.staging_failure_reason(failed) == (
        "python setup.py sdist failed (exit status 2): error: bad license"
    )
    assert runners.staging_failure_reason(RuntimeError("some bug")) is None


def test_only_the_direct_runner_in_this_process_is_local():
    is_local = runners.is_local
    assert is_local(PipelineOptions([]))
    assert is_local(PipelineOptions(["--runner", "DirectRunner"]))
    assert not is_local(PipelineOptions(["--runner", "FlinkRunner"]))
    assert not is_local(PipelineOptions(["--runner", "DataflowRunner"]))
    assert not is_local(
        PipelineOptions(["--runner", "PortableRunner", "--job_endpoint", "x:1"])
    )
