"""Wire pagesim into scrapy-poet from settings: the add-on calls :func:`configure_poet`.

Kept free of scrapy-poet imports at module level, so the add-on can call it whether or not
the ``poet`` extra is installed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

#: ``{label: "module.PageObjectClass"}``: the layout page object of each label.
LAYOUTS_SETTING = "PAGESIM_POET_LAYOUTS"
#: The layout page object of pages with no label (or a label not in the mapping).
DEFAULT_LAYOUT_SETTING = "PAGESIM_POET_DEFAULT_LAYOUT"
#: After scrapy-poet's own providers (400 to 1000).
PROVIDER_PRIORITY = 1100
#: Marks the rule built from settings in its ``meta``, so that configuring twice adds it once.
RULE_MARK = "pagesim_layouts"


def poet_available() -> bool:
    """Whether scrapy-poet and web-poet are installed (``pip install pagesim-scrapy[poet]``)."""
    try:
        importlib.import_module("scrapy_poet")
        importlib.import_module("web_poet")
    except ImportError:
        return False
    return True


def configure_poet(settings: BaseSettings) -> bool:
    """Register pagesim's verdict provider and label layouts with scrapy-poet.

    Adds :class:`PageSimVerdictProvider` to ``SCRAPY_POET_PROVIDERS`` (a project entry, even
    None, wins) and, when ``PAGESIM_POET_LAYOUTS`` or ``PAGESIM_POET_DEFAULT_LAYOUT`` is set,
    a rule that makes :class:`PageSimLayoutPage` the layout of the page's label. Does nothing
    and returns False where scrapy-poet is not installed. scrapy-poet itself is enabled by
    the project (``ADDONS = {"scrapy_poet.Addon": 300}``).
    """
    if not poet_available():
        return False
    from pagesim_scrapy.poet.provider import PageSimVerdictProvider

    # the class, not its path: a project entry is recognised whichever way it is written
    settings.setdefault_in_component_priority_dict(
        "SCRAPY_POET_PROVIDERS", PageSimVerdictProvider, PROVIDER_PRIORITY
    )
    layouts = settings.getdict(LAYOUTS_SETTING)
    default = settings.get(DEFAULT_LAYOUT_SETTING) or None
    if layouts or default:
        _add_layout_rule(settings, layouts, default)
    return True


def _add_layout_rule(settings: BaseSettings, layouts: dict[str, Any], default: Any) -> None:
    """Append the layout rule to ``SCRAPY_POET_RULES`` without losing the project's rules."""
    from web_poet import consume_modules, default_registry

    from pagesim_scrapy.poet.layouts import layout_rule

    priority = settings.getpriority("SCRAPY_POET_RULES")
    if priority is None:
        # scrapy-poet would read web-poet's default registry after importing these modules;
        # setting the rules here must keep what that would have found
        for module in settings.getlist("SCRAPY_POET_DISCOVER"):
            consume_modules(module)
        rules = list(default_registry.get_rules())
    else:
        rules = settings.getlist("SCRAPY_POET_RULES")
    if any(getattr(rule, "meta", {}).get(RULE_MARK) for rule in rules):
        return
    rule = layout_rule(layouts, default=default)
    rule.meta[RULE_MARK] = True
    settings.set("SCRAPY_POET_RULES", [*rules, rule], priority=priority or "addon")


class PoetAddon:
    """``ADDONS = {"pagesim_scrapy.poet.PoetAddon": 500}``: :func:`configure_poet` as an add-on.

    For projects that enable pagesim's components one by one; it is not needed where
    pagesim's own add-on does the same.
    """

    def update_settings(self, settings: BaseSettings) -> None:
        from scrapy.exceptions import NotConfigured

        if not configure_poet(settings):
            raise NotConfigured("scrapy-poet is not installed: pip install pagesim-scrapy[poet]")
