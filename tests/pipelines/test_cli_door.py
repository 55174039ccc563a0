"""Fail at the door: a user error is one line before Beam is imported or data touched.

Each command line runs in a fresh interpreter (``pipelines.cli.main``); the
test checks the one line, exit 2, that ``apache_beam`` was never imported,
and that the crawl directory was not created.
"""

import json
import subprocess
import sys
import textwrap

import pytest

from pipelines.cli import COMMANDS

AGENT = "-Dhttp.agent.name=door-test"


def _at_the_door(argv, cwd):
    """``main(argv)`` in a fresh interpreter: its code, stderr, Beam imported."""
    script = textwrap.dedent(
        f"""
        import json, sys
        from pipelines import cli
        code = cli.main({argv!r})
        print(json.dumps([code, "apache_beam" in sys.modules]))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=cwd, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    code, beam = json.loads(done.stdout.strip().splitlines()[-1])
    return code, done.stderr.strip().splitlines(), beam


@pytest.fixture
def seeds(tmp_path):
    path = tmp_path / "seeds.txt"
    path.write_text("http://127.0.0.1:9/\n", encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("extra", "line"),
    [
        ([], "beamcrawl: Fetcher: No agents listed in 'http.agent.name' property"),
        (
            ["--topn", "5", AGENT],
            "beamcrawl: beamcrawl crawl: unrecognized argument --topn "
            "(did you mean --topN?)",
        ),
        (
            [AGENT, "-Dfetcher.server.delay=soon"],
            "beamcrawl: property fetcher.server.delay='soon' is invalid",
        ),
        ([AGENT, "--threads", "0"], "beamcrawl: --threads"),
        ([AGENT, "-Dgenerate.max.count=x"], "beamcrawl: property generate.max.count"),
        ([AGENT, "--linkPolicy", "no_such_module:policy"], "beamcrawl: "),
    ],
)
def test_crawl_checks_every_steps_settings_before_beam_and_data(
    tmp_path, seeds, extra, line
):
    crawl_dir = tmp_path / "crawl"

    code, err, beam = _at_the_door(
        ["crawl", "--seeds", seeds, str(crawl_dir), "1", *extra], tmp_path
    )

    assert (code, beam) == (2, False)
    assert len(err) == 1, err
    assert err[0].startswith(line)
    assert not crawl_dir.exists()


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["inject", "{tmp}/db", "{tmp}/no-such-seeds.txt"],
            "beamcrawl: no seed files found at {tmp}/no-such-seeds.txt",
        ),
        (
            ["generate", "{tmp}/db", "{tmp}/segs", "--topN", "abc"],
            "beamcrawl: beamcrawl generate: argument --topN: invalid int value: 'abc'",
        ),
        (
            ["fetch", "{tmp}/no-such-segment", AGENT],
            "beamcrawl: no fetch list at {tmp}/no-such-segment/generate",
        ),
        (
            ["readdb", "{tmp}/db", "--stat"],
            "beamcrawl: beamcrawl readdb: unrecognized argument --stat "
            "(did you mean --stats?)",
        ),
        (
            ["updatedb", "{tmp}/db", "--noaditions"],
            "beamcrawl: beamcrawl updatedb: unrecognized argument --noaditions "
            "(did you mean --noAdditions?)",
        ),
        (
            ["crawel", "x"],
            "beamcrawl: unknown command 'crawel' (did you mean crawl?); "
            "see beamcrawl --help",
        ),
    ],
)
def test_a_user_error_of_any_command_is_one_line_before_beam(tmp_path, argv, line):
    argv = [arg.format(tmp=tmp_path) for arg in argv]

    code, err, beam = _at_the_door(argv, tmp_path)

    assert (code, beam) == (2, False)
    assert err == [line.format(tmp=tmp_path)]
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_good_command_line_still_reaches_beam(tmp_path, seeds):
    """The door lets a right command through: the job imports Beam and runs."""
    code, err, beam = _at_the_door(["inject", str(tmp_path / "db"), seeds], tmp_path)

    assert (code, beam) == (0, True), err
    assert (tmp_path / "db").is_dir()


@pytest.mark.parametrize("command", sorted(set(COMMANDS) - {"search"}))
def test_every_command_refuses_an_unknown_flag_before_beam(tmp_path, command):
    code, err, beam = _at_the_door([command, "--bogus"], tmp_path)

    assert (code, beam) == (2, False)
    assert err == [f"beamcrawl: beamcrawl {command}: unrecognized argument --bogus"]


def test_the_demo_checks_its_crawls_settings_before_beam_and_its_site(tmp_path):
    code, err, beam = _at_the_door(
        ["demo", "--dir", str(tmp_path / "demo"), "-Dfetcher.server.delay=x"],
        tmp_path,
    )

    assert (code, beam) == (2, False)
    assert err == [
        "beamcrawl: property fetcher.server.delay='x' is invalid: expected a number"
    ]
    assert not (tmp_path / "demo").exists()


def _signalled_while_importing(program):
    script = textwrap.dedent(
        f"""
        import os, signal, sys, time
        sys.argv[0] = {program!r}
        import pipelines.cli
        os.kill(os.getpid(), signal.SIGINT)  # before main() took over
        time.sleep(5)
        """
    )
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )


def test_ctrl_c_while_the_program_starts_is_one_line():
    done = _signalled_while_importing("/usr/local/bin/beamcrawl")

    assert done.returncode == 130
    assert done.stderr == (
        "beamcrawl: interrupted by SIGINT while starting: nothing was changed\n"
    )


def test_importing_the_cli_elsewhere_leaves_sigint_to_python():
    done = _signalled_while_importing("my_tool.py")

    assert done.returncode == -2  # Python's own: KeyboardInterrupt, then SIGINT
    assert done.stderr.strip().endswith("KeyboardInterrupt")
