import dataclasses
import pickle

import pytest

from crawllib.config import (
    CrawlConfig,
    FetcherConfig,
    GenerateConfig,
    LinkDbConfig,
    ParseConfig,
    StatsConfig,
    UpdateConfig,
    UrlConfig,
    load_properties,
    step_config,
)
from crawllib.config.warc import WarcConfig
from crawllib.db.dedup import DedupConfig
from crawllib.errors import ConfigError
from crawllib.urls.linkpolicy import Link, LinkKind, LinkPolicy, NutchLinkPolicy


class _NewsOnly(LinkPolicy):
    def internal(self, link: Link) -> bool:
        return "/news/" in link.url


def _news_only(link: Link) -> bool:
    return "/news/" in link.url


def test_from_dict_turns_values_into_property_strings():
    config = CrawlConfig.from_dict(
        {
            "http.agent.name": "newsbot",
            "fetcher.server.delay": 0.2,
            "fetcher.threads.fetch": 3,
            "fetcher.parse": True,
            "db.ignore.external.links": False,
        }
    )
    props = config.properties
    assert props["http.agent.name"] == "newsbot"
    assert props["fetcher.server.delay"] == "0.2"
    assert props["fetcher.threads.fetch"] == "3"
    assert props["fetcher.parse"] == "true"
    assert props["db.ignore.external.links"] == "false"
    assert props.is_set("fetcher.parse")
    assert not props.is_set("http.timeout")
    fetch = config.fetch
    assert (fetch.http.agent_name, fetch.server_delay_s, fetch.threads) == (
        "newsbot",
        0.2,
        3,
    )


def test_from_dict_rejects_a_value_of_another_type():
    with pytest.raises(ConfigError) as error:
        CrawlConfig.from_dict({"generate.topN": [1, 2]})  # type: ignore[dict-item]
    assert str(error.value) == (
        "property generate.topN=[1, 2] is invalid: expected a str, int, float or bool"
    )


def test_a_bad_value_fails_when_the_step_config_is_built():
    config = CrawlConfig.from_dict(
        {"http.agent.name": "a", "fetcher.server.delay": "soon"}
    )
    assert config.properties["fetcher.server.delay"] == "soon"
    with pytest.raises(ConfigError) as error:
        _ = config.fetch
    assert str(error.value) == (
        "property fetcher.server.delay='soon' is invalid: expected a number"
    )
    assert config.parse.max_outlinks == 100  # other steps are not affected


def test_load_is_the_command_lines_conf_and_defines(tmp_path):
    site = tmp_path / "site.properties"
    site.write_text("http.agent.name = filebot\ngenerate.max.count = 50\n")
    config = CrawlConfig.load(
        conf_files=(str(site),), defines=("generate.max.count=7",)
    )
    assert config.properties["http.agent.name"] == "filebot"
    assert config.generate.max_count == 7
    assert config == CrawlConfig.from_properties(
        load_properties([str(site)], ["generate.max.count=7"])
    )


def test_with_overrides_keeps_the_rest_and_the_link_policy():
    base = CrawlConfig.from_dict({"http.agent.name": "a", "generate.max.count": 5})
    base = base.with_link_policy(_NewsOnly)
    derived = base.with_overrides({"generate.max.count": 9})
    assert derived.generate.max_count == 9
    assert base.generate.max_count == 5
    assert derived.properties["http.agent.name"] == "a"
    assert derived.link_policy == _NewsOnly()


def test_get_builds_each_step_config_once():
    config = CrawlConfig.from_dict({"http.agent.name": "a"})
    assert config.get(FetcherConfig) is config.get(FetcherConfig)
    assert config.fetch is config.get(FetcherConfig)
    assert config.update is config.get(UpdateConfig)
    assert config.get(UpdateConfig) == UpdateConfig.from_properties(config.properties)
    assert config.linkdb == LinkDbConfig.from_properties(config.properties)
    assert config.stats == StatsConfig.from_properties(config.properties)
    assert config.urls == UrlConfig.from_properties(config.properties)
    assert config.get(WarcConfig) == WarcConfig.from_properties(config.properties)


def test_a_config_class_without_from_properties_gets_its_defaults():
    assert CrawlConfig.from_dict({}).get(DedupConfig) == DedupConfig()


def test_parse_runs_in_the_runners_threads_unless_processes_are_asked_for():
    config = CrawlConfig.from_dict({})
    assert config.properties["parser.processes"] == "-1"
    assert ParseConfig.from_properties(config.properties).processes == -1
    assert config.parse.processes == 0
    assert config.with_overrides({"parser.processes": 3}).parse.processes == 3


def test_parse_has_the_link_policy_given():
    config = CrawlConfig.from_dict({}, link_policy=_news_only)
    policy = config.parse.link_policy
    assert policy is not None
    assert policy is config.link_policy
    internal = Link("http://a/x", "http://a/", LinkKind.INTERNAL, None)
    assert policy.decide(internal) is None
    assert policy.decide(internal._replace(url="http://a/news/1")) == "http://a/news/1"
    assert CrawlConfig.from_dict({}).parse.link_policy is None


def test_a_link_policy_instance_is_kept_as_given():
    policy = NutchLinkPolicy(ignore_external_links=True)
    assert CrawlConfig.from_dict({}).with_link_policy(policy).link_policy is policy


def test_it_pickles_with_its_link_policy():
    config = CrawlConfig.from_dict(
        {"http.agent.name": "a", "fetcher.server.delay": "0.5"}, link_policy=_NewsOnly
    )
    _ = config.fetch  # cached configs travel too
    copy = pickle.loads(pickle.dumps(config))
    assert copy == config
    assert copy.fetch == config.fetch
    assert copy.parse == config.parse
    assert copy.link_policy == _NewsOnly()


def test_step_config_takes_the_step_config_or_a_crawl_config():
    fetch = CrawlConfig.from_dict({"http.agent.name": "a"}).fetch
    assert step_config(fetch, FetcherConfig) is fetch
    config = CrawlConfig.from_dict({"http.agent.name": "b"})
    assert step_config(config, FetcherConfig) is config.fetch
    assert step_config(config, GenerateConfig) is config.generate


def test_step_config_names_both_types_when_given_anything_else():
    fetch = CrawlConfig.from_dict({"http.agent.name": "a"}).fetch
    with pytest.raises(TypeError) as error:
        step_config(fetch, ParseConfig)
    assert str(error.value) == (
        "expected a ParseConfig or a CrawlConfig, got FetcherConfig"
    )
    with pytest.raises(TypeError, match="got dict"):
        step_config({"http.agent.name": "a"}, FetcherConfig)


def test_equal_configs_compare_equal_whatever_they_have_built():
    one = CrawlConfig.from_dict({"http.agent.name": "a"})
    two = CrawlConfig.from_dict({"http.agent.name": "a"})
    _ = one.fetch
    assert one == two
    assert dataclasses.replace(one, link_policy=_NewsOnly()) != two


def test_its_repr_shows_what_was_set():
    config = CrawlConfig.from_dict({"http.agent.name": "a", "generate.topN": 5})
    assert repr(config) == (
        "CrawlConfig({'http.agent.name': 'a', 'generate.topN': '5'}, link_policy=None)"
    )
