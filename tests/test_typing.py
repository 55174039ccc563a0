"""A user's typed program sees beamcrawl's types (PEP 561).

beamcrawl, crawllib and pipelines each ship a ``py.typed`` marker, so mypy
reads their annotations when a user's code imports ``beamcrawl``. Checked
three ways: the markers are in the source tree; a wheel built from it holds
them (pyproject.toml's package-data ships them); and ``mypy --strict``
passes on a user's pipeline that imports the packages as mypy finds an
installed (non-editable) distribution, with the mypy config
docs/library.md gives users.
"""

import shutil
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("beamcrawl", "crawllib", "pipelines")
# offline, with this environment's setuptools
PIP_WHEEL = (sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-index")
PIP_WHEEL_ISOLATION = "--no-build-isolation"
MYPY = (sys.executable, "-m", "mypy", "--strict", "--cache-dir", "/dev/null")
# The mypy config docs/library.md tells users to write for Beam's sake
LIBRARY_DOC = ROOT / "docs" / "library.md"


def _user_mypy_config():
    """The ``toml`` block of docs/library.md's "Type checking" section."""
    section = LIBRARY_DOC.read_text().split("## Type checking your pipeline")[1]
    return section.split("```toml\n")[1].split("```")[0]


USER_PROGRAM = '''\
"""A user's crawl: seeds, one round, the titles of the pages fetched."""

from collections.abc import Iterator

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions

import beamcrawl as bc


class SameSiteOnly(bc.LinkPolicy):
    """Follow links within the site, without query strings."""

    remove_query = True

    def external(self, link: bc.Link) -> bool:
        return False


class Titles(bc.PageProcessor):
    """One line per page: its URL and title, or why it failed."""

    def process_page(self, page: bc.WebPage) -> str:
        return f"{page['url']}\\t{page['title'] or ''}"

    def complete_page(self, page: bc.WebPage, error: str | None) -> Iterator[str]:
        if error is not None:
            yield f"{page['url']}\\t{error}"


def crawl(crawldb: str, seeds: list[str], options: PipelineOptions) -> None:
    config = bc.CrawlConfig.from_dict(
        {"http.agent.name": "mybot", "fetcher.server.delay": 0.5},
        link_policy=SameSiteOnly(),
    )
    with bc.new_crawldb_version(crawldb) as version, beam.Pipeline(
        options=options
    ) as pipeline:
        injected = pipeline | "Seeds" >> beam.Create(seeds) | bc.Inject(config)
        result: bc.RoundResult = injected | bc.CrawlRound(
            config, top_n=100, processor=Titles()
        )
        _ = result.crawldb | "WriteCrawlDb" >> bc.WriteWebPages(version)
        _ = result.crawldb | bc.UrlStates(config) | beam.Map(print)
        if result.processed is not None:
            _ = result.processed | beam.io.WriteToText("titles")


def fetch_once(urls: list[str]) -> None:
    config = bc.CrawlConfig.load(defines=("http.agent.name=mybot",))
    with beam.Pipeline() as pipeline:
        pages = pipeline | beam.Create(urls) | bc.FetchUrls(config, keep_content=True)
        _ = pages | bc.ProcessPages(bc.page_error) | beam.Map(print)
        _ = (
            pages
            | beam.Filter(lambda page: page["status"] == bc.CrawlStatus.FETCHED)
            | bc.Dedup(config)
        )


def read_back(crawldb: str) -> None:
    with beam.Pipeline() as pipeline:
        pages = pipeline | bc.ReadCrawlDb(crawldb)
        _ = pages | bc.CrawlDbStats(crawldb, config=bc.CrawlConfig.from_dict({}))


if __name__ == "__main__":
    crawl("crawl/crawldb", ["https://example.org/"], PipelineOptions())
    fetch_once(["https://example.org/about"])
    read_back("crawl/crawldb")
    for hit in bc.search_index("crawl/index", "lighthouse", limit=3):
        print(hit.rank, hit.url)
'''


def _copy_sources(target: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.egg-info", "build")
    for package in PACKAGES:
        shutil.copytree(ROOT / package, target / package, ignore=ignore)
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, target / name)
    return target


def test_every_package_has_a_py_typed_marker():
    assert [p for p in PACKAGES if not (ROOT / p / "py.typed").is_file()] == []


def test_a_wheel_holds_the_py_typed_markers(tmp_path):
    """Built with this environment's setuptools, offline, from a copy."""
    source = _copy_sources(tmp_path / "src")
    subprocess.run(
        [*PIP_WHEEL, PIP_WHEEL_ISOLATION, "-w", tmp_path / "dist", source],
        check=True,
        capture_output=True,
    )
    (wheel,) = (tmp_path / "dist").glob("beamcrawl-*.whl")

    names = zipfile.ZipFile(wheel).namelist()

    assert [p for p in PACKAGES if f"{p}/py.typed" not in names] == []


@pytest.fixture
def user_python(tmp_path):
    """A Python whose site-packages holds the packages as a wheel installs them.

    A venv without pip, whose site-packages links the three packages and
    reaches this environment's (Beam and the other dependencies) through a
    ``.pth`` file. mypy cannot follow an editable install's import hook, and
    only reads a package from site-packages when it has ``py.typed``.
    """
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    for package in PACKAGES:
        Path(site, package).symlink_to(ROOT / package)
    Path(site, "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def _mypy(program, user_python, cwd):
    (cwd / "pyproject.toml").write_text(_user_mypy_config())
    (cwd / "user.py").write_text(program)
    return subprocess.run(
        [*MYPY, "--python-executable", user_python, "user.py"],
        cwd=cwd,
        capture_output=True,
        text=True,
    )


def test_mypy_strict_passes_on_a_users_pipeline(user_python, tmp_path):
    done = _mypy(USER_PROGRAM, user_python, tmp_path)

    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_sees_beamcrawls_types_in_a_users_code(user_python, tmp_path):
    """The check above is worth something: a wrong argument is an error."""
    program = USER_PROGRAM + textwrap.dedent("""
        bc.FetchUrls(bc.CrawlConfig.from_dict({}), num_fetchers="4")
        error = bc.page_error("https://example.org/")
        """)

    done = _mypy(program, user_python, tmp_path)

    assert done.returncode == 1
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 2, done.stdout
    assert '"num_fetchers" to "FetchUrls" has incompatible type "str"' in errors[0]
    assert (
        'to "page_error" has incompatible type "str"; expected "WebPage"' in errors[1]
    )
