import pytest

from crawllib.config import (
    InjectConfig,
    PartitionConfig,
    Properties,
    StatsConfig,
    UrlConfig,
    load_properties,
    parse_define,
    plugin_active,
    read_site_file,
)
from crawllib.errors import ConfigError


def test_nutch_defaults_are_nutch_default_xml_values():
    props = load_properties()
    assert props.get_int("db.fetch.interval.default") == 2592000
    assert props.get_float("fetcher.server.delay") == 5.0
    assert props.get_int("http.content.limit") == 1048576
    assert props.get_bool("generate.update.crawldb") is False
    assert props.get_str("partition.url.mode") == "byHost"
    assert props.get_str("http.agent.name") == ""


def test_variable_expansion_follows_the_referenced_property():
    props = load_properties(defines=["fetcher.server.delay=2.5"])
    assert props.get_float("fetcher.min.crawl.delay") == 2.5


def test_define_overrides_site_file_which_overrides_defaults(tmp_path):
    site = tmp_path / "nutch-site.xml"
    site.write_text(
        """<?xml version="1.0"?>
<configuration>
  <property><name>http.agent.name</name><value>mybot</value></property>
  <property><name>generate.max.count</name><value>50</value>
    <description>per host</description></property>
</configuration>
"""
    )
    props = load_properties([str(site)], ["generate.max.count=7"])
    assert props.get_str("http.agent.name") == "mybot"
    assert props.get_int("generate.max.count") == 7


def test_plain_name_value_site_file(tmp_path):
    site = tmp_path / "site.properties"
    site.write_text("# comment\ndb.score.injected = 2.5\n\n")
    assert read_site_file(str(site)) == {"db.score.injected": "2.5"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<configuration><property>", "not valid XML"),
        (
            "<configuration><property><value>1</value></property></configuration>",
            "no <name>",
        ),
        ("just words", "expected name=value"),
    ],
)
def test_malformed_site_files_are_user_errors(tmp_path, text, message):
    site = tmp_path / "bad.xml"
    site.write_text(text)
    with pytest.raises(ConfigError, match=message):
        read_site_file(str(site))


def test_missing_site_file_is_a_user_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_properties([str(tmp_path / "absent.xml")])


@pytest.mark.parametrize(
    ("getter", "name", "value", "message"),
    [
        ("get_int", "generate.max.count", "lots", "an integer"),
        ("get_float", "db.score.injected", "high", "a number"),
        ("get_float", "db.score.injected", "nan", "a finite number"),
        ("get_bool", "fetcher.parse", "maybe", "true or false"),
    ],
)
def test_bad_values_name_the_property(getter, name, value, message):
    props = load_properties(defines=[f"{name}={value}"])
    with pytest.raises(
        ConfigError, match=rf"property {name}='{value}' is invalid.*{message}"
    ):
        getattr(props, getter)(name)


def test_define_without_equals_is_a_user_error():
    with pytest.raises(ConfigError, match="name=value"):
        parse_define("http.agent.name")
    assert parse_define("a.b=c=d") == ("a.b", "c=d")


def test_partition_mode_is_checked_at_the_door():
    assert PartitionConfig.from_properties(
        load_properties(defines=["partition.url.mode=bydomain"])
    ) == PartitionConfig(mode="byDomain", seed=0)
    with pytest.raises(ConfigError, match="byHost, byDomain, byIP"):
        PartitionConfig.from_properties(
            load_properties(defines=["partition.url.mode=byUrl"])
        )


def test_nutch_plugin_includes_selects_normalizers_and_filters():
    props = load_properties()
    assert plugin_active(props, "urlfilter-regex")
    assert not plugin_active(props, "urlfilter-domain")
    config = UrlConfig.from_properties(props)
    assert config.normalizers == ("basic", "regex")
    assert config.filters == ("regex",)
    assert "+." in config.regex_filter_rules

    only_basic = UrlConfig.from_properties(
        load_properties(defines=["plugin.includes=protocol-http|urlnormalizer-basic"])
    )
    assert only_basic.normalizers == ("basic",)
    assert only_basic.filters == ()


def test_urlnormalizer_order_is_honoured():
    config = UrlConfig.from_properties(
        load_properties(
            defines=[
                "urlnormalizer.order=org.apache.nutch.net.urlnormalizer.regex.RegexURLNormalizer"
                " org.apache.nutch.net.urlnormalizer.basic.BasicURLNormalizer"
            ]
        )
    )
    assert config.normalizers == ("regex", "basic")
    with pytest.raises(ConfigError, match=r"urlnormalizer\.order"):
        UrlConfig.from_properties(
            load_properties(defines=["urlnormalizer.order=x.Other"])
        )


