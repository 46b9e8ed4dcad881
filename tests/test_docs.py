"""The documentation: every stat the code emits is documented; the Sphinx site builds cleanly."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pagesim_scrapy.cli import SUBCOMMANDS
from pagesim_scrapy.settings import SETTINGS

from .conftest import REPO

PACKAGE = REPO / "pagesim_scrapy"
STAT_CALL = re.compile(r"""stats\.(?:inc|set|max|min)_value\(\s*(f?)(["'])(.+?)\2""")
#: Module constants used as prefixes in f-strings, resolved to their values.
CONSTANT = re.compile(r"""^([A-Z_]+)\s*=\s*["'](pagesim/[^"']*)["']""", re.MULTILINE)


def emitted_stats() -> set[str]:
    """Every stats key in the package's code, with ``{...}`` parts as ``<...>``: the part before
    the first placeholder (``pagesim/label_count/``) is what the docs must name."""
    keys: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        constants = dict(CONSTANT.findall(text))
        for is_f, _, key in STAT_CALL.findall(text):
            if is_f:
                for name, value in constants.items():
                    key = key.replace("{" + name + "}", value)
                # {'unfit' if unfit else 'errors/page'}: both keys
                choice = re.search(r"\{'([\w/]+)' if .+? else '([\w/]+)'\}", key)
                if choice:
                    for option in choice.groups():
                        keys.add(key[: choice.start()] + option)
                    continue
                key = re.sub(r"\{[^}]*\}", "<>", key)
            keys.add(key)
    return keys


def test_the_scan_finds_the_stats() -> None:
    keys = emitted_stats()
    assert "pagesim/response_count" in keys
    assert "pagesim/induction/held_max" in keys
    assert "pagesim/induction/unfit" in keys and "pagesim/induction/errors/page" in keys
    assert "pagesim/label_count/<>" in keys
    assert all(key.startswith("pagesim/") for key in keys), keys


@pytest.mark.parametrize("document", ["README.md", "docs/stats.md"])
def test_every_stat_is_documented(document: str) -> None:
    text = (REPO / document).read_text(encoding="utf-8")
    missing = [key for key in sorted(emitted_stats()) if f"`{key.split('<>')[0]}" not in text]
    assert not missing, f"{document} does not document {missing}"


def test_docs_build_without_warnings(tmp_path: Path) -> None:
    for module in ("sphinx", "furo", "myst_parser"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} not installed (pip install -e '.[docs]'); CI builds the docs")
    out = tmp_path / "html"
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(REPO / "docs"), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    settings = (out / "settings.html").read_text(encoding="utf-8")
    for spec in SETTINGS:  # generated from the code: every setting, none forgotten
        assert f'id="setting-{spec.name.lower().replace("_", "-")}"' in settings, spec.name
    commands = (out / "commands.html").read_text(encoding="utf-8")
    for name in SUBCOMMANDS:
        assert f"usage: pagesim {name} [-h]" in commands, name
    assert "structural_params=null" in commands  # compare's generated list of parameters
