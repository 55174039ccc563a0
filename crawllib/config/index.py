"""Indexer settings: Nutch's ``indexer.*`` properties and the indexing plugins."""

from __future__ import annotations

from dataclasses import dataclass

from crawllib.config.properties import Properties, bad_value, plugin_active


@dataclass(frozen=True, slots=True)
class IndexConfig:
    """IndexingJob settings (Nutch 1.x ``IndexerMapReduce`` and its filters).

    Attributes:
        max_title_length: ``indexer.max.title.length`` (index-basic); -1 = no cut.
        max_content_length: ``indexer.max.content.length``; -1 = no cut.
        score_power: ``indexer.score.power`` (scoring-opic's boost exponent).
        skip_not_modified: ``indexer.skip.notmodified``.
        delete: ``indexer.delete``, or the command's ``--deleteGone``.
        delete_robots_noindex: ``indexer.delete.robots.noindex``.
        deduplicate_anchors: ``anchorIndexingFilter.deduplicate``.
        anchors: whether index-anchor is in ``plugin.includes``.
        opic_boost: whether scoring-opic is in ``plugin.includes`` (else boost 1).
        elastic_index: ``elastic.index``, the index named in bulk action lines.
    """

    max_title_length: int = 100
    max_content_length: int = -1
    score_power: float = 0.5
    skip_not_modified: bool = False
    delete: bool = False
    delete_robots_noindex: bool = False
    deduplicate_anchors: bool = False
    anchors: bool = True
    opic_boost: bool = True
    elastic_index: str = "nutch"

    @classmethod
    def from_properties(cls, props: Properties) -> IndexConfig:
        """Read and check the ``indexer.*`` properties.

        Raises:
            ConfigError: a length below -1 or an empty ``elastic.index``.
        """
        lengths = {}
        for name in ("indexer.max.title.length", "indexer.max.content.length"):
            lengths[name] = props.get_int(name)
            if lengths[name] < -1:
                raise bad_value(name, str(lengths[name]), "-1 (no limit) or more")
        elastic_index = props.get_str("elastic.index")
        if not elastic_index:
            raise bad_value("elastic.index", elastic_index, "an index name")
        return cls(
            max_title_length=lengths["indexer.max.title.length"],
            max_content_length=lengths["indexer.max.content.length"],
            score_power=props.get_float("indexer.score.power"),
            skip_not_modified=props.get_bool("indexer.skip.notmodified"),
            delete=props.get_bool("indexer.delete"),
            delete_robots_noindex=props.get_bool("indexer.delete.robots.noindex"),
            deduplicate_anchors=props.get_bool("anchorIndexingFilter.deduplicate"),
            anchors=plugin_active(props, "index-anchor"),
            opic_boost=plugin_active(props, "scoring-opic"),
            elastic_index=elastic_index,
        )
