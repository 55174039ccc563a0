"""pipelines.runtime.beamspeed: remembered Beam answers equal Beam's own."""

from __future__ import annotations

import functools

import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to
from apache_beam.transforms import core

from pipelines.runtime import beamspeed


class _WithParams(beam.DoFn):
    def process(self, element, timestamp=beam.DoFn.TimestampParam, scale=2):
        yield element * scale, timestamp is not None


def _plain(a, b=3, *rest, c=4):
    return a + b + c


class _Callable:
    def __call__(self, x, y=1):
        return x + y


def test_remembered_arguments_equal_beams_for_every_kind_of_callable() -> None:
    beamspeed.install()
    first, second = _WithParams(), _WithParams()
    callables = [
        first.process,
        second.process,  # another instance's bound method: the same answer
        _WithParams.process,  # the function itself keeps self
        _plain,
        lambda x, y=5: x,
        functools.partial(_plain, 1),
        _Callable(),
        len,  # a builtin
    ]
    for f in callables:
        want = beamspeed._original_get_function_args_defaults(f)
        assert core.get_function_args_defaults(f) == want, f
        assert core.get_function_args_defaults(f) == want, f  # remembered


def test_a_caller_changing_the_lists_does_not_change_the_next_answer() -> None:
    beamspeed.install()
    args, defaults = core.get_function_args_defaults(_plain)
    args.append("changed")
    defaults.clear()
    assert core.get_function_args_defaults(_plain) == (["a", "b"], [3])


def test_a_pipeline_with_dofn_params_runs_the_same() -> None:
    beamspeed.install()
    with beam.Pipeline() as pipeline:
        out = pipeline | beam.Create([1, 2]) | beam.ParDo(_WithParams())
        assert_that(out, equal_to([(2, True), (4, True)]))
