"""Every command builds its Dataflow job offline: dry runs on a crawl in GCS.

The data is real: the DirectRunner crawls the demo site for a round into a
bucket on a GCS emulator and generates one more segment (``beamcrawl``
subprocesses with the store's environment). Each command then runs in this
process with ``--runner DataflowRunner --dry_run=True`` and the options a
real Dataflow job takes (a project and a bucket Beam accepts, a region, the
SDK container; ``--no_auth``: no credentials): Beam's DataflowRunner builds
the job and submits nothing. For each command the test checks: exit 0 and
the dry-run line; the command's steps in the job file, by label; no local
path anywhere in the job, pickled payloads included; the SDK container as
the only environment and no parse worker processes (local-only features);
and every object in the bucket as it was (nothing ran, nothing installed,
every lock released).

Not pipelines, so not dry-run here: parsechecker, normalizerchecker and
filterchecker work in the launching process (with the same flags they do
their work and build no job); demo serves its site on this machine's
loopback, which Dataflow's workers cannot reach, and refuses Dataflow.
"""

from __future__ import annotations

import importlib.metadata
import io
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import apache_beam as beam
import pytest
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import PipelineOptions

from crawllib.errors import DryRunDone
from pipelines.cli import main
from pipelines.demo import DemoSite
from pipelines.parse import _ParseFn
from pipelines.runtime import dryrun, gcpauth
from pipelines.transforms.seedfiles import ReadSeeds
from tests import dataflowjobs
from tests.objectstores import Store, StoreServer

REPO = Path(__file__).resolve().parents[2]
REGION = "us-central1"
IMAGE = "us-central1-docker.pkg.dev/beamcrawl-test/beamcrawl/beamcrawl-sdk:0.1.0"
AGENT = "-Dhttp.agent.name=beamcrawl-test"
SUBMISSION_ENV = "submission_environment_dependencies.txt"
"""Beam stages the launcher's ``pip freeze`` with every Dataflow job."""
ON_THE_CRAWL = pytest.mark.slow  # the crawl, then 13 dry runs: about 30 s in all


@dataclass(frozen=True)
class Crawled:
    """A crawl directory on the emulator after a round and one more generate."""

    store: Store
    main_url: str
    fetched: str
    """A fetched and parsed segment."""
    generated: str
    """A segment holding only its fetch list."""

    def url(self, *parts: str) -> str:
        return self.store.url(*parts)

    @property
    def crawldb(self) -> str:
        return self.url("crawl", "crawldb")


@pytest.fixture(scope="module")
def crawled(gcs_server: StoreServer) -> Iterator[Crawled]:
    store = gcs_server.bucket()
    with pytest.MonkeyPatch.context() as patch:
        for name, value in store.env.items():
            patch.setenv(name, value)
        store.use()
        site = DemoSite().start()
        try:
            _write(store.url("seeds", "seeds.txt"), site.url("main") + "/\n")
            _beamcrawl(store, "crawl", "--seeds", store.url("seeds"),
                       store.url("crawl"), "1", "-Dfetcher.server.delay=0")  # fmt: skip
            _beamcrawl(store, "generate", store.url("crawl", "crawldb"),
                       store.url("crawl", "segments"))  # fmt: skip
        finally:
            site.stop()
        segments = _segments(store)
        fetched = [s for s, parts in segments.items() if "fetch" in parts]
        generated = [s for s, parts in segments.items() if parts == {"generate"}]
        assert len(fetched) == len(generated) == 1, segments
        yield Crawled(store, site.url("main") + "/", fetched[0], generated[0])


def _write(path: str, text: str) -> None:
    with FileSystems.create(
        path, compression_type=CompressionTypes.UNCOMPRESSED
    ) as out:
        out.write(text.encode())


def _beamcrawl(store: Store, *args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pipelines.cli", *args, AGENT, *store.flags],
        env=store.process_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]


def _segments(store: Store) -> dict[str, set[str]]:
    pattern = store.url("crawl", "segments", "*", "*", "part-*")
    found: dict[str, set[str]] = {}
    for meta in FileSystems.match([pattern])[0].metadata_list:
        segment, part = meta.path.rsplit("/", 2)[:2]
        found.setdefault(segment, set()).add(part)
    return found


def _objects(store: Store) -> dict[str, tuple[int, float]]:
    """Every object in the bucket: its size and update time."""
    matches = FileSystems.match([store.url("**")])[0].metadata_list
    return {m.path: (m.size_in_bytes, m.last_updated_in_seconds) for m in matches}


