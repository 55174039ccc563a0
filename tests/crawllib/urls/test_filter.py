import pytest

from crawllib.config import UrlConfig, load_properties
from crawllib.errors import ConfigError
from crawllib.urls.filter import RegexRule, RegexUrlFilter, UrlFilters


@pytest.fixture(scope="module")
def default_filters():
    return UrlFilters(UrlConfig.from_properties(load_properties()))


@pytest.mark.parametrize(
    "url",
    [
        "http://www.example.com/",
        "https://example.com/dir/page.html",
        "http://example.com/a.gif#top",  # the suffix must end the URL
        "http://example.com/a/b/c/d/",
        "http://example.com/a/b/c/a/b/c/",
    ],
)
def test_nutch_default_rules_accept(default_filters, url):
    assert default_filters.filter(url) == url


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://ftp.example.com/pub/",
        "mailto:someone@example.com",
        "http://example.com/logo.gif",
        "http://example.com/LOGO.JPG",
        "http://example.com/app.js",
        "http://example.com/search?q=x",
        "http://example.com/a*b",
        "http://example.com/x!",
        "http://user@example.com/",
        "http://example.com/a=b",
        "http://example.com/a/b/a/b/a/b/",
        "http://example.com/a/b/a/c/a/",
        "http://example.com/x/a/y/a/z/a/",
    ],
)
def test_nutch_default_rules_reject(default_filters, url):
    assert default_filters.filter(url) is None


def test_nutch_default_rules_text_is_the_bundled_file():
    config = UrlConfig.from_properties(load_properties())
    regexes = [rule.regex for rule in RegexUrlFilter(config.regex_filter_rules).rules]

    assert regexes == [
        "^(?:file|ftp|mailto):",
        r"(?i)\.(?:gif|jpg|png|ico|css|sit|eps|wmf|zip|ppt|mpg|xls|gz|rpm|tgz|mov"
        r"|exe|jpeg|bmp|js)$",
        "[?*!@=]",
        r".*(/[^/]+)/[^/]+\1/[^/]+\1/",
        ".",
    ]


def test_nutch_no_matching_rule_rejects():
    rules = RegexUrlFilter("+^https://example\\.com/\n")

    assert rules.accepts("https://example.com/")
    assert not rules.accepts("https://example.org/")


def test_nutch_empty_rules_reject_everything():
    assert not RegexUrlFilter("").accepts("http://example.com/")


def test_nutch_first_matching_rule_decides():
    url = "http://example.com/private/x.html"

    assert not RegexUrlFilter("-/private/\n+.\n").accepts(url)
    assert RegexUrlFilter("+.\n-/private/\n").accepts(url)


def test_nutch_regex_is_found_anywhere_not_matched_whole():
    rules = RegexUrlFilter("+example\n")

    assert rules.accepts("http://www.example.com/page")


def test_nutch_comments_blank_and_space_led_lines_are_skipped():
    text = "# a comment\n\n   \n -ignored\n+.\n"

    rules = RegexUrlFilter(text)

    assert [rule.regex for rule in rules.rules] == ["."]
    assert rules.accepts("http://ignored.example/")


def test_nutch_regex_is_the_rest_of_the_line_verbatim():
    rules = RegexUrlFilter("+a b \r\n-x\r+y\n")

    assert [r.regex for r in rules.rules] == ["a b ", "x", "y"]
    assert [r.line for r in rules.rules] == [1, 2, 3]


@pytest.mark.parametrize("line", ["http://example.com/", "\t+tab", "*.", "!x"])
def test_nutch_bad_first_character_raises_with_line_number(line):
    with pytest.raises(ConfigError, match=r"line 3\b"):
        RegexUrlFilter(f"# header\n+a\n{line}\n")


def test_regex_that_does_not_compile_raises_with_line_number():
    # which regexes do not compile: test_javaregex.py
    with pytest.raises(ConfigError, match=r"line 2\b.*cannot compile"):
        RegexUrlFilter("+ok\n-\\p{Alpha}\n")


