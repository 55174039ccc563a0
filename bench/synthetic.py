"""Synthetic crawl data for the benchmarks: seed files over many hosts."""

from __future__ import annotations

import random


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
