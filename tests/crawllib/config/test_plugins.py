"""Tests for crawllib.config.plugins: which plugin ids plugin.includes may select."""

import re

import pytest

from crawllib.config import UrlConfig, load_properties
from crawllib.config.plugins import (
    NUTCH_PLUGINS,
    NUTCH_URL_CLASSES,
    Support,
    check_plugin_includes,
)
from crawllib.errors import ConfigError

NUTCH_1X_DEFAULT = (
    "protocol-http|urlfilter-regex|parse-(html|tika)|index-(basic|anchor)"
    "|indexer-solr|scoring-opic|urlnormalizer-(pass|regex|basic)"
)
NUTCH_1X_DEFAULT_SINCE_1_19 = (
    "protocol-http|urlfilter-(regex|validator)|parse-(html|tika)"
    "|index-(basic|anchor)|indexer-solr|scoring-opic|urlnormalizer-(pass|regex|basic)"
)
NUTCH_2X_DEFAULT = (
    "protocol-http|urlfilter-(regex|validator)|parse-(html|tika)"
    "|index-(basic|anchor)|urlnormalizer-(pass|regex|basic)|scoring-opic"
)


def _check(includes: str, excludes: str = "") -> None:
    def active(plugin: str) -> bool:
        if re.fullmatch(includes, plugin) is None:
            return False
        return not (excludes and re.fullmatch(excludes, plugin))

    check_plugin_includes(includes, active)


@pytest.mark.parametrize(
    "includes", [NUTCH_1X_DEFAULT, NUTCH_1X_DEFAULT_SINCE_1_19, NUTCH_2X_DEFAULT]
)
def test_nutch_default_plugin_includes_are_accepted(includes):
    config = UrlConfig.from_properties(
        load_properties(defines=[f"plugin.includes={includes}"])
    )

    assert config.normalizers == ("basic", "regex")
    assert "regex" in config.filters
    assert ("validator" in config.filters) is ("validator" in includes)


def test_beamcrawl_bundled_plugin_includes_is_accepted():
    config = UrlConfig.from_properties(load_properties())

    assert config.filters == ("regex",)


@pytest.mark.parametrize(
    "plugin",
    [name for name, support in NUTCH_PLUGINS.items() if support is Support.MISSING],
)
def test_beamcrawl_rejects_each_url_plugin_it_lacks(plugin):
    with pytest.raises(ConfigError) as info:
        _check(f"protocol-http|{plugin}|urlfilter-regex")

    message = str(info.value)
    assert message.startswith(f"plugin.includes selects {plugin}, which beamcrawl")
    assert "\n" not in message


@pytest.mark.parametrize(
    "plugin",
    [name for name, support in NUTCH_PLUGINS.items() if support is not Support.MISSING],
)
def test_beamcrawl_accepts_each_plugin_it_has_or_that_does_not_apply(plugin):
    _check(plugin)


def test_beamcrawl_names_every_missing_plugin_a_regex_selects():
    with pytest.raises(ConfigError, match=r"\bselects urlfilter-automaton and "):
        _check("urlfilter-(automaton|fast|regex)")
    with pytest.raises(
        ConfigError,
        match="selects urlfilter-automaton, urlfilter-domainblacklist, "
        "urlfilter-fast and urlfilter-ignoreexempt, .* remove them .*"
        r"urlfilter-domaindenylist is urlfilter-domainblacklist's new name\)$",
    ):
        _check("urlfilter-.*")


def test_nutch_plugin_excludes_removes_plugins_from_the_selection():
    _check(
        "urlfilter-.*|urlnormalizer-(basic|regex)",
        "urlfilter-(automaton|fast|ignoreexempt|domainblacklist)",
    )


def test_beamcrawl_rejects_an_unknown_url_plugin_named_literally():
    with pytest.raises(ConfigError, match="urlfilter-mycompany, which is not a Nutch"):
        _check("protocol-http|urlfilter-mycompany|parse-html")
    _check("protocol-http|parse-mycompany")  # not a URL plugin: no effect
    _check("urlfilter-mycompany|urlfilter-regex", "urlfilter-mycompany")


def test_nutch_url_classes_name_known_plugins():
    assert set(NUTCH_URL_CLASSES.values()) <= set(NUTCH_PLUGINS)
    url_plugins = {p for p in NUTCH_PLUGINS if p.startswith("url")} - {"urlmeta"}
    assert set(NUTCH_URL_CLASSES.values()) == url_plugins
