import pytest

from crawllib.fetch.outcome import (
    PageProcessor,
    outputs_of,
    page_error,
    processor_outputs,
)
from crawllib.webpage import new_page

URL = "http://127.0.0.1/x"


def _page(protocol=None, parse=None, status=2):
    return new_page(
        URL,
        status=status,
        protocolStatus=None
        if protocol is None
        else {"code": protocol, "args": [], "lastModified": 0},
        parseStatus=None
        if parse is None
        else {"majorCode": parse[0], "minorCode": parse[1], "args": list(parse[2])},
    )


@pytest.mark.parametrize(
    ("page", "error"),
    [
        (_page(1, (1, 0, [])), None),
        (_page(1, (1, 100, ["http://127.0.0.1/y", "0"])), None),  # meta refresh
        (_page(), "not fetched"),
        (_page(14, status=3), "NOTFOUND"),
        (_page(18, status=3), "ROBOTS_DENIED"),
        (_page(16, status=34), "EXCEPTION"),
        (_page(12, status=5), "MOVED"),
        (_page(21, status=38), "NOTMODIFIED"),
        (_page(99, status=1), "UNKNOWN_CODE_99"),
        (_page(1), "not parsed"),
        (_page(1, (0, 0, [])), "not parsed"),
        (
            _page(1, (2, 203, ["no parser for image/png"])),
            "parse failed: no parser for image/png",
        ),
        (_page(1, (2, 200, ["a", "b"])), "parse failed: a, b"),
        (_page(1, (2, 200, [])), "parse failed: exception"),
        (_page(1, (2, 999, [])), "parse failed: minor code 999"),
        (_page(1, (1, 0, []), status=7), "status_duplicate"),
    ],
)
def test_page_error_says_why_a_page_is_not_a_success(page, error):
    assert page_error(page) == error


@pytest.mark.parametrize(
    ("value", "outputs"),
    [
        (None, []),
        ([1, 2], [1, 2]),
        (("key", 1), [("key", 1)]),  # a tuple is one output: a Beam key-value pair
        ((n for n in range(3)), [0, 1, 2]),
        (map(str, [1, 2]), ["1", "2"]),
        ({"a": 1}, [{"a": 1}]),
        ("title", ["title"]),
        (b"raw", [b"raw"]),
        (0, [0]),
        ([], []),
    ],
)
def test_outputs_of_a_return_value(value, outputs):
    assert outputs_of(value) == outputs


class _Spider(PageProcessor):
    def process_page(self, page):
        return ("processed", page["url"])  # a tuple: one output

    def complete_page(self, page, error):
        yield ("completed", page["url"], error)


def test_a_page_processor_processes_successes_and_completes_every_page():
    good, bad = _page(1, (1, 0, [])), _page(14, status=3)
    assert processor_outputs(_Spider(), good) == [
        ("processed", URL),
        ("completed", URL, None),
    ]
    assert processor_outputs(_Spider(), bad) == [("completed", URL, "NOTFOUND")]


def test_the_base_page_processor_outputs_nothing():
    assert processor_outputs(PageProcessor(), _page(1, (1, 0, []))) == []


def test_a_function_gets_every_page():
    seen = []

    def record(page):
        seen.append(page_error(page))
        return [page["url"], page["status"]]

    assert processor_outputs(record, _page(14, status=3)) == [URL, 3]
    assert processor_outputs(record, _page(1, (1, 0, []))) == [URL, 2]
    assert seen == ["NOTFOUND", None]


def test_an_error_in_a_generator_passes_through_with_no_partial_outputs():
    def broken(page):
        yield 1
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        processor_outputs(broken, _page(1, (1, 0, [])))