def test_leading_dot_star_does_not_change_results():
    urls = [
        "http://a.com/a/b/a/b/a/b/",
        "http://a.com/x/a/b/a/c/a/d/",
        "http://a.com/one/two/three/",
        "http://a.com/a/a/a/a/a/a/",
    ]
    with_prefix = RegexUrlFilter("-.*(/[^/]+)/[^/]+\\1/[^/]+\\1/\n+.\n")
    without = RegexUrlFilter("-(/[^/]+)/[^/]+\\1/[^/]+\\1/\n+.\n")

    assert [with_prefix.accepts(u) for u in urls] == [without.accepts(u) for u in urls]
    assert [with_prefix.accepts(u) for u in urls] == [False, False, True, False]


BLOCK_RULES = """\
-\\.pdf$
> example.com
+^https?://[^/]*example\\.com/public/
-.
<
> news.other.org
-/archive/
<
+.
"""


def test_nutch_block_rules_apply_to_the_domain_and_its_hosts():
    rules = RegexUrlFilter(BLOCK_RULES)

    assert rules.accepts("http://example.com/public/a.html")
    assert rules.accepts("https://www.example.com/public/a.html")
    assert not rules.accepts("http://www.example.com/private/a.html")
    assert not rules.accepts("http://deep.sub.example.com/x")


def test_nutch_block_rules_skip_other_hosts_and_domains():
    rules = RegexUrlFilter(BLOCK_RULES)

    assert rules.accepts("http://example.org/private/a.html")
    assert rules.accepts("http://notexample.com/private/")
    assert rules.accepts("http://other.org/archive/2020.html")
    assert not rules.accepts("http://news.other.org/archive/2020.html")


def test_nutch_host_block_is_not_a_domain_block():
    # RegexURLFilterBase compares with the host and the domain, nothing else:
    # a.news.other.org has the domain other.org, so the block is skipped.
    rules = RegexUrlFilter(BLOCK_RULES)

    assert rules.accepts("http://a.news.other.org/archive/2020.html")


def test_nutch_rules_outside_blocks_apply_to_every_url():
    rules = RegexUrlFilter(BLOCK_RULES)

    assert not rules.accepts("http://www.example.com/public/a.pdf")
    assert not rules.accepts("http://other.org/a.pdf")


def test_nutch_block_applies_by_port_free_lowercased_host():
    rules = RegexUrlFilter(BLOCK_RULES)

    assert not rules.accepts("http://WWW.Example.COM:8080/private/")
    assert not rules.accepts("http://user@news.other.org:80/archive/")


def test_nutch_block_rules_skip_unparsable_urls():
    rules = RegexUrlFilter("> example.com\n-.\n<\n+example\n")

    assert rules.accepts("example.com/no-scheme")


def test_nutch_block_scope_is_recorded():
    rules = RegexUrlFilter(BLOCK_RULES).rules

    assert rules[1] == RegexRule(
        True, "^https?://[^/]*example\\.com/public/", "example.com", 3
    )
    assert [rule.scope for rule in rules] == [
        None,
        "example.com",
        "example.com",
        "news.other.org",
        None,
    ]


def test_beamcrawl_block_name_is_lowercased():
    rules = RegexUrlFilter(">  Example.COM \n-.\n<\n+.\n")

    assert not rules.accepts("http://www.example.com/")
    assert rules.accepts("http://www.example.org/")


def test_url_filters_apply_the_configured_rules():
    filters = UrlFilters(UrlConfig(regex_filter_rules="-private\n+.\n"))

    assert filters.filter("http://a.com/public") == "http://a.com/public"
    assert filters.filter("http://a.com/private") is None


def test_url_filters_pass_everything_when_the_regex_filter_is_off():
    config = UrlConfig(filters=(), regex_filter_rules="-.\n")

    assert UrlFilters(config).filter("http://a.com/x.gif?q=1") == (
        "http://a.com/x.gif?q=1"
    )


def test_url_filters_compile_once_and_fail_early():
    with pytest.raises(ConfigError, match="line 1"):
        UrlFilters(UrlConfig(regex_filter_rules="+(\n"))


# --- the chain: plugin.includes, urlfilter.order ------------------------------

ALL_FILTERS = (
    "plugin.includes=urlfilter-(regex|domain|domaindenylist|prefix|suffix|validator)"
)


def _filters(*defines: str) -> UrlFilters:
    return UrlFilters(UrlConfig.from_properties(load_properties(defines=defines)))


