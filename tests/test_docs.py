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


def test_every_stat_is_documented() -> None:
    text = (REPO / "docs" / "stats.md").read_text(encoding="utf-8")
    missing = [key for key in sorted(emitted_stats()) if f"`{key.split('<>')[0]}" not in text]
    assert not missing, f"docs/stats.md does not document {missing}"


README = REPO / "README.md"
#: The README is a user's page: what it does, the two commands, enabling it, the rest in short.
README_MAX_LINES = 300
LINK = re.compile(r"\]\(([^)#]+)(?:#[^)]*)?\)")


def test_the_readme_is_short_and_keeps_its_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    assert (
        "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && "
        "scrapy crawl shop -O items.jsonl"
    ) in text
    assert 'pip install -e ".[test]" && python -m pytest -q' in text
    assert "docs/stats.md" in text and "docs/settings.md" in text


def test_the_readme_links_resolve() -> None:
    text = README.read_text(encoding="utf-8")
    local = [link for link in LINK.findall(text) if "://" not in link]
    assert local
    missing = [link for link in local if not (REPO / link).exists()]
    assert not missing, missing


def test_the_readme_names_only_real_settings() -> None:
    names = {spec.name for spec in SETTINGS}
    named = set(re.findall(r"`(PAGESIM_[A-Z_]+)`", README.read_text(encoding="utf-8")))
    assert named and named <= names, named - names


def test_every_benchmark_has_a_section() -> None:
    text = (REPO / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    scripts = sorted(p.name for p in (REPO / "benchmarks").glob("*.py") if p.name[0] != "_")
    missing = [name for name in scripts if name != "gate.py" and f"### {name}" not in text]
    assert not missing, f"docs/benchmarks.md has no section for {missing}"


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
