import pytest
from apache_beam.runners.runner import PipelineResult, PipelineState

from crawllib.errors import ConfigError
from pipelines.runtime.options import (
    counters,
    describe,
    job_parser,
    parse_job_args,
    read_job_args,
    split_beam_flags,
)


def _parser():
    parser = job_parser("beamcrawl test", "test")
    parser.add_argument("crawldb")
    parser.add_argument("--topN", type=int)
    parser.add_argument("--noFilter", action="store_true")
    return parser


def test_beam_flags_with_separate_values_do_not_steal_positionals():
    ours, beam = split_beam_flags(
        _parser(),
        ["--runner", "DirectRunner", "db", "--topN", "5", "--streaming", "--noFilter"],
    )
    assert ours == ["db", "--topN", "5", "--noFilter"]
    assert beam == ["--runner", "DirectRunner", "--streaming"]


def test_attached_values_and_short_defines():
    ours, beam = split_beam_flags(
        _parser(),
        ["-Da.b=1", "-D", "c.d=2", "--job_name=x", "db", "--topN=3", "--conf", "f.xml"],
    )
    assert ours == ["-Da.b=1", "-D", "c.d=2", "db", "--topN=3", "--conf", "f.xml"]
    assert beam == ["--job_name=x"]


def test_negative_numbers_are_values_not_flags():
    ours, _ = split_beam_flags(_parser(), ["db", "--topN", "-1"])
    assert ours == ["db", "--topN", "-1"]


def test_unknown_flags_are_user_errors_with_the_close_known_ones():
    line = r"^beamcrawl test: unrecognized argument --topn \(did you mean --topN\?\)$"
    with pytest.raises(ConfigError, match=line):
        split_beam_flags(_parser(), ["db", "--topn", "5"])


def test_a_mistyped_beam_flag_is_suggested_too():
    with pytest.raises(ConfigError, match=r"did you mean --runner\?"):
        split_beam_flags(_parser(), ["db", "--runnr", "DirectRunner"])


def test_a_flag_like_none_known_gets_no_suggestion():
    with pytest.raises(ConfigError) as raised:
        split_beam_flags(_parser(), ["db", "--frobnicate"])
    assert str(raised.value) == "beamcrawl test: unrecognized argument --frobnicate"


def test_the_runner_is_read_from_the_flags():
    assert parse_job_args(_parser(), ["db"]).is_local()
    job = read_job_args(_parser(), ["db", "--runner=FlinkRunner"])
    assert not job.is_local()
    assert not read_job_args(_parser(), ["db", "--job_endpoint", "h:1"]).is_local()
    dataflow = read_job_args(_parser(), ["gs://b/db", "--runner", "DataflowRunner"])
    assert dataflow.is_dataflow()


def test_parse_job_args_loads_properties_and_beam_options():
    job = parse_job_args(
        _parser(), ["db", "-D", "generate.max.count=7", "--runner=DirectRunner"]
    )
    assert job.args.crawldb == "db"
    assert job.properties.get_int("generate.max.count") == 7
    assert job.pipeline_options().get_all_options()["runner"] == "DirectRunner"


def test_argparse_errors_are_one_line_user_errors():
    with pytest.raises(ConfigError, match="invalid int value"):
        parse_job_args(_parser(), ["db", "--topN", "many"])


def test_a_runner_without_metrics_gives_no_counters_and_says_so(caplog):
    # Beam's own base result: a runner that does not implement metrics()
    result = PipelineResult(PipelineState.DONE)
    assert counters(result, "Fetcher") == {}
    assert "the runner reported no counters (NotImplementedError" in caplog.text
    assert describe({}) == "no counters"
    assert describe({"b": 2, "a": 1}) == "a=1, b=2"
