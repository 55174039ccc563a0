"""``beamcrawl conf``, run as users run it: a subprocess of the real command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from crawllib.config import registry

W = max(len(name) for name in registry.PROPERTIES)  # the name column's width


def _conf(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pipelines.cli", "conf", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=cwd,
    )


def test_conf_lists_every_property_with_its_value_and_origin(tmp_path):
    site = tmp_path / "nutch-site.xml"
    site.write_text(
        "<configuration><property><name>http.agent.name</name>"
        "<value>sitebot</value></property></configuration>"
    )
    done = _conf("--conf", str(site), "-D", "fetcher.server.delay=0.5")
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    rows = {line.split()[0]: line.split() for line in lines if line and line[0] != "#"}
    assert set(rows) == set(registry.PROPERTIES)
    assert rows["http.agent.name"][1:] == ["sitebot", "(--conf", f"{site})"]
    assert rows["fetcher.server.delay"][1:] == ["0.5", "(-D)"]
    assert rows["fetcher.min.crawl.delay"][1:] == ["0.5", "(default)"]
    assert rows["db.fetch.interval.default"][1:] == ["2592000", "(default)"]


def test_conf_given_shows_what_was_set_and_what_beamcrawl_does_not_read():
    done = _conf(
        "--given", "-D", "http.agent.name=bot",
        "-D", "properties.declared=my.*", "-D", "my.own=1",
    )  # fmt: skip
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        "# Agent, HTTP and file: URLs",
        f"{'http.agent.name':<{W}}  bot  (-D)",
        "",
        "# Your own properties",
        f"{'properties.declared':<{W}}  my.*  (-D)",
        "",
        "# Given, but not read by beamcrawl",
        f"{'my.own':<{W}}  1  (-D)",
    ]
    assert done.stderr == ""  # declared: no warning


def test_conf_name_describes_one_property():
    done = _conf("store.ip.address", "-D", "store.ip.address=no")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[:5] == [
        "store.ip.address = no",
        "  from:     -D",
        "  type:     boolean",
        "  default:  true",
        "  Nutch:    false",
    ]
    assert lines[5].startswith("  why:      a WARC export")
    assert "Store the address a page was fetched from" in done.stdout


def test_conf_name_of_beamcrawls_own_and_of_an_expanded_value():
    own = _conf("http.robots.unreachable.allow").stdout
    assert "  Nutch:    beamcrawl's own; Nutch has no such property" in own
    expanded = _conf("fetcher.exceptions.per.queue.delay", "-D",
                     "fetcher.server.delay=2").stdout  # fmt: skip
    assert expanded.startswith(
        "fetcher.exceptions.per.queue.delay = 2  (${fetcher.server.delay})\n"
    )
    unused = _conf("http.useHttp11").stdout
    assert "  effect:   none in beamcrawl (accepted for Nutch's sake)" in unused


def test_conf_of_an_unknown_name_is_one_line_with_the_closest_and_exit_2():
    done = _conf("fetcher.server.dealy")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "beamcrawl: conf: unknown property fetcher.server.dealy (did you mean"
        " fetcher.server.delay or fetcher.server.min.delay?)\n"
    )


def test_conf_warns_of_an_unknown_property_given_in_one_line():
    done = _conf("--given", "-D", "fetcher.server.dealy=0.1")
    assert done.returncode == 0
    [line] = done.stderr.splitlines()
    assert line.endswith(
        "WARNING crawllib.config.checks: unknown property fetcher.server.dealy"
        " (did you mean fetcher.server.delay or fetcher.server.min.delay?)"
    )


def test_conf_refuses_a_bad_value_in_one_line():
    done = _conf("-D", "fetcher.server.delay=soon")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "beamcrawl: property fetcher.server.delay='soon' is invalid:"
        " expected a number\n"
    )


def test_conf_imports_no_beam():
    code = (
        "import sys, contextlib, io\n"
        "from pipelines.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    code = main(['conf', 'http.agent.name'])\n"
        "print(code, 'apache_beam' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert done.stdout == "0 False\n"


def test_a_job_refuses_a_bad_property_it_does_not_read_before_any_work(tmp_path):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://127.0.0.1:9/\n")
    done = subprocess.run(
        [sys.executable, "-m", "pipelines.cli", "inject", str(tmp_path / "crawldb"),
         str(seeds), "-D", "fetcher.server.delay=soon"],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "beamcrawl: property fetcher.server.delay='soon' is invalid: expected a number"
    )
    assert not (tmp_path / "crawldb").exists()
