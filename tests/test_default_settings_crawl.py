"""`scrapy crawl` in a fresh `scrapy startproject` project, as a new user runs it.

Each test writes a project with Scrapy's own ``startproject`` (so its settings are exactly
Scrapy's project defaults: ``ROBOTSTXT_OBEY = True``, one request at a time per domain, a one
second delay), adds the pagesim add-on and ``PAGESIM_TEMPLATES``, and runs ``scrapy crawl`` in a
subprocess against a local HTTP server on 127.0.0.1. Only the telnet console and the remote
control extension are turned off (they open ports). Every run has a subprocess timeout: a crawl
that hangs fails the test instead of hanging it.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.test_scrapy_crawl import FIXTURES, Route, Site, _handler_for, closed_port, so_routes

#: A crawl of a few pages takes seconds (one request per second per domain); a hang fails.
CRAWL_TIMEOUT = 120
ROBOTS = b"User-agent: *\nDisallow: /private/\n"
LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[(?P<name>[^\]]+)\] (?P<level>[A-Z]+): ")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default of 5 can refuse connections under load


@pytest.fixture
def site() -> Iterator[Site]:
    routes = {
        **so_routes(),
        "/robots.txt": Route(200, ROBOTS, {"Content-Type": "text/plain"}),
        # disallowed by robots.txt: a template here is still fetched, a page is not
        "/private/jobs.html": so_routes()["/so/jobs/01.html"],
        "/private/page.html": so_routes()["/so/jobs/03.html"],
    }
    served = Site(routes)
    served.server = _Server(("127.0.0.1", 0), _handler_for(served))
    thread = threading.Thread(target=served.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        served.server.shutdown()
        served.server.server_close()
        thread.join(5)


@pytest.fixture
def silent_url() -> Iterator[str]:
    """A URL whose server accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            held.append(connection)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/template.html"
    finally:
        stop.set()
        thread.join(5)
        for connection in held:
            connection.close()
        listener.close()


# --------------------------------------------------------------------------------------------
# A project made by `scrapy startproject`

SPIDER = """
import json
from pathlib import Path

import scrapy


HERE = Path(__file__).parent


class PagesSpider(scrapy.Spider):
    name = "pages"
    start_urls = json.loads((HERE / "start_urls.json").read_text())
    follow = json.loads((HERE / "follow.json").read_text())

    def parse(self, response):
        verdict = response.meta.get("pagesim") or {}
        yield {"url": response.url, "label": verdict.get("label")}
        yield from (response.follow(url) for url in self.follow)
"""


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("SCRAPY_")}


def start_project(
    tmp_path: Path, start_urls: list[str], settings: str, follow: tuple[str, ...] = ()
) -> Path:
    subprocess.run(
        [sys.executable, "-m", "scrapy", "startproject", "proj"],
        cwd=tmp_path,
        env=clean_env(),
        check=True,
        capture_output=True,
        timeout=CRAWL_TIMEOUT,
    )
    root = tmp_path / "proj"
    spiders = root / "proj" / "spiders"
    (spiders / "pages.py").write_text(SPIDER, encoding="utf-8")
    (spiders / "start_urls.json").write_text(json.dumps(start_urls), encoding="utf-8")
    (spiders / "follow.json").write_text(json.dumps(list(follow)), encoding="utf-8")
    with (root / "proj" / "settings.py").open("a", encoding="utf-8") as out:
        out.write(
            '\nADDONS = {"pagesim_scrapy.Addon": 0}\n'
            "TELNETCONSOLE_ENABLED = False\n"
            "REMOTE_CONTROL_ENABLED = False\n" + settings
        )
    return root


def crawl(cwd: Path, *args: str) -> tuple[int, str, list[dict[str, Any]]]:
    """Run `scrapy crawl pages` in ``cwd``: exit status, log, items."""
    out = cwd / "items.jsonl"
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "scrapy", "crawl", "pages", "-O", str(out), *args],
            cwd=cwd,
            env=clean_env(),
            capture_output=True,
            text=True,
            timeout=CRAWL_TIMEOUT,
        )
    except subprocess.TimeoutExpired as exc:
        log = exc.stderr.decode() if isinstance(exc.stderr, bytes) else str(exc.stderr)
        pytest.fail(f"scrapy crawl did not finish in {CRAWL_TIMEOUT} s:\n{log[-3000:]}")
    items = []
    if out.exists():
        items = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return proc.returncode, proc.stderr, items


def log_lines(log: str, *levels: str) -> list[str]:
    return [
        line
        for line in log.splitlines()
        if (match := LOG_LINE.match(line)) and match.group("level") in levels
    ]


def finish_reason(log: str) -> str | None:
    match = re.search(r"'finish_reason': '([^']*)'", log)
    return match.group(1) if match else None


# --------------------------------------------------------------------------------------------
# Tests


