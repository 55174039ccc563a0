"""Importing beamcrawl changes no other library; the ``beamcrawl`` command does.

Nor the process's warnings filters and logging, and it prints nothing.

Each check runs in a fresh interpreter (``sys.executable -c``): it captures
Beam's, boto3's (through Beam's S3 client) and fastavro's functions first,
then imports or runs beamcrawl, and compares by identity.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_CAPTURE = """
import json, sys
import fastavro._read_py, fastavro.read
from apache_beam.transforms import core, userstate

def capture():
    found = {
        "userstate.get_dofn_specs": userstate.get_dofn_specs,
        "core.get_function_args_defaults": core.get_function_args_defaults,
    }
    try:
        from apache_beam.io.aws.clients.s3 import boto3_client
    except ImportError:  # no apache-beam[aws]
        pass
    else:
        found["boto3_client.Client.__init__"] = boto3_client.Client.__init__
    for module in (fastavro.read, fastavro._read_py):
        for codec, reader in module.BLOCK_READERS.items():
            found[f"{module.__name__}.BLOCK_READERS[{codec}]"] = reader
    return found

before = capture()
"""

_REPORT = """
after = capture()
print(json.dumps({
    "changed": sorted(k for k in before.keys() | after.keys()
                      if before.get(k) is not after.get(k)),
    "captured": sorted(before),
}))
"""


def _probe(body: str, cwd: Path) -> dict[str, list[str]]:
    script = _CAPTURE + textwrap.dedent(body) + _REPORT
    done = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", script],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report: dict[str, list[str]] = json.loads(done.stdout.strip().splitlines()[-1])
    assert "userstate.get_dofn_specs" in report["captured"]
    assert "fastavro.read.BLOCK_READERS[deflate]" in report["captured"]
    return report


def test_beamcrawl_importing_every_module_changes_no_other_library(tmp_path):
    report = _probe(
        """
        import importlib, pkgutil
        import beamcrawl, crawllib, pipelines
        for package in (beamcrawl, crawllib, pipelines):
            prefix = package.__name__ + "."
            for module in pkgutil.walk_packages(package.__path__, prefix):
                importlib.import_module(module.name)
        assert "pipelines.storage.io" in sys.modules
        assert "pipelines.runtime.beamspeed" in sys.modules
        """,
        tmp_path,
    )
    assert report["changed"] == []


def test_beamcrawl_a_pipeline_through_the_library_changes_no_other_library(tmp_path):
    report = _probe(
        """
        import apache_beam as beam
        import beamcrawl as bc
        from apache_beam.testing.util import assert_that, equal_to

        config = bc.CrawlConfig.from_dict({"http.agent.name": "probe"})
        with beam.Pipeline() as p:
            pages = (
                p | beam.Create(["http://example.com/a", "http://example.com/b"])
                | bc.Inject(config, now_ms=1)
            )
            _ = pages | bc.WriteWebPages("db")
        with beam.Pipeline() as p:
            urls = p | bc.ReadWebPages("db/part-*.avro") | beam.Map(lambda x: x["url"])
            assert_that(urls, equal_to(["http://example.com/a", "http://example.com/b"]))
        """,
        tmp_path,
    )
    assert report["changed"] == []


def test_beamcrawl_install_speedups_is_the_explicit_opt_in(tmp_path):
    report = _probe(
        """
        import beamcrawl
        beamcrawl.install_speedups()
        beamcrawl.install_speedups()  # idempotent
        from pipelines.runtime import beamspeed
        assert beamspeed.installed()
        """,
        tmp_path,
    )
    beam = {"userstate.get_dofn_specs", "core.get_function_args_defaults"}
    s3 = {"boto3_client.Client.__init__"} & set(report["captured"])
    assert set(report["changed"]) == beam | s3  # fastavro's readers untouched


def test_beamcrawl_the_command_installs_them_before_its_first_pipeline(tmp_path):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://127.0.0.1:9/\n")  # refused at once: a failed fetch
    report = _probe(
        f"""
        import apache_beam as beam
        from pipelines import cli
        from pipelines.runtime import beamspeed

        runs = []
        run = beam.Pipeline.run

        def recording_run(self, *args, **kwargs):
            runs.append(beamspeed.installed())
            return run(self, *args, **kwargs)

        beam.Pipeline.run = recording_run
        argv = ["crawl", "--seeds", {str(seeds)!r}, "crawl", "1",
                "-Dhttp.agent.name=probe"]
        assert cli.main(argv) == 0
        assert len(runs) >= 4 and all(runs), runs  # inject ... updatedb
        beam.Pipeline.run = run
        """,
        tmp_path,
    )
    assert "userstate.get_dofn_specs" in report["changed"]


@pytest.mark.parametrize("argv", [["--version"], ["search", "--help"]])
def test_beamcrawl_a_command_that_runs_no_pipeline_does_not_import_beam(tmp_path, argv):
    script = textwrap.dedent(
        f"""
        import sys
        from pipelines import cli
        try:
            cli.main({argv!r})
        except SystemExit:
            pass
        print("apache_beam" in sys.modules)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip().splitlines()[-1] == "False"


DEPENDENCY_NOTICE = re.compile(r"\b\w*Warning: |apitools not found")
"""A warning's line as Python prints it (``FutureWarning: ...``), or Beam's log."""


def test_beamcrawl_importing_it_leaves_warnings_and_logging_as_they_were(tmp_path):
    # a plain interpreter (no -W): Google's clients warn when Beam is imported
    script = textwrap.dedent(
        """
        import json, logging, warnings
        warnings.filterwarnings("error", category=UserWarning, module="mine")
        root = logging.getLogger()
        before = (list(warnings.filters), list(root.handlers), list(root.filters))
        import beamcrawl
        import apache_beam  # the user's own, after beamcrawl: cached, quiet
        after = (list(warnings.filters), list(root.handlers), list(root.filters))
        print(json.dumps({"same": before == after, "count": len(before[0])}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout.strip().splitlines()[-1])["same"] is True
    assert not DEPENDENCY_NOTICE.search(done.stderr), done.stderr[-3000:]
    assert done.stderr == ""
