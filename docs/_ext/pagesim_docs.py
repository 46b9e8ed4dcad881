"""Sphinx directives that build reference pages from the code, so they cannot drift from it.

``pagesim-settings``: one section per ``pagesim_scrapy.settings.SETTINGS`` entry (name, type,
default, meaning). ``pagesim-commands``: each command's ``--help``, as the command prints it.
"""

from __future__ import annotations

import argparse
import os
import re
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.application import Sphinx

#: Width of the generated ``--help`` text (argparse reads $COLUMNS).
HELP_COLUMNS = "88"


def inline(text: str) -> list[nodes.Node]:
    """Text with Markdown-style `code` spans (as the setting docs are written) as nodes."""
    out: list[nodes.Node] = []
    for i, part in enumerate(re.split(r"`([^`]*)`", text)):
        if i % 2:
            out.append(nodes.literal(part, part))
        elif part:
            out.append(nodes.Text(part))
    return out


def show_default(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


def setting_id(name: str) -> str:
    return "setting-" + name.lower().replace("_", "-")


class SettingsDirective(Directive):
    has_content = False

    def run(self) -> list[nodes.Node]:
        from pagesim_scrapy.settings import SETTINGS

        sections: list[nodes.Node] = []
        for spec in SETTINGS:
            section = nodes.section(ids=[setting_id(spec.name)], names=[spec.name.lower()])
            section += nodes.title("", "", nodes.literal(spec.name, spec.name))
            facts = nodes.paragraph()
            facts += nodes.strong("Type:", "Type:")
            facts += nodes.Text(f" {spec.type}    ")
            facts += nodes.strong("Default:", "Default:")
            facts += nodes.Text(" ")
            default = show_default(spec.default)
            facts += nodes.literal(default, default)
            section += facts
            section += nodes.paragraph("", "", *inline(spec.doc))
            sections.append(section)
        return sections


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


class CommandsDirective(Directive):
    has_content = False

    def run(self) -> list[nodes.Node]:
        from pagesim_scrapy.cli import SCRIPT_PROG, build_parser

        saved = os.environ.get("COLUMNS")
        os.environ["COLUMNS"] = HELP_COLUMNS
        try:
            top = build_parser(SCRIPT_PROG)
            out: list[nodes.Node] = [self._block(top.format_help())]
            for name, parser in _subparsers(top).items():
                section = nodes.section(ids=[f"command-{name}"], names=[f"command {name}"])
                section += nodes.title("", "", nodes.literal(name, name))
                section += self._block(parser.format_help())
                for action, sub in _subparsers(parser).items():
                    section += nodes.paragraph("", "", nodes.literal(action, f"{name} {action}"))
                    section += self._block(sub.format_help())
                out.append(section)
        finally:
            if saved is None:
                del os.environ["COLUMNS"]
            else:
                os.environ["COLUMNS"] = saved
        return out

    @staticmethod
    def _block(text: str) -> nodes.literal_block:
        block = nodes.literal_block(text, text)
        block["language"] = "text"
        return block


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("pagesim-settings", SettingsDirective)
    app.add_directive("pagesim-commands", CommandsDirective)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
