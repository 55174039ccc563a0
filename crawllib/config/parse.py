"""Parse settings: parse-html, outlink handling and signatures, by Nutch name."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from crawllib.config.properties import Properties
from crawllib.config.registry import DEFAULTS
from crawllib.config.urls import UrlConfig, read_link_rules
from crawllib.urls.linkrules import NUTCH_RULES, LinkRules

if TYPE_CHECKING:
    from crawllib.urls.linkpolicy import LinkPolicy

SIGNATURES = {
    "MD5Signature": "md5",
    "TextMD5Signature": "text_md5",
    "TextProfileSignature": "text_profile",
}


@dataclass(frozen=True, slots=True)
class HtmlConfig:
    """parse-html settings (HtmlParser, DOMContentUtils, HTMLMetaProcessor).

    Attributes:
        default_encoding: ``parser.character.encoding.default``.
        charset_min_confidence: ``encodingdetector.charset.min.confidence``:
            the detector's confidence (0-100) an undeclared page's guess
            needs; negative (Nutch's -1) runs no detector.
        caching_forbidden_policy: ``parser.caching.forbidden.policy``.
        form_use_action: ``parser.html.form.use_action``.
        form_use_action_set: whether that property was set explicitly (then
            ``form`` stays even if listed in the ignore tags, as Nutch).
        ignore_tags: ``parser.html.outlinks.ignore_tags``, lowercased.
        line_separators: ``parser.html.line.separators``, lowercased.
        node_metadata_name: ``parser.html.outlinks.htmlnode_metadata_name``.
    """

    default_encoding: str = "windows-1252"
    charset_min_confidence: int = -1
    caching_forbidden_policy: str = "content"
    form_use_action: bool = False
    form_use_action_set: bool = False
    ignore_tags: frozenset[str] = frozenset()
    line_separators: frozenset[str] = frozenset(
        DEFAULTS["parser.html.line.separators"].split(",")
    )
    node_metadata_name: str = ""

    @classmethod
    def from_properties(cls, props: Properties) -> HtmlConfig:
        """Read the ``parser.html.*`` and encoding/detector properties."""
        return cls(
            default_encoding=props.get_str("parser.character.encoding.default"),
            charset_min_confidence=props.get_int(
                "encodingdetector.charset.min.confidence"
            ),
            caching_forbidden_policy=props.get_str("parser.caching.forbidden.policy"),
            form_use_action=props.get_bool("parser.html.form.use_action"),
            form_use_action_set=props.is_set("parser.html.form.use_action"),
            ignore_tags=frozenset(
                t.lower() for t in props.get_list("parser.html.outlinks.ignore_tags")
            ),
            line_separators=frozenset(
                t.lower() for t in props.get_list("parser.html.line.separators")
            ),
            node_metadata_name=props.get_str(
                "parser.html.outlinks.htmlnode_metadata_name"
            ),
        )


@dataclass(frozen=True, slots=True)
class ParseConfig:
    """ParserJob / ParseSegment settings.

    Attributes:
        html: parse-html settings.
        urls: normalizers and filters for outlinks and meta refresh targets.
        timeout_s: ``parser.timeout`` in seconds; None = no limit.
        skip_truncated: ``parser.skip.truncated``.
        normalize_urls: ``parse.normalize.urls``.
        filter_urls: ``parse.filter.urls``.
        max_outlinks: ``db.max.outlinks.per.page``; negative = all.
        max_outlink_length: ``db.max.outlink.length``; negative = any.
        links: the ``db.ignore.*`` rules, which the default link policy
            applies to outlinks.
        signature: ``db.signature.class``: md5, text_md5 or text_profile.
        profile_min_token_len: ``db.signature.text_profile.min_token_len``.
        profile_quant_rate: ``db.signature.text_profile.quant_rate``.
        profile_sort_lex: ``db.signature.text_profile.sec_sort_lex``.
        processes: ``parser.processes`` (beamcrawl's): worker processes that
            parse beside the job's thread; 0 parses in the job's thread;
            negative: the job chooses (one per core on a local runner).
        link_policy: which outlinks are kept, and as what URL: a policy, or
            the ``module:name`` spec of ``parse.link.policy`` (beamcrawl's),
            loaded only where links are filtered
            (:func:`crawllib.parse.outlinks.link_policy_of`); None: the
            :attr:`links` rules, as Nutch has them
            (:class:`~crawllib.urls.linkpolicy.NutchLinkPolicy`).
    """

    html: HtmlConfig
    urls: UrlConfig
    timeout_s: float | None = 30.0
    skip_truncated: bool = True
    normalize_urls: bool = True
    filter_urls: bool = True
    max_outlinks: int = 100
    max_outlink_length: int = 4096
    links: LinkRules = NUTCH_RULES
    signature: str = "md5"
    profile_min_token_len: int = 2
    profile_quant_rate: float = 0.01
    profile_sort_lex: bool = True
    processes: int = 0
    link_policy: LinkPolicy | str | None = None

    @classmethod
    def from_properties(cls, props: Properties) -> ParseConfig:
        """Read the ``parser.*``, ``parse.*`` and outlink/signature properties."""
        timeout = props.get_float("parser.timeout")
        return cls(
            html=HtmlConfig.from_properties(props),
            urls=UrlConfig.from_properties(props),
            timeout_s=timeout if timeout > 0 else None,
            skip_truncated=props.get_bool("parser.skip.truncated"),
            normalize_urls=props.get_bool("parse.normalize.urls"),
            filter_urls=props.get_bool("parse.filter.urls"),
            max_outlinks=props.get_int("db.max.outlinks.per.page"),
            max_outlink_length=props.get_int("db.max.outlink.length"),
            links=read_link_rules(props),
            signature=_signature(props),
            profile_min_token_len=props.get_int(
                "db.signature.text_profile.min_token_len"
            ),
            profile_quant_rate=props.get_float("db.signature.text_profile.quant_rate"),
            profile_sort_lex=props.get_bool("db.signature.text_profile.sec_sort_lex"),
            processes=props.get_int("parser.processes"),
            link_policy=props.get_str("parse.link.policy").strip() or None,
        )

    def for_runner(self, local: bool, cores: int | None = None) -> ParseConfig:
        """This config with ``parser.processes`` -1 ("the job chooses") resolved.

        On a local runner pages are parsed in one worker process per core
        (``cores``; None: the cores this process may run on), none on a single
        core; elsewhere (or where the runner is not known, as for a library
        user's transforms) the runner's workers are the parallelism and pages
        are parsed in their own threads: 0. A config that chose is returned
        as it is.
        """
        if self.processes >= 0:
            return self
        if cores is None:
            cores = len(os.sched_getaffinity(0))
        processes = cores if local and cores > 1 else 0
        return dataclasses.replace(self, processes=processes)


def _signature(props: Properties) -> str:
    return SIGNATURES[props.get_class("db.signature.class")]
