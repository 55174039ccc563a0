import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crawllib.parse import htmldom
from crawllib.parse.htmldom import BREAK, flatten

# the characters that flatten's rules tell apart: text, ASCII whitespace,
# control characters, whitespace Java does not fold, and the break mark
_ALPHABET = ["a", "é", "中", " ", "  ", "\t", "\n", "\r\n", "\x01", "\x1f",
             "\u3000", "\xa0", BREAK, BREAK + BREAK, " " + BREAK + " "]  # fmt: skip


def _random_nodes(rng: random.Random) -> list[str]:
    return [
        "".join(rng.choice(_ALPHABET) for _ in range(rng.randrange(7)))
        for _ in range(rng.randrange(9))
    ]


@pytest.mark.parametrize("seed", range(20))
def test_node_by_node_flatten_equals_the_joined_text_rules(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(1000):
        nodes = _random_nodes(rng)
        assert flatten(nodes) == htmldom._flatten_joined(nodes), nodes


def test_flatten_takes_a_generator_and_a_page_holding_a_node_mark() -> None:
    # the page's own U+FDD1 is a node mark: an empty node between two marks
    nodes = [" a ", BREAK + "b\n\nc", "\ufdd1d", BREAK]
    assert flatten(iter(nodes)) == htmldom._flatten_joined(nodes) == "a\nb c  d\n"


def test_flatten_breaks_blank_nodes_and_folds_whitespace() -> None:
    assert flatten(["Title", BREAK, BREAK + "one  two\tthree", "  ", "four"]) == (
        "Title\none two three\nfour"
    )


# the pattern _NODE_EDGES replaced: the same matches, in quadratic time
_PLAIN_NODE_EDGES = re.compile(
    r"[\x00-\x20]+(?=[\ufdd0\ufdd1])|(?<=[\ufdd0\ufdd1])[\x00-\x20]+"
)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(st.text(st.sampled_from(["a", " ", "\t", "\x00", "\x01", "!", BREAK, "\ufdd1"])))
def test_node_edges_remove_what_the_plain_pattern_removes(text: str) -> None:
    assert htmldom._NODE_EDGES.sub("", text) == _PLAIN_NODE_EDGES.sub("", text)
