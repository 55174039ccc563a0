from crawllib.config import UrlConfig, load_properties
from crawllib.urls.cleaner import Rejection, UrlCleaner

CONFIG = UrlConfig.from_properties(load_properties())


def test_normalizes_then_filters():
    cleaner = UrlCleaner(CONFIG, "inject")
    assert cleaner.clean("HTTP://A.com:80/x/../y.html") == "http://a.com/y.html"
    assert cleaner.clean("http://a.com/logo.GIF") is Rejection.FILTERED
    assert cleaner.clean("nonsense") is Rejection.MALFORMED


def test_filter_sees_the_normalized_url():
    # the fragment hides the suffix until the normalizer removes it
    assert (
        UrlCleaner(CONFIG, "inject").clean("http://a.com/x.gif#top")
        is Rejection.FILTERED
    )


def test_normalizing_and_filtering_can_be_turned_off():
    raw = "HTTP://A.com/x.gif"
    assert UrlCleaner(CONFIG, "x", normalize=False).clean(raw) is Rejection.FILTERED
    off = UrlCleaner(CONFIG, "x", normalize=False, filter_urls=False)
    assert off.clean(raw) == raw
    assert UrlCleaner(CONFIG, "x", filter_urls=False).clean(raw) == "http://a.com/x.gif"


def test_remembered_outcomes_are_the_outcomes_and_the_memory_is_bounded():
    urls = [
        "HTTP://Example.COM:80/a/../b.html",
        "http://example.com/logo.png",
        "htp:/broken",
        "http://example.com/b.html",
    ] * 3
    remembering = UrlCleaner(CONFIG, "outlink", cache_size=3)
    forgetting = UrlCleaner(CONFIG, "outlink", cache_size=0)
    assert [remembering.clean(u) for u in urls] == [forgetting.clean(u) for u in urls]
    assert (
        remembering.clean("HTTP://Example.COM:80/a/../b.html")
        == "http://example.com/b.html"
    )
    assert len(remembering._cache) <= 3
    assert forgetting._cache == {}
