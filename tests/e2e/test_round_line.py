"""The crawl's round line adds up: each generated URL fetched, or not by a reason.

Real servers on 127.0.0.x: a host that refuses connections (its queue given
up after ``fetcher.max.exceptions.per.queue``), a redirect followed within
the fetch, and a fetch cut by ``fetcher.timelimit.mins``.
"""

import re

from pipelines.cli import main
from tests.sites import refused_url

_LINE = re.compile(
    r"crawl: round 1: generated (\d+): fetched (.*?)"
    r"(?:, not fetched (.*?))?(?:, and (\d+) redirect targets?)?, new urls \d+, "
)


def _named(words):
    return {n: int(c) for n, c in (w.split("=") for w in words.split())}


def _round_one(tmp_path, capsys, urls, *defines):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("".join(f"{url}\n" for url in urls))
    flags = ["-Dhttp.agent.name=testbot", *(f"-D{d}" for d in defines)]
    argv = ["crawl", "--seeds", str(seeds), str(tmp_path / "crawl"), "1", *flags]
    assert main(argv) == 0
    err = capsys.readouterr().err
    match = _LINE.search(err)
    assert match, err[-3000:]
    generated, fetched, unfetched, hops = match.groups()
    return (
        int(generated),
        _named(fetched),
        _named(unfetched or ""),
        int(hops or 0),
        match.group(0),
    )


def test_a_queue_given_up_and_a_redirect_followed_add_up(tmp_path, capsys, site):
    refused = refused_url("127.0.0.8").rsplit("/", 1)[0]
    urls = [f"{refused}/p{n}" for n in range(6)]
    urls += [site.url("/page/a"), site.url("/status/301")]  # to /ok
    generated, fetched, unfetched, hops, line = _round_one(
        tmp_path, capsys, urls,
        "fetcher.server.delay=0", "fetcher.max.exceptions.per.queue=2",
        "fetcher.exceptions.per.queue.delay=0", "http.redirect.max=2",
    )  # fmt: skip
    assert generated == 8
    assert fetched == {"EXCEPTION": 2, "MOVED": 1, "SUCCESS": 1}, line
    assert unfetched == {"max_exceptions": 4}, line
    assert hops == 1, line
    assert line.startswith(
        "crawl: round 1: generated 8: fetched EXCEPTION=2 MOVED=1 SUCCESS=1, "
        "not fetched max_exceptions=4, and 1 redirect target, "
    )
    assert len(site.requests_for("/ok")) == 1  # the hop was fetched


def test_a_fetch_cut_by_the_time_limit_adds_up(tmp_path, capsys, site):
    # 12 URLs of one host 0.5 s apart take over 5 s; the limit is 1.2 s
    urls = [site.url(f"/page/{n}") for n in range(12)]
    generated, fetched, unfetched, hops, line = _round_one(
        tmp_path, capsys, urls,
        "fetcher.server.delay=0.5", "fetcher.timelimit.mins=0.02",
    )  # fmt: skip
    assert generated == 12
    assert set(fetched) == {"SUCCESS"}, line
    assert set(unfetched) == {"time_limit"}, line
    assert sum(fetched.values()) + sum(unfetched.values()) == generated, line
    assert hops == 0
    assert len(site.requests_for("/page/")) == fetched["SUCCESS"]
