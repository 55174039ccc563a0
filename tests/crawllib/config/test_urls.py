import pytest

from crawllib.config import FetcherConfig, ParseConfig, load_properties
from crawllib.config.urls import read_link_rules
from crawllib.errors import ConfigError
from crawllib.urls.linkrules import LinkRules


def test_nutch_db_ignore_defaults_ignore_nothing_and_apply_to_redirects():
    assert read_link_rules(load_properties()) == LinkRules(
        ignore_external=False, ignore_internal=False, by_domain=False
    )
    assert read_link_rules(load_properties()).also_redirects


def test_the_fetcher_and_the_parser_read_the_same_rules():
    props = load_properties(
        defines=[
            "http.agent.name=test",
            "db.ignore.external.links=true",
            "db.ignore.internal.links=true",
            "db.ignore.external.links.mode=byDomain",
            "db.ignore.also.redirects=false",
        ]
    )
    rules = LinkRules(True, True, by_domain=True, also_redirects=False)
    assert read_link_rules(props) == rules
    assert FetcherConfig.from_properties(props).links == rules
    assert ParseConfig.from_properties(props).links == rules


def test_a_bad_external_links_mode_is_one_line():
    props = load_properties(defines=["db.ignore.external.links.mode=byIP"])
    with pytest.raises(ConfigError, match=r"db\.ignore\.external\.links\.mode"):
        read_link_rules(props)
