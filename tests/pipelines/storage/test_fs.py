import gzip
import io
from pathlib import Path

import pytest

from pipelines.storage import fs


def test_dir_exists_only_for_a_directory(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "f").write_text("x")
    assert fs.dir_exists(str(tmp_path / "d"))
    assert not fs.dir_exists(str(tmp_path / "f"))
    assert not fs.dir_exists(str(tmp_path / "missing"))


def test_remove_dir_removes_the_tree_and_a_missing_one_is_no_error(tmp_path):
    tree = tmp_path / "crawl[1]*?"
    (tree / "a" / "b").mkdir(parents=True)
    (tree / "a" / "b" / "part-00000-of-00001.avro").write_bytes(b"x")
    (tmp_path / "crawl1").mkdir()  # what the glob characters would also match
    fs.remove_dir(str(tree))
    assert not tree.exists()
    assert (tmp_path / "crawl1").exists()
    fs.remove_dir(str(tree))


class JobFailed(Exception):
    pass


def _fail_writing(out, *names):
    """Write ``names`` under ``out`` inside :func:`fs.new_output`, then fail."""
    with fs.new_output(str(out)):
        for name in names:
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            (out / name).write_text("half")
        raise JobFailed


def test_new_output_removes_a_failed_jobs_new_directory(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(JobFailed):
        _fail_writing(out, "part")
    assert not out.exists()


def test_new_output_empties_a_directory_that_was_empty_before(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(JobFailed):
        _fail_writing(out, "sub/part", "part")
    assert out.is_dir()
    assert list(out.iterdir()) == []


def test_new_output_keeps_what_a_successful_job_wrote(tmp_path):
    out = tmp_path / "out"
    with fs.new_output(str(out)):
        out.mkdir()
        (out / "part").write_text("whole")
    assert (out / "part").read_text() == "whole"


def _scratch_then_fail(temp_location):
    with fs.scratch(temp_location) as first, fs.scratch(temp_location) as second:
        assert first != second
        assert first.startswith(temp_location)
        raise JobFailed


def test_scratch_is_a_new_directory_removed_when_the_block_fails(tmp_path):
    with pytest.raises(JobFailed):
        _scratch_then_fail(str(tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_read_lines_reads_files_in_name_order_as_utf8(tmp_path):
    (tmp_path / "b.txt").write_text("drei\nvier\n", encoding="utf-8")
    (tmp_path / "a.txt").write_text("eins\nzwei \u00e9\n", encoding="utf-8")
    (tmp_path / "c.csv").write_text("not matched\n")
    lines = fs.read_lines(str(tmp_path / "*.txt"))
    assert lines == ["eins", "zwei \u00e9", "drei", "vier"]


def test_open_raw_reads_a_gz_file_as_stored(tmp_path):
    path = tmp_path / "sitemap.xml.gz"
    stored = gzip.compress(b"<urlset/>")
    path.write_bytes(stored)
    with fs.open_raw(str(path)) as f:
        assert f.read() == stored


def _stored(
    data: bytes,
    store: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> str:
    """``data`` written as a file ``run-1`` on ``store`` (a fresh bucket); its path."""
    from apache_beam.io.filesystems import FileSystems

    from tests.objectstores import store_in_use

    root = (
        str(tmp_path)
        if store == "local"
        else store_in_use(request, monkeypatch, store).url("runs")
    )
    path = FileSystems.join(root, "run-1")
    with FileSystems.create(path) as handle:
        handle.write(data)
    return path


@pytest.mark.parametrize("store", ["local", "s3", "gs"])
def test_read_range_gives_exactly_the_range_on_every_store(
    store, tmp_path, request, monkeypatch
):
    data = bytes(range(256)) * (80 * 1024)  # 20 MiB: more than a reader's buffer
    path = _stored(data, store, tmp_path, request, monkeypatch)
    for start, end in [(0, 10), (5_000_001, 5_000_101), (len(data) - 7, len(data))]:
        assert fs.read_range(path, start, end) == data[start:end]
    assert fs.read_range(path, 100, 100) == b""


@pytest.mark.parametrize("store", ["local", "s3", "gs"])
def test_a_range_reader_gives_the_range_in_pieces_on_every_store(
    store, tmp_path, request, monkeypatch
):
    data = bytes(range(251)) * (12 * 1024)  # 3 MB: several chunks
    path = _stored(data, store, tmp_path, request, monkeypatch)
    start, end = 1_000_003, len(data) - 5
    reader = fs.RangeReader(path, start, end, chunk_bytes=256 * 1024)
    pieces: list[bytes] = []
    sizes = [1, 7_000, 300_000, 262_143, 2]  # across chunk ends
    while piece := reader.read(sizes[len(pieces) % len(sizes)]):
        pieces.append(piece)
    assert b"".join(pieces) == data[start:end]
    assert reader.tell() == end - start
    assert reader.seek(10) == 10
    assert reader.read(5) == data[start + 10 : start + 15]
    assert reader.seek(-3, io.SEEK_END) == end - start - 3
    assert reader.read() == data[end - 3 : end]
    past_the_file = fs.RangeReader(path, len(data) - 4, len(data) + 100, 64)
    assert past_the_file.read() == data[-4:]
