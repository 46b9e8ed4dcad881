"""``export-page-object WRAPPER.json... -o module.py --pages DIR``: learned wrappers as
web-poet page objects (and their test fixtures) that run without pagesim."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pagesim_scrapy.cli._common import CommandError, page_paths
from pagesim_scrapy.core.induce import Wrapper, WrapperError
from pagesim_scrapy.core.pageio import PageReadError, read_page_bytes

if TYPE_CHECKING:
    from pagesim_scrapy.poet.export import ExamplePage, PageObjectSpec


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export-page-object",
        help="write learned wrappers as web-poet page objects with test fixtures",
        description=(
            "Write a Python module with one web-poet page object per wrapper's label and one "
            "field per field of pagesim's record, each an XPath anchored on stable attributes, "
            "labels or headings, kept only when it gives pagesim's own value on every example "
            "page of --pages. Fields that cannot be expressed are listed with the reason. "
            "Needs the poet extra (pip install 'pagesim-scrapy[poet]')."
        ),
    )
    parser.add_argument("wrappers", nargs="+", metavar="WRAPPER.json")
    parser.add_argument("-o", "--output", required=True, metavar="MODULE.py")
    parser.add_argument(
        "--pages",
        action="append",
        required=True,
        metavar="[LABEL=]DIR",
        help=(
            "example pages of the labels (repeatable): LABEL=DIR for one label's pages; a "
            "plain DIR holds each label's pages in DIR/LABEL, or else pages of any label "
            "(each wrapper keeps those it fits)"
        ),
    )
    parser.add_argument(
        "--fixtures",
        metavar="DIR",
        help="also write web-poet test fixtures here (DIR/<module>.<Class>/test-N)",
    )
    parser.set_defaults(handler=run)


def _load(paths: list[str]) -> list[Wrapper]:
    wrappers = []
    for path in paths:
        try:
            wrapper = Wrapper.load(path)
        except WrapperError as exc:
            raise CommandError(str(exc)) from exc
        if wrapper.pages == 0:
            raise CommandError(f"{path}: the wrapper has not learned any page")
        wrappers.append(wrapper)
    labels = [w.label for w in wrappers]
    if len(set(labels)) != len(labels):
        raise CommandError("two wrappers have the same label: one page object per label")
    return wrappers


def _folders_for(label: str | None, specs: list[str]) -> list[Path]:
    folders = []
    for spec in specs:
        name, sep, folder = spec.partition("=")
        if sep:
            if name == label:
                folders.append(Path(folder))
            continue
        own = Path(spec) / label if label else None
        folders.append(own if own is not None and own.is_dir() else Path(spec))
    return folders


def _pages(folders: list[Path]) -> list[ExamplePage]:
    from pagesim_scrapy.poet.export import ExamplePage

    pages: list[ExamplePage] = []
    for path in page_paths(str(f) for f in folders) if folders else []:
        try:
            body = read_page_bytes(path)
        except PageReadError as exc:
            print(f"skipping {path}: {exc}", file=sys.stderr)
            continue
        pages.append(ExamplePage(f"http://pages.invalid/{path.name}", body))
    return pages


def run(args: argparse.Namespace) -> int:
    try:
        from pagesim_scrapy.poet.export import export_label
        from pagesim_scrapy.poet.render import render_module, write_fixtures
    except ImportError as exc:
        raise CommandError(
            f"{exc}: install the poet extra (pip install 'pagesim-scrapy[poet]')"
        ) from exc
    output = Path(args.output)
    module = output.stem
    if not module.isidentifier():
        raise CommandError(f"{output.name}: the module's name must be a Python identifier")
    specs = []
    for wrapper in _load(args.wrappers):
        pages = _pages(_folders_for(wrapper.label, args.pages))
        spec = export_label(wrapper, pages)
        specs.append(spec)
        _report(spec)
        if args.fixtures:
            count = write_fixtures(args.fixtures, module, spec, wrapper, pages)
            print(f"  {count} fixtures in {args.fixtures}")
    output.write_text(render_module(specs), encoding="utf-8")
    print(f"wrote {output}")
    return 0


def _report(spec: PageObjectSpec) -> None:
    print(
        f"{spec.class_name} ({spec.label!r}): {len(spec.fields)} fields exported, "
        f"{len(spec.skipped)} not, checked on {spec.pages} pages"
    )
    if spec.pages == 0:
        print("  no example page fits the wrapper: nothing could be checked")
    for skipped in spec.skipped:
        print(f"  not exported: {skipped.name}: {skipped.reason}")
