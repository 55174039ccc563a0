import pytest

from crawllib.status import (
    CrawlStatus,
    Mark,
    ParseMajor,
    ParseMinor,
    ProtocolStatus,
    crawl_status_from_label,
    crawl_status_label,
    protocol_status_label,
)


def test_nutch_crawl_status_codes_and_names():
    assert [(s.value, s.label) for s in CrawlStatus] == [
        (1, "status_unfetched"),
        (2, "status_fetched"),
        (3, "status_gone"),
        (4, "status_redir_temp"),
        (5, "status_redir_perm"),
        (7, "status_duplicate"),
        (34, "status_retry"),
        (38, "status_notmodified"),
    ]
    assert crawl_status_label(0) == "null"
    assert crawl_status_label(99) == "status_unknown_99"


@pytest.mark.parametrize(
    "label", ["db_fetched", "status_fetched", "FETCHED", " Db_Fetched "]
)
def test_restrict_status_accepts_nutch_1_and_2_names(label):
    assert crawl_status_from_label(label) is CrawlStatus.FETCHED


def test_unknown_status_name_is_rejected():
    with pytest.raises(ValueError, match="unknown crawl status"):
        crawl_status_from_label("db_whatever")


def test_nutch_protocol_status_codes():
    expected = {
        "SUCCESS": 1, "FAILED": 2, "PROTO_NOT_FOUND": 10, "GONE": 11, "MOVED": 12,
        "TEMP_MOVED": 13, "NOTFOUND": 14, "RETRY": 15, "EXCEPTION": 16,
        "ACCESS_DENIED": 17, "ROBOTS_DENIED": 18, "REDIR_EXCEEDED": 19,
        "NOTFETCHING": 20, "NOTMODIFIED": 21, "WOULDBLOCK": 22, "BLOCKED": 23,
    }  # fmt: skip
    beamcrawls = {"ADDRESS_DENIED": 24}  # the address policy refused it
    assert {s.name: s.value for s in ProtocolStatus} == {**expected, **beamcrawls}
    assert protocol_status_label(14) == "NOTFOUND"
    assert protocol_status_label(99) == "UNKNOWN_CODE_99"


def test_nutch_parse_status_codes():
    assert [(m.value, m.label) for m in ParseMajor] == [
        (0, "notparsed"), (1, "success"), (2, "failed"),
    ]  # fmt: skip
    assert {m.label: m.value for m in ParseMinor} == {
        "ok": 0, "redirect": 100, "exception": 200, "truncated": 202,
        "invalid_format": 203, "missing_parts": 204, "missing_content": 205,
    }  # fmt: skip


def test_nutch_marks_are_spelled_exactly():
    assert Mark.PARSE.value == "__prsmrk__"
    assert [m.value for m in Mark] == [
        "_injmrk_", "_gnmrk_", "_ftcmrk_", "__prsmrk__",
        "_updmrk_", "_idxmrk_", "_stmmrk_",
    ]  # fmt: skip
