"""Layout-change alarm: does a page type on a site still look as it did?

:func:`compare_looks` decides for one (site, label) between a baseline and new pages;
:class:`DriftMonitor` feeds it page by page during a crawl; :mod:`.baselinefile` saves the
looks between crawls. Framework-free: no Scrapy import.
"""

from pagesim_scrapy.core.drift.baselinefile import (
    ALL_PAGES,
    baseline_from_site_models,
    baseline_text,
    parse_baseline,
)
from pagesim_scrapy.core.drift.decide import compare_looks
from pagesim_scrapy.core.drift.fields import (
    FieldCounts,
    FieldDrift,
    compare_fields,
    value_kind,
)
from pagesim_scrapy.core.drift.looks import (
    UNLABELLED,
    DriftBaseline,
    Look,
    SiteLooks,
    skeleton_features,
)
from pagesim_scrapy.core.drift.monitor import DriftMonitor
from pagesim_scrapy.core.drift.options import DEFAULT_DRIFT_OPTIONS, DriftOptions
from pagesim_scrapy.core.drift.report import (
    CHANGED,
    TWO_LOOKS,
    UNCHANGED,
    DriftReport,
    FeatureMove,
    describe_feature,
)

__all__ = [
    "ALL_PAGES",
    "CHANGED",
    "DEFAULT_DRIFT_OPTIONS",
    "TWO_LOOKS",
    "UNCHANGED",
    "UNLABELLED",
    "DriftBaseline",
    "DriftMonitor",
    "DriftOptions",
    "DriftReport",
    "FeatureMove",
    "FieldCounts",
    "FieldDrift",
    "Look",
    "SiteLooks",
    "baseline_from_site_models",
    "baseline_text",
    "compare_fields",
    "compare_looks",
    "describe_feature",
    "parse_baseline",
    "skeleton_features",
    "value_kind",
]
