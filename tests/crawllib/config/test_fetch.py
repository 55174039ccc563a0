import dataclasses

import pytest

from crawllib.config import CrawlConfig, FetcherConfig, load_properties
from crawllib.config.fetch import THREADS_PROPERTY, checked_threads
from crawllib.errors import ConfigError

PROPS = load_properties(defines=["http.agent.name=test"])
CONFIG = FetcherConfig.from_properties(PROPS)


def test_checked_threads_takes_one_or_more():
    assert checked_threads(1, "--threads") == 1
    assert checked_threads(64, THREADS_PROPERTY) == 64


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("--threads", "--threads 0 is invalid: expected 1 or more"),
        (THREADS_PROPERTY, "property fetcher.threads.fetch='0' is invalid"),
        ("FetcherConfig threads", "FetcherConfig threads=0 is invalid"),
    ],
)
def test_checked_threads_names_where_a_bad_count_came_from(source, message):
    with pytest.raises(ConfigError) as raised:
        checked_threads(0, source)
    assert str(raised.value).startswith(message)


@pytest.mark.parametrize("threads", [0, -1])
def test_beamcrawl_no_path_makes_a_fetcher_without_threads(threads):
    # none would start no fetch thread: a local fetch would wait forever
    with pytest.raises(ConfigError, match="expected 1 or more"):
        CONFIG.with_threads(threads, "--threads")
    with pytest.raises(ConfigError, match="FetcherConfig threads"):
        dataclasses.replace(CONFIG, threads=threads)
    with pytest.raises(ConfigError, match=r"fetcher\.threads\.fetch"):
        _ = CrawlConfig.from_dict({"fetcher.threads.fetch": threads}).fetch
    with pytest.raises(ConfigError, match="FetcherConfig threads"):
        FetcherConfig(CONFIG.http, CONFIG.robots, CONFIG.urls, threads=threads)


def test_with_threads_changes_only_the_thread_count():
    assert CONFIG.with_threads(3) == dataclasses.replace(CONFIG, threads=3)
    assert CONFIG.with_threads(3).queue_depth == CONFIG.queue_depth
