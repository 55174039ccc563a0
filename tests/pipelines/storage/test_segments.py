import os

import pytest

from crawllib.errors import CrawlError
from crawllib.webpage import new_page
from pipelines.storage.segments import install_parts, staged_parts
from tests.avrofiles import read_pages
from tests.e2e.crafted import write_pages


def test_install_parts_replaces_a_part_of_several_files_whole(tmp_path):
    segment = tmp_path / "20240101000000"
    write_pages(segment / "generate", [new_page("http://a.com/")])
    write_pages(segment / "parse", [new_page("http://a.com/")], part=0)
    write_pages(segment / "parse", [new_page("http://b.com/")], part=1)
    staged = staged_parts(str(segment), ("parse",))
    write_pages(staged["parse"], [new_page("http://c.com/")])

    install_parts(str(segment), staged)

    assert [page["url"] for page in read_pages(segment / "parse")] == ["http://c.com/"]
    assert sorted(os.listdir(segment)) == ["generate", "parse"]


def test_a_fetched_segment_is_refused_with_how_to_fetch_it_again(tmp_path):
    segment = tmp_path / "20240101000000"
    write_pages(segment / "generate", [new_page("http://a.com/")])
    write_pages(segment / "fetch", [new_page("http://a.com/")])

    with pytest.raises(CrawlError) as refused:
        staged_parts(str(segment), ("fetch", "parse"))

    assert str(refused.value) == (
        f"segment {segment} is already fetched ({segment}/fetch exists); "
        f"to fetch it again, remove {segment}/fetch and {segment}/parse"
    )
