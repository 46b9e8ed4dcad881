"""Progress bars of the long commands: drawn on a terminal, nothing extra on stderr otherwise.

The terminal is a real pseudo-terminal (``pty``) given to the command as its stderr.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pagesim_scrapy.cli import main

from .conftest import FIXTURES

pty = pytest.importorskip("pty")

SO = FIXTURES / "stackoverflow"
QUESTION = SO / "question"


def command_lines(wrapper: Path, out: Path) -> dict[str, tuple[list[str], str]]:
    """Each long command on the Stack Overflow fixtures, and the bar it must draw."""
    template = f"question={QUESTION / '01.html'}"
    o = ["-o", str(out)]
    return {
        "classify": (["classify", "--template", template, str(SO), *o], "reading"),
        "evaluate": (["evaluate", str(SO), "-k", "1"], "reading"),
        "content": (["content", "--query", "python list", str(SO), *o], "analysing"),
        "induce": (["induce", str(QUESTION), *o], "reading"),
        "extract": (["extract", "-w", str(wrapper), str(SO), *o], "extracting"),
        "cluster": (["cluster", str(SO), *o], "condensing"),
        "explain": (
            ["explain", "--template", template, "--site", str(SO), str(QUESTION / "02.html")],
            "reading",
        ),
    }


@pytest.fixture(scope="module")
def wrapper(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("wrapper") / "question.json"
    assert main(["induce", str(QUESTION), "-o", str(path), "--no-progress"]) == 0
    return path


def run_on_terminal(argv: list[str], tmp_path: Path) -> str:
    """Run the command with a pseudo-terminal as stderr (stdout to a file); return what the
    terminal received."""
    controller, terminal = pty.openpty()
    with (tmp_path / "stdout").open("wb") as stdout:
        proc = subprocess.Popen(
            [sys.executable, "-m", "pagesim_scrapy", *argv],
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=terminal,
        )
    os.close(terminal)
    received = b""
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # EIO: the command has exited and closed the terminal
            break
        if not chunk:
            break
        received += chunk
    os.close(controller)
    assert proc.wait(timeout=120) == 0, received.decode(errors="replace")
    return received.decode("utf-8", errors="replace")


@pytest.mark.parametrize(
    "name", ["classify", "evaluate", "content", "induce", "extract", "cluster", "explain"]
)
def test_a_terminal_gets_a_bar(name: str, wrapper: Path, tmp_path: Path) -> None:
    argv, stage = command_lines(wrapper, tmp_path / "out")[name]
    received = run_on_terminal(argv, tmp_path)
    # tqdm's bar, finished: "reading: 100%|█████| 15/15 [...]"
    finished = [line for line in received.split("\r") if line.startswith(f"{stage}: 100%|")]
    assert finished, received


def test_no_progress_on_a_terminal_draws_nothing(wrapper: Path, tmp_path: Path) -> None:
    argv, _ = command_lines(wrapper, tmp_path / "out")["classify"]
    received = run_on_terminal([*argv, "--no-progress"], tmp_path)
    assert "%|" not in received and "\r\n" in received  # the INFO lines only
    assert "\rreading" not in received


@pytest.mark.parametrize(
    "name", ["classify", "evaluate", "content", "induce", "extract", "cluster", "explain"]
)
def test_no_terminal_nothing_extra(
    name: str, wrapper: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """stderr captured (not a terminal): the same text with or without --no-progress."""
    argv, _ = command_lines(wrapper, tmp_path / "out")[name]
    assert main(argv) == 0
    default = capfd.readouterr().err
    assert main([*argv, "--no-progress"]) == 0
    quiet = capfd.readouterr().err
    assert default == quiet
    assert "%|" not in default and "\r" not in default


def test_stage_bars_follow_the_stages(capfd: pytest.CaptureFixture[str]) -> None:
    """The cluster command's callback: quiet without a terminal, whatever it is told."""
    import argparse

    from pagesim_scrapy.cli._progress import StageBars, progress_wanted

    args = argparse.Namespace(no_progress=False)
    assert not progress_wanted(args)  # pytest's captured stderr is no terminal
    with StageBars(args) as bars:
        bars("condensing", 5, 10)
        bars("condensing", 10, 10)
        bars("comparing leaders", 3, 3)
        assert list(bars.bars) == ["condensing", "comparing leaders"]
    assert capfd.readouterr().err == ""