def _dataflow_flags(store: Store, job_file: str, *deploy: str) -> list[str]:
    return [
        "--runner", "DataflowRunner", "--dry_run=True", "--region", REGION,
        "--temp_location", store.url("tmp"), "--dataflow_job_file", job_file,
        *store.flags, *(deploy or ("--sdk_container_image", IMAGE)),
    ]  # fmt: skip


def _read_job(path: str) -> dict[str, Any]:
    with FileSystems.open(path) as job:
        described: dict[str, Any] = json.loads(job.read())
        return described


def _local_roots(tmp: Path) -> list[str]:
    """Where local paths start: temp dirs (the tests' too), the repo, the home."""
    return sorted({tempfile.gettempdir(), str(tmp), str(REPO), str(Path.home())})


Argv = Callable[[Crawled], list[str]]
CASES: dict[str, tuple[Argv, str, set[str]]] = {
    "inject": (
        lambda c: ["inject", c.crawldb, c.url("seeds")],
        "inject",
        # into the crawldb bucket by bucket: only the injected pages are sorted
        {"ReadSeeds/ReadLines", "Inject/ParseSeeds", "Merge/SortByUrl/SpillRuns0",
         "Merge/SortByUrl/GroupByBucket", "Merge/MergeBuckets"},
    ),
    "generate": (
        lambda c: ["generate", c.crawldb, c.url("crawl", "segments")],
        "generate",
        {"ReadCrawlDb", "Generate/Select", "Generate/Emit", "WriteSegment1"},
    ),
    "fetch": (
        lambda c: ["fetch", c.generated, "--parse"],
        "fetch",
        {"ReadFetchList", "Fetch/FetchPartition", "Parse/ParsePages", "WriteFetched",
         "WriteParsed"},
    ),
    "parse": (
        lambda c: ["parse", c.fetched],
        "parse",
        {"ReadFetched", "Parse/ParsePages", "WriteParsed"},
    ),
    "updatedb": (
        lambda c: ["updatedb", c.crawldb, c.fetched],
        "updatedb",
        # bucket by bucket: the old crawldb (not bucketed yet) sorted in, then merged
        {"ReadFetch0", "ReadParse0", "UpdateDb/SortRecords/SpillRuns0",
         "UpdateDb/ChooseAndLink",
         "UpdateDb/SortByUrl/GroupByBucket", "UpdateDb/MergeBuckets"},
    ),
    "invertlinks": (
        lambda c: ["invertlinks", c.url("crawl", "linkdb"), c.fetched],
        "invertlinks",
        # bucket by bucket: the crawl's bucketed linkdb merged, renamed targets found
        {"ReadParse0", "InvertLinks/Invert0", "InvertLinks/FindRenamed",
         "InvertLinks/SortByTarget/GroupByBucket", "InvertLinks/MergeBuckets"},
    ),
    "dedup": (
        lambda c: ["dedup", c.crawldb],
        "dedup",
        # the crawl's crawldb is bucketed: marked bucket by bucket
        {"Dedup/ReadEntries", "Dedup/SortByGroup/GroupByBucket",
         "Dedup/ChooseDuplicates", "Dedup/MarkBuckets"},
    ),
    "readdb --stats": (
        lambda c: ["readdb", c.crawldb, "--stats"],
        "readdb",
        {"ReadCrawlDb", "Stats/Quantiles", "WriteReport"},
    ),
    "readdb --dump": (
        lambda c: ["readdb", c.crawldb, "--dump", c.url("dump")],
        "readdb",
        {"ReadCrawlDb", "ToJson", "WriteDump"},
    ),
    "readdb --url": (
        lambda c: ["readdb", c.crawldb, "--url", c.main_url],
        "readdb",
        {"ReadCrawlDb", "FindUrl", "Render", "WritePage"},
    ),
    "readseg --dump": (
        lambda c: ["readseg", c.fetched, "--dump", c.url("segdump")],
        "readseg",
        {"ReadGenerate", "ReadFetch", "ReadParse", "WriteParse"},
    ),
    "readseg --list": (
        lambda c: ["readseg", "--list", "--dir", c.url("crawl", "segments")],
        "readseg",
        {"ReadGenerate0", "ReadParse0", "ReadGenerate1", "Stats/Sum", "WriteStats"},
    ),
    # a crawl builds its first job, inject, and stops: the rounds read its output
    "crawl": (
        lambda c: ["crawl", "--seeds", c.url("seeds"), c.url("crawl2"), "2"],
        "inject",
        {"ReadSeeds/ReadLines", "Inject/ParseSeeds", "WriteCrawlDb"},
    ),
}  # fmt: skip


