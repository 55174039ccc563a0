import pytest

from crawllib.urls.linkkind import LinkKind
from crawllib.urls.linkrules import NUTCH_RULES, LinkRules

PAGE = "http://www.a.com/dir/page.html"
SAME_HOST = "http://www.a.com/other"
SAME_DOMAIN = "http://img.a.com/x"
OTHER_DOMAIN = "http://b.org/"


def _keeps(rules, url):
    return rules.keeps_link(url, PAGE, rules.kind(url, PAGE))


def test_the_classes_of_links_relative_to_their_page():
    assert NUTCH_RULES.kind(SAME_HOST, PAGE) is LinkKind.INTERNAL
    assert NUTCH_RULES.kind(SAME_DOMAIN, PAGE) is LinkKind.EXTERNAL
    assert NUTCH_RULES.kind("mailto:me@www.a.com", PAGE) is LinkKind.OTHER
    classifier = NUTCH_RULES.classifier(PAGE)
    assert classifier.kind(OTHER_DOMAIN) is LinkKind.EXTERNAL


def test_nutch_defaults_keep_every_link_and_redirect():
    assert NUTCH_RULES.keeps_all
    for url in (SAME_HOST, SAME_DOMAIN, OTHER_DOMAIN, "mailto:x@b.org"):
        assert _keeps(NUTCH_RULES, url)
        assert NUTCH_RULES.keeps_redirect(PAGE, url)


@pytest.mark.parametrize(
    ("rules", "kept"),
    [
        (LinkRules(ignore_external=True), [SAME_HOST]),
        (LinkRules(ignore_external=True, by_domain=True), [SAME_HOST, SAME_DOMAIN]),
        (LinkRules(ignore_internal=True), [SAME_DOMAIN, OTHER_DOMAIN]),
        # ParseOutputFormat: byDomain applies to db.ignore.internal.links too
        (LinkRules(ignore_internal=True, by_domain=True), [OTHER_DOMAIN]),
    ],
)
def test_nutch_db_ignore_links_of_a_parse(rules, kept):
    urls = [SAME_HOST, SAME_DOMAIN, OTHER_DOMAIN]
    assert [url for url in urls if _keeps(rules, url)] == kept


@pytest.mark.parametrize(
    ("rules", "kept"),
    [
        (LinkRules(ignore_external=True), [SAME_HOST]),
        (LinkRules(ignore_external=True, by_domain=True), [SAME_HOST, SAME_DOMAIN]),
        # FetcherThread.handleRedirect: internal is by host, whatever the mode
        (LinkRules(ignore_internal=True, by_domain=True), [SAME_DOMAIN, OTHER_DOMAIN]),
        (LinkRules(True, True, also_redirects=False), [SAME_HOST, SAME_DOMAIN]),
    ],
)
def test_nutch_db_ignore_links_of_a_redirect(rules, kept):
    urls = [SAME_HOST, SAME_DOMAIN, OTHER_DOMAIN]
    expected = [u for u in urls if u in kept or not rules.also_redirects]
    assert [url for url in urls if rules.keeps_redirect(PAGE, url)] == expected


def test_a_page_without_a_host_keeps_its_links():
    rules = LinkRules(ignore_external=True, ignore_internal=True)
    assert rules.keeps_link(OTHER_DOMAIN, "file:/x.html", LinkKind.EXTERNAL)
