"""What leaves the crawl for others: index actions, the search index, WARC."""
