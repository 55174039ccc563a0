import os

import pytest

from pipelines.cli import main
from tests.avrofiles import read_pages

CLOCK = ["-Dinjector.current.time=1700000000000", "-Dgenerate.curTime=1700000000000"]
AGENT = ["-Dhttp.agent.name=testbot", "-Dfetcher.server.delay=0.01"]
PAGE = (
    "<html><head><meta charset='gbk'><title>中文标题</title></head>"
    "<body><p>你好世界。这是一个测试页面。</p>"
    "<a href='/page/next'>下一页</a></body></html>"
)


@pytest.fixture
def segment(tmp_path, site):
    site.files["zh"] = ("text/html", PAGE.encode("gbk"))
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(f"{site.url('/bytes/zh')}\n{site.url('/status/404')}\n")
    crawldb, segments = tmp_path / "crawldb", tmp_path / "segments"
    assert main(["inject", str(crawldb), str(seeds), *CLOCK]) == 0
    assert main(["generate", str(crawldb), str(segments), *CLOCK]) == 0
    (name,) = os.listdir(segments)
    return segments / name, site


def _parsed(path):
    return {page["url"].rsplit("/", 2)[-2]: page for page in read_pages(path / "parse")}


def test_fetch_then_parse(segment, capsys):
    path, site = segment
    assert main(["fetch", str(path), *AGENT]) == 0
    capsys.readouterr()
    assert main(["parse", str(path)]) == 0
    assert "success=1" in capsys.readouterr().err
    pages = _parsed(path)
    page = pages["bytes"]
    assert page["title"] == "中文标题"
    assert "你好世界。" in page["text"]
    assert page["outlinks"] == {site.url("/page/next"): "下一页"}
    assert page["content"] is None
    assert pages["status"]["parseStatus"] is None  # gone: not parsed, still written


def test_fetch_with_parse_writes_both_parts(segment):
    path, _ = segment
    assert main(["fetch", str(path), *AGENT, "--parse"]) == 0
    assert len(read_pages(path / "fetch")) == 2
    assert _parsed(path)["bytes"]["title"] == "中文标题"


def test_parse_resume_keeps_earlier_parses(segment, capsys):
    path, _ = segment
    assert main(["fetch", str(path), *AGENT, "--parse"]) == 0
    capsys.readouterr()
    assert main(["parse", str(path), "--resume"]) == 0
    assert "already_parsed=1" in capsys.readouterr().err
    assert main(["parse", str(path), "--resume", "--force"]) == 0
    assert "success=1" in capsys.readouterr().err


def test_parse_of_an_unfetched_segment_is_a_user_error(segment, capsys):
    path, _ = segment
    assert main(["parse", str(path)]) == 2
    assert "not fetched" in capsys.readouterr().err


def test_parsechecker_prints_the_parse(site, capsys):
    site.files["zh"] = ("text/html", PAGE.encode("gbk"))
    assert main(["parsechecker", site.url("/bytes/zh"), *AGENT]) == 0
    out = capsys.readouterr().out
    assert "contentType: text/html" in out
    assert "Status: success/ok (1,0)" in out
    assert "Title: 中文标题" in out
    assert f"outlink: toUrl: {site.url('/page/next')} anchor: 下一页" in out
    assert "你好世界。" in out
    assert main(["parsechecker", site.url("/status/404"), *AGENT]) == 1
