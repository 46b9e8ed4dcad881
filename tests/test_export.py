"""Exported page objects: learned on real pages, run without pagesim, equal to pagesim's record."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("web_poet")

from pagesim_scrapy.cli import main
from pagesim_scrapy.core.induce import induce
from pagesim_scrapy.poet.export import (
    ExamplePage,
    class_name,
    export_label,
    exported_record,
    reference_record,
)
from pagesim_scrapy.poet.render import render_module, write_fixtures

FIXTURES = Path(__file__).resolve().parent / "fixtures"
QUESTIONS = FIXTURES / "stackoverflow" / "question"

#: Runs inside the clean interpreter: each page through its page object, pagesim absent.
RUNNER = """
import asyncio, json, sys
from web_poet import HttpResponse
import {module} as pages
out = []
for path in sys.argv[1:]:
    with open(path, "rb") as fh:
        body = fh.read()
    headers = {{"Content-Type": "text/html"}}
    page = pages.{cls}(HttpResponse("http://pages.invalid/x", body, headers=headers))
    out.append(asyncio.run(page.to_item()))
assert not any(name.startswith("pagesim_scrapy") for name in sys.modules)
print(json.dumps(out))
"""


def _pages() -> list[ExamplePage]:
    return [
        ExamplePage(f"http://pages.invalid/{p.name}", p.read_bytes())
        for p in sorted(QUESTIONS.glob("*.html"))
    ]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory):
    pages = _pages()
    wrapper = induce([p.body for p in pages], label="question")
    spec = export_label(wrapper, pages)
    folder = tmp_path_factory.mktemp("exported")
    (folder / "so_pages.py").write_text(render_module([spec]), encoding="utf-8")
    return wrapper, spec, pages, folder


def test_class_names() -> None:
    assert class_name("blog_post") == "BlogPostPage"
    assert class_name("product") == "ProductPage"
    assert class_name(None) == "LayoutPage"


def test_selectors_are_anchored_not_positional(exported) -> None:
    _, spec, _, _ = exported
    assert len(spec.fields) >= 10
    names = {f.name for f in spec.fields}
    assert {"title", "url"} <= names  # the core record's fields come first
    for f in spec.fields:
        assert "[@" in f.selector.query or "normalize-space(" in f.selector.query
        assert "/*[" not in f.selector.query
    assert all(s.reason for s in spec.skipped)


def test_module_runs_without_pagesim_and_matches_its_record(exported) -> None:
    wrapper, spec, pages, folder = exported
    (folder / "run_pages.py").write_text(
        RUNNER.format(module="so_pages", cls=spec.class_name), encoding="utf-8"
    )
    paths = [str(p) for p in sorted(QUESTIONS.glob("*.html"))]
    # -I: isolated (no PYTHONPATH, no user site, no cwd); only the venv's packages (web-poet,
    # parsel) and the folder holding the module
    code = f"import sys; sys.path.insert(0, {str(folder)!r}); sys.argv[1:] = {paths!r}; " + (
        "exec(open(sys.path[0] + '/run_pages.py').read())"
    )
    result = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    items = json.loads(result.stdout)
    for page, item in zip(pages, items):
        assert item == exported_record(spec, reference_record(wrapper, page.body, page.url))


def test_fixtures_run_green_under_web_poet_plugin(exported, tmp_path: Path) -> None:
    wrapper, spec, pages, folder = exported
    assert write_fixtures(folder / "fixtures", "so_pages", spec, wrapper, pages) == len(pages)
    (folder / "pytest.ini").write_text("[pytest]\nfilterwarnings = error\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "fixtures"],
        cwd=folder,
        env={"PYTHONPATH": str(folder), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:]
    assert " passed" in result.stdout and "failed" not in result.stdout


def test_command_writes_module_and_fixtures(tmp_path: Path, capsys) -> None:
    wrapper_path = tmp_path / "question.json"
    assert main(["induce", str(QUESTIONS), "--label", "question", "-o", str(wrapper_path)]) == 0
    out = tmp_path / "so_cli.py"
    code = main(
        [
            "export-page-object",
            str(wrapper_path),
            "-o",
            str(out),
            "--pages",
            str(QUESTIONS),
            "--fixtures",
            str(tmp_path / "fixtures"),
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "QuestionPage ('question')" in text and "not exported: posts:" in text
    source = out.read_text(encoding="utf-8")
    assert "class QuestionPage(WebPage):" in source and "pagesim_scrapy" not in source
    assert "Fields not exported" in source
    assert len(list((tmp_path / "fixtures" / "so_cli.QuestionPage").iterdir())) == 3


def test_command_needs_a_usable_module_name(tmp_path: Path, capsys) -> None:
    wrapper_path = tmp_path / "question.json"
    main(["induce", str(QUESTIONS), "--label", "question", "-o", str(wrapper_path)])
    code = main(
        [
            "export-page-object",
            str(wrapper_path),
            "-o",
            str(tmp_path / "bad-name.py"),
            "--pages",
            str(QUESTIONS),
        ]
    )
    assert code == 2
    assert "Python identifier" in capsys.readouterr().err
