import json
import os

from pipelines.cli import main

FETCH = ["-Dhttp.agent.name=testbot", "-Dfetcher.server.delay=0.05"]
KEEP_GENERATED = ["-Dgenerate.update.crawldb=true"]  # Nutch 1.x's _ngt_ marks


def _states(crawldb, capsys, *extra):
    return _report(crawldb, capsys, *extra)["states"]


def _report(crawldb, capsys, *extra):
    capsys.readouterr()
    assert main(["readdb", str(crawldb), "--stats", "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def _state_lines(crawldb, capsys):
    capsys.readouterr()
    assert main(["readdb", str(crawldb), "--stats"]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = lines.index("URL states (waiting / running / error / complete):")
    return lines[start:]


def _seed(tmp_path, site):
    seeds = tmp_path / "seeds.txt"
    paths = ["/page/a", "/page/b", "/redirect/302"]
    paths += ["/status/404", "/status/410", "/status/500"]
    lines = [site.url(path) for path in paths]
    lines.append(site.url("/page/c") + "\tnutch.score=0.5")  # left out by --topN 6
    seeds.write_text("\n".join(lines) + "\n")
    return seeds


def test_a_round_moves_urls_from_waiting_to_running_to_error_and_complete(
    tmp_path, sites, capsys
):
    site = sites("127.0.0.4")
    crawldb, segments = tmp_path / "crawldb", tmp_path / "segments"
    assert main(["inject", str(crawldb), str(_seed(tmp_path, site))]) == 0
    assert _states(crawldb, capsys) == {
        "waiting": 7,
        "running": 0,
        "error": 0,
        "complete": 0,
        "waiting_due": 7,
    }

    generate = ["generate", str(crawldb), str(segments), "--topN", "6"]
    assert main([*generate, *KEEP_GENERATED]) == 0
    assert _states(crawldb, capsys) == {
        "waiting": 1,
        "running": 6,
        "error": 0,
        "complete": 0,
        "waiting_due": 1,
    }
    assert _state_lines(crawldb, capsys) == [
        "URL states (waiting / running / error / complete):",
        "waiting:\t1\t(due now: 1)",
        "running:\t6",
        "error:\t0",
        "complete:\t0",
        "CrawlDb statistics: done",
    ]
    # while they run, generate passes them over (Generator/WAIT_FOR_UPDATE)
    assert main([*generate, *KEEP_GENERATED]) == 0
    assert _states(crawldb, capsys)["running"] == 7

    first, second = (segments / name for name in sorted(os.listdir(segments)))
    _fetch_parse_update(crawldb, first)
    # 404 and 410 are gone, 500 waits for a retry; the redirect target /ok is new;
    # /page/c, generated into the second segment, is still running
    report = _report(crawldb, capsys)
    assert report["states"] == {
        "waiting": 1,
        "running": 1,
        "error": 3,
        "complete": 3,
        "waiting_due": 1,
    }
    assert report["status"] == {
        "status_unfetched": 3,  # /ok, /page/c (running), /status/500 (error)
        "status_fetched": 2,
        "status_gone": 2,
        "status_redir_temp": 1,
    }
    assert report["retry"] == {"0": 7, "1": 1}
    _fetch_parse_update(crawldb, second)
    assert _state_lines(crawldb, capsys) == [
        "URL states (waiting / running / error / complete):",
        "waiting:\t1\t(due now: 1)",
        "running:\t0",
        "error:\t3",
        "complete:\t4",
        "CrawlDb statistics: done",
    ]


def _fetch_parse_update(crawldb, segment):
    assert main(["fetch", str(segment), *FETCH]) == 0
    assert main(["parse", str(segment)]) == 0
    assert main(["updatedb", str(crawldb), str(segment)]) == 0


def test_without_generate_update_crawldb_nothing_is_running(tmp_path, sites, capsys):
    site = sites("127.0.0.4")
    crawldb, segments = tmp_path / "crawldb", tmp_path / "segments"
    assert main(["inject", str(crawldb), str(_seed(tmp_path, site))]) == 0
    assert main(["generate", str(crawldb), str(segments)]) == 0
    assert _states(crawldb, capsys)["running"] == 0


def test_generate_cur_time_is_the_clock_of_the_states(tmp_path, sites, capsys):
    site = sites("127.0.0.4")
    crawldb = tmp_path / "crawldb"
    now = 1_700_000_000_000
    inject = ["inject", str(crawldb), str(_seed(tmp_path, site))]
    assert main([*inject, f"-Dinjector.current.time={now}"]) == 0
    before = _states(crawldb, capsys, f"-Dgenerate.curTime={now - 1}")
    at = _states(crawldb, capsys, f"-Dgenerate.curTime={now}")
    assert (before["waiting"], before["waiting_due"]) == (7, 0)
    assert (at["waiting"], at["waiting_due"]) == (7, 7)
