import pytest

from crawllib.config import ParseConfig, load_properties

CHOOSE = ParseConfig.from_properties(load_properties())


def test_beamcrawl_parser_processes_defaults_to_the_job_chooses():
    assert CHOOSE.processes == -1


@pytest.mark.parametrize(
    ("local", "cores", "processes"),
    [(True, 4, 4), (True, 2, 2), (True, 1, 0), (False, 4, 0), (False, 1, 0)],
)
def test_beamcrawl_for_runner_parses_in_one_process_per_core_locally_only(
    local, cores, processes
):
    assert CHOOSE.for_runner(local, cores).processes == processes


@pytest.mark.parametrize("chosen", [0, 3])
def test_for_runner_keeps_a_chosen_number_of_processes(chosen):
    config = ParseConfig.from_properties(
        load_properties(defines=[f"parser.processes={chosen}"])
    )
    assert config.for_runner(local=True, cores=8) is config
    assert config.for_runner(local=False) is config


def test_for_runner_counts_this_process_cores_when_not_told():
    assert CHOOSE.for_runner(local=True).processes != -1