@pytest.mark.parametrize("autothrottle", [False, True], ids=["autothrottle_off", "autothrottle_on"])
def test_http_templates_load_with_the_default_project_settings(
    site: Site, tmp_path: Path, autothrottle: bool
):
    templates = {
        "question": [site.url("/so/question/01.html")],
        # disallowed by robots.txt, named by the user: fetched anyway
        "jobs": [site.url("/private/jobs.html")],
    }
    pages = [site.url(f"/so/{kind}/02.html") for kind in ("question", "jobs")]
    # a link to a disallowed page, followed once robots.txt is known (start requests that
    # wait for robots.txt together are let through by Scrapy 2.19 itself)
    root = start_project(
        tmp_path,
        pages,
        f"PAGESIM_TEMPLATES = {templates!r}\nAUTOTHROTTLE_ENABLED = {autothrottle}\n",
        follow=(site.url("/private/page.html"),),
    )
    status, log, items = crawl(root)
    assert status == 0, log[-3000:]
    assert {item["url"]: item["label"] for item in items} == {
        pages[0]: "question",
        pages[1]: "jobs",
    }
    # robots.txt was obeyed for the spider's pages, not for the templates
    assert site.requests_to("/robots.txt")
    assert site.requests_to("/private/jobs.html")
    assert not site.requests_to("/private/page.html")
    assert "Forbidden by robots.txt" in log
    # a default crawl with pagesim logs no warning and no error
    assert not log_lines(log, "WARNING", "ERROR", "CRITICAL"), log_lines(
        log, "WARNING", "ERROR", "CRITICAL"
    )
    assert "Traceback" not in log


@pytest.mark.parametrize("dead", ["404", "timeout", "refused"])
def test_a_template_that_cannot_load_closes_the_spider_with_one_error(
    site: Site, tmp_path: Path, silent_url: str, dead: str
):
    bad = {
        "404": site.url("/so/missing.html"),
        "timeout": silent_url,
        "refused": f"http://127.0.0.1:{closed_port()}/template.html",
    }[dead]
    templates = {"question": [site.url("/so/question/01.html")], "jobs": [bad]}
    settings = f"PAGESIM_TEMPLATES = {templates!r}\n"
    if dead == "timeout":
        settings += "DOWNLOAD_TIMEOUT = 2\n"
    root = start_project(tmp_path, [site.url("/so/jobs/02.html")], settings)
    status, log, items = crawl(root)
    # one ERROR, the close reason, pagesim/start_error, and exit status 1 for schedulers
    assert status == 1, log[-3000:]
    errors = log_lines(log, "ERROR", "CRITICAL")
    assert len(errors) == 1, errors
    assert "pagesim: cannot load a template page" in errors[0] and bad in errors[0]
    expected = {"404": "HTTP status 404", "timeout": "TimeoutError", "refused": "download failed"}
    assert expected[dead] in errors[0]
    assert "Traceback" not in log and "Task exception was never retrieved" not in log
    assert finish_reason(log) == "pagesim_template_error"
    assert "'pagesim/start_error': 'pagesim_template_error'" in log
    # no page of the spider was requested
    assert not items and not site.requests_to("/so/jobs/02.html")


def test_an_invalid_setting_fails_the_crawl_with_one_error(site: Site, tmp_path: Path):
    templates = {"question": [site.url("/so/question/01.html")]}
    root = start_project(
        tmp_path, [site.url("/so/jobs/02.html")], f"PAGESIM_TEMPLATES = {templates!r}\n"
    )
    status, log, _ = crawl(root, "-s", "PAGESIM_METHOD=no-such-method")
    assert status == 1, log[-3000:]
    errors = log_lines(log, "ERROR", "CRITICAL")
    assert len(errors) == 1, errors
    assert "pagesim: invalid configuration" in errors[0] and "PAGESIM_METHOD" in errors[0]
    assert "Traceback" not in log and "Task exception was never retrieved" not in log
    assert not site.seen


def test_missing_templates_fail_the_crawl_with_one_error(site: Site, tmp_path: Path):
    root = start_project(tmp_path, [site.url("/so/jobs/02.html")], "")
    status, log, _ = crawl(root)
    assert status == 1, log[-3000:]
    errors = log_lines(log, "ERROR", "CRITICAL")
    assert len(errors) == 1 and "PAGESIM_TEMPLATES is empty" in errors[0], errors
    assert "Traceback" not in log and "Task exception was never retrieved" not in log
    assert not site.seen


def test_relative_template_paths_are_relative_to_the_project_root(site: Site, tmp_path: Path):
    templates = {"question": ["templates/question.html"], "jobs": ["templates/jobs"]}
    pages = [site.url(f"/so/{kind}/02.html") for kind in ("question", "jobs")]
    root = start_project(tmp_path, pages, f"PAGESIM_TEMPLATES = {templates!r}\n")
    (root / "templates" / "jobs").mkdir(parents=True)
    (root / "templates" / "question.html").write_bytes(
        (FIXTURES / "question" / "01.html").read_bytes()
    )
    (root / "templates" / "jobs" / "01.html").write_bytes(
        (FIXTURES / "jobs" / "01.html").read_bytes()
    )
    # run from a folder inside the project, where templates/ does not exist
    status, log, items = crawl(root / "proj" / "spiders")
    assert status == 0, log[-3000:]
    assert {item["url"]: item["label"] for item in items} == {
        pages[0]: "question",
        pages[1]: "jobs",
    }
    assert not log_lines(log, "WARNING", "ERROR", "CRITICAL")


def test_a_default_crawl_logs_no_warning(site: Site, tmp_path: Path):
    templates = {kind: [str(FIXTURES / kind / "01.html")] for kind in ("question", "jobs")}
    root = start_project(
        tmp_path, [site.url("/so/jobs/02.html")], f"PAGESIM_TEMPLATES = {templates!r}\n"
    )
    status, log, items = crawl(root)
    assert status == 0 and [item["label"] for item in items] == ["jobs"], log[-3000:]
    assert not log_lines(log, "WARNING", "ERROR", "CRITICAL")
    assert "TemplateInductionPipeline" not in log.split("Enabled item pipelines")[1].split("\n")[1]
