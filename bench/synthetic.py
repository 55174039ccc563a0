"""Synthetic crawl data for the benchmarks: seed files over many hosts."""

from __future__ import annotations

import random
from collections.abc import Iterator

from crawllib.webpage import new_page


def seed_lines(count: int, hosts: int = 10_000, seed: int = 42) -> list[str]:
    """``count`` seed lines spread over ``hosts`` hosts on ~hosts/20 domains.

    One line in ten carries Nutch columns and metadata, one in a hundred is
    a duplicate URL, one in five hundred is filtered (an image), one in a
    thousand is malformed: the mix a real seed list has.
    """
    rng = random.Random(seed)
    lines = []
    for i in range(count):
        host = rng.randrange(hosts)
        domain = f"site{host % (hosts // 20 or 1)}.com"
        url = f"http://www{host % 3}.host{host}.{domain}/dir{i % 50}/page{i}.html"
        if i % 1000 == 999:
            lines.append(f"htp:/broken {i}")
        elif i % 500 == 499:
            lines.append(url.replace(".html", ".gif"))
        elif i % 100 == 99 and lines:
            lines.append(lines[-1])
        elif i % 10 == 9:
            lines.append(
                f"{url}\tnutch.score={rng.random():.3f}\tnutch.fetchInterval=86400\tsource=bench"
            )
        else:
            lines.append(url)
    return lines


def write_seed_file(path: str, count: int, hosts: int = 10_000) -> None:
    """Write :func:`seed_lines` to ``path``."""
    with open(path, "w", encoding="utf-8") as handle:
        for line in seed_lines(count, hosts):
            handle.write(line + "\n")


def crawldb_pages(
    count: int, hosts: int = 10_000, now_ms: int = 0, seed: int = 7
) -> Iterator[dict]:
    """``count`` crawldb records over ``hosts`` hosts, as after a few rounds.

    Scores are spread over [0, 10); nine pages in ten are due at ``now_ms``,
    the rest a day later; statuses mix unfetched, fetched and gone.
    """
    rng = random.Random(seed)
    statuses = [1] * 6 + [2] * 3 + [3]
    for i in range(count):
        host = rng.randrange(hosts)
        domain = f"site{host % (hosts // 20 or 1)}.com"
        url = f"http://www{host % 3}.host{host}.{domain}/dir{i % 50}/page{i}.html"
        due = now_ms - rng.randrange(86_400_000) if i % 10 else now_ms + 86_400_000
        yield new_page(
            url,
            status=rng.choice(statuses),
            fetchTime=due,
            fetchInterval=2_592_000,
            score=rng.random() * 10,
            markers={"_injmrk_": "y", "dist": str(rng.randrange(4))},
            metadata={"source": b"bench"},
        )
