"""docs/configuration.md is what the registry gives: regenerate it when it is not."""

from pathlib import Path

from crawllib.config import registry
from crawllib.config.reference import render

PAGE = Path(__file__).resolve().parents[3] / "docs" / "configuration.md"


def test_the_checked_in_reference_is_current():
    assert PAGE.read_text(encoding="utf-8") == render(), (
        "docs/configuration.md is stale: "
        "python -m crawllib.config.reference > docs/configuration.md"
    )


def test_the_reference_has_a_row_for_every_property_in_its_area():
    text = render()
    for title, properties in registry.AREAS:
        section = text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]
        for prop in properties:
            assert f"\n| `{prop.name}` |" in section, prop.name


def test_the_reference_says_how_to_see_and_declare_properties():
    head = render().split("\n## ", 1)[0]
    assert "`beamcrawl conf`" in head
    assert "`beamcrawl conf NAME`" in head
    assert "`properties.declared`" in head
    assert "declare_properties" in head
    assert "://" not in render()  # no links outside the repository
