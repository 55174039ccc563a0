from crawllib.fetch.queues import FetchItem, FetchQueues
from crawllib.webpage import new_page


def _take(queues, now):
    item, _ = queues.next_item(now)
    assert item is not None
    return item


def _item(queue_id, n=0):
    url = f"http://{queue_id}/{n}"
    return FetchItem(url, new_page(url), queue_id)


def test_nutch_first_request_goes_at_once_then_waits_the_delay_from_the_end():
    queues = FetchQueues(crawl_delay_s=5.0, min_crawl_delay_s=0.0, threads_per_queue=1)
    queues.add(_item("a", 1), now_s=100.0)
    queues.add(_item("a", 2), now_s=100.0)
    first, _ = queues.next_item(100.0)
    assert first is not None
    # busy: one thread per queue
    assert queues.next_item(100.0) == (None, float("inf"))
    queues.finish(first, now_s=103.0)
    assert queues.next_item(107.9)[0] is None
    assert queues.next_item(107.9)[1] > 0
    second, _ = queues.next_item(108.0)
    assert second is not None
    assert second.url == "http://a/2"


def test_nutch_several_threads_per_queue_use_the_min_delay():
    queues = FetchQueues(crawl_delay_s=5.0, min_crawl_delay_s=1.0, threads_per_queue=2)
    for n in range(3):
        queues.add(_item("a", n), 0.0)
    one, _ = queues.next_item(0.0)
    two, _ = queues.next_item(0.0)
    assert one is not None
    assert two is not None
    assert queues.next_item(0.0)[0] is None
    queues.finish(one, 2.0)
    assert queues.next_item(2.5)[0] is None
    assert queues.next_item(3.0)[0] is not None


def test_queues_are_independent():
    queues = FetchQueues(crawl_delay_s=10.0, min_crawl_delay_s=0.0, threads_per_queue=1)
    queues.add(_item("a"), 0.0)
    queues.add(_item("b"), 0.0)
    got = {_take(queues, 0.0).queue_id, _take(queues, 0.0).queue_id}
    assert got == {"a", "b"}
    assert len(queues) == 2


def test_asap_finish_lets_the_next_go_at_once():
    queues = FetchQueues(crawl_delay_s=10.0, min_crawl_delay_s=0.0, threads_per_queue=1)
    queues.add(_item("a", 1), 0.0)
    queues.add(_item("a", 2), 0.0)
    first = _take(queues, 0.0)
    queues.finish(first, 1.0, asap=True)
    assert queues.next_item(1.0)[0] is not None


def test_back_off_and_purge():
    queues = FetchQueues(crawl_delay_s=0.0, min_crawl_delay_s=0.0, threads_per_queue=1)
    for n in range(4):
        queues.add(_item("a", n), 0.0)
    queues.back_off("a", 0.0, 30.0)
    assert queues.next_item(29.0) == (None, 1.0)
    assert [i.url for i in queues.purge("a")] == [f"http://a/{n}" for n in range(4)]
    assert queues.queued == 0
    assert queues.next_item(100.0) == (None, float("inf"))


def test_redirect_targets_go_first():
    queues = FetchQueues(crawl_delay_s=0.0, min_crawl_delay_s=0.0, threads_per_queue=1)
    queues.add(_item("a", 1), 0.0)
    queues.add(_item("a", 2), 0.0, first=True)
    assert _take(queues, 0.0).url == "http://a/2"


def test_many_queues_hand_out_in_time_order():
    queues = FetchQueues(crawl_delay_s=1.0, min_crawl_delay_s=0.0, threads_per_queue=1)
    for q in range(1000):
        queues.add(_item(f"h{q}", 0), 0.0)
        queues.add(_item(f"h{q}", 1), 0.0)
    handed = [_take(queues, 0.0) for _ in range(1000)]
    assert queues.next_item(0.0)[0] is None
    for n, item in enumerate(handed):
        queues.finish(item, 1.0 + n / 1000)
    assert _take(queues, 2.0).queue_id == "h0"
    assert queues.in_progress == 1
    assert queues.queued == 999