@ON_THE_CRAWL
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_command_builds_its_dataflow_job_and_changes_nothing(
    case, crawled, tmp_path, capsys
):
    argv, job_name, steps = CASES[case]
    command = argv(crawled)[0]
    # the crawl's job file goes to the bucket, the others' to local disk
    job_file = (
        crawled.url("jobs", "crawl.json")
        if case == "crawl"
        else str(tmp_path / "job.json")
    )
    before = _objects(crawled.store)
    capsys.readouterr()

    code = main([*argv(crawled), AGENT, *_dataflow_flags(crawled.store, job_file)])

    err = capsys.readouterr().err
    assert code == 0, err
    job = _read_job(job_file)
    line = (
        f"beamcrawl: {command}: dry run: Dataflow job of {job_name} built "
        f"({dataflowjobs.leaf_count(job)} transforms), written to {job_file}; "
        "nothing ran or was installed"
    )
    assert any(printed.startswith(line) for printed in err.splitlines()), err
    assert steps <= dataflowjobs.labels(job)
    _assert_nothing_local(job, tmp_path, crawled.store)
    after = _objects(crawled.store)
    assert {path: after.get(path) for path in before} == before
    assert set(after) - set(before) == ({job_file} if case == "crawl" else set())


def _assert_nothing_local(job: dict[str, Any], tmp_path: Path, store: Store) -> None:
    """No local path, no local-only feature in what Dataflow would get."""
    pickled = dataflowjobs.pickles(job)
    ours = (b"pipelines.", b"crawllib.")  # beamcrawl's classes, in the pickles
    assert any(name in blob for blob in pickled for name in ours), "nothing decoded"
    roots = _local_roots(tmp_path)
    assert dataflowjobs.local_paths([job["job"], job["pipeline"]], roots) == set()
    assert dataflowjobs.container_images(job) == {IMAGE}
    staged = {item["target"].rsplit("/", 1)[-1] for item in job["staged_files"]}
    assert staged == {SUBMISSION_ENV}
    assert all(
        item["target"].startswith(store.url("tmp", "")) for item in job["staged_files"]
    )
    processes = [
        fn._config.processes
        for _, fn in dataflowjobs.dofns(job)
        if isinstance(fn, _ParseFn)
    ]
    assert processes == [0] * len(processes)  # parse worker processes: local only
    if "Parse/ParsePages" in dataflowjobs.labels(job):
        assert processes


@ON_THE_CRAWL
def test_a_local_path_in_a_job_is_found(gcs_store, tmp_path, monkeypatch):
    # the commands refuse local data paths on Dataflow (below), so the
    # detector is shown a job built directly, reading a local seed file
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://example.com/\n")
    job_file = str(tmp_path / "job.json")
    for key, value in gcs_store.env.items():
        monkeypatch.setenv(key, value)
    options = PipelineOptions(_dataflow_flags(gcs_store, job_file))
    gcpauth.honour_no_auth(options)
    FileSystems.set_options(options)

    with beam.Pipeline(options=options) as pipeline:
        _ = pipeline | ReadSeeds([str(seeds)])
    with pytest.raises(DryRunDone):
        dryrun.finish(pipeline, "inject")

    job = _read_job(job_file)
    found = dataflowjobs.local_paths([job["pipeline"]], _local_roots(tmp_path))
    assert found == {str(seeds)}


def test_local_data_paths_are_refused_on_dataflow(gcs_store, tmp_path, capsys):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://example.com/\n")
    flags = _dataflow_flags(gcs_store, str(tmp_path / "job.json"))
    cases = [
        ["inject", gcs_store.url("crawldb"), str(seeds)],
        ["inject", str(tmp_path / "crawldb"), gcs_store.url("seeds.txt")],
        ["updatedb", gcs_store.url("crawldb"), gcs_store.url("s1"), str(tmp_path)],
        ["readdb", gcs_store.url("crawldb"), "--dump", str(tmp_path / "out")],
    ]
    for args in cases:
        capsys.readouterr()
        assert main([*args, AGENT, *flags]) == 2, args
        (line,) = capsys.readouterr().err.strip().splitlines()
        assert line.startswith(f"beamcrawl: {args[0]}: /"), line
        assert "which Dataflow's workers cannot read or write" in line


def _setuptools_major() -> int:
    return int(importlib.metadata.version("setuptools").split(".")[0])


SETUP_PY = str(REPO / "setup.py")


