"""pagesim with web-poet and scrapy-poet: the verdict as an input, and layouts picked by label.

The crawls are real ``scrapy crawl`` runs of the small project in tests/poet_project (copied to
a temporary folder: a crawl keeps its state under ``.scrapy`` there) against real Stack
Overflow pages served on 127.0.0.1. Skipped where the ``poet`` extra is not installed.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

pytest.importorskip("scrapy_poet")
pytest.importorskip("web_poet")

import attrs
from scrapy.http import HtmlResponse, Request, TextResponse
from scrapy.settings import Settings
from web_poet import ApplyRule, HttpResponse, WebPage, field
from web_poet.serialization import deserialize_leaf, serialize_leaf
from web_poet.testing import Fixture

from pagesim_scrapy.core.verdict import Verdict
from pagesim_scrapy.poet import (
    NoLayoutError,
    PageSimLayoutPage,
    PageSimVerdict,
    configure_poet,
    layout_page,
    layout_rule,
)
from pagesim_scrapy.poet.provider import PageSimVerdictProvider, verdict_of
from tests.test_scrapy_crawl import FIXTURES, TYPES, Site, serve, so_routes

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PROJECT = HERE / "poet_project"
CRAWL_TIMEOUT = 240

VERDICT = Verdict(
    label="question",
    score=0.91,
    scores={"question": 0.91, "users": 0.2},
    method="site",
    margin=0.71,
    runner_up="users",
    threshold=0.4,
    threshold_source="distribution",
    confidence=0.97,
)


def so_response(kind: str, number: int = 2, **meta: Any) -> tuple[Request, HtmlResponse]:
    url = f"http://127.0.0.1/so/{kind}/{number:02d}.html"
    request = Request(url, meta=meta)
    body = (FIXTURES / kind / f"{number:02d}.html").read_bytes()
    return request, HtmlResponse(url, body=body, encoding="utf-8", request=request)


def poet_response(kind: str, number: int = 2) -> HttpResponse:
    _, response = so_response(kind, number)
    return HttpResponse(response.url, body=response.body, encoding="utf-8")


# --------------------------------------------------------------------------------------------
# The verdict


def test_the_verdict_types_the_meta_contract():
    meta = {**VERDICT.as_meta(), "target": True, "cluster": None}
    verdict = PageSimVerdict.from_meta(meta)
    assert verdict.label == "question" and verdict.classified
    assert verdict.score == 0.91 and verdict.scores == {"question": 0.91, "users": 0.2}
    assert (verdict.threshold, verdict.threshold_source) == (0.4, "distribution")
    assert (verdict.confidence, verdict.method, verdict.target) == (0.97, "site", True)
    assert (verdict.margin, verdict.runner_up) == (0.71, "users")
    assert verdict.reason == (
        "question: score 0.910, threshold 0.400 (distribution), margin 0.710 over users, "
        "confidence 0.97"
    )
    assert verdict.as_meta() == meta


def test_a_verdict_with_no_label_says_which_label_came_closest():
    meta = {**VERDICT.as_meta(), "label": None}
    verdict = PageSimVerdict.from_meta(meta)
    assert verdict.label is None and verdict.classified
    assert verdict.reason == "no label: the best, question, scored 0.910, under its threshold"


def test_the_provider_reads_the_verdict_pagesim_wrote_to_the_request():
    request, response = so_response("question", pagesim=VERDICT.as_meta())
    provided = PageSimVerdictProvider(injector=None)(set(), request=request, response=response)
    assert provided == [PageSimVerdict.from_meta(VERDICT.as_meta())]


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        ("dont_pagesim", "not classified: the request has meta['dont_pagesim'] set"),
        ("not_html", "not classified: not an HTML response (TextResponse)"),
        ("status", "not classified: HTTP status 404"),
        ("skipped", "pagesim did not classify this response"),
    ],
)
def test_a_response_pagesim_did_not_classify_gets_no_label_and_a_reason(case: str, reason: str):
    request, response = so_response("users", dont_pagesim=case == "dont_pagesim")
    if case == "not_html":
        response = TextResponse(response.url, body=b"{}", request=request)
    elif case == "status":
        response = response.replace(status=404)
    verdict = verdict_of(request, response)
    assert verdict.label is None and not verdict.classified
    assert verdict.reason.startswith(reason)


def test_the_verdict_serializes_for_fixtures_and_the_cache():
    for verdict in (PageSimVerdict.from_meta(VERDICT.as_meta()), PageSimVerdict.unclassified()):
        assert deserialize_leaf(PageSimVerdict, serialize_leaf(verdict)) == verdict


# --------------------------------------------------------------------------------------------
# Layouts picked by label


class QuestionLayout(WebPage[dict[str, Any]]):
    @field
    def title(self) -> str | None:
        return self.css("#question-header h1 a::text").get()


class UsersLayout(WebPage[dict[str, Any]]):
    @field
    def users(self) -> int:
        return len(self.css(".user-details"))


@attrs.define
class OtherLayout(WebPage[dict[str, Any]]):
    verdict: PageSimVerdict

    @field
    def label(self) -> str | None:
        return self.verdict.label


@attrs.define
class HandWrittenPage(PageSimLayoutPage[dict[str, Any]]):
    question: QuestionLayout
    users: UsersLayout
    other: OtherLayout
    layouts: ClassVar[dict[str | None, type[Any]]] = {
        "question": QuestionLayout,
        "users": UsersLayout,
        None: OtherLayout,
    }


def build(page_cls: type, kind: str, verdict: PageSimVerdict) -> Any:
    """``page_cls`` with its inputs, as scrapy-poet would build it for a ``kind`` page."""
    response = poet_response(kind)
    hints = typing.get_type_hints(page_cls)
    layouts = {
        name: hint(response, verdict) if hint is OtherLayout else hint(response)
        for name, hint in hints.items()
        if name in attrs.fields_dict(page_cls) and name != "verdict"
    }
    return page_cls(verdict=verdict, **layouts)


def verdict_for(label: str | None) -> PageSimVerdict:
    return PageSimVerdict.from_meta({**VERDICT.as_meta(), "label": label})


@pytest.mark.parametrize("page_cls", ["hand-written", "built"])
def test_the_layout_page_delegates_to_the_layout_of_the_label(page_cls: str):
    cls = (
        HandWrittenPage
        if page_cls == "hand-written"
        else layout_page(
            {"question": QuestionLayout, "users": f"{__name__}.UsersLayout"}, default=OtherLayout
        )
    )
    question = asyncio.run(build(cls, "question", verdict_for("question")).to_item())
    assert question == {"title": "find() not working properly. Cant find span"}
    users = asyncio.run(build(cls, "users", verdict_for("users")).to_item())
    assert users == {"users": 36}
    # a label with no layout of its own, and a page with no label, get the default
    assert asyncio.run(build(cls, "tags", verdict_for("tags")).to_item()) == {"label": "tags"}
    unclassified = build(cls, "tags", PageSimVerdict.unclassified())
    assert asyncio.run(unclassified.to_item()) == {"label": None}


def test_a_label_without_a_layout_or_default_is_a_clear_error():
    cls = layout_page({"question": QuestionLayout})
    page = build(cls, "users", verdict_for("users"))
    with pytest.raises(NoLayoutError, match="no layout page object for label 'users'"):
        asyncio.run(page.to_item())


def test_a_layout_must_be_a_page_object_class():
    with pytest.raises(TypeError, match="must be a web-poet page object class"):
        layout_page({"question": "json.dumps"})


def test_the_layout_rule_applies_on_every_url_unless_told_otherwise():
    rule = layout_rule({"question": QuestionLayout})
    assert rule.instead_of is PageSimLayoutPage and issubclass(rule.use, PageSimLayoutPage)
    assert rule.use.layouts == {"question": QuestionLayout}
    assert not rule.for_patterns.include
    scoped = layout_rule({"question": QuestionLayout}, for_patterns="stackoverflow.com")
    assert scoped.for_patterns.include == ("stackoverflow.com",)


# --------------------------------------------------------------------------------------------
# Settings


def test_configure_poet_adds_the_provider_and_the_layout_rule_once():
    kept = ApplyRule("example.com", use=QuestionLayout, instead_of=UsersLayout)
    settings = Settings(
        {
            "SCRAPY_POET_RULES": [kept],
            "PAGESIM_POET_LAYOUTS": {"question": f"{__name__}.QuestionLayout"},
            "PAGESIM_POET_DEFAULT_LAYOUT": f"{__name__}.OtherLayout",
        }
    )
    assert configure_poet(settings) and configure_poet(settings)
    providers = settings.getdict("SCRAPY_POET_PROVIDERS")
    assert providers == {PageSimVerdictProvider: 1100}
    rules = settings.getlist("SCRAPY_POET_RULES")
    assert len(rules) == 2 and rules[0] is kept
    assert rules[1].use.layouts == {"question": QuestionLayout, None: OtherLayout}


def test_a_project_provider_entry_wins_and_no_layouts_means_no_rule():
    disabled = {"pagesim_scrapy.poet.provider.PageSimVerdictProvider": None}
    settings = Settings({"SCRAPY_POET_PROVIDERS": disabled})
    assert configure_poet(settings)
    assert settings.getdict("SCRAPY_POET_PROVIDERS") == disabled
    assert settings.get("SCRAPY_POET_RULES") is None


def test_without_scrapy_poet_configure_poet_does_nothing_and_the_addon_is_not_configured():
    script = (
        "import sys; sys.modules['scrapy_poet'] = None\n"
        "from scrapy.exceptions import NotConfigured\n"
        "from scrapy.settings import Settings\n"
        "from pagesim_scrapy.poet import PoetAddon, configure_poet\n"
        "settings = Settings({'PAGESIM_POET_LAYOUTS': {'a': 'x.Y'}})\n"
        "assert configure_poet(settings) is False\n"
        "assert settings.get('SCRAPY_POET_PROVIDERS') is None\n"
        "try:\n"
        "    PoetAddon().update_settings(settings)\n"
        "except NotConfigured as exc:\n"
        "    print(exc)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=crawl_env()
    )
    assert proc.returncode == 0, proc.stderr
    assert "pip install pagesim-scrapy[poet]" in proc.stdout


# --------------------------------------------------------------------------------------------
# web-poet's test fixtures


def test_a_page_object_with_the_verdict_runs_as_a_web_poet_fixture(tmp_path: Path):
    sys.path.insert(0, str(PROJECT))
    try:
        from poet_project.pages import OtherPage
    finally:
        sys.path.remove(str(PROJECT))
    verdict = verdict_for("jobs")
    response = poet_response("jobs")
    item = asyncio.run(OtherPage(response, verdict).to_item())
    assert item["label"] == "jobs" and item["reason"].startswith("jobs: score 0.910")
    base = tmp_path / "fixtures" / "poet_project.pages.OtherPage"
    Fixture.save(base, inputs=[response, verdict], item=item)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=CRAWL_TIMEOUT,
        cwd=tmp_path,
        env=crawl_env(),
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "passed" in proc.stdout and "failed" not in proc.stdout


# --------------------------------------------------------------------------------------------
# Real crawls: tests/poet_project with scrapy-poet, pagesim and the label layouts


@pytest.fixture
def so_site() -> Iterator[Site]:
    yield from serve(so_routes())


def crawl_env() -> dict[str, str]:
    env = dict(os.environ)
    paths = [str(REPO), str(PROJECT), env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(path for path in paths if path)
    return env


def scrapy_crawl(tmp_path: Path, spider: str, site: Site) -> list[dict[str, Any]]:
    """``scrapy crawl spider`` in a copy of the project; the items it exported."""
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project, ignore=shutil.ignore_patterns("__pycache__", ".scrapy"))
    templates = {kind: [str(FIXTURES / kind / "01.html")] for kind in TYPES}
    urls = [site.url(f"/so/{kind}/{n:02d}.html") for kind in TYPES for n in (2, 3)]
    out = tmp_path / "items.jsonl"
    command = [sys.executable, "-m", "scrapy", "crawl", spider, "-O", str(out)]
    command += ["-a", "urls=" + ",".join(urls)]
    command += ["-a", "unclassified=" + site.url("/so/question/01.html")]
    command += ["-s", "PAGESIM_TEMPLATES=" + json.dumps(templates), "-s", "LOG_LEVEL=INFO"]
    proc = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=CRAWL_TIMEOUT,
        cwd=project,
        env=crawl_env(),
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "'finish_reason': 'finished'" in proc.stderr, proc.stderr[-4000:]
    errors = [line for line in proc.stderr.splitlines() if "] ERROR:" in line]
    assert not errors, errors
    lines = out.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def kind_of(url: str) -> str:
    return url.split("/so/")[1].split("/")[0]


def test_a_callback_that_declares_the_verdict_gets_the_label(so_site: Site, tmp_path: Path):
    items = scrapy_crawl(tmp_path, "verdicts", so_site)
    by_url = {item["url"]: item for item in items}
    assert len(by_url) == len(items) == 2 * len(TYPES) + 1  # each page once
    unclassified = by_url.pop(so_site.url("/so/question/01.html"))
    assert unclassified["label"] is None and unclassified["classified"] is False
    assert unclassified["reason"] == "not classified: the request has meta['dont_pagesim'] set"
    for url, item in by_url.items():
        assert item["label"] == kind_of(url) == item["meta_label"], item
        assert item["classified"] and item["method"] == "site" and item["target"]
        assert set(item["scores"]) == set(TYPES)
        assert item["reason"].startswith(f"{kind_of(url)}: score ")


def test_each_page_is_parsed_by_the_page_object_of_its_label(so_site: Site, tmp_path: Path):
    items = scrapy_crawl(tmp_path, "layouts", so_site)
    by_url = {item["url"]: item for item in items}
    assert len(by_url) == len(items) == 2 * len(TYPES) + 1
    expected = {"question": "QuestionPage", "users": "UsersPage", "tags": "TagsPage"}
    for url, item in by_url.items():
        kind = kind_of(url)
        if url == so_site.url("/so/question/01.html"):  # not classified: the default layout
            assert item["page_object"] == "OtherPage" and item["label"] is None
            assert item["classified"] is False
        elif kind in expected:
            assert item["page_object"] == expected[kind] and item["layout"] == kind
        else:  # a label with no layout of its own: the default, which reads the verdict
            assert item["page_object"] == "OtherPage" and item["label"] == kind
    assert by_url[so_site.url("/so/question/02.html")]["title"] == (
        "find() not working properly. Cant find span"
    )
    assert by_url[so_site.url("/so/users/03.html")]["users"] == 36
    assert "python-2.7" in by_url[so_site.url("/so/tags/03.html")]["tags"]
