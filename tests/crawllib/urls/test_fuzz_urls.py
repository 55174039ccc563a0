"""Property tests of the URL normalizers, filters and rule readers (hypothesis).

Normalizers are idempotent and never raise (the basic normalizer raises
MalformedUrlError only); filters only answer; rule readers raise
ConfigError only. Inputs are arbitrary text and URL-shaped text: schemes,
hosts with IDN, IPv6, ports and user-info, paths with dot segments and
percent-escapes, queries and fragments. Each failure hypothesis found is
kept as an example test in the test module of its code.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from xml.sax.saxutils import escape

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawllib.config import NORMALIZER_SCOPES, UrlConfig, load_properties
from crawllib.errors import ConfigError
from crawllib.urls.domainfilter import DomainDenylistUrlFilter, DomainUrlFilter
from crawllib.urls.filter import RegexUrlFilter, UrlFilters
from crawllib.urls.normalize import (
    MalformedUrlError,
    RegexNormalizer,
    UrlNormalizers,
    basic_normalize,
)
from crawllib.urls.prefixfilter import PrefixUrlFilter
from crawllib.urls.suffixfilter import SuffixUrlFilter
from crawllib.urls.validator import UrlValidator

FUZZ = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
FEW = settings(FUZZ, max_examples=100)

# --- URL-shaped text ----------------------------------------------------------

_SCHEMES = st.sampled_from(
    ["http", "https", "HTTP", "HtTpS", "ftp", "file", "mailto", "jar", "foo", "x-y+z"]
)
_LABEL = st.one_of(
    st.from_regex(r"[a-zA-Z0-9]([a-zA-Z0-9-]{0,10}[a-zA-Z0-9])?", fullmatch=True),
    st.sampled_from(
        ["xn--bcher-kva", "xn--p1ai", "xn--", "b\u00fccher", "\u0440\u0444"]
    ),
    st.text(min_size=1, max_size=6),
)
_HOST = st.one_of(
    st.lists(_LABEL, min_size=1, max_size=4).map(".".join),
    st.lists(_LABEL, min_size=1, max_size=3).map(lambda labels: ".".join(labels) + "."),
    st.ip_addresses(v=4).map(str),
    st.ip_addresses(v=6).map(lambda address: f"[{address}]"),
    st.sampled_from(["", "%41.com", "a%2Eb.com", "%zz.com", "[::1", "x:y"]),
)
_PORT = st.one_of(
    st.just(""),
    st.integers(min_value=0, max_value=99999).map(lambda port: f":{port}"),
    st.sampled_from([":", ":80", ":443", ":21", ":+80", ":-1", ":99999999999"]),
)
_USER_INFO = st.one_of(
    st.just(""), st.sampled_from(["user@", "user:pass@", "a@b@", "%40@", "@"])
)
_SEGMENT = st.one_of(
    st.sampled_from([".", "..", "", "%2e", "%2E%2e", "a", "index.html", "%7Euser"]),
    st.from_regex(r"(%[0-9a-fA-F]{2}|%|[a-z0-9~._-]){1,6}", fullmatch=True),
    st.text(max_size=5),
)
_PATH = st.lists(_SEGMENT, max_size=6).map(lambda segments: "/" + "/".join(segments))
_QUERY = st.one_of(
    st.just(""),
    st.text(max_size=12).map(lambda query: "?" + query),
    st.sampled_from(["?", "?&a=1&&b=2&", "?PHPSESSID=abc&x=1", "?;jsessionid=1"]),
)
_FRAGMENT = st.one_of(st.just(""), st.text(max_size=6).map(lambda ref: "#" + ref))
_PADDING = st.sampled_from(["", " ", "\t", "\x00", " \n"])


@st.composite
def url_shaped(draw: st.DrawFn) -> str:
    """A URL built from parts, each sometimes odd or broken."""
    scheme = draw(_SCHEMES)
    slashes = draw(st.sampled_from(["://", ":", ":/", ":///", "://" * 2]))
    authority = draw(_USER_INFO) + draw(_HOST) + draw(_PORT)
    tail = draw(_PATH) + draw(_QUERY) + draw(_FRAGMENT)
    return draw(_PADDING) + scheme + slashes + authority + tail + draw(_PADDING)


ANY_URL = st.one_of(url_shaped(), st.text(max_size=40))

# --- normalizers -------------------------------------------------------------


@functools.cache
def _default_config() -> UrlConfig:
    return UrlConfig.from_properties(load_properties())


@functools.cache
def _chains() -> tuple[tuple[str, UrlNormalizers], ...]:
    config = _default_config()
    return tuple((scope, UrlNormalizers(config, scope)) for scope in NORMALIZER_SCOPES)


_BASIC_OPTIONS: list[dict[str, object]] = [
    {},
    {"host_idn": "toAscii"},
    {"host_idn": "toUnicode"},
    {"host_idn": "toAscii", "idna2008": True, "trim_trailing_dot": True},
    {"host_idn": "toUnicode", "idna2008": True},
]


def _basic(url: str, options: dict[str, object]) -> str | None:
    try:
        return basic_normalize(url, **options)  # type: ignore[arg-type]
    except MalformedUrlError:
        return None


@FUZZ
@given(url=ANY_URL, options=st.sampled_from(_BASIC_OPTIONS))
def test_basic_normalizer_is_idempotent_and_raises_only_malformed(url, options):
    once = _basic(url, options)
    if once is not None:
        assert _basic(once, options) == once


@FUZZ
@given(url=ANY_URL)
def test_regex_normalizer_with_the_default_rules_is_idempotent(url):
    rules = RegexNormalizer(_default_config().regex_normalize_xml)
    once = rules.normalize(url)
    assert rules.normalize(once) == once


@FUZZ
@given(url=ANY_URL)
def test_normalizer_chain_of_every_scope_is_idempotent_and_never_raises(url):
    for scope, chain in _chains():
        once = chain.normalize(url)
        if once is not None:
            assert chain.normalize(once) == once, scope


# --- filters -------------------------------------------------------------------


@functools.cache
def _filters() -> tuple[Callable[[str], object], ...]:
    all_plugins = load_properties(
        defines=[
            "plugin.includes=urlfilter-(regex|domain|domaindenylist|prefix|suffix"
            "|validator)",
            "urlfilter.domain.rules=com\nexample.org\nwww.b\u00fccher.de",
            "urlfilter.domaindenylist.rules=net\n[::1]\n1.2.3.4",
        ]
    )
    chain = UrlFilters(UrlConfig.from_properties(all_plugins))
    config = _default_config()
    return (
        chain.filter,
        RegexUrlFilter(config.regex_filter_rules).accepts,
        RegexUrlFilter("> example.com\n-.\n<\n+.\n").accepts,
        DomainUrlFilter("com\nexample.org").accepts,
        DomainDenylistUrlFilter("net").accepts,
        PrefixUrlFilter("http://\nhttps://").accepts,
        SuffixUrlFilter("+IP\n.gif\n.JPG").accepts,
        SuffixUrlFilter("-\n.html").accepts,
        UrlValidator().accepts,
    )


@FUZZ
@given(url=ANY_URL)
def test_filters_never_raise(url):
    for accepts in _filters():
        accepts(url)


# --- rule readers ----------------------------------------------------------------

_REGEX_ISH = st.from_regex(
    r"[()\[\]\\$?*+.{}a-c0-9,|^&:=<>!pPQE-]{1,12}", fullmatch=True
)
_RULE_TEXT = st.one_of(
    st.text(max_size=60),
    st.lists(
        st.tuples(
            st.sampled_from("+-><# \tIP"), st.one_of(st.text(max_size=15), _REGEX_ISH)
        ).map("".join),
        max_size=6,
    ).map("\n".join),
)


def _only_config_errors(read: Callable[[str], object], text: str) -> None:
    try:
        read(text)
    except ConfigError as exc:
        message = str(exc)
    else:
        return
    assert "\n" not in message  # one line, for the CLI


@FUZZ
@given(text=_RULE_TEXT)
def test_filter_rule_readers_raise_only_config_error(text):
    for read in (
        RegexUrlFilter,
        DomainUrlFilter,
        DomainDenylistUrlFilter,
        PrefixUrlFilter,
        SuffixUrlFilter,
    ):
        _only_config_errors(read, text)


_XML_RULE = st.tuples(
    st.one_of(st.text(max_size=15), _REGEX_ISH),
    st.one_of(
        st.text(max_size=8), st.from_regex(r"[$\\{}a-c0-9]{0,6}", fullmatch=True)
    ),
).map(
    lambda rule: (
        f"<regex><pattern>{escape(rule[0])}</pattern>"
        f"<substitution>{escape(rule[1])}</substitution></regex>"
    )
)
_NORMALIZE_XML = st.one_of(
    st.text(max_size=60),
    st.lists(_XML_RULE, max_size=4).map(
        lambda rules: "<regex-normalize>" + "".join(rules) + "</regex-normalize>"
    ),
)


@FUZZ
@given(text=_NORMALIZE_XML)
def test_regex_normalize_reader_raises_only_config_error(text):
    _only_config_errors(RegexNormalizer, text)


@FEW
@given(text=_NORMALIZE_XML, url=ANY_URL)
def test_regex_normalizer_read_from_any_rules_never_raises(text, url):
    try:
        rules = RegexNormalizer(text)
    except ConfigError:
        return
    rules.normalize(url)
