"""The slow-fetch warning: the largest queue's delays, before the fetch."""

from crawllib.config import FetcherConfig, load_properties
from crawllib.fetch.plan import largest_queue, queue_key, slow_queue_warning


def _config(*defines):
    props = load_properties(defines=["http.agent.name=testbot", *defines])
    return FetcherConfig.from_properties(props)


def _urls(host, n):
    return [f"http://{host}/page/{i}" for i in range(n)]


def test_a_long_queue_at_the_default_delay_is_warned_of_with_the_way_out():
    urls = _urls("www.example.org", 36) + _urls("other.example.org", 3)
    queue = largest_queue(urls, _config())
    assert queue is not None
    assert (queue.queue_id, queue.urls, queue.delay_s) == ("www.example.org", 36, 5.0)
    assert queue.seconds == 35 * 5.0
    assert slow_queue_warning(queue) == (
        "www.example.org has 36 URLs in this fetch list: at "
        "fetcher.server.delay=5 s between its requests they take at least 2:55; "
        "on your own site (only), lower it with -D fetcher.server.delay=1"
    )


def test_a_short_queue_or_a_small_delay_is_not_warned_of():
    assert slow_queue_warning(largest_queue(_urls("a.example", 12), _config())) is None
    few = largest_queue(_urls("a.example", 36), _config("fetcher.server.delay=1"))
    assert slow_queue_warning(few) is None
    assert largest_queue([], _config()) is None


def test_the_suggested_delay_brings_the_queue_under_a_minute():
    queue = largest_queue(_urls("a.example", 500), _config())
    warning = slow_queue_warning(queue)
    assert warning is not None
    assert warning.endswith("-D fetcher.server.delay=0.1")
    huge = largest_queue(_urls("a.example", 5000), _config())
    assert str(slow_queue_warning(huge)).endswith("-D fetcher.server.delay=0")


def test_threads_per_queue_wait_the_min_delay_between_them():
    config = _config("fetcher.threads.per.queue=2", "fetcher.server.min.delay=2")
    queue = largest_queue(_urls("a.example", 101), config)
    assert queue is not None
    assert queue.delay_property == "fetcher.server.min.delay"
    assert queue.seconds == 100 * 2.0 / 2
    assert "fetcher.server.min.delay=2 s" in str(slow_queue_warning(queue))


def test_queues_follow_the_queue_mode():
    url = "http://docs.example.org/a"
    assert queue_key(url, "byHost") == "docs.example.org"
    assert queue_key(url, "byDomain") == "example.org"
    assert queue_key(url, "byIP") == "docs.example.org"
