"""The ``--method`` / ``--param`` options shared by commands that compare pages."""

from __future__ import annotations

import argparse
import json
from typing import Any

from pagesim_scrapy.cli._common import CommandError
from pagesim_scrapy.core.similarity import METHODS, SITE_METHOD, get_measure
from pagesim_scrapy.core.summary import SummaryOptions
from pagesim_scrapy.settings import DEFAULT_MAX_NODES

__all__ = [
    "SITE_METHOD",
    "add_method_arguments",
    "method_params",
    "methods_help",
    "parse_max_nodes",
    "summary_options",
]


def add_method_arguments(
    parser: argparse.ArgumentParser, default: str = "lcs", *, site: bool = False
) -> None:
    """``--method``/``--param``; ``site`` offers the site-aware classifier (and the crawl's
    summary options through ``--max-nodes``), for commands that classify many pages."""
    choices = sorted(METHODS) + ([SITE_METHOD] if site else [])
    parser.add_argument(
        "-m",
        "--method",
        default=default,
        choices=choices,
        help=f"similarity measure (default: {default})",
    )
    if site:
        parser.add_argument(
            "--max-nodes",
            type=parse_max_nodes,
            default=DEFAULT_MAX_NODES,
            metavar="N",
            help="summarise at most N elements per page, as the crawl does "
            f"(PAGESIM_MAX_NODES, default {DEFAULT_MAX_NODES}; 'none' for whole trees)",
        )
    parser.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a method parameter, e.g. relation=rsn, depth=8, kappa=0.5 (repeatable; each "
        "method's parameters and defaults: compare --help)",
    )


def _show(value: Any) -> str:
    """A parameter value as ``--param`` takes it: a bare word for a string, else JSON."""
    return value if isinstance(value, str) else json.dumps(value)


def methods_help() -> str:
    """Every registered measure with its parameters, defaults and choices (for ``--help``)."""
    lines = ["methods and their parameters (-p NAME=VALUE; shown with the default value):"]
    for name in sorted(METHODS):
        measure = METHODS[name]
        lines.append(f"  {name}: {measure.summary}" if measure.summary else f"  {name}")
        if not measure.defaults:
            lines.append("      (no parameters)")
        for param, default in measure.defaults.items():
            choices = measure.choices.get(param)
            either = f"  (one of {', '.join(_show(c) for c in choices)})" if choices else ""
            lines.append(f"      {param}={_show(default)}{either}")
    return "\n".join(lines)


def parse_max_nodes(text: str) -> int | None:
    """``--max-nodes``: a positive number, or 'none' for whole trees."""
    if text.strip().lower() == "none":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number or 'none', not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be >= 1")
    return value


def summary_options(args: argparse.Namespace) -> SummaryOptions:
    """The crawl's summary options (same node budget), so offline figures predict the crawl."""
    return SummaryOptions(max_nodes=getattr(args, "max_nodes", DEFAULT_MAX_NODES))


def _parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text  # a bare word such as rsn or lcs


def method_params(args: argparse.Namespace) -> dict[str, Any]:
    """The ``--param`` values, checked against the method's declared parameters."""
    params: dict[str, Any] = {}
    for item in args.param:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise CommandError(f"--param wants NAME=VALUE, not {item!r}")
        params[name.strip()] = _parse_value(value.strip())
    if args.method == SITE_METHOD:
        if params:
            raise CommandError("method 'site' takes no --param")
        return params
    try:
        get_measure(args.method).check_params(params)
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    return params
