"""The check of given properties: unknown names, declarations, origins."""

from __future__ import annotations

import logging

import pytest

from crawllib.config import declare_properties, load_properties
from crawllib.config.checks import check_given, is_declared, unknown_line
from crawllib.errors import ConfigError


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage() for r in caplog.records if r.name == "crawllib.config.checks"
    ]


def test_a_misspelt_property_warns_once_with_the_closest_name(caplog):
    caplog.set_level(logging.WARNING)
    props = load_properties(defines=["fetcher.server.dealy=0.1"], check=True)
    assert props["fetcher.server.dealy"] == "0.1"
    assert _warnings(caplog) == [
        "unknown property fetcher.server.dealy (did you mean fetcher.server.delay"
        " or fetcher.server.min.delay?)"
    ]


def test_a_name_close_to_nothing_says_how_to_declare_it():
    assert unknown_line("zzz.qqq") == (
        "unknown property zzz.qqq: beamcrawl does not read it (declare your own"
        " in properties.declared; see beamcrawl conf)"
    )


def test_known_names_of_dynamic_families_do_not_warn(caplog):
    caplog.set_level(logging.WARNING)
    names = [
        "urlnormalizer.regex.file.inject=regex-normalize.xml",
        "urlfilter.domain.rules=example.com",
        "sitemap.index.max.depth=2",
        "warc.export.ispartof=test",
    ]
    assert check_given(load_properties(defines=names)) == []
    assert _warnings(caplog) == []


def test_declared_names_and_prefixes_do_not_warn(tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    site = tmp_path / "site.properties"
    site.write_text("properties.declared = mytool.* , other.exact\nmytool.depth=3\n")
    props = load_properties(
        [str(site)], ["other.exact=1", "other.exactly=2"], check=True
    )
    assert is_declared("mytool.depth", props)
    assert not is_declared("other.exactly", props)
    assert [line.split(" (")[0].split(":")[0] for line in _warnings(caplog)] == [
        "unknown property other.exactly"
    ]


def test_beamcrawl_code_declares_its_properties_from_python(caplog):
    caplog.set_level(logging.WARNING)
    declare_properties("from.python.*")
    assert check_given(load_properties(defines=["from.python.limit=4"])) == []


def test_a_link_policy_module_declares_what_it_reads(tmp_path, caplog):
    caplog.set_level(logging.WARNING)
    policy = tmp_path / "declaring_policy.py"
    policy.write_text(
        "from crawllib.config import declare_properties\n"
        "declare_properties('newsonly.sections')\n"
        "def keep(link):\n"
        "    return True\n"
    )
    defines = [f"parse.link.policy={policy}:keep", "newsonly.sections=world"]
    assert check_given(load_properties(defines=defines)) == []
    assert _warnings(caplog) == []


def test_bad_values_are_refused_after_the_unknown_names_are_named(caplog):
    caplog.set_level(logging.WARNING)
    with pytest.raises(
        ConfigError,
        match=r"^property fetcher.server.delay='soon' is invalid: expected a number$",
    ):
        load_properties(
            defines=["fetcher.server.delay=soon", "fetcher.treads.fetch=2"], check=True
        )
    assert "fetcher.threads.fetch" in _warnings(caplog)[0]


def test_without_check_nothing_is_refused_until_it_is_read():
    props = load_properties(defines=["fetcher.server.delay=soon"])
    with pytest.raises(ConfigError, match="expected a number"):
        props.get_float("fetcher.server.delay")


def test_every_value_knows_where_it_came_from(tmp_path):
    site = tmp_path / "nutch-site.xml"
    site.write_text(
        "<configuration><property><name>http.agent.name</name>"
        "<value>site</value></property><property><name>generate.max.count</name>"
        "<value>5</value></property></configuration>"
    )
    props = load_properties([str(site)], ["generate.max.count=7"])
    assert props.origin("http.agent.name") == f"--conf {site}"
    assert props.origin("generate.max.count") == "-D"
    assert props.origin("fetcher.server.delay") == "default"
    assert props.given() == ["generate.max.count", "http.agent.name"]
    assert props.with_values({"x.y": "1"}, "--maxSize").origin("x.y") == "--maxSize"
    assert props.raw("fetcher.min.crawl.delay") == "${fetcher.server.delay}"
