"""Nutch's property defaults (conf/nutch-default.xml, 1.x), by Nutch name.

Values are strings, as in a Hadoop ``Configuration``; ``${name}`` refers to
another property. Where beamcrawl departs from Nutch, the comment says so and
the README argues it. Only ``crawllib.config`` reads these.
"""

NUTCH_DEFAULTS: dict[str, str] = {
    # --- agent, HTTP, robots (nutch-semantics 11.1)
    "http.agent.name": "",
    "http.agent.version": "Nutch-1.23-SNAPSHOT",
    "http.agent.description": "",
    "http.agent.url": "",
    "http.agent.email": "",
    "http.agent.rotate": "false",
    "http.robots.agents": "",
    "http.robots.403.allow": "true",
    "http.robots.503.defer.visits": "true",
    "http.robots.503.defer.visits.delay": "300000",
    "http.robots.503.defer.visits.retries": "3",
    "http.robots.redirect.max": "5",
    "http.robot.rules.allowlist": "",
    # beamcrawl's own: true = a robots.txt that cannot be reached allows all
    # (Nutch); false = RFC 9309's complete disallow until it can be read
    "http.robots.unreachable.allow": "false",
    "http.timeout": "10000",
    "http.content.limit": "1048576",
    # beamcrawl's own: bytes the status lines and headers of a response may
    # take in all (interim 1xx ones included), in lines of any number and
    # length; more is an EXCEPTION. Firefox's limit (Chromium's: 256 KiB)
    "http.max.header.size": "393216",
    "http.useHttp11": "true",
    "http.accept.language": "en-us,en-gb,en;q=0.7,*;q=0.3",
    "http.accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "http.accept.charset": "utf-8,iso-8859-1;q=0.7,*;q=0.7",
    "http.store.responsetime": "true",
    # beamcrawl: true (Nutch: false): what a WARC export needs (README, warc)
    "store.ip.address": "true",
    "store.http.request": "true",
    "store.http.headers": "true",
    "warc.export.max.size": "1000000000",  # beamcrawl's own (warc command)
    "warc.export.ispartof": "",
    "http.enable.if.modified.since.header": "true",
    "http.enable.cookie.header": "true",
    "http.redirect.max": "0",
    "http.redirect.max.exceeded.skip": "false",
    "http.max.delays": "100",
    "http.proxy.host": "",
    "http.proxy.port": "8080",
    "http.proxy.exception.list": "",
    # beamcrawl's own: the address policy (crawllib/urls/addresses.py),
    # lists of addresses or CIDR ranges: never reached / reached from pages
    # of any zone / counted as public
    "http.address.deny": "",
    "http.address.allow": "",
    "http.address.public": "",
    "file.content.limit": "1048576",
    "file.crawl.parent": "true",
    "file.crawl.redirect_noncanonical": "true",
    # --- crawldb, schedule, scoring, signatures (11.2)
    "db.fetch.interval.default": "2592000",
    "db.fetch.interval.max": "7776000",
    "db.fetch.schedule.class": "org.apache.nutch.crawl.DefaultFetchSchedule",
    "db.fetch.schedule.adaptive.inc_rate": "0.4",
    "db.fetch.schedule.adaptive.dec_rate": "0.2",
    "db.fetch.schedule.adaptive.min_interval": "60.0",
    "db.fetch.schedule.adaptive.max_interval": "31536000.0",
    "db.fetch.schedule.adaptive.sync_delta": "true",
    "db.fetch.schedule.adaptive.sync_delta_rate": "0.3",
    "db.fetch.retry.max": "3",
    "db.update.additions.allowed": "true",
    "db.update.max.inlinks": "10000",
    "db.update.purge.404": "false",
    "db.update.purge.orphans": "false",
    "db.ignore.internal.links": "false",
    "db.ignore.external.links": "false",
    "db.ignore.external.links.mode": "byHost",
    "db.ignore.also.redirects": "true",
    "db.injector.overwrite": "false",
    "db.injector.update": "false",
    "db.score.injected": "1.0",
    "db.score.link.external": "1.0",
    "db.score.link.internal": "1.0",
    "db.score.count.filtered": "false",
    "db.max.outlinks.per.page": "100",
    "db.max.outlink.length": "4096",
    "db.parsemeta.to.crawldb": "",
    "db.signature.class": "org.apache.nutch.crawl.MD5Signature",
    "db.signature.text_profile.min_token_len": "2",
    "db.signature.text_profile.quant_rate": "0.01",
    "db.signature.text_profile.sec_sort_lex": "true",
    "db.stats.score.quantiles": ".01,.05,.1,.2,.25,.3,.4,.5,.6,.7,.75,.8,.9,.95,.99",
    "db.preserve.backup": "true",
    "injector.current.time": "",  # epoch ms; empty = the wall clock at job start
    "crawldb.inject.filter.normalize.all": "false",
    "linkdb.max.inlinks": "10000",
    "linkdb.max.anchor.length": "100",
    "linkdb.ignore.internal.links": "true",
    "linkdb.ignore.external.links": "false",
    "indexer.score.power": "0.5",
    "indexer.max.title.length": "100",
    "indexer.max.content.length": "-1",
    "indexer.skip.notmodified": "false",
    "indexer.delete": "false",
    "indexer.delete.robots.noindex": "false",
    "anchorIndexingFilter.deduplicate": "false",
    "elastic.index": "nutch",  # indexer-elastic's index name
    # --- generate, partition (11.3)
    "generate.max.count": "-1",
    "generate.count.mode": "host",
    "generate.update.crawldb": "false",
    "generate.min.score": "0",
    "generate.min.interval": "-1",
    "generate.restrict.status": "",
    "generate.max.distance": "-1",
    "generate.filter": "true",
    "generate.normalise": "true",
    "partition.url.mode": "byHost",
    "partition.url.seed": "0",
    "crawl.gen.delay": "604800000",
    "generate.curTime": "",  # epoch ms; empty = the wall clock at job start
    "generate.rank.window": "",  # beamcrawl: candidates ranked at once; empty = auto
    # --- fetch (11.3, 6.x)
    "fetcher.server.delay": "5.0",
    "fetcher.server.min.delay": "0.0",
    "fetcher.max.crawl.delay": "30",
    "fetcher.min.crawl.delay": "${fetcher.server.delay}",
    "fetcher.threads.fetch": "10",
    "fetcher.threads.per.queue": "1",
    "fetcher.threads.start.delay": "10",
    "fetcher.queue.mode": "byHost",
    "fetcher.queue.depth.multiplier": "50",
    "fetcher.parse": "false",
    "fetcher.store.content": "true",
    "fetcher.store.robotstxt": "false",
    "fetcher.signature": "false",
    "fetcher.timelimit.mins": "-1",
    "fetcher.max.exceptions.per.queue": "5",
    "fetcher.exceptions.per.queue.delay": "${fetcher.server.delay}",
    "fetcher.exceptions.per.queue.clear.after": "1800",
    "fetcher.throughput.threshold.pages": "-1",
    "fetcher.throughput.threshold.retries": "5",
    "fetcher.throughput.threshold.check.after": "5",
    "fetcher.follow.outlinks.depth": "-1",
    "fetcher.redirect.dedupcache.seconds": "-1",
    "fetcher.filter.urls": "false",
    "fetcher.normalize.urls": "false",
    # --- parse, normalizers, filters, plugins (11.4)
    "plugin.includes": (
        "protocol-http|urlfilter-regex|parse-(html|tika)|index-(basic|anchor)"
        "|indexer-solr|scoring-opic|urlnormalizer-(pass|regex|basic)"
    ),
    "plugin.excludes": "",
    "urlnormalizer.order": (
        "org.apache.nutch.net.urlnormalizer.basic.BasicURLNormalizer"
        " org.apache.nutch.net.urlnormalizer.regex.RegexURLNormalizer"
    ),
    "urlnormalizer.loop.count": "1",
    "urlnormalizer.regex.file": "regex-normalize.xml",
    "urlnormalizer.basic.host.idn": "",
    "urlnormalizer.basic.host.idna2008": "false",
    "urlnormalizer.basic.host.trim-trailing-dot": "false",
    "urlfilter.regex.file": "regex-urlfilter.txt",
    "urlfilter.regex.rules": "",
    "urlfilter.domain.file": "domain-urlfilter.txt",
    "urlfilter.domain.rules": "",
    "urlfilter.domaindenylist.file": "domaindenylist-urlfilter.txt",
    "urlfilter.domaindenylist.rules": "",
    "urlfilter.prefix.file": "prefix-urlfilter.txt",
    "urlfilter.prefix.rules": "",
    "urlfilter.suffix.file": "suffix-urlfilter.txt",
    "urlfilter.suffix.rules": "",
    "urlfilter.order": "",
    "parser.character.encoding.default": "windows-1252",
    "encodingdetector.charset.min.confidence": "-1",  # < 0: no detector
    "parser.caching.forbidden.policy": "content",
    "parser.html.impl": "neko",
    "parser.html.form.use_action": "false",
    "parser.html.outlinks.ignore_tags": "",
    "parser.html.outlinks.htmlnode_metadata_name": "",
    "parser.html.line.separators": (
        "article,aside,blockquote,canvas,dd,div,dl,dt,fieldset,figcaption,figure,"
        "footer,form,h1,h2,h3,h4,h5,h6,header,hr,li,main,nav,noscript,ol,output,"
        "p,pre,section,table,tfoot,ul,video"
    ),
    "parser.timeout": "30",
    "parse.filter.urls": "true",
    "parse.normalize.urls": "true",
    # beamcrawl's: a link policy, "package.module:name" or "file.py:name";
    # empty = the db.ignore.* properties (crawllib.urls.linkpolicy.NutchLinkPolicy)
    "parse.link.policy": "",
    "parser.skip.truncated": "true",
    # beamcrawl's, not Nutch's: worker processes that parse; -1 = the job
    # chooses (one per core on the DirectRunner, none elsewhere)
    "parser.processes": "-1",
    "parser.delete.failed.parse": "false",
    "mime.type.magic": "true",
}
