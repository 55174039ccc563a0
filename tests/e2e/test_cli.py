import json
import os
import subprocess
import sys
from typing import Any

import pytest

from pipelines.cli import main, parse_workers_to_start

NOW = "1700000000000"


@pytest.fixture
def seeds(tmp_path):
    path = tmp_path / "seeds.txt"
    path.write_text(
        "http://a.com/\tnutch.score=3\n"
        "http://b.com/page.html\n"
        "http://b.com/image.png\n"
        "::not a url::\n"
    )
    return path


def _inject(crawldb, seeds, *extra):
    return main(
        [
            "inject",
            str(crawldb),
            str(seeds),
            "-D",
            f"injector.current.time={NOW}",
            *extra,
        ]
    )


def _stats_json(crawldb, capsys):
    capsys.readouterr()
    assert main(["readdb", str(crawldb), "--stats", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_inject_then_readdb_stats(tmp_path, seeds, capsys):
    crawldb = tmp_path / "crawldb"
    assert _inject(crawldb, seeds) == 0
    summary = capsys.readouterr().err
    assert "urls_injected=2" in summary
    assert "urls_filtered=1" in summary
    assert "urls_rejected=1" in summary
    stats = _stats_json(crawldb, capsys)
    assert stats["total"] == 2
    assert stats["status"] == {"status_unfetched": 2}
    assert (stats["score"]["min"], stats["score"]["max"]) == (1.0, 3.0)
    assert stats["fetch_time_ms"]["min"] == int(NOW)
    assert stats["states"] == {
        "waiting": 2,
        "running": 0,
        "error": 0,
        "complete": 0,
        "waiting_due": 2,
    }
    assert sorted(os.listdir(crawldb)) == ["current", "published", "versions"]


def test_readdb_text_stats_url_and_dump(tmp_path, seeds, capsys):
    crawldb = tmp_path / "crawldb"
    assert _inject(crawldb, seeds) == 0
    capsys.readouterr()
    assert main(["readdb", str(crawldb), "--stats"]) == 0
    text = capsys.readouterr().out
    assert "TOTAL urls:\t2" in text
    assert "status 1 (status_unfetched):\t2" in text
    assert text.splitlines()[-6:-1] == [
        "URL states (waiting / running / error / complete):",
        "waiting:\t2\t(due now: 2)",
        "running:\t0",
        "error:\t0",
        "complete:\t0",
    ]

    assert main(["readdb", str(crawldb), "--url", "HTTP://A.COM"]) == 0
    shown = capsys.readouterr().out
    assert "url:\thttp://a.com/" in shown
    assert "score:\t3" in shown
    assert main(["readdb", str(crawldb), "--url", "http://absent.com/"]) == 1
    assert capsys.readouterr().out.strip() == "not found: http://absent.com/"

    out = tmp_path / "dump"
    assert main(["readdb", "--dump", str(out), str(crawldb)]) == 0
    records: list[Any] = []
    for name in sorted(os.listdir(out)):
        with open(out / name) as handle:
            records.extend(json.loads(line) for line in handle)
    assert sorted(r["url"] for r in records) == [
        "http://a.com/",
        "http://b.com/page.html",
    ]
    assert all(r["markers"] == {"_injmrk_": "y", "dist": "0"} for r in records)


def test_reinject_keeps_state_and_backs_up_the_previous_version(
    tmp_path, seeds, capsys
):
    crawldb = tmp_path / "crawldb"
    assert _inject(crawldb, seeds) == 0
    more = tmp_path / "more.txt"
    more.write_text("http://a.com/\tnutch.score=9\nhttp://c.com/\n")
    assert _inject(crawldb, more) == 0
    summary = capsys.readouterr().err
    assert "urls_merged=1" in summary
    assert "new urls: 1" in summary
    stats = _stats_json(crawldb, capsys)
    assert stats["total"] == 3
    assert stats["score"]["max"] == 3.0  # the existing record wins
    assert sorted(os.listdir(crawldb)) == ["current", "old", "published", "versions"]
    assert len(os.listdir(crawldb / "versions")) == 2  # the current one, the backup
    assert _inject(crawldb, more, "--overwrite") == 0
    assert _stats_json(crawldb, capsys)["score"]["max"] == 9.0


def test_options_after_positionals_and_beam_flags_pass_through(tmp_path, seeds, capsys):
    crawldb = tmp_path / "crawldb"
    code = main(
        ["inject", "--runner", "DirectRunner", str(crawldb), "-Ddb.score.injected=0.5",
         str(seeds), "--direct_num_workers=1", "--noFilter"]
    )  # fmt: skip
    assert code == 0
    stats = _stats_json(crawldb, capsys)
    assert stats["total"] == 3
    assert stats["score"]["min"] == 0.5


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["readdb", "{db}", "--stats"], "no crawldb at"),
        (["inject", "{db}", "{missing}"], "no seed files found"),
        (
            ["inject", "{db}", "{seeds}", "--frobnicate"],
            "unrecognized argument --frobnicate",
        ),
        (["inject", "{db}", "{seeds}", "-D", "oops"], "expected name=value"),
        (
            ["inject", "{db}", "{seeds}", "-D", "db.score.injected=x"],
            "db.score.injected",
        ),
        (["inject", "{db}"], "the following arguments are required: seeds"),
        (["readdb", "{db}"], "one of the arguments"),
        (["generate2", "{db}"], "unknown command"),
    ],
)
def test_user_errors_print_one_line_and_exit_2(tmp_path, seeds, capsys, args, message):
    paths = {"db": tmp_path / "db", "missing": tmp_path / "nope", "seeds": seeds}
    assert main([a.format(**paths) for a in args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("beamcrawl: ")
    assert message in err
    assert "\n" not in err


def test_locked_crawldb_is_refused_unless_forced(tmp_path, seeds, capsys):
    crawldb = tmp_path / "crawldb"
    crawldb.mkdir()
    (crawldb / ".locked").write_text("other job")
    assert _inject(crawldb, seeds) == 2
    assert "is locked" in capsys.readouterr().err
    assert _inject(crawldb, seeds, "--force") == 0
    assert not (crawldb / ".locked").exists()


def test_the_installed_command_reports_user_errors_without_traceback(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pipelines.cli",
            "readdb",
            str(tmp_path / "db"),
            "--stats",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"beamcrawl: no crawldb at {tmp_path / 'db'} (no published version in it)"
    ]
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("command", "args", "starts"),
    [
        ("parse", ["crawl/segments/1"], True),
        ("crawl", ["--seeds", "s", "crawl", "2"], True),
        ("demo", [], True),
        ("fetch", ["seg", "--parse"], True),
        ("fetch", ["seg"], False),
        ("inject", ["crawl/crawldb", "seeds"], False),
        ("parse", ["seg", "--runner", "FlinkRunner"], False),
        ("parse", ["seg", "--runner=PortableRunner"], False),
        ("parse", ["seg", "--job_endpoint=localhost:8099"], False),
        ("parse", ["seg", "-D", "parser.processes=0"], False),
        ("parse", ["seg", "-Dparser.processes=3"], False),
        ("parse", ["--help"], False),
    ],
)
def test_parse_workers_start_before_beam_for_local_parsing_jobs(command, args, starts):
    cores = len(os.sched_getaffinity(0))
    expected = cores if starts and cores > 1 else 0
    assert parse_workers_to_start(command, args) == expected
