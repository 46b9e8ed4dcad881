"""What the commands say about themselves matches what they do (issue 13, item 9)."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pagesim_scrapy.cli import SUBCOMMANDS, main
from pagesim_scrapy.core.pageio import iter_page_paths
from pagesim_scrapy.core.similarity import METHODS

from .conftest import FIXTURES, REPO

SO = FIXTURES / "stackoverflow"


def test_extract_writes_fit_and_reason_as_documented(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrapper = tmp_path / "question.json"
    assert main(["induce", str(SO / "question"), "-o", str(wrapper), "--no-progress"]) == 0
    out = tmp_path / "records.jsonl"
    pages = [str(SO / "question" / "01.html"), str(SO / "users" / "01.html")]
    assert main(["extract", "-w", str(wrapper), *pages, "-o", str(out)]) == 0
    question, user = (json.loads(line) for line in out.read_text().splitlines())
    assert question["fit"] >= 0.5 and "reason" not in question and question["record"]
    assert user["fit"] < 0.5 and user["reason"].startswith("page does not fit")
    assert user["record"] == {}
    # both fields are documented: the README's commands table and the command's help
    row = next(line for line in README().splitlines() if line.startswith("| `extract "))
    assert '"fit"' in row and '"reason"' in row
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["extract", "--help"])
    help_text = capsys.readouterr().out
    assert '"fit"' in help_text and '"reason"' in help_text


def README() -> str:
    return (REPO / "README.md").read_text(encoding="utf-8")


def test_console_script_calls_itself_pagesim() -> None:
    script = shutil.which("pagesim", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip("the pagesim console script is not installed beside this Python")
    result = subprocess.run([script, "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert result.stdout.startswith("usage: pagesim [")
    bad = subprocess.run([script, "compare"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.splitlines()[0].startswith("usage: pagesim compare")


def test_module_calls_itself_python_m() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pagesim_scrapy", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout.startswith("usage: python -m pagesim_scrapy [")


def test_scrapy_help_names_every_command() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "scrapy", "-h"], capture_output=True, text=True, timeout=120
    )
    line = next(line for line in result.stdout.splitlines() if line.strip().startswith("pagesim"))
    for name in SUBCOMMANDS:
        assert name in line, (name, line)


def test_compare_help_lists_every_parameter_with_its_default(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    text = capsys.readouterr().out
    epilog = text[text.index("methods and their parameters") :]
    for name, measure in METHODS.items():
        assert f"\n  {name}: " in epilog, name
        for param, default in measure.defaults.items():
            shown = default if isinstance(default, str) else json.dumps(default)
            assert f"{param}={shown}" in epilog, (name, param)
    # what the help shows is what --param takes
    page = str(SO / "question" / "01.html")
    capsys.readouterr()
    assert main(["compare", page, page, "-m", "layers", "-p", "normalise=false"]) == 0
    assert capsys.readouterr().out.strip() == "1.0000"


def test_folder_walking_leaves_testhtml_out(tmp_path: Path) -> None:
    page = (SO / "question" / "01.html").read_bytes()
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.html").write_bytes(page)
    (tmp_path / "sub" / "b.HTM").write_bytes(page)
    (tmp_path / "c.html.gz").write_bytes(gzip.compress(page))
    (tmp_path / "recipe.testhtml").write_bytes(page)
    (tmp_path / "notes.json").write_text("{}")
    found = [p.relative_to(tmp_path).as_posix() for p in iter_page_paths([tmp_path])]
    assert found == ["a.html", "c.html.gz", "sub/b.HTM"]
    # a file named on its own is read whatever its ending
    assert list(iter_page_paths([tmp_path / "recipe.testhtml"])) == [tmp_path / "recipe.testhtml"]
    # and a folder of .testhtml only is "no pages" to the commands
    only = tmp_path / "only"
    only.mkdir()
    (only / "x.testhtml").write_bytes(page)
    assert main(["cluster", str(only), "--no-progress"]) == 2
