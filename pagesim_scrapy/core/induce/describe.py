"""A readable view of a wrapper, for a person to check what was learned."""

from __future__ import annotations

from pagesim_scrapy.core.induce.compiled import FieldInfo
from pagesim_scrapy.core.induce.wrapper import FORMAT_VERSION, Wrapper

__all__ = ["describe"]

_PATH_CHARS = 60
_SAMPLE_CHARS = 40


def _short_path(path: str) -> str:
    if len(path) <= _PATH_CHARS:
        return path
    parts = path.split(" > ")
    out = parts[-1]
    for part in reversed(parts[:-1]):
        if len(out) + len(part) + 5 > _PATH_CHARS:
            break
        out = f"{part} > {out}"
    return "… > " + out


def _sample(values: list[str]) -> str:
    shown = []
    for value in values[:2]:
        value = value if len(value) <= _SAMPLE_CHARS else value[: _SAMPLE_CHARS - 1] + "…"
        shown.append(f'"{value}"')
    return " | ".join(shown)


def describe(wrapper: Wrapper, max_optional: int = 30) -> str:
    """Fields (with where they are, on how many pages, example values) and optional nodes."""
    if wrapper.pages == 0 or wrapper.tree.root is None:
        return f"wrapper {wrapper.label!r}: nothing learned yet"
    comp = wrapper.compiled()
    skipped = wrapper.tree.duplicates
    lines = [
        f"wrapper {wrapper.label or '(no label)'}: format {FORMAT_VERSION}, learned from "
        f"{comp.pages} page(s)"
        + (f" ({skipped} duplicate page(s) skipped)" if skipped else "")
        + f", lambda {wrapper.lam:g} (nodes found on fewer than "
        f"{comp.min_count} page(s) dropped: {comp.discarded}), min fit {wrapper.min_fit:g}, "
        f"JSON-LD {'on' if wrapper.structured else 'off'}",
        f"page kind: {comp.kind}; main region: "
        f"{comp.main.field if comp.main is not None else 'none'}",
    ]
    if comp.pages == 1:
        lines.append(
            "note: one page cannot tell template text from data: only repeated regions and "
            "the page's name (its title) are data"
        )
    lines.append(f"fields ({len(comp.fields)}):")
    width = max([len(f.name) for f in comp.fields] + [4]) + 2
    by_scope: dict[str | None, list[FieldInfo]] = {}
    for f in comp.fields:
        by_scope.setdefault(f.scope, []).append(f)

    def emit(scope: str | None, indent: int) -> None:
        for f in by_scope.get(scope, []):
            name = ("  " * indent + ("." if indent else "") + f.name).ljust(width + 2 * indent)
            kind = f.kind if f.attribute is None else f"@{f.attribute}"
            presence = f"{f.pages}/{comp.pages}" if f.scope is None else "in groups"
            opt = " optional" if f.optional else ""
            where = _short_path(f.path)
            lines.append(f"  {name} {kind:9s} {presence:9s}{opt:9s} {where}  {_sample(f.samples)}")
            if f.kind == "list":
                emit(f"{f.scope}/{f.name}" if f.scope else f.name, indent + 1)

    emit(None, 0)
    optional = comp.optional_nodes
    lines.append(f"optional nodes ({len(optional)}): present on fewer than all pages or groups")
    for c in optional[:max_optional]:
        where = f"{c.count}/{comp.pages} pages" if c.scope is None else f"{c.gcount} groups"
        lines.append(f"  {where:12s} {_short_path(c.path)}")
    if len(optional) > max_optional:
        lines.append(f"  … and {len(optional) - max_optional} more")
    return "\n".join(lines)
