"""Every ``PAGESIM_*`` setting in one place: type, default, meaning, and a validated config.

Components never call ``settings.get(NAME, default)`` themselves: they build a
:class:`PageSimConfig` with :meth:`PageSimConfig.from_settings`, which reads each setting with
Scrapy's typed getters (so ``-s NAME=VALUE`` works), applies the defaults declared here and
raises :class:`PageSimConfigError` naming the setting at fault. Importing this module does not
import Scrapy.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from os import PathLike
from typing import TYPE_CHECKING, Any

from pagesim_scrapy.core.sitepolicy import SITE_METHOD, SitePolicy

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

    from pagesim_scrapy.core.summary import SummaryOptions


#: Reads one setting from Scrapy settings: ``read(settings, spec)``.
Reader = Callable[["BaseSettings", "SettingSpec"], Any]


@dataclass(frozen=True)
class SettingSpec:
    """One setting: its name, the type a user writes, its default and a one-line meaning.

    ``read`` turns the raw setting into the config value (default: the typed getter that
    ``type`` names); ``group`` says which config object holds it (``"crawl"``:
    :class:`PageSimConfig`, ``"induction"``: :class:`InductionConfig`) and ``attr`` under which
    field (default: the name without ``PAGESIM_`` and the group's prefix, lowercased).
    """

    name: str
    type: str
    default: Any
    doc: str
    read: Reader | None = None
    group: str = "crawl"
    attr: str = ""

    @property
    def field(self) -> str:
        """The config field this setting fills."""
        if self.attr:
            return self.attr
        prefix = "PAGESIM_INDUCTION_" if self.group == "induction" else "PAGESIM_"
        return self.name.removeprefix(prefix).lower()

    def read_from(self, settings: BaseSettings) -> Any:
        """The setting's value, parsed; :class:`PageSimConfigError` names the setting."""
        reader = self.read or _TYPED_READERS.get(self.type, _read_raw)
        try:
            return reader(settings, self)
        except PageSimConfigError:
            raise
        except (TypeError, ValueError) as exc:
            raise PageSimConfigError(f"{self.name}: {exc}") from None


# -- readers: raw Scrapy settings -> config values ------------------------------------------


def _getter(name: str) -> Reader:
    def read(settings: BaseSettings, spec: SettingSpec) -> Any:
        return getattr(settings, name)(spec.name, spec.default)

    return read


_read_raw = _getter("get")

_TYPED_READERS: dict[str, Reader] = {
    "bool": _getter("getbool"),
    "int": _getter("getint"),
    "float": _getter("getfloat"),
    "dict": _getter("getdict"),
    "list": _getter("getlist"),
    "str": _read_raw,
    "int or None": lambda settings, spec: _optional_int(_read_raw(settings, spec), spec.name),
    "float or None": lambda settings, spec: _optional_float(_read_raw(settings, spec), spec.name),
    "str or None": lambda settings, spec: _optional_str(_read_raw(settings, spec)),
}


def _read_templates(settings: BaseSettings, spec: SettingSpec) -> dict[str, tuple[str, ...]]:
    return _parse_templates(settings.getdict(spec.name, spec.default))


def _read_targets(settings: BaseSettings, spec: SettingSpec) -> tuple[str, ...]:
    return _parse_targets(settings.getlist(spec.name, spec.default), spec.name)


def _read_params(settings: BaseSettings, spec: SettingSpec) -> dict[str, Any]:
    return dict(settings.getdict(spec.name, spec.default))


def _read_threshold(settings: BaseSettings, spec: SettingSpec) -> Threshold:
    return _parse_threshold(_read_raw(settings, spec))


def _read_stripped(settings: BaseSettings, spec: SettingSpec) -> str:
    return str(_read_raw(settings, spec)).strip()


def _read_lowered(settings: BaseSettings, spec: SettingSpec) -> str:
    return _read_stripped(settings, spec).lower()


def _read_stripped_or_empty(settings: BaseSettings, spec: SettingSpec) -> str:
    return str(_read_raw(settings, spec) or "").strip()


def _read_or_none(settings: BaseSettings, spec: SettingSpec) -> Any:
    return _read_raw(settings, spec) or None


def _read_or_default(settings: BaseSettings, spec: SettingSpec) -> str:
    return str(settings.get(spec.name) or spec.default)


def _read_or_empty(settings: BaseSettings, spec: SettingSpec) -> str:
    return str(settings.get(spec.name) or "")


def _read_site_policy(settings: BaseSettings, spec: SettingSpec) -> SitePolicy:
    return _parse_site_policy(settings.getdict(spec.name, spec.default))


def _read_state_url(settings: BaseSettings, spec: SettingSpec) -> str | None:
    return shared_state_url(settings)


#: Crawl-time node budget: the top of the tree, where page types differ, decides as well as the
#: whole tree at a fraction of the cost per page (figures: docs/benchmarks.md,
#: benchmarks/bench_crawl.py).
DEFAULT_MAX_NODES = 300

#: Responses bigger than this are not classified (a real page is ~100 KB; 10 MiB is generous).
DEFAULT_MAX_BODY_SIZE = 10 * 1024 * 1024

#: The induction defaults of the core (``core.induce.wrapper``), repeated here so that importing
#: the settings stays light; a test checks they agree.
DEFAULT_INDUCTION_LAMBDA = 0.25
DEFAULT_INDUCTION_MIN_FIT = 0.5

SETTINGS: tuple[SettingSpec, ...] = (
    SettingSpec("PAGESIM_ENABLED", "bool", True, "Turn the whole extension on or off."),
    SettingSpec(
        "PAGESIM_TEMPLATES",
        "dict",
        {},
        "`{label: [source, ...]}`: example pages per page type. A source is an http(s) URL "
        "(downloaded through the crawl, so headers, proxies, cookies and retries apply), a "
        "`file://` URL, a local file or a folder of saved pages.",
        read=_read_templates,
    ),
    SettingSpec(
        "PAGESIM_MAX_TEMPLATES_PER_LABEL",
        "int",
        50,
        "At most this many template pages per label are loaded (0: no limit); of a bigger set "
        "(a folder of saved pages), an evenly spaced sample is used and a WARNING says so.",
        attr="max_templates_per_label",
    ),
    SettingSpec(
        "PAGESIM_TARGETS",
        "list",
        [],
        "Labels that count as target pages; empty means every label.",
        read=_read_targets,
    ),
    SettingSpec(
        "PAGESIM_METHOD",
        "str",
        SITE_METHOD,
        "How pages are compared with the templates: `site` (default: structure weighted by "
        "each site's own pages, so its chrome counts for nothing, and thresholds from each "
        "site's own score distribution) or one of the seed measures `lcs`, `layers`, `ted`, "
        "`style`, `combined` (`python -m pagesim_scrapy compare --help`).",
        read=_read_stripped,
    ),
    SettingSpec(
        "PAGESIM_METHOD_PARAMS",
        "dict",
        {},
        'Parameters of the measure, e.g. `{"relation": "rsn"}`; unknown names are an error.',
        read=_read_params,
    ),
    SettingSpec(
        "PAGESIM_THRESHOLD",
        'number, dict or "auto"',
        "auto",
        "Score a page needs to get a label: a number in [0, 1], `{label: number}` (missing "
        'labels are "auto"), or `"auto"` (derived from the templates, then from the scores seen).',
        read=_read_threshold,
    ),
    SettingSpec(
        "PAGESIM_AGGREGATE",
        "str",
        "max",
        "How a label's score combines its templates' similarities: `max` or `mean`.",
        read=_read_lowered,
    ),
    SettingSpec(
        "PAGESIM_ADAPT_AFTER",
        "int",
        30,
        'Pages to score before "auto" thresholds start following the score distribution.',
    ),
    SettingSpec(
        "PAGESIM_ACTION",
        "str",
        "tag",
        "What happens to non-target pages: `tag` (they reach the callback with their verdict) "
        "or `drop` (IgnoreRequest, counted, logged at DEBUG).",
        read=_read_lowered,
    ),
    SettingSpec(
        "PAGESIM_EXPLORE_FRACTION",
        "float",
        0.0,
        "In `drop` mode, the share of non-target pages let through anyway so drift stays "
        "visible; chosen by a hash of the URL, so the same pages every run.",
    ),
    SettingSpec(
        "PAGESIM_MAX_BODY_SIZE",
        "int",
        DEFAULT_MAX_BODY_SIZE,
        "Bodies larger than this many bytes are not classified (`pagesim/skipped/too_large`); "
        "0 means no limit.",
    ),
    SettingSpec(
        "PAGESIM_MAX_NODES",
        "int or None",
        DEFAULT_MAX_NODES,
        "Summarise at most this many elements per page (templates too), breadth-first from "
        "`<body>`: the top of the tree, where page types differ, is kept and the cost per page "
        "is bounded. None: every element (slower on large pages).",
    ),
    SettingSpec(
        "PAGESIM_MAX_DEPTH",
        "int or None",
        None,
        "Summarise only this many levels below `<body>`. None: every level.",
    ),
    SettingSpec(
        "PAGESIM_PAGE_ITEMS",
        "bool",
        False,
        "Add a `PageItem` (url, label, score, verdict, html) to the callback's output for every "
        "target page, e.g. for the induction pipeline.",
    ),
    SettingSpec(
        "PAGESIM_FILTER_ITEMS",
        "bool",
        False,
        "Drop the items a spider yields from non-target pages (`PageSimFilterPipeline`).",
    ),
    SettingSpec(
        "PAGESIM_SECOND_LOOK",
        "bool",
        True,
        "When the crawl runs dry, decide the pages turned away among each site's first 300 "
        "again under the sites' cuts then (method `site`; drop, or tag with "
        "`PAGESIM_FILTER_ITEMS`) and request those that now pass: the first pages of a site "
        "are decided on a cut still settling. In tag mode without item filtering, the pages "
        "held for it (`PAGESIM_HOLD_UNSETTLED`).",
    ),
    SettingSpec(
        "PAGESIM_HOLD_UNSETTLED",
        "bool",
        True,
        "With the second look on, a page that passes while its site is young but not on every "
        "cut its label has had there (or not its templates' anchor) is turned away until the "
        "second look, instead of reaching the spider on a cut that may not last. In `tag` mode "
        "without `PAGESIM_FILTER_ITEMS`, a page turned away that a lower cut could still pass "
        "is held too, and every held page reaches the callback once, when the crawl runs dry "
        "(or its site is past its first 300 pages), with its verdict then (its errback first "
        "gets `HeldForSecondLook`). Off: every page "
        "reaches the spider at once; also off with a `CLOSESPIDER_*` limit or `JOBDIR`, which "
        "may end the crawl before it runs dry.",
    ),
    SettingSpec(
        "PAGESIM_ITEM_LABEL_FIELD",
        "str or None",
        None,
        "When set, write the page's label into this field of every item the spider yields "
        "(dicts, and items that declare the field).",
        read=_read_or_none,
    ),
    SettingSpec(
        "PAGESIM_QUERY",
        "str or None",
        None,
        "A topic: target pages get `relevance` (TF-IDF cosine of their main content with the "
        "query, in [0, 1]; document frequencies learned over the target pages of the crawl) and "
        "`main_text` in their verdict and page item.",
    ),
    SettingSpec(
        "PAGESIM_RELEVANCE_THRESHOLD",
        "float or None",
        None,
        "With `PAGESIM_QUERY`: target pages less relevant than this are off-topic "
        '(`"off_topic": True`, not targets), then tagged or dropped per `PAGESIM_ACTION` '
        "(`pagesim/off_topic`). None: no page is off-topic.",
    ),
    SettingSpec(
        "PAGESIM_RELEVANCE_MIN_PAGES",
        "int",
        20,
        "Target pages to score before the relevance threshold applies: idf is flat on the "
        "first pages of a crawl, so early scores say little.",
    ),
    SettingSpec(
        "PAGESIM_MAIN_TEXT",
        "bool",
        False,
        "Add the main text (the page's main content block, seed 001) to the verdict and page "
        "item of target pages, also without `PAGESIM_QUERY`.",
    ),
    SettingSpec(
        "PAGESIM_DISCOVERY_ENABLED",
        "bool",
        False,
        "Discover page types while crawling (online clustering): every HTML response gets "
        "`cluster` (`cluster-N`) in its verdict, also with no templates (then `label` is the "
        "cluster). The types found are saved for a later crawl and logged as a ready "
        "`PAGESIM_TEMPLATES` snippet.",
    ),
    SettingSpec(
        "PAGESIM_DISCOVERY_FILE",
        "str or None",
        None,
        "Where the discovered types are loaded from at spider open (if the file exists) and "
        "saved to at close. None: `.scrapy/pagesim/discovery.json` in the project data dir.",
    ),
    SettingSpec(
        "PAGESIM_SITE_MODELS_SAVE",
        "bool",
        True,
        'With `PAGESIM_METHOD = "site"` and no crawl fleet: save what the crawl learned '
        "about each site (its chrome) at close, and start the next crawl's sites from it, "
        "so a recurring crawl decides its first pages of a site as well as its last. The "
        'saved counts weigh a quarter in the next crawl (see "Thresholds without labelled '
        'data" in the README).',
    ),
    SettingSpec(
        "PAGESIM_SITE_MODELS_FILE",
        "str or None",
        None,
        "Where the site models are saved (JSON; at most the 50 sites with the most pages). "
        "None: `.scrapy/pagesim/sites.json` in the project data dir.",
    ),
    SettingSpec(
        "PAGESIM_DRIFT_ENABLED",
        "bool",
        True,
        "Layout-change alarm: compare each (site, label)'s pages with how they looked in the "
        "last crawl (saved in `PAGESIM_DRIFT_FILE`) and warn when a label's look changed "
        "(`pagesim/drift/<label>`). Says nothing on a site's first crawl (no baseline yet).",
    ),
    SettingSpec(
        "PAGESIM_DRIFT_ACTION",
        "str",
        "warn",
        "What a layout change does: `warn` (a WARNING and the stat), `close` (also close the "
        "spider with the reason `pagesim_layout_changed`, for schedulers and CI) or `relearn` "
        "(also drop the label's learned wrapper once, so it relearns from the new pages).",
        read=_read_lowered,
    ),
    SettingSpec(
        "PAGESIM_DRIFT_FILE",
        "str or None",
        None,
        "Where the looks of each (site, label) are loaded from at start and saved to at close "
        "(JSON). None: `.scrapy/pagesim/drift.json` in the project data dir.",
    ),
    SettingSpec(
        "PAGESIM_DISCOVERY_METHOD",
        "str",
        "site",
        "Similarity of the discovery: `site` (default) weighs each host's chrome out, as "
        "`PAGESIM_METHOD` does, so a site's pages group by type; or a pairwise measure "
        "(`combined`, `lcs`, ...: the names of `PAGESIM_METHOD`).",
        read=_read_stripped,
    ),
    SettingSpec(
        "PAGESIM_DISCOVERY_THRESHOLD",
        "float or None",
        None,
        "Similarity a page needs to join a discovered type rather than found a new one. None: "
        "the measured default of the method.",
    ),
    SettingSpec(
        "PAGESIM_DISCOVERY_CLOSENESS",
        "float or None",
        None,
        "Discovered types whose pages are at least this share as close to each other as to "
        "themselves are merged when a site's types are regrouped (as `cluster` does): a loosely "
        "alike type (a wiki's articles) stays one type. 0 turns it off. None: 0.7 with method "
        "`site`, else 0.",
    ),
    SettingSpec(
        "PAGESIM_DISCOVERY_MAX_CLUSTERS",
        "int",
        200,
        "Discovered types at most (memory bound); pages like none of them are left "
        "unassigned (`cluster` None).",
    ),
    SettingSpec(
        "PAGESIM_DISCOVERY_HOLD",
        "bool",
        False,
        "With discovery and no templates (the discovered type is the label), a page whose "
        "type is not settled yet (no regrouping of its site has kept its group in a type of "
        "more than one page) is held, like `PAGESIM_HOLD_UNSETTLED`'s pages, and reaches the "
        "callback once it is, labelled with the type it is in then (at the latest when the "
        "crawl runs dry): the labels given are the types the crawl ends with. Off by default: "
        "on real sites most of a site's first pages are held, so their links wait (see "
        "docs/crawl.md).",
    ),
    SettingSpec(
        "PAGESIM_REPORT",
        "str or None",
        None,
        "Write an HTML crawl report to this file when the spider closes (a relative path is "
        "relative to the current directory): per site and label the score distributions with "
        "their thresholds, counts, confidence, and example URLs of each label and of unmatched "
        "pages. None: no report.",
    ),
    SettingSpec(
        "PAGESIM_STATE_URL",
        "str or None",
        None,
        "Share what pagesim learns (site models, discovered types, wrappers, relevance "
        "counts) with the other workers of a crawl fleet through this Redis server "
        "(`redis://host:6379/0`). None: scrapy-redis's `REDIS_URL` when that is set, else "
        'nothing is shared (one crawl\'s own state, as without a fleet). `"local"`: never '
        "shared, even with `REDIS_URL` set.",
        read=_read_state_url,
    ),
    SettingSpec(
        "PAGESIM_STATE_PREFIX",
        "str",
        "pagesim",
        "Prefix of pagesim's Redis keys: fleets that must not share their state use different "
        "prefixes.",
        read=_read_stripped_or_empty,
    ),
    SettingSpec(
        "PAGESIM_STATE_SYNC_INTERVAL",
        "float",
        1.0,
        "Seconds between two syncs of a worker with the shared state (sooner when "
        "`PAGESIM_STATE_SYNC_PAGES` pages are waiting or a new site is met): how stale the "
        "fleet's counts a page is decided on can be.",
    ),
    SettingSpec(
        "PAGESIM_STATE_SYNC_PAGES",
        "int",
        50,
        "A worker syncs as soon as this many pages are waiting to be pushed.",
    ),
    SettingSpec(
        "PAGESIM_STATE_TIMEOUT",
        "float",
        2.0,
        "Seconds a connection to the shared state or one command may take at most.",
    ),
    SettingSpec(
        "PAGESIM_SITE_POLICY",
        "dict",
        {},
        "For experts: fields of the site method's decision policy to change, e.g. "
        '`{"anchor_floor": 0.5}` (`pagesim_scrapy.core.sitepolicy.SitePolicy`: every field '
        "with its meaning). An unknown key, a wrong type or a value out of range is an error.",
        read=_read_site_policy,
    ),
    SettingSpec(
        "PAGESIM_INDUCTION_ENABLED",
        "bool",
        False,
        "Learn wrappers from page items and fill their records (`TemplateInductionPipeline`).",
        group="induction",
    ),
    SettingSpec(
        "PAGESIM_INDUCTION_MIN_PAGES",
        "int",
        5,
        "Pages a label's wrapper learns before it is ready.",
        group="induction",
    ),
    SettingSpec(
        "PAGESIM_INDUCTION_MAX_PAGES",
        "int",
        50,
        "Pages a label's wrapper learns at most (stored ones count); of more, a sample that is "
        "the same in any order (the pages of smallest digest); its items are held until the "
        "crawl runs dry or ends, then extracted with the settled wrapper.",
        group="induction",
    ),
    SettingSpec(
        "PAGESIM_INDUCTION_MAX_LABELS",
        "int",
        100,
        "Labels that get a wrapper in one crawl at most (memory bound: a wrapper that learned "
        "50 real pages takes about 3 MB); page items of further labels pass with an empty "
        "record and a reason. 0: no limit.",
        group="induction",
    ),
    SettingSpec(
        "PAGESIM_INDUCTION_MAX_NODES",
        "int",
        60_000,
        "Template nodes over all the wrappers of a crawl at most (memory bound: about 2.2 KB "
        "each, learned and compiled); once reached, wrappers learn no more pages in the crawl "
        "(their items are still extracted). 0: no limit.",
        group="induction",
    ),
    SettingSpec(
        "PAGESIM_INDUCTION_LAMBDA",
        "float",
        DEFAULT_INDUCTION_LAMBDA,
        "Seed 003's lambda: nodes on fewer than ceil((n+1)*lambda) of n pages are dropped.",
        group="induction",
        attr="lam",
    ),
    SettingSpec(
        "PAGESIM_INDUCTION_MIN_FIT",
        "float",
        DEFAULT_INDUCTION_MIN_FIT,
        "Share of the template's data skeleton a page must show to get a record.",
        group="induction",
    ),
    SettingSpec(
        "PAGESIM_INDUCTION_BUFFER_SIZE",
        "int",
        100,
        "Page items held at most while wrappers are not ready.",
        group="induction",
    ),
    SettingSpec(
        "PAGESIM_INDUCTION_WAIT",
        "float",
        60.0,
        "Seconds an item is held at most before it is released with the wrapper learned so far.",
        group="induction",
    ),
    SettingSpec(
        "PAGESIM_INDUCTION_STORE",
        "str",
        "pagesim_scrapy.pipelines.induction.JsonFileWrapperStore",
        "Import path of the wrapper store class.",
        group="induction",
        read=_read_or_default,
    ),
    SettingSpec(
        "PAGESIM_INDUCTION_DIR",
        "str",
        "",
        "Folder of the JSON wrapper store (empty: the project's data dir, "
        "`.scrapy/pagesim/wrappers`).",
        group="induction",
        attr="directory",
        read=_read_or_empty,
    ),
    SettingSpec(
        "PAGESIM_INDUCTION_JSONLD",
        "bool",
        True,
        "Offer the pages' embedded JSON-LD (schema.org Product, Recipe…) as fields too "
        "(`jsonld_product_name`, …).",
        group="induction",
    ),
    SettingSpec(
        "PAGESIM_PAGE_ITEMS_KEEP_HTML",
        "bool",
        False,
        "Keep the page HTML in page items after extraction.",
        group="induction",
        attr="keep_html",
    ),
    SettingSpec(
        "PAGESIM_POET_LAYOUTS",
        "dict",
        {},
        "With scrapy-poet: `{label: page object class or its path}`, the page object that "
        "`PageSimLayoutPage` hands each page of that label to (docs: page objects).",
        group="poet",
    ),
    SettingSpec(
        "PAGESIM_POET_DEFAULT_LAYOUT",
        "str",
        None,
        "With scrapy-poet: the page object for pages of no label in `PAGESIM_POET_LAYOUTS`.",
        group="poet",
    ),
)

#: The settings of the induction pipeline (read by :class:`InductionConfig`).
INDUCTION_SETTINGS: tuple[str, ...] = tuple(
    spec.name for spec in SETTINGS if spec.group == "induction"
)

#: name -> spec, and name -> default, the single source of defaults.
SPECS: dict[str, SettingSpec] = {spec.name: spec for spec in SETTINGS}
DEFAULTS: dict[str, Any] = {spec.name: spec.default for spec in SETTINGS}


def read_setting(settings: BaseSettings, name: str) -> Any:
    """One setting, read and parsed as its spec says (:class:`PageSimConfigError` if bad)."""
    return SPECS[name].read_from(settings)


def read_group(settings: BaseSettings, group: str) -> dict[str, Any]:
    """``{field: value}`` of every setting of ``group``, read and parsed."""
    return {spec.field: spec.read_from(settings) for spec in SETTINGS if spec.group == group}


ACTIONS: tuple[str, ...] = ("tag", "drop")

#: What a layout change does (PAGESIM_DRIFT_ACTION).
DRIFT_ACTIONS: tuple[str, ...] = ("warn", "close", "relearn")

#: Spider attributes that override the corresponding settings for one spider.
SPIDER_ATTRIBUTES: dict[str, str] = {
    "pagesim_templates": "PAGESIM_TEMPLATES",
    "pagesim_targets": "PAGESIM_TARGETS",
}


class PageSimConfigError(ValueError):
    """A ``PAGESIM_*`` setting (or spider attribute) has an invalid value."""


def shared_state_url(settings: BaseSettings) -> str | None:
    """Where a crawl fleet shares pagesim's state: ``PAGESIM_STATE_URL``, else scrapy-redis's
    ``REDIS_URL``; None when neither is set or ``PAGESIM_STATE_URL`` is ``"local"``."""
    url = str(settings.get("PAGESIM_STATE_URL") or "").strip()
    if url.lower() == "local":
        return None
    if not url:
        url = str(settings.get("REDIS_URL") or "").strip()
    return url or None


Threshold = float | str | Mapping[str, float | str]


@dataclass(frozen=True)
class PageSimConfig:
    """The validated ``PAGESIM_*`` settings of one crawl (see :data:`SETTINGS`)."""

    enabled: bool = DEFAULTS["PAGESIM_ENABLED"]
    templates: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    max_templates_per_label: int = DEFAULTS["PAGESIM_MAX_TEMPLATES_PER_LABEL"]
    targets: tuple[str, ...] = ()
    method: str = DEFAULTS["PAGESIM_METHOD"]
    method_params: Mapping[str, Any] = field(default_factory=dict)
    threshold: Threshold = DEFAULTS["PAGESIM_THRESHOLD"]
    aggregate: str = DEFAULTS["PAGESIM_AGGREGATE"]
    adapt_after: int = DEFAULTS["PAGESIM_ADAPT_AFTER"]
    action: str = DEFAULTS["PAGESIM_ACTION"]
    explore_fraction: float = DEFAULTS["PAGESIM_EXPLORE_FRACTION"]
    max_body_size: int = DEFAULTS["PAGESIM_MAX_BODY_SIZE"]
    max_nodes: int | None = DEFAULTS["PAGESIM_MAX_NODES"]
    max_depth: int | None = DEFAULTS["PAGESIM_MAX_DEPTH"]
    page_items: bool = DEFAULTS["PAGESIM_PAGE_ITEMS"]
    filter_items: bool = DEFAULTS["PAGESIM_FILTER_ITEMS"]
    second_look: bool = DEFAULTS["PAGESIM_SECOND_LOOK"]
    hold_unsettled: bool = DEFAULTS["PAGESIM_HOLD_UNSETTLED"]
    item_label_field: str | None = DEFAULTS["PAGESIM_ITEM_LABEL_FIELD"]
    query: str | None = DEFAULTS["PAGESIM_QUERY"]
    relevance_threshold: float | None = DEFAULTS["PAGESIM_RELEVANCE_THRESHOLD"]
    relevance_min_pages: int = DEFAULTS["PAGESIM_RELEVANCE_MIN_PAGES"]
    main_text: bool = DEFAULTS["PAGESIM_MAIN_TEXT"]
    discovery_enabled: bool = DEFAULTS["PAGESIM_DISCOVERY_ENABLED"]
    discovery_file: str | None = DEFAULTS["PAGESIM_DISCOVERY_FILE"]
    site_models_save: bool = DEFAULTS["PAGESIM_SITE_MODELS_SAVE"]
    site_models_file: str | None = DEFAULTS["PAGESIM_SITE_MODELS_FILE"]
    drift_enabled: bool = DEFAULTS["PAGESIM_DRIFT_ENABLED"]
    drift_action: str = DEFAULTS["PAGESIM_DRIFT_ACTION"]
    drift_file: str | None = DEFAULTS["PAGESIM_DRIFT_FILE"]
    discovery_method: str = DEFAULTS["PAGESIM_DISCOVERY_METHOD"]
    discovery_threshold: float | None = DEFAULTS["PAGESIM_DISCOVERY_THRESHOLD"]
    discovery_closeness: float | None = DEFAULTS["PAGESIM_DISCOVERY_CLOSENESS"]
    discovery_max_clusters: int = DEFAULTS["PAGESIM_DISCOVERY_MAX_CLUSTERS"]
    discovery_hold: bool = DEFAULTS["PAGESIM_DISCOVERY_HOLD"]
    report: str | None = DEFAULTS["PAGESIM_REPORT"]
    state_url: str | None = DEFAULTS["PAGESIM_STATE_URL"]
    state_prefix: str = DEFAULTS["PAGESIM_STATE_PREFIX"]
    state_sync_interval: float = DEFAULTS["PAGESIM_STATE_SYNC_INTERVAL"]
    state_sync_pages: int = DEFAULTS["PAGESIM_STATE_SYNC_PAGES"]
    state_timeout: float = DEFAULTS["PAGESIM_STATE_TIMEOUT"]
    site_policy: SitePolicy = field(default_factory=SitePolicy)

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def from_settings(cls, settings: BaseSettings, spider: Any = None) -> PageSimConfig:
        """Read and check every setting; ``spider`` (class or instance) may override some.

        Templates may still be empty here (a spider can set them in ``__init__``); call
        :meth:`check_ready` once the spider exists.
        """

        config = cls(**read_group(settings, "crawl"))
        if spider is not None:
            config = config.with_spider(spider)
        config.validate()
        return config

    def with_spider(self, spider: Any) -> PageSimConfig:
        """This config with the spider's ``pagesim_templates`` / ``pagesim_targets``, if any."""
        changes: dict[str, Any] = {}
        templates = getattr(spider, "pagesim_templates", None)
        if templates is not None:
            if isinstance(templates, str):  # -a pagesim_templates='{"label": [...]}'
                try:
                    templates = json.loads(templates)
                except json.JSONDecodeError as exc:
                    raise PageSimConfigError(
                        f"spider attribute pagesim_templates is not valid JSON: {exc}"
                    ) from None
            changes["templates"] = _parse_templates(templates, "spider attribute pagesim_templates")
        targets = getattr(spider, "pagesim_targets", None)
        if targets is not None:
            if isinstance(targets, str):
                targets = [part for part in targets.split(",")]
            changes["targets"] = _parse_targets(targets, "spider attribute pagesim_targets")
        return replace(self, **changes) if changes else self

    # -- checks ---------------------------------------------------------------------------

    def validate(self) -> None:
        """Raise :class:`PageSimConfigError` for any value that cannot work."""
        self._validate_method()
        self._validate_choices()
        self._validate_ranges()
        _check_threshold_values(self.threshold)
        self._validate_content()
        self._validate_discovery()
        self._validate_state()
        self._validate_labels()

    def _validate_method(self) -> None:
        from pagesim_scrapy.core.similarity import get_measure

        if self.method == SITE_METHOD:
            if self.method_params:
                raise PageSimConfigError(
                    "PAGESIM_METHOD_PARAMS: unknown parameter(s) for method 'site', which "
                    f"takes none: {', '.join(sorted(self.method_params))}"
                )
            return
        try:
            measure = get_measure(self.method)
        except ValueError as exc:
            raise PageSimConfigError(f"PAGESIM_METHOD: {exc} (or 'site', the default)") from None
        try:
            measure.check_params(self.method_params)
        except (TypeError, ValueError) as exc:
            raise PageSimConfigError(f"PAGESIM_METHOD_PARAMS: {exc}") from None

    def _validate_choices(self) -> None:
        from pagesim_scrapy.core.classify import AGGREGATES

        if self.aggregate not in AGGREGATES:
            raise PageSimConfigError(
                f"PAGESIM_AGGREGATE must be one of {', '.join(AGGREGATES)}, not {self.aggregate!r}"
            )
        if self.action not in ACTIONS:
            raise PageSimConfigError(
                f"PAGESIM_ACTION must be one of {', '.join(ACTIONS)}, not {self.action!r}"
            )
        if self.drift_action not in DRIFT_ACTIONS:
            raise PageSimConfigError(
                f"PAGESIM_DRIFT_ACTION must be one of {', '.join(DRIFT_ACTIONS)}, "
                f"not {self.drift_action!r}"
            )

    def _validate_ranges(self) -> None:
        if not 0.0 <= self.explore_fraction <= 1.0 or math.isnan(self.explore_fraction):
            raise PageSimConfigError(
                f"PAGESIM_EXPLORE_FRACTION must be within [0, 1], not {self.explore_fraction}"
            )
        if self.max_body_size < 0:
            raise PageSimConfigError(
                f"PAGESIM_MAX_BODY_SIZE must be >= 0 (0: no limit), not {self.max_body_size}"
            )
        if self.max_nodes is not None and self.max_nodes < 1:
            raise PageSimConfigError(
                f"PAGESIM_MAX_NODES must be >= 1 or None, not {self.max_nodes}"
            )
        if self.max_depth is not None and self.max_depth < 0:
            raise PageSimConfigError(
                f"PAGESIM_MAX_DEPTH must be >= 0 or None, not {self.max_depth}"
            )
        if self.adapt_after < 1:
            raise PageSimConfigError(f"PAGESIM_ADAPT_AFTER must be >= 1, not {self.adapt_after}")
        if self.max_templates_per_label < 0:
            raise PageSimConfigError(
                "PAGESIM_MAX_TEMPLATES_PER_LABEL must be >= 0 (0: no limit), not "
                f"{self.max_templates_per_label}"
            )

    def _validate_labels(self) -> None:
        """The labels named by targets and per-label thresholds have templates."""
        if not self.templates:
            return
        labels = set(self.templates)
        unknown = [t for t in self.targets if t not in labels]
        if unknown:
            raise PageSimConfigError(
                f"PAGESIM_TARGETS names label(s) {unknown} that have no templates in "
                f"PAGESIM_TEMPLATES (labels: {sorted(labels)})"
            )
        if isinstance(self.threshold, Mapping):
            unknown = [t for t in self.threshold if t not in labels]
            if unknown:
                raise PageSimConfigError(
                    f"PAGESIM_THRESHOLD names label(s) {unknown} that have no templates "
                    f"(labels: {sorted(labels)})"
                )

    def _validate_content(self) -> None:
        if self.query is not None:
            from pagesim_scrapy.core.content import tokenize

            if not tokenize(self.query):
                raise PageSimConfigError(
                    f"PAGESIM_QUERY {self.query!r} has no searchable terms (words of letters "
                    "or digits)"
                )
        _check_unit(self.relevance_threshold, "PAGESIM_RELEVANCE_THRESHOLD")
        if self.relevance_min_pages < 0:
            raise PageSimConfigError(
                f"PAGESIM_RELEVANCE_MIN_PAGES must be >= 0, not {self.relevance_min_pages}"
            )

    def _validate_state(self) -> None:
        if self.state_url is not None and not self.state_url.startswith(
            ("redis://", "rediss://", "unix://")
        ):
            raise PageSimConfigError(
                f"PAGESIM_STATE_URL (or REDIS_URL) must start with redis://, rediss:// or "
                f'unix://, or be "local", not {self.state_url!r}'
            )
        if not self.state_prefix:
            raise PageSimConfigError("PAGESIM_STATE_PREFIX must not be empty")
        for name, value in (
            ("PAGESIM_STATE_SYNC_INTERVAL", self.state_sync_interval),
            ("PAGESIM_STATE_TIMEOUT", self.state_timeout),
        ):
            if not value > 0 or math.isinf(value):
                raise PageSimConfigError(f"{name} must be a number > 0, not {value}")
        if self.state_sync_pages < 1:
            raise PageSimConfigError(
                f"PAGESIM_STATE_SYNC_PAGES must be >= 1, not {self.state_sync_pages}"
            )

    def _validate_discovery(self) -> None:
        if not self.discovery_enabled:
            return
        from pagesim_scrapy.core.similarity import get_measure

        if self.discovery_method != "site":
            try:
                get_measure(self.discovery_method)
            except ValueError as exc:
                raise PageSimConfigError(f"PAGESIM_DISCOVERY_METHOD: {exc}") from None
        _check_unit(self.discovery_threshold, "PAGESIM_DISCOVERY_THRESHOLD")
        _check_unit(self.discovery_closeness, "PAGESIM_DISCOVERY_CLOSENESS")
        if self.discovery_max_clusters < 1:
            raise PageSimConfigError(
                f"PAGESIM_DISCOVERY_MAX_CLUSTERS must be >= 1, not {self.discovery_max_clusters}"
            )

    def check_ready(self) -> None:
        """Raise when a crawl with this config could neither classify nor discover anything."""
        if not self.templates and not self.discovery_enabled:
            raise PageSimConfigError(
                "PAGESIM_TEMPLATES is empty: give {label: [page URL or path, ...]} in the "
                "settings or as the spider attribute pagesim_templates, set "
                "PAGESIM_DISCOVERY_ENABLED = True to discover page types, or set "
                "PAGESIM_ENABLED = False"
            )
        self.validate()

    # -- derived --------------------------------------------------------------------------

    def summary_options(self) -> SummaryOptions:
        """How pages and templates are summarised (both sides must use the same options)."""
        from pagesim_scrapy.core.summary import SummaryOptions

        return SummaryOptions(max_nodes=self.max_nodes, max_depth=self.max_depth)

    @property
    def target_labels(self) -> frozenset[str]:
        """The labels whose pages are targets (every label when PAGESIM_TARGETS is empty)."""
        return frozenset(self.targets or self.templates)

    @property
    def content_wanted(self) -> bool:
        """Whether target pages get a relevance score or a main text."""
        return self.query is not None or self.main_text


@dataclass(frozen=True)
class InductionConfig:
    """The validated ``PAGESIM_INDUCTION_*`` settings (see :data:`SETTINGS`)."""

    enabled: bool = DEFAULTS["PAGESIM_INDUCTION_ENABLED"]
    min_pages: int = DEFAULTS["PAGESIM_INDUCTION_MIN_PAGES"]
    max_pages: int = DEFAULTS["PAGESIM_INDUCTION_MAX_PAGES"]
    max_labels: int = DEFAULTS["PAGESIM_INDUCTION_MAX_LABELS"]
    max_nodes: int = DEFAULTS["PAGESIM_INDUCTION_MAX_NODES"]
    lam: float = DEFAULTS["PAGESIM_INDUCTION_LAMBDA"]
    min_fit: float = DEFAULTS["PAGESIM_INDUCTION_MIN_FIT"]
    buffer_size: int = DEFAULTS["PAGESIM_INDUCTION_BUFFER_SIZE"]
    wait: float = DEFAULTS["PAGESIM_INDUCTION_WAIT"]
    store: str = DEFAULTS["PAGESIM_INDUCTION_STORE"]
    directory: str = DEFAULTS["PAGESIM_INDUCTION_DIR"]
    jsonld: bool = DEFAULTS["PAGESIM_INDUCTION_JSONLD"]
    keep_html: bool = DEFAULTS["PAGESIM_PAGE_ITEMS_KEEP_HTML"]

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> InductionConfig:
        """Read and check the induction settings, as :meth:`PageSimConfig.from_settings` does."""
        config = cls(**read_group(settings, "induction"))
        config.validate()
        return config

    def validate(self) -> None:
        """Raise :class:`PageSimConfigError` naming the setting at fault."""
        if self.min_pages < 1:
            raise PageSimConfigError(
                f"PAGESIM_INDUCTION_MIN_PAGES must be at least 1, not {self.min_pages}"
            )
        if self.max_pages < self.min_pages:
            raise PageSimConfigError(
                "PAGESIM_INDUCTION_MAX_PAGES must be >= PAGESIM_INDUCTION_MIN_PAGES "
                f"({self.min_pages}), not {self.max_pages}"
            )
        for name, count in (
            ("PAGESIM_INDUCTION_MAX_LABELS", self.max_labels),
            ("PAGESIM_INDUCTION_MAX_NODES", self.max_nodes),
        ):
            if count < 0:
                raise PageSimConfigError(f"{name} must be >= 0 (0: no limit), not {count}")
        for name, share in (
            ("PAGESIM_INDUCTION_LAMBDA", self.lam),
            ("PAGESIM_INDUCTION_MIN_FIT", self.min_fit),
        ):
            if not 0.0 <= share <= 1.0:
                raise PageSimConfigError(f"{name} must be within [0, 1], not {share}")
        if self.buffer_size < 0:
            raise PageSimConfigError(
                f"PAGESIM_INDUCTION_BUFFER_SIZE must be >= 0, not {self.buffer_size}"
            )
        if not self.wait >= 0:
            raise PageSimConfigError(f"PAGESIM_INDUCTION_WAIT must be >= 0, not {self.wait}")


def _parse_templates(value: Any, where: str = "PAGESIM_TEMPLATES") -> dict[str, tuple[str, ...]]:
    if not isinstance(value, Mapping):
        raise PageSimConfigError(f"{where} must be a dict {{label: [source, ...]}}, not {value!r}")
    templates: dict[str, tuple[str, ...]] = {}
    for label, sources in value.items():
        if not isinstance(label, str) or not label.strip():
            raise PageSimConfigError(f"{where}: a label must be a non-empty string, not {label!r}")
        if isinstance(sources, (str, PathLike)):
            sources = [sources]
        if not isinstance(sources, (list, tuple)) or not sources:
            raise PageSimConfigError(
                f"{where}[{label!r}] must be a non-empty list of URLs or paths, not {sources!r}"
            )
        cleaned: list[str] = []
        for source in sources:
            if not isinstance(source, (str, PathLike)) or not str(source).strip():
                raise PageSimConfigError(
                    f"{where}[{label!r}]: a source must be a URL or a path, not {source!r}"
                )
            cleaned.append(str(source).strip())
        templates[label] = tuple(cleaned)
    return templates


def _parse_targets(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)):
        raise PageSimConfigError(f"{where} must be a list of labels, not {value!r}")
    targets: list[str] = []
    for label in value:
        if not isinstance(label, str):
            raise PageSimConfigError(f"{where}: a label must be a string, not {label!r}")
        label = label.strip()
        if label and label not in targets:
            targets.append(label)
    return tuple(targets)


