import apache_beam as beam
import pytest

from crawllib.errors import CorruptFileError
from crawllib.webpage import new_page
from pipelines.storage import io, partfiles

PAGES = [new_page(f"http://a.com/{i}", status=1) for i in range(5)]


def _write(directory, shards=2):
    with beam.Pipeline() as p:
        _ = p | beam.Create(PAGES) | io.WriteWebPages(str(directory), shards)
    return sorted(path.name for path in directory.iterdir())


def test_the_pattern_matches_only_that_directorys_part_files(tmp_path):
    odd = tmp_path / "crawl[1]*?"
    names = _write(odd)
    (odd / "notes.txt").write_text("not a part")
    _write(tmp_path / "crawl1")  # what the glob characters would also match
    pattern = partfiles.parts_pattern(str(odd))
    found = [path for path, _ in partfiles.part_paths(pattern)]
    assert [path.rsplit("/", 1)[1] for path in found] == names
    assert all(path.startswith(str(odd)) for path in found)
    assert partfiles.has_parts(str(odd))
    assert not partfiles.has_parts(str(tmp_path))


def test_a_whole_set_passes_and_a_missing_shard_is_refused(tmp_path):
    names = _write(tmp_path / "v", shards=3)
    assert partfiles.parts_state(str(tmp_path / "v")) == "whole"
    partfiles.check_parts(partfiles.parts_pattern(str(tmp_path / "v")))
    (tmp_path / "v" / names[1]).unlink()
    assert partfiles.parts_state(str(tmp_path / "v")) == "incomplete"
    with pytest.raises(CorruptFileError, match="only 2 of its 3 part files"):
        partfiles.check_parts(partfiles.parts_pattern(str(tmp_path / "v")))
    assert partfiles.parts_state(str(tmp_path / "empty")) == "absent"


def test_sets_of_two_jobs_in_one_directory_are_named(tmp_path):
    paths = [
        "/db/v/part-00000-of-00002.avro",
        "/db/v/part-00001-of-00002.avro",
        "/db/v/part-00000-of-00003.avro",
        "/db/w/part-00000-of-00001.avro",
    ]
    assert partfiles.incomplete_sets(paths) == {
        "/db/v": "part files of different jobs (of-2 and of-3)"
    }


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # cut short
        lambda data: b"",  # empty
        lambda data: b"garbage" * 100,  # not Avro
    ],
    ids=["cut-short", "empty", "garbage"],
)
def test_a_damaged_file_is_refused_by_name(tmp_path, damage):
    names = _write(tmp_path / "v", shards=1)
    path = tmp_path / "v" / names[0]
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(CorruptFileError) as raised:
        partfiles.check_parts(partfiles.parts_pattern(str(tmp_path / "v")))
    assert str(path) in str(raised.value)
    assert partfiles.DAMAGED_HINT in str(raised.value)


def test_move_parts_moves_only_part_files(tmp_path):
    names = _write(tmp_path / "staged")
    (tmp_path / "staged" / "_SUCCESS").write_text("")
    (tmp_path / "final").mkdir()
    partfiles.move_parts(str(tmp_path / "staged"), str(tmp_path / "final"))
    assert sorted(p.name for p in (tmp_path / "final").iterdir()) == names
    assert [p.name for p in (tmp_path / "staged").iterdir()] == ["_SUCCESS"]


def test_rename_dir_moves_a_finished_output(tmp_path):
    names = _write(tmp_path / "staged")
    partfiles.rename_dir(str(tmp_path / "staged"), str(tmp_path / "final"))
    assert not (tmp_path / "staged").exists()
    assert sorted(p.name for p in (tmp_path / "final").iterdir()) == names
