"""WARC files as input of the local commands: every HTML page record is a page."""

from __future__ import annotations

import json
from io import BytesIO
from pathlib import Path

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from pagesim_scrapy.cli import main
from pagesim_scrapy.core.pageio import PageReadError, iter_page_paths, read_page_bytes
from tests.conftest import FIXTURES

SO = FIXTURES / "stackoverflow"


def _pages() -> list[Path]:
    return sorted(SO.glob("*/*.html"))


def _write_warc(path: Path, pages: list[Path], gzip: bool = True) -> None:
    """Real pages as HTTP responses, plus records that are not pages."""
    with path.open("wb") as fh:
        writer = WARCWriter(fh, gzip=gzip)

        def response(url: str, body: bytes, status: str, content_type: str) -> None:
            headers = StatusAndHeaders(
                status, [("Content-Type", content_type)], protocol="HTTP/1.1"
            )
            record = writer.create_warc_record(  # with its length: no temporary spool file
                url, "response", payload=BytesIO(body), length=len(body), http_headers=headers
            )
            writer.write_record(record)

        for number, page in enumerate(pages):
            url = f"https://stackoverflow.example/{page.parent.name}/{page.name}"
            response(url, page.read_bytes(), "200 OK", "text/html; charset=utf-8")
            if number == 0:  # an image, a 404 page and a request: none of them is a page
                response(
                    "https://stackoverflow.example/logo.png", b"\x89PNG", "200 OK", "image/png"
                )
                response(
                    url + "?gone", b"<html><body>gone</body></html>", "404 Not Found", "text/html"
                )
                get = b"GET / HTTP/1.1\r\n\r\n"
                request = writer.create_warc_record(
                    url, "request", payload=BytesIO(get), length=len(get)
                )
                writer.write_record(request)


@pytest.mark.parametrize("gzip", [True, False])
def test_html_records_are_pages_and_read_back_unchanged(tmp_path: Path, gzip: bool) -> None:
    pages = _pages()
    warc = tmp_path / ("crawl.warc.gz" if gzip else "crawl.warc")
    _write_warc(warc, pages, gzip=gzip)
    found = list(iter_page_paths([warc]))
    assert len(found) == len(pages)
    assert all(p.name.startswith(warc.name + "#") for p in found)
    assert [read_page_bytes(p) for p in found] == [p.read_bytes() for p in pages]
    # a folder holding a WARC file yields its pages too
    assert list(iter_page_paths([tmp_path])) == found


def test_classify_reads_a_warc_as_it_reads_the_files(tmp_path: Path) -> None:
    pages = _pages()
    warc = tmp_path / "crawl.warc.gz"
    _write_warc(warc, pages)
    question = SO / "question"
    templates = ["--template", f"question={question / '01.html'}"]
    templates += ["--template", f"question={question / '02.html'}"]
    from_files, from_warc = tmp_path / "files.jsonl", tmp_path / "warc.jsonl"
    assert main(["classify", *templates, str(SO), "-o", str(from_files), "--no-progress"]) == 0
    assert main(["classify", *templates, str(warc), "-o", str(from_warc), "--no-progress"]) == 0
    files = [json.loads(line) for line in from_files.read_text().splitlines()]
    records = [json.loads(line) for line in from_warc.read_text().splitlines()]
    by_path = {row["path"]: row for row in files}
    assert len(records) == len(files)
    for record, page in zip(records, pages):
        expected = by_path[str(page)]
        assert record["path"].startswith(str(warc) + "#")
        assert record["label"] == expected["label"]
        assert record["score"] == pytest.approx(expected["score"], abs=1e-9)
    assert sum(row["label"] == "question" for row in records) == 3


def test_a_broken_warc_gives_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.warc.gz"
    broken.write_bytes(b"this is not a WARC file\r\n\r\n")
    with pytest.raises(PageReadError, match=r"broken\.warc\.gz"):
        list(iter_page_paths([broken]))
    question = SO / "question" / "01.html"
    assert main(["classify", "--template", f"q={question}", str(broken), "--no-progress"]) == 2
    assert "broken.warc.gz" in capsys.readouterr().err
    headerless = tmp_path / "headerless.warc"
    headerless.write_bytes(b"WARC/1.0\r\nWARC-Type: response\r\n\r\n")
    with pytest.raises(PageReadError, match=r"headerless\.warc"):
        list(iter_page_paths([headerless]))
    missing = tmp_path / "crawl.warc.gz#12"
    with pytest.raises(PageReadError):
        read_page_bytes(missing)
