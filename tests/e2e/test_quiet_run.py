"""The commands, run as a user runs them, print no dependency's warnings.

Each runs in a new process with a plain interpreter (no ``-W``): Beam's
import sets off Google's clients' ``FutureWarning`` s (apache-beam[gcp]) or
``apitools not found`` (Beam 2.77 without it); none reaches stderr.
``tests/e2e/test_demo.py`` checks ``beamcrawl demo`` and
``tests/examples/test_examples.py`` the library scripts the same way.
"""

import subprocess
import sys

from tests.test_import_effects import DEPENDENCY_NOTICE


def _beamcrawl(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "pipelines.cli", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_inject_and_sitemap_print_no_dependency_warning(tmp_path):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://127.0.0.1:9/\nhttp://nothing.beamcrawl.invalid/\n")
    flags = ["-Dhttp.agent.name=quiet", "-Dfetcher.server.delay=0"]

    injected = _beamcrawl("inject", "crawldb", seeds, *flags, cwd=tmp_path)
    sitemaps = _beamcrawl("sitemap", "crawldb", "--fromRobots", *flags, cwd=tmp_path)

    for done in (injected, sitemaps):
        assert done.returncode == 0, done.stderr[-3000:]
        assert not DEPENDENCY_NOTICE.search(done.stderr), done.stderr[-3000:]
    assert injected.stderr.splitlines()[-1].startswith("Injector: ")
    # the one warning is ours, once, with its cause
    warnings = [line for line in sitemaps.stderr.splitlines() if " WARNING " in line]
    assert len(warnings) == 1, sitemaps.stderr
    assert "sitemap failed_fetches: " in warnings[0]
