"""Item pipelines: the filter (drops items of non-target pages) and template induction.

``TemplateInductionPipeline`` lives in :mod:`pagesim_scrapy.pipelines.induction` and is
imported on first access only, so importing the filter stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

from pagesim_scrapy.pipelines.filter import PageSimFilterPipeline

INDUCTION_MODULE = "pagesim_scrapy.pipelines.induction"


def __getattr__(name: str) -> Any:
    if name == "TemplateInductionPipeline":
        try:
            module = importlib.import_module(INDUCTION_MODULE)
        except ModuleNotFoundError as exc:
            if exc.name != INDUCTION_MODULE:
                raise
            raise AttributeError(f"{INDUCTION_MODULE} is not installed") from exc
        return module.TemplateInductionPipeline
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["PageSimFilterPipeline", "TemplateInductionPipeline"]
