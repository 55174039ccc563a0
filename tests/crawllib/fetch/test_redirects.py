import pytest

from crawllib.config import UrlConfig, load_properties
from crawllib.fetch.redirects import RedirectTargets, choose_repr
from crawllib.urls.linkrules import LinkRules

URLS = UrlConfig.from_properties(load_properties())


@pytest.mark.parametrize(
    ("src", "dst", "temp", "expected"),
    [
        # different domains: the target
        ("http://a.com/", "http://b.com/x", True, "http://b.com/x"),
        # permanent: a root source wins, else the target
        ("http://a.com/", "http://a.com/x", False, "http://a.com/"),
        ("http://a.com/x", "http://a.com/y", False, "http://a.com/y"),
        # temporary: root beats non-root
        ("http://a.com/", "http://a.com/x", True, "http://a.com/"),
        ("http://a.com/x", "http://a.com/", True, "http://a.com/"),
        # temporary, same host: fewer path parts, then the shorter path
        ("http://a.com/a/b/c", "http://a.com/a/b", True, "http://a.com/a/b"),
        ("http://a.com/a/b", "http://a.com/a/b/c", True, "http://a.com/a/b"),
        ("http://a.com/abc", "http://a.com/ab", True, "http://a.com/ab"),
        ("http://a.com/ab", "http://a.com/cd", True, "http://a.com/ab"),
        # temporary, other hosts of one domain: fewer host labels
        ("http://www.a.com/", "http://a.com/", True, "http://a.com/"),
        ("http://a.com/", "http://www.a.com/", True, "http://a.com/"),
    ],
)
def test_nutch_choose_repr(src, dst, temp, expected):
    assert choose_repr(src, dst, temp) == expected


def test_redirect_targets_are_normalized_filtered_and_not_self():
    targets = RedirectTargets(URLS)
    assert targets.keep("http://a.com/x", "HTTP://A.com:80/y") == "http://a.com/y"
    assert targets.keep("http://a.com/x", "http://a.com/img.png") is None
    assert targets.keep("http://a.com/x", "http://a.com/x#top") is None
    assert (
        RedirectTargets(URLS, max_length=20).keep(
            "http://a.com/", "http://a.com/" + "y" * 20
        )
        is None
    )


@pytest.mark.parametrize(
    ("target", "kept"),
    [
        ("http://a.com/ünï", "http://a.com/%C3%BCn%C3%AF"),
        ("http://a.com/%C3%BCn%C3%AF", "http://a.com/%C3%BCn%C3%AF"),
        ("http://a.com/%c3%bc", "http://a.com/%C3%BC"),
        ("http://a.com/caf%E9", "http://a.com/caf%E9"),
        ("http://a.com/ü%C3%BC", "http://a.com/%C3%BC%C3%BC"),
        ("http://BÜCHER.example/ü", "http://bücher.example/%C3%BC"),
    ],
)
def test_nutch_non_ascii_targets_in_utf8_percent_encoding_escapes_kept(target, kept):
    # BasicURLNormalizer (scope fetcher): UTF-8 escapes, hex upper-cased,
    # existing escapes never encoded twice; the host lower-cased, not punycoded
    assert RedirectTargets(URLS).keep("http://a.com/x", target) == kept


def test_nutch_ignore_external_and_internal_apply_to_redirects():
    external = RedirectTargets(URLS, links=LinkRules(ignore_external=True))
    assert external.keep("http://a.com/x", "http://b.com/y") is None
    assert external.keep("http://a.com/x", "http://www.a.com/y") is None
    by_domain = RedirectTargets(
        URLS, links=LinkRules(ignore_external=True, by_domain=True)
    )
    assert (
        by_domain.keep("http://a.com/x", "http://www.a.com/y") == "http://www.a.com/y"
    )
    internal = RedirectTargets(URLS, links=LinkRules(ignore_internal=True))
    assert internal.keep("http://a.com/x", "http://a.com/y") is None
    assert internal.keep("http://a.com/x", "http://b.com/y") == "http://b.com/y"


def test_nutch_ignore_also_redirects_false_keeps_every_redirect_target():
    rules = LinkRules(ignore_external=True, ignore_internal=True, also_redirects=False)
    targets = RedirectTargets(URLS, links=rules)
    assert targets.keep("http://a.com/x", "http://b.com/y") == "http://b.com/y"
    assert targets.keep("http://a.com/x", "http://a.com/y") == "http://a.com/y"