def test_nutch_active_normalizers_missing_from_the_order_follow_it():
    # URLNormalizers: the ordered ones first, then the other active ones
    config = UrlConfig.from_properties(
        load_properties(
            defines=[
                "urlnormalizer.order=org.apache.nutch.net.urlnormalizer.regex."
                "RegexURLNormalizer PassURLNormalizer HostURLNormalizer"
            ]
        )
    )
    assert config.normalizers == ("regex", "basic")


def test_nutch_plugin_excludes_turns_plugins_off():
    props = load_properties(
        defines=[
            "plugin.includes=urlfilter-.*|urlnormalizer-(basic|regex)",
            "plugin.excludes=urlfilter-(automaton|fast|ignoreexempt|domainblacklist"
            "|regex|prefix)",
        ]
    )
    assert plugin_active(props, "urlfilter-suffix")
    assert not plugin_active(props, "urlfilter-regex")
    config = UrlConfig.from_properties(props)
    assert config.filters == ("validator", "suffix", "domain", "domaindenylist")


@pytest.mark.parametrize(
    "includes",
    [
        "protocol-http|urlfilter-(regex|automaton)|urlnormalizer-(basic|regex)",
        "protocol-http|urlfilter-regex|urlnormalizer-(basic|regex|querystring)",
        "protocol-http|urlfilter-regex|scoring-(opic|depth)",
        ".*",
    ],
)
def test_beamcrawl_plugin_includes_selecting_a_missing_url_plugin_is_rejected(
    includes,
):
    with pytest.raises(ConfigError, match=r"^plugin\.includes selects .*, which "):
        UrlConfig.from_properties(
            load_properties(defines=[f"plugin.includes={includes}"])
        )


def test_bad_plugin_excludes_regex_is_a_user_error():
    with pytest.raises(ConfigError, match=r"plugin\.excludes='\('"):
        UrlConfig.from_properties(load_properties(defines=["plugin.excludes=("]))


def test_rule_files_are_found_next_to_the_site_file(tmp_path):
    (tmp_path / "my-rules.txt").write_text("+^http://only\\.example/\n")
    (tmp_path / "scope.xml").write_text("<regex-normalize/>")
    site = tmp_path / "nutch-site.xml"
    site.write_text(
        "<configuration>"
        "<property><name>urlfilter.regex.file</name><value>my-rules.txt</value></property>"
        "<property><name>urlnormalizer.regex.file.inject</name><value>scope.xml</value>"
        "</property></configuration>"
    )
    config = UrlConfig.from_properties(load_properties([str(site)]))
    assert config.regex_filter_rules == "+^http://only\\.example/\n"
    assert config.regex_normalize_xml_for("inject") == "<regex-normalize/>"
    assert "session ids" in config.regex_normalize_xml_for("outlink")


def test_inline_filter_rules_win_over_the_file():
    config = UrlConfig.from_properties(
        load_properties(defines=["urlfilter.regex.rules=-."])
    )
    assert config.regex_filter_rules == "-."


def test_missing_rule_file_is_a_user_error():
    with pytest.raises(ConfigError, match="not found"):
        UrlConfig.from_properties(
            load_properties(defines=["urlfilter.regex.file=nope.txt"])
        )


def test_inject_config_reads_injector_properties():
    config = InjectConfig.from_properties(
        load_properties(
            defines=[
                "db.score.injected=2",
                "db.fetch.interval.default=60",
                "db.injector.update=true",
            ]
        )
    )
    assert (config.score_injected, config.fetch_interval_s) == (2.0, 60)
    assert config.update
    assert not config.overwrite
    with pytest.raises(ConfigError, match=r"db\.fetch\.interval\.default"):
        InjectConfig.from_properties(
            load_properties(defines=["db.fetch.interval.default=0"])
        )


def test_stats_quantiles_are_checked():
    assert StatsConfig.from_properties(
        load_properties(defines=["db.stats.score.quantiles=.5,.1"])
    ).quantiles == (0.1, 0.5)
    with pytest.raises(ConfigError, match="values in"):
        StatsConfig.from_properties(
            load_properties(defines=["db.stats.score.quantiles=1.5"])
        )


def test_properties_is_a_read_only_mapping_with_layers():
    props = Properties({"a.b": "1"}, {"a.b": "2"})
    assert props["a.b"] == "2"
    assert props.with_values({"a.b": "3"}).get_int("a.b") == 3
    assert "db.score.injected" in props
