import io

from pipelines import checkers


def _check(command, lines, *args):
    out = io.StringIO()
    assert checkers.run(command, list(args), io.StringIO("\n".join(lines)), out) == 0
    return out.getvalue().splitlines()


def test_nutch_normalizerchecker_prints_normalized_urls():
    lines = [
        "HTTP://Example.COM:80/a/./b/../c.html#x",
        "http://a.com/;jsessionid=1?x=1",
    ]
    assert _check("normalizerchecker", lines) == [
        "http://example.com/a/c.html",
        "http://a.com/?x=1",
    ]


def test_malformed_urls_give_an_empty_line():
    assert _check("normalizerchecker", ["no scheme"]) == [""]


def test_nutch_filterchecker_marks_accepted_and_rejected():
    lines = ["http://a.com/", "http://a.com/x.gif", "http://a.com/?q=1"]
    assert _check("filterchecker", lines) == [
        "+http://a.com/",
        "-http://a.com/x.gif",
        "-http://a.com/?q=1",
    ]


def test_filterchecker_uses_the_configured_rules():
    assert _check(
        "filterchecker", ["http://a.com/x.gif"], "-D", "urlfilter.regex.rules=+."
    ) == ["+http://a.com/x.gif"]
