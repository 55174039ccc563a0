"""The snapshot of Beam's flags (scripts/beam_flags.py) against the installed Beam."""

import importlib.util
from pathlib import Path

from pipelines.runtime import beamflags

_SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "beam_flags.py"


def _script():
    spec = importlib.util.spec_from_file_location("beam_flags_script", _SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_flag_of_the_installed_beam_is_in_the_snapshot():
    installed = _script().installed_flags()

    assert set(installed) - set(beamflags.FLAGS) == set()
    assert len(installed) > 100  # the script found Beam's options classes


def test_the_snapshot_knows_which_flags_take_a_value():
    installed = _script().installed_flags()

    differ = {f for f in installed if installed[f] != beamflags.FLAGS.get(f)}
    assert differ == set()
    assert beamflags.FLAGS["--runner"] is True
    assert beamflags.FLAGS["--streaming"] is False
