"""``ADDONS = {"pagesim_scrapy.Addon": 0}``: enable every pagesim component in one line.

The add-on inserts the components with the priorities below unless the project already lists
them (a project entry, even ``None`` to disable one, wins), and declares every ``PAGESIM_*``
default at "addon" priority, so project, spider and command-line settings still win.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import logging
from typing import TYPE_CHECKING, Any

from pagesim_scrapy.settings import SETTINGS

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

logger = logging.getLogger(__name__)

#: Classify after decompression (590), redirects (600, 580) and retries (550) have run on the
#: response: process_response runs from high to low priorities.
DOWNLOADER_MIDDLEWARE_PRIORITY = 545
#: Close to the spider (after DepthMiddleware, 900), so it sees the callback's own output.
SPIDER_MIDDLEWARE_PRIORITY = 950
#: Early, so later pipelines do not work on items that will be dropped.
FILTER_PIPELINE_PRIORITY = 100
#: Late, so it learns from pages after the project's own pipelines have run.
INDUCTION_PIPELINE_PRIORITY = 800

INDUCTION_PIPELINE = "pagesim_scrapy.pipelines.induction"
#: Settings that hold components: a scrapy-poet entry in one of them means the project uses it.
POET_COMPONENT_SETTINGS = ("ADDONS", "DOWNLOADER_MIDDLEWARES")
#: Settings that, set, ask for the poet wiring.
POET_SETTINGS = (
    "PAGESIM_POET_LAYOUTS",
    "PAGESIM_POET_DEFAULT_LAYOUT",
    "SCRAPY_POET_PROVIDERS",
    "SCRAPY_POET_RULES",
)


def _induction_pipeline() -> type[Any] | None:
    """The induction pipeline class, or None where that module is not installed."""
    try:
        module = importlib.import_module(INDUCTION_PIPELINE)
    except ModuleNotFoundError as exc:
        if exc.name == INDUCTION_PIPELINE:
            return None
        raise
    pipeline: type[Any] | None = getattr(module, "TemplateInductionPipeline", None)
    return pipeline


def _component_path(component: Any) -> str:
    """A component's import path, whether written as a string or as the class itself."""
    if isinstance(component, str):
        return component
    return f"{getattr(component, '__module__', '')}.{getattr(component, '__qualname__', '')}"


def poet_in_use(settings: BaseSettings) -> bool:
    """Whether scrapy-poet is installed and the project uses it.

    Checked without importing scrapy-poet or web-poet (a few MB of modules a project that
    does not use them should not pay for): installed per ``find_spec``, used when a
    ``scrapy_poet`` component is listed or a poet setting is set.
    """
    if importlib.util.find_spec("scrapy_poet") is None:
        return False
    if any(settings.get(name) for name in POET_SETTINGS):
        return True
    return any(
        _component_path(component).startswith("scrapy_poet")
        for name in POET_COMPONENT_SETTINGS
        for component in settings.getdict(name)
    )


class Addon:
    """Enable pagesim: downloader and spider middlewares, filter and induction pipelines."""

    def update_settings(self, settings: BaseSettings) -> None:
        from pagesim_scrapy.middlewares import (
            PageSimDownloaderMiddleware,
            PageSimSpiderMiddleware,
        )
        from pagesim_scrapy.pipelines.filter import PageSimFilterPipeline

        for spec in SETTINGS:
            settings.set(spec.name, copy.deepcopy(spec.default), priority="addon")
        settings.setdefault_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", PageSimDownloaderMiddleware, DOWNLOADER_MIDDLEWARE_PRIORITY
        )
        settings.setdefault_in_component_priority_dict(
            "SPIDER_MIDDLEWARES", PageSimSpiderMiddleware, SPIDER_MIDDLEWARE_PRIORITY
        )
        settings.setdefault_in_component_priority_dict(
            "ITEM_PIPELINES", PageSimFilterPipeline, FILTER_PIPELINE_PRIORITY
        )
        # scrapy-poet, where installed and used: the verdict as an injectable input, layouts
        # by label
        if poet_in_use(settings):
            from pagesim_scrapy.poet.config import configure_poet

            configure_poet(settings)
        induction = _induction_pipeline()
        if induction is not None:
            settings.setdefault_in_component_priority_dict(
                "ITEM_PIPELINES", induction, INDUCTION_PIPELINE_PRIORITY
            )
