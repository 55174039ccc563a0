"""Commands as typed steps: a request and a Job, no argv between the steps.

``crawl`` builds each step's request from its one configuration and runs it
with its one Job: the ``--conf`` files are read once in the crawl's process,
and the runner is checked once. A library user can run the same steps.
"""

import pytest

from crawllib.config import CrawlConfig
from crawllib.config import properties as property_files
from crawllib.errors import ConfigError
from crawllib.status import CrawlStatus
from pipelines import crawl, fetch, generate, inject
from pipelines.cli import main
from pipelines.demo import DEMO_PROPERTIES
from pipelines.generate import GenerateRequest
from pipelines.inject import InjectRequest
from pipelines.runtime import runners
from pipelines.runtime.options import Job
from tests.avrofiles import read_pages


def test_inject_and_generate_run_from_typed_requests(tmp_path):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://a.example/\nhttp://b.example/page\nnot a url\n")
    crawldb, segments = str(tmp_path / "crawldb"), str(tmp_path / "segments")
    config = CrawlConfig.from_dict({"generate.max.count": 1})
    job = Job()

    injected = inject.execute(InjectRequest(crawldb, str(seeds), config.inject), job)
    config_for_generate = generate.generate_config(config.properties, top_n=5)
    written, selected = generate.execute(
        GenerateRequest(crawldb, segments, config_for_generate), job
    )

    assert injected["urls_injected_unique"] == 2
    assert selected["GENERATED"] == 2
    assert len(written) == 1
    fetch_list = read_pages(f"{written[0]}/generate")
    assert sorted(p["url"] for p in fetch_list) == [
        "http://a.example/",
        "http://b.example/page",
    ]


def test_a_crawl_reads_its_conf_file_once_and_checks_the_runner_once(
    tmp_path, demo_site, monkeypatch
):
    """Before, every step of every round parsed the --conf files again."""
    site_file = tmp_path / "site.properties"
    site_file.write_text("".join(f"{p}\n" for p in DEMO_PROPERTIES))
    reads, checks = [], []
    read_site_file, prepare = property_files.read_site_file, runners.prepare

    def counted_read(path):
        reads.append(path)
        return read_site_file(path)

    def counted_prepare(options):
        checks.append(options)
        return prepare(options)

    monkeypatch.setattr(property_files, "read_site_file", counted_read)
    monkeypatch.setattr(runners, "prepare", counted_prepare)
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(demo_site.url("main") + "/\n")
    crawl_dir = tmp_path / "crawl"

    argv = ["--seeds", str(seeds), str(crawl_dir), "2", "--conf", str(site_file)]
    code = main(["crawl", *argv, "-Dfetcher.server.delay=0.05", "--separateJobs"])

    assert code == 0
    assert reads == [str(site_file)]
    assert len(checks) == 1
    fetched = [
        page
        for page in read_pages(str(crawl_dir / "crawldb" / "current"))
        if page["status"] == CrawlStatus.FETCHED
    ]
    assert len(fetched) >= 4  # two rounds: the seed page, then its links


@pytest.mark.parametrize("rounds", [0, -1])
def test_a_crawl_request_with_no_rounds_is_refused_wherever_it_is_made(rounds):
    with pytest.raises(ConfigError, match=f"ROUNDS {rounds} is invalid"):
        crawl.CrawlRequest("dir", "seeds.txt", rounds, CrawlConfig.from_dict({}))


@pytest.mark.parametrize("threads", [0, -2])
def test_a_crawl_request_with_no_fetcher_threads_is_refused_wherever_it_is_made(
    threads,
):
    with pytest.raises(ConfigError, match=f"--threads {threads} is invalid"):
        crawl.CrawlRequest(
            "dir", "seeds.txt", 1, CrawlConfig.from_dict({}), threads=threads
        )
    with pytest.raises(ConfigError, match=f"--threads {threads} is invalid"):
        fetch.fetch_config(
            CrawlConfig.from_dict({"http.agent.name": "a"}).properties, threads=threads
        )