@ON_THE_CRAWL
def test_setup_file_package_is_staged_instead_of_a_container(crawled, tmp_path, capsys):
    # Beam builds the package with the launcher's setuptools; pyproject's
    # license string needs setuptools>=77, which the gcp extra requires
    assert _setuptools_major() >= 77
    job_file = str(tmp_path / "job.json")
    flags = _dataflow_flags(crawled.store, job_file, "--setup_file", SETUP_PY)

    code = main(["dedup", crawled.crawldb, AGENT, *flags])

    assert code == 0, capsys.readouterr().err
    job = _read_job(job_file)
    staged = {item["target"].rsplit("/", 1)[-1] for item in job["staged_files"]}
    assert staged == {SUBMISSION_ENV, "workflow.tar.gz"}
    assert [
        image.rsplit("/", 1)[-1] for image in dataflowjobs.container_images(job)
    ] == ["beam_python3.11_sdk:2.62.0"]
    assert dataflowjobs.local_paths([job["pipeline"]], _local_roots(tmp_path)) == set()


@ON_THE_CRAWL
def test_a_setup_file_beam_cannot_package_is_one_line(crawled, tmp_path, capfd):
    broken = tmp_path / "project" / "setup.py"
    broken.parent.mkdir()
    broken.write_text("raise SystemExit('this package does not build')\n")
    flags = _dataflow_flags(crawled.store, str(tmp_path / "job.json"),
                            "--setup_file", str(broken))  # fmt: skip

    code = main(["dedup", crawled.crawldb, AGENT, *flags])

    err = capfd.readouterr().err  # the build's own messages too
    assert code == 1
    assert (
        err.strip()
        .splitlines()[-1]
        .startswith(
            "beamcrawl: dedup: Beam could not stage the job: "
            "python setup.py sdist failed (exit status 1): "
        )
    )
    assert "this package does not build" in err
    assert not (tmp_path / "job.json").exists()


@pytest.mark.parametrize(
    ("command", "stdin", "out"),
    [
        ("normalizerchecker", "HTTP://Example.COM/a/../b\n", "http://example.com/b\n"),
        ("filterchecker", "http://example.com/\nftp://example.com/\n",
         "+http://example.com/\n-ftp://example.com/\n"),
    ],
)  # fmt: skip
def test_the_checkers_build_no_job(
    command, stdin, out, gcs_store, tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    flags = _dataflow_flags(gcs_store, str(tmp_path / "job.json"))

    assert main([command, *flags]) == 0

    printed = capsys.readouterr()
    assert printed.out == out
    assert "dry run" not in printed.err
    assert not (tmp_path / "job.json").exists()


def test_parsechecker_builds_no_job(demo_site, gcs_store, tmp_path, capsys):
    flags = _dataflow_flags(gcs_store, str(tmp_path / "job.json"))

    assert main(["parsechecker", demo_site.url("main") + "/", AGENT, *flags]) == 0

    printed = capsys.readouterr()
    assert "Status: success/ok (1,0)" in printed.out.splitlines()
    assert "dry run" not in printed.err
    assert not (tmp_path / "job.json").exists()


def test_demo_refuses_dataflow(gcs_store, tmp_path, capsys):
    flags = _dataflow_flags(gcs_store, str(tmp_path / "job.json"))

    assert main(["demo", "--dir", str(tmp_path / "crawl"), *flags]) == 2

    assert capsys.readouterr().err.strip().splitlines() == [
        "beamcrawl: beamcrawl demo: the sample site is served on this machine's "
        "loopback, which Dataflow's workers cannot reach; crawl a site of yours with "
        "beamcrawl crawl and gs:// paths instead"
    ]
    assert not (tmp_path / "crawl").exists()


DATAFLOW = ["--runner", "DataflowRunner", "--no_auth", "--region", REGION]


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--dry_run=True"], "--dry_run works with --runner DataflowRunner only"),
        (
            [*DATAFLOW, "--project=beamcrawl-test", "--temp_location=gs://bucket-1/t",
             "--dry_run=False"],
            "--dry_run=False still skips the job on Dataflow",
        ),
        (
            [*DATAFLOW, "--project=P", "--temp_location=gs://bucket-1/t"],
            "Dataflow: Invalid Project ID (P).",
        ),
        # Beam would create a bucket in the project to use instead
        (
            [*DATAFLOW, "--project=beamcrawl-test", "--temp_location=/tmp/t"],
            "Dataflow: Invalid GCS path (/tmp/t), given for the option: temp_location.",
        ),
        (
            [*DATAFLOW, "--project=beamcrawl-test", "--temp_location=gs://b/t"],
            "Dataflow: Invalid GCS bucket (gs://b/t), given for the option: ",
        ),
    ],
)  # fmt: skip
def test_options_that_would_run_or_fail_the_job_are_refused(
    flags, message, tmp_path, capsys
):
    crawldb = tmp_path / "crawldb"

    assert main(["readdb", str(crawldb), "--stats", *flags]) == 2

    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"beamcrawl: {message}")
