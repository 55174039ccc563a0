"""Scrapy's CrawlSpider over the synthetic web: the crawl benchmark's baseline.

Usage: python bench/scrapy_crawl.py SEEDS_FILE

Follows every link to the seeds' hosts (a LinkExtractor limited to them),
CONCURRENT_REQUESTS=64, one request at a time per host, no delay, robots.txt
obeyed, and prints its stats as one JSON line on stdout when done.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from scrapy.crawler import CrawlerProcess
from scrapy.http import Response
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule


def _spider(seeds: list[str]) -> type[CrawlSpider]:
    hosts = sorted({urlsplit(url).hostname or "" for url in seeds})
    # the link extractor compares its domains with the URL's host:port
    netlocs = sorted({urlsplit(url).netloc for url in seeds})

    class SyntheticWebSpider(CrawlSpider):
        name = "synthweb"
        start_urls = seeds
        allowed_domains = hosts
        rules = (
            Rule(
                LinkExtractor(allow_domains=netlocs), callback="parse_page", follow=True
            ),
        )

        def parse_page(self, response: Response) -> Iterator[dict[str, Any]]:
            yield from ()

    return SyntheticWebSpider


def main() -> None:
    with open(sys.argv[1]) as handle:
        seeds = [line.strip() for line in handle if line.strip()]
    process = CrawlerProcess(
        settings={
            "CONCURRENT_REQUESTS": 64,
            "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
            "DOWNLOAD_DELAY": 0,
            "ROBOTSTXT_OBEY": True,
            "LOG_LEVEL": "WARNING",
            "TELNETCONSOLE_ENABLED": False,
            "USER_AGENT": "scrapy-bench",
        }
    )
    crawler = process.create_crawler(_spider(seeds))
    process.crawl(crawler)
    process.start()
    stats = crawler.stats.get_stats() if crawler.stats else {}
    print(json.dumps({key: str(value) for key, value in stats.items()}))


if __name__ == "__main__":
    main()