def _optional_int(value: Any, where: str) -> int | None:
    """An int, or None for None, "" and "none" (as ``-s NAME=none`` gives)."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none")):
        return None
    if isinstance(value, bool):
        raise PageSimConfigError(f"{where} must be an integer or None, not {value!r}")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise PageSimConfigError(f"{where} must be an integer or None, not {value!r}") from None


def _optional_str(value: Any) -> str | None:
    """A stripped string, or None for None and blank strings."""
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _optional_float(value: Any, where: str) -> float | None:
    """A float, or None for None, "" and "none" (as ``-s NAME=none`` gives)."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none")):
        return None
    if isinstance(value, bool):
        raise PageSimConfigError(f"{where} must be a number or None, not {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise PageSimConfigError(f"{where} must be a number or None, not {value!r}") from None


def _check_unit(value: float | None, where: str) -> None:
    if value is not None and (math.isnan(value) or not 0.0 <= value <= 1.0):
        raise PageSimConfigError(f"{where} must be within [0, 1] or None, not {value}")


def _parse_threshold(value: Any) -> Threshold:
    """A number, ``"auto"``, or ``{label: number | "auto"}``; strings from ``-s`` are parsed."""
    if isinstance(value, str):
        text = value.strip()
        if text.lower() == "auto":
            return "auto"
        if text.startswith("{"):
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                raise PageSimConfigError(f"PAGESIM_THRESHOLD is not valid JSON: {exc}") from None
        else:
            try:
                return float(text)
            except ValueError:
                raise PageSimConfigError(
                    f'PAGESIM_THRESHOLD must be a number in [0, 1], a dict or "auto", not {value!r}'
                ) from None
    if isinstance(value, Mapping):
        parsed: dict[str, float | str] = {}
        for label, number in value.items():
            if isinstance(number, str) and number.strip().lower() == "auto":
                parsed[str(label)] = "auto"
            else:
                parsed[str(label)] = _as_threshold_number(number, f"PAGESIM_THRESHOLD[{label!r}]")
        return parsed
    return _as_threshold_number(value, "PAGESIM_THRESHOLD")


def _as_threshold_number(value: Any, where: str) -> float:
    if isinstance(value, bool):
        raise PageSimConfigError(f"{where} must be a number in [0, 1], not {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise PageSimConfigError(f"{where} must be a number in [0, 1], not {value!r}") from None


def _check_threshold_values(threshold: Threshold) -> None:
    values: list[tuple[str, Any]]
    if isinstance(threshold, Mapping):
        values = [(f"PAGESIM_THRESHOLD[{label!r}]", v) for label, v in threshold.items()]
    else:
        values = [("PAGESIM_THRESHOLD", threshold)]
    for where, value in values:
        if isinstance(value, str):
            if value != "auto":
                raise PageSimConfigError(f'{where} must be a number or "auto", not {value!r}')
            continue
        if math.isnan(value) or not 0.0 <= value <= 1.0:
            raise PageSimConfigError(f"{where} must be within [0, 1], not {value}")


__all__ = [
    "DEFAULTS",
    "INDUCTION_SETTINGS",
    "SETTINGS",
    "SPECS",
    "InductionConfig",
    "PageSimConfig",
    "PageSimConfigError",
    "SettingSpec",
    "read_group",
    "read_setting",
]


def _parse_site_policy(value: Any) -> SitePolicy:
    """``PAGESIM_SITE_POLICY`` as a :class:`SitePolicy` (the shipped one when empty)."""
    try:
        return SitePolicy.from_mapping(value)
    except (TypeError, ValueError) as exc:
        raise PageSimConfigError(f"PAGESIM_SITE_POLICY: {exc}") from None
