"""The ``--method`` / ``--param`` options shared by commands that compare pages."""

from __future__ import annotations

import argparse
import json
from typing import Any

from pagesim_scrapy.cli._common import CommandError
from pagesim_scrapy.core.similarity import METHODS, get_measure


def add_method_arguments(parser: argparse.ArgumentParser, default: str = "lcs") -> None:
    parser.add_argument(
        "-m",
        "--method",
        default=default,
        choices=sorted(METHODS),
        help=f"similarity measure (default: {default})",
    )
    parser.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a method parameter, e.g. relation=rsn, depth=8, kappa=0.5 (repeatable)",
    )


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
    try:
        get_measure(args.method).check_params(params)
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    return params
