"""Property tests of the configuration readers (hypothesis): ConfigError or values.

``nutch-site.xml`` files (missing, repeated or odd parts, DTDs with entity
bombs and external entities, cut-off files, other encodings), ``name=value``
files and ``-D`` arguments either load or raise :class:`ConfigError`, one
line; loaded properties read back as strings, and every typed getter
answers or raises ConfigError. Also the example a fuzz run found: a value
whose references multiply.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawllib.config import ParseConfig
from crawllib.config.properties import (
    MAX_EXPANSIONS,
    Properties,
    load_properties,
    parse_define,
    read_site_file,
)
from crawllib.errors import ConfigError
from tests.crawllib.fuzz.strategies import key_value_files, site_xml_files

FUZZ = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=True,
)
NAMES = ("parser.timeout", "http.agent.name", "x", "a.b", "plugin.includes")


def _config_error(call: Callable[[], object]) -> str:
    """The message of the ConfigError ``call`` raises, "" if it returns."""
    try:
        call()
    except ConfigError as exc:
        return str(exc)
    return ""


def _read_all(props: Properties) -> None:
    """Every value as a string, and every typed getter on a few names."""
    for name in props:
        assert isinstance(props[name], str)
    for name in (n for n in NAMES if n in props):
        for getter in (props.get_int, props.get_float, props.get_bool, props.get_list):
            assert "\n" not in _config_error(functools.partial(getter, name))
    assert "\n" not in _config_error(lambda: ParseConfig.from_properties(props))


@FUZZ
@given(
    st.one_of(site_xml_files(), key_value_files(), st.text(max_size=60)),
    st.sampled_from(["utf-8", "utf-16", "latin-1"]),
    st.lists(st.text(max_size=20), max_size=3),
)
def test_any_config_file_and_defines_load_or_raise_config_error(
    tmp_path, text, encoding, defines
):
    path = tmp_path / "nutch-site.xml"
    path.write_bytes(text.encode(encoding, "replace"))
    loaded: list[Properties] = []
    error = _config_error(lambda: loaded.append(load_properties([str(path)], defines)))
    assert "\n" not in error
    if loaded:
        site = read_site_file(str(path))
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in site.items())
        _read_all(loaded[0])


@FUZZ
@given(st.text(max_size=30))
def test_any_define_splits_or_raises_config_error(text):
    try:
        name, value = parse_define(text)
    except ConfigError:
        assert "=" not in text or not text.partition("=")[0].strip()
        return
    raw_name, _, raw_value = text.partition("=")
    assert (name, value) == (raw_name.strip(), raw_value)
    assert name


def test_beamcrawl_references_that_multiply_are_a_config_error(tmp_path):
    # each value names the next one three times: 3**20 copies of "x"
    lines = [f"p{n}=${{p{n + 1}}}${{p{n + 1}}}${{p{n + 1}}}" for n in range(20)]
    path = tmp_path / "bomb.properties"
    path.write_text("\n".join([*lines, "p20=x"]), encoding="utf-8")
    props = load_properties([str(path)])
    assert props["p15"] == "x" * 3**5
    with pytest.raises(ConfigError, match=f"p0 expands more than {MAX_EXPANSIONS}"):
        props["p0"]


def test_references_within_the_limit_expand_and_a_loop_stays_literal():
    props = Properties({"a": "${b}-${b}", "b": "${c}", "c": "v", "self": "${self}"})
    assert props["a"] == "v-v"
    assert props["self"] == "${self}"