def test_beamcrawl_filters_run_cheap_first_when_urlfilter_order_is_empty():
    config = UrlConfig.from_properties(load_properties(defines=[ALL_FILTERS]))

    assert config.filters == (
        "validator",
        "prefix",
        "suffix",
        "domain",
        "domaindenylist",
        "regex",
    )


def test_nutch_urlfilter_order_runs_only_the_named_active_filters():
    config = UrlConfig.from_properties(
        load_properties(
            defines=[
                ALL_FILTERS,
                "urlfilter.order=org.apache.nutch.urlfilter.suffix.SuffixURLFilter"
                " org.apache.nutch.urlfilter.regex.RegexURLFilter"
                " org.apache.nutch.urlfilter.automaton.AutomatonURLFilter"
                " RegexURLFilter",
            ]
        )
    )

    # AutomatonURLFilter: its plugin is not active, so Nutch skips it too
    assert config.filters == ("suffix", "regex")


def test_nutch_urlfilter_order_skips_filters_whose_plugin_is_off():
    config = UrlConfig.from_properties(
        load_properties(defines=["urlfilter.order=UrlValidator RegexURLFilter"])
    )

    assert config.filters == ("regex",)


def test_beamcrawl_urlfilter_order_rejects_unknown_classes():
    with pytest.raises(ConfigError, match=r"urlfilter\.order='x\.MyFilter'"):
        _filters("urlfilter.order=x.MyFilter")
    with pytest.raises(ConfigError, match=r"urlfilter\.order='BasicURLNormalizer'"):
        _filters("urlfilter.order=BasicURLNormalizer")


def test_nutch_every_active_filter_must_accept():
    filters = _filters(
        ALL_FILTERS,
        "urlfilter.domain.rules=example.com",
        "urlfilter.domaindenylist.rules=private.example.com",
        "urlfilter.prefix.rules=https://",
        "urlfilter.regex.rules=-/tmp/\n+.",
    )

    assert filters.filter("https://www.example.com/a.html") is not None
    rejected = [
        "https://www.example.com/x.GIF",  # suffix (bundled rules)
        "https://www.example.org/a.html",  # domain
        "https://private.example.com/a.html",  # domaindenylist
        "http://www.example.com/a.html",  # prefix
        "https://www.example.com/tmp/a.html",  # regex
        "https://www.example.com/a b.html",  # validator
    ]
    assert [filters.filter(url) for url in rejected] == [None] * len(rejected)


def test_nutch_inline_rules_win_over_the_files():
    filters = _filters(
        "plugin.includes=urlfilter-prefix",
        "urlfilter.prefix.file=does-not-exist.txt",
        "urlfilter.prefix.rules=https://",
    )

    assert filters.filter("https://a.com/") == "https://a.com/"
    assert filters.filter("http://a.com/") is None


def test_nutch_bundled_rules_of_each_filter():
    domain = _filters("plugin.includes=urlfilter-domain")
    denylist = _filters("plugin.includes=urlfilter-domaindenylist")
    prefix = _filters("plugin.includes=urlfilter-prefix")

    assert domain.filter("http://any.example/") is not None  # empty list
    assert denylist.filter("http://any.example/") is not None
    assert prefix.filter("ftp://a.com/") is not None
    assert prefix.filter("mailto:a@b.com") is None


def test_beamcrawl_a_bad_rule_names_its_file(tmp_path):
    (tmp_path / "my-filter.txt").write_text("+ok\n~bad\n")
    site = tmp_path / "site.properties"
    site.write_text("urlfilter.regex.file=my-filter.txt\n")
    config = UrlConfig.from_properties(load_properties([str(site)]))

    with pytest.raises(ConfigError, match=r"^my-filter\.txt, line 2: '~bad'"):
        UrlFilters(config)


def test_beamcrawl_a_bad_inline_rule_names_its_property():
    config = UrlConfig.from_properties(
        load_properties(defines=["urlfilter.regex.rules=+("])
    )

    with pytest.raises(ConfigError, match=r"^urlfilter\.regex\.rules, line 1: "):
        UrlFilters(config)


def test_beamcrawl_unknown_filter_name_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown URL filter 'automaton'"):
        UrlFilters(UrlConfig(filters=("automaton",)))
