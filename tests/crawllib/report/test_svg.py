import xml.etree.ElementTree as ET

import pytest

from crawllib.report.svg import Chart, Series, format_value, nice_max, render

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = '<script>alert("x")</script>&"'


def _chart(kind, categories=("a", "b"), series=None):
    series = series or (Series("one", (1, 2)), Series("two", (3, 0)))
    return Chart("k", kind, "Title", categories, series, "x", "y")


def _values(svg_text):
    root = ET.fromstring(svg_text)
    return {
        (g.get("data-series"), g.get("data-category")): g.get("data-value")
        for g in root.iter(f"{SVG}g")
        if g.get("class") == "value"
    }


@pytest.mark.parametrize("kind", ["bars", "hbars", "line"])
def test_every_value_is_drawn_with_its_data(kind):
    text = render(_chart(kind))

    values = _values(text)
    if kind == "line":  # a line has a point for a zero too
        assert values[("two", "b")] == "0"
        del values[("two", "b")]
    assert values == {("one", "a"): "1", ("one", "b"): "2", ("two", "a"): "3"}


@pytest.mark.parametrize("kind", ["bars", "hbars", "line"])
def test_strings_from_the_web_are_text_not_markup(kind):
    chart = _chart(kind, (HOSTILE, "b"), (Series(HOSTILE, (1, 2)),))
    text = render(chart)

    root = ET.fromstring(text)  # well-formed: the string did not break out
    assert "<script" not in text
    assert not list(root.iter(f"{SVG}script"))
    texts = "".join(root.itertext())
    assert HOSTILE[:20] in texts


def test_bar_totals_are_the_stacks_sums():
    root = ET.fromstring(render(_chart("bars")))
    totals = {
        t.get("data-category"): t.text
        for t in root.iter(f"{SVG}text")
        if t.get("class") == "total"
    }
    assert totals == {"a": "4", "b": "2"}


def test_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="pie"):
        render(_chart("pie"))


def test_numbers():
    assert [nice_max(v) for v in (0, 3, 10, 11, 2400, 0.03)] == [
        1,
        5,
        10,
        20,
        2500,
        0.05,
    ]
    assert (format_value(3.0), format_value(0.123456)) == ("3", "0.123")


def test_series_colours_differ_when_fixed_ones_are_taken():
    from crawllib.report.section import series_of

    names = ["status_fetched", "a", "b", "c", "d", "e"]
    series = series_of(names, lambda name, i: 1.0, 1)

    assert len({s.color for s in series}) == len(names)
