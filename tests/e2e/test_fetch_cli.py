import os

import pytest

from pipelines.cli import main
from tests.avrofiles import read_pages

CLOCK = ["-Dinjector.current.time=1700000000000", "-Dgenerate.curTime=1700000000000"]
FETCH = ["-Dhttp.agent.name=testbot", "-Dfetcher.server.delay=0.05"]


@pytest.fixture
def segment(tmp_path, sites):
    one = sites("127.0.0.2", robots="User-agent: *\nDisallow: /page/private\n")
    two = sites("127.0.0.3")
    seeds = tmp_path / "seeds.txt"
    urls = [one.url(p) for p in ("/page/a", "/page/private", "/status/404")]
    urls += [two.url(p) for p in ("/page/b", "/status/500", "/redirect/302")]
    seeds.write_text("\n".join(urls) + "\n")
    crawldb, segments = tmp_path / "crawldb", tmp_path / "segments"
    assert main(["inject", str(crawldb), str(seeds), *CLOCK]) == 0
    assert (
        main(["generate", str(crawldb), str(segments), "--numFetchers", "2", *CLOCK])
        == 0
    )
    (name,) = os.listdir(segments)
    return segments / name, one, two


def _statuses(segment):
    return {
        page["url"].split("/", 3)[3]: (page["protocolStatus"]["code"], page["status"])
        for page in read_pages(segment / "fetch")
    }


EXPECTED = {
    "page/a": (1, 2),
    "page/private": (18, 3),
    "status/404": (14, 3),
    "page/b": (1, 2),
    "status/500": (16, 34),
    "redirect/302": (13, 4),
}


def test_fetch_writes_every_url_with_its_status(segment, capsys):
    path, one, _ = segment
    capsys.readouterr()
    assert main(["fetch", str(path), *FETCH, "--threads", "4"]) == 0
    assert _statuses(path) == EXPECTED
    err = capsys.readouterr().err
    assert "SUCCESS=2" in err
    assert "ROBOTS_DENIED=1" in err
    assert one.requests_for("/page/private") == []
    assert main(["fetch", str(path), *FETCH]) == 2
    assert "already fetched" in capsys.readouterr().err


@pytest.mark.parametrize("threads", ["0", "-1"])
def test_fetch_without_threads_is_one_line(segment, capsys, threads):
    path, _, _ = segment
    assert main(["fetch", str(path), *FETCH, "--threads", threads]) == 2
    assert capsys.readouterr().err == (
        f"beamcrawl: --threads {threads} is invalid: expected 1 or more\n"
    )
    assert not (path / "fetch").exists()


def test_fetch_without_an_agent_name_is_refused(segment, capsys):
    path, _, _ = segment
    assert main(["fetch", str(path)]) == 2
    assert "http.agent.name" in capsys.readouterr().err
    assert not (path / "fetch").exists()


def test_fetch_on_portable_runner(segment, portable_flags):
    path, _, _ = segment
    assert main(["fetch", str(path), *FETCH, *portable_flags]) == 0
    assert _statuses(path) == EXPECTED
