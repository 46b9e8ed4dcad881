"""Write exported page objects as a Python module, and their web-poet test fixtures.

The module imports only web-poet (and parsel through it): the project owns it, commits it
and runs it without pagesim. Fixtures pair an example page with pagesim's record for the
exported fields, so web-poet's pytest plugin checks the page object against pagesim.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pagesim_scrapy.core.induce import Wrapper
from pagesim_scrapy.poet.export import (
    ExamplePage,
    PageObjectSpec,
    exported_record,
    reference_record,
)
from pagesim_scrapy.poet.selectors import RUNTIME_SOURCE, Selector

__all__ = ["render_module", "write_fixtures"]

#: How many example pages of a label become fixtures.
MAX_FIXTURES = 10


def _docstring(specs: Sequence[PageObjectSpec]) -> list[str]:
    lines = [
        '"""Page objects exported by pagesim-scrapy (``pagesim export-page-object``).',
        "",
        "Each field reads one XPath with parsel; every selector gave pagesim's own value on",
        "each of its label's example pages when exported. Runs without pagesim installed.",
    ]
    skipped = [(s, f) for s in specs for f in s.skipped]
    if skipped:
        lines += ["", "Fields not exported (field: reason):", ""]
        lines += [f"- {s.class_name}.{f.name}: {f.reason}" for s, f in skipped]
    lines.append('"""')
    return [line.replace("\\", "\\\\") for line in lines]


def _class_source(spec: PageObjectSpec) -> list[str]:
    label = spec.label if spec.label is not None else "(no label)"
    lines = [
        "",
        "",
        f"class {spec.class_name}(WebPage):",
        f'    """Pages of the {label!r} type, checked on {spec.pages} example pages."""',
    ]
    if not spec.fields:
        lines.append("")
        lines.append("    # no field could be expressed as a selector (see the module's docstring)")
    else:
        # each field's (query, how), in record order: a field's repeat check reads the
        # fields before it
        lines.append("")
        lines.append("    _SELECTORS = (")
        lines += [f"        ({f.selector.query!r}, {f.selector.how!r})," for f in spec.fields]
        lines.append("    )")
    for f in spec.fields:
        sel = f.selector
        lines += [
            "",
            "    @field",
            f"    def {f.attr}(self):",
            f"        # anchored on: {sel.anchor}"
            + (f" (pagesim's field {f.name!r})" if f.attr != f.name else ""),
            f"        return _read(self, {sel.query!r}, {sel.how!r}{_guards(sel)})",
        ]
    return lines


def _guards(sel: Selector) -> str:
    """The repeat checks' arguments of ``_read`` (the earlier fields as a slice of the
    class's ``_SELECTORS``)."""
    out = f", earlier=self._SELECTORS[:{len(sel.earlier)}]" if sel.earlier else ""
    return out + (", elsewhere=True" if sel.elsewhere else "")


def render_module(specs: Sequence[PageObjectSpec]) -> str:
    """The module's source: the docstring listing what was left out, then one class per
    label."""
    lines = _docstring(specs)
    lines += ["", "from web_poet import WebPage, field", ""]
    lines += RUNTIME_SOURCE.strip("\n").splitlines()
    for spec in specs:
        lines += _class_source(spec)
    return "\n".join(lines) + "\n"


def write_fixtures(
    directory: str | Path,
    module: str,
    spec: PageObjectSpec,
    wrapper: Wrapper,
    pages: Sequence[ExamplePage],
) -> int:
    """Save web-poet fixtures (``<directory>/<module>.<Class>/test-N``) from the label's
    pages that the wrapper fits: the page as the input, pagesim's record for the exported
    fields as the expected item. Returns how many were written."""
    from web_poet import HttpResponse
    from web_poet.testing import Fixture

    if not spec.fields:
        return 0
    base = Path(directory) / f"{module}.{spec.class_name}"
    written = 0
    for page in pages:
        if written >= MAX_FIXTURES:
            break
        if not wrapper.extract(page.body).ok:
            continue
        item: dict[str, Any] = exported_record(spec, reference_record(wrapper, page.body, page.url))
        response = HttpResponse(page.url, page.body, headers={"Content-Type": "text/html"})
        Fixture.save(base, inputs=[response], item=item)
        written += 1
    return written
