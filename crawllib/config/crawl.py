"""CrawlConfig: one configuration object for every step, for library users.

A :class:`CrawlConfig` holds the resolved :class:`Properties` (Nutch defaults <
site files < overrides) and, optionally, a user's link policy. It builds any
step's frozen config (``FetcherConfig``, ``ParseConfig`` ...) on demand with
:meth:`CrawlConfig.get`, once per class, so a transform given a CrawlConfig
reads the same values the command line would. :func:`step_config` is what
every transform calls to accept either its own step config or a CrawlConfig.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, cast

from crawllib.config.fetch import FetcherConfig
from crawllib.config.index import IndexConfig
from crawllib.config.jobs import GenerateConfig, InjectConfig, StatsConfig
from crawllib.config.parse import ParseConfig
from crawllib.config.properties import Properties, load_properties
from crawllib.config.update import LinkDbConfig, UpdateConfig
from crawllib.config.urls import UrlConfig
from crawllib.errors import ConfigError

if TYPE_CHECKING:
    from crawllib.urls.linkpolicy import LinkPolicy

PropertyValue = str | int | float | bool
"""What a property may be given as; each becomes its string form."""

StepT = TypeVar("StepT")


@dataclass(frozen=True)
class CrawlConfig:
    """All of a crawl's settings, by Nutch property name, plus a link policy.

    Build one with :meth:`from_dict`, :meth:`load` (like ``--conf`` and
    ``-D``) or :meth:`from_properties`; derive others with
    :meth:`with_overrides` and :meth:`with_link_policy`. Bad values are
    reported (one :class:`~crawllib.errors.ConfigError` line naming the
    property) when a step config is built from them, as on the command line.

    Attributes:
        properties: the resolved property map.
        link_policy: the outlink policy for parsing; None: the one
            ``parse.link.policy`` names, else ``NutchLinkPolicy`` (from
            ``db.ignore.*``).
    """

    properties: Properties
    link_policy: LinkPolicy | None = None
    _built: dict[type, Any] = field(
        default_factory=dict, compare=False, repr=False, hash=False
    )

    @classmethod
    def from_dict(
        cls, values: Mapping[str, PropertyValue], link_policy: object = None
    ) -> CrawlConfig:
        """Nutch defaults with ``values`` on top (str, int, float or bool each)."""
        config = cls(Properties(_as_strings(values)))
        return config if link_policy is None else config.with_link_policy(link_policy)

    @classmethod
    def load(
        cls, conf_files: Sequence[str] = (), defines: Sequence[str] = ()
    ) -> CrawlConfig:
        """Like the command line's ``--conf FILE`` (in order) and ``-D name=value``."""
        return cls(load_properties(conf_files, defines))

    @classmethod
    def from_properties(cls, props: Properties) -> CrawlConfig:
        """A CrawlConfig over an existing property map."""
        return cls(props)

    def with_overrides(self, values: Mapping[str, PropertyValue]) -> CrawlConfig:
        """A copy with ``values`` set on top; the link policy is kept."""
        props = self.properties.with_values(_as_strings(values))
        return CrawlConfig(props, self.link_policy)

    def with_link_policy(self, policy: object) -> CrawlConfig:
        """A copy whose parsing decides outlinks with ``policy``.

        ``policy`` is anything ``crawllib.urls.linkpolicy.as_link_policy`` accepts:
        a LinkPolicy instance or subclass, or a function of a link.
        """
        from crawllib.urls.linkpolicy import as_link_policy  # the user's code

        return CrawlConfig(self.properties, as_link_policy(policy))

    def __repr__(self) -> str:
        props = self.properties
        values = {name: props[name] for name in props if props.is_set(name)}
        return f"CrawlConfig({values!r}, link_policy={self.link_policy!r})"

    def get(self, cls: type[StepT]) -> StepT:
        """The step config ``cls`` built from the properties (once, then cached).

        ``cls`` is any config class with ``from_properties(props)``; one
        without it (``DedupConfig``) is built with its defaults.
        ``ParseConfig`` gets the library's settings (see :attr:`parse`).

        Raises:
            ConfigError: a property ``cls`` reads has a bad value.
        """
        if cls not in self._built:
            self._built[cls] = self._build(cls)
        return cast("StepT", self._built[cls])

    def _build(self, cls: type[Any]) -> Any:
        if cls is ParseConfig:
            return self._parse_config()
        reader = getattr(cls, "from_properties", None)
        if reader is None:
            return cls()
        return reader(self.properties)

    def _parse_config(self) -> ParseConfig:
        config = ParseConfig.from_properties(self.properties).for_runner(local=False)
        if self.link_policy is not None:
            config = dataclasses.replace(config, link_policy=self.link_policy)
        return config

    @property
    def fetch(self) -> FetcherConfig:
        """The fetcher's settings (``fetcher.*``, ``http.*``, robots)."""
        return self.get(FetcherConfig)

    @property
    def parse(self) -> ParseConfig:
        """The parser's settings, with the link policy if one was given.

        ``parser.processes`` -1 ("the job chooses") becomes 0: pages are
        parsed in the runner's own threads; set it to N for N worker processes.
        """
        return self.get(ParseConfig)

    @property
    def generate(self) -> GenerateConfig:
        """The generator's settings (``generate.*``)."""
        return self.get(GenerateConfig)

    @property
    def inject(self) -> InjectConfig:
        """The injector's settings."""
        return self.get(InjectConfig)

    @property
    def update(self) -> UpdateConfig:
        """Updatedb's settings (schedule, scoring, retries)."""
        return self.get(UpdateConfig)

    @property
    def linkdb(self) -> LinkDbConfig:
        """Invertlinks' settings (``linkdb.*``)."""
        return self.get(LinkDbConfig)

    @property
    def index(self) -> IndexConfig:
        """The indexer's settings (``indexer.*``)."""
        return self.get(IndexConfig)

    @property
    def stats(self) -> StatsConfig:
        """``readdb --stats`` settings."""
        return self.get(StatsConfig)

    @property
    def urls(self) -> UrlConfig:
        """URL normalizers and filters."""
        return self.get(UrlConfig)


def step_config(config: Any, cls: type[StepT]) -> StepT:
    """``config`` itself if it is a ``cls``, else the ``cls`` a CrawlConfig builds.

    Raises:
        TypeError: ``config`` is neither (naming both types).
    """
    if isinstance(config, cls):
        return config
    if isinstance(config, CrawlConfig):
        return config.get(cls)
    raise TypeError(
        f"expected a {cls.__name__} or a CrawlConfig, got {type(config).__name__}"
    )


def _as_strings(values: Mapping[str, PropertyValue]) -> dict[str, str]:
    strings: dict[str, str] = {}
    for name, value in values.items():
        if isinstance(value, bool):
            strings[name] = "true" if value else "false"
        elif isinstance(value, str | int | float):
            strings[name] = str(value)
        else:
            raise ConfigError(
                f"property {name}={value!r} is invalid: expected a str, int,"
                " float or bool"
            )
    return strings
