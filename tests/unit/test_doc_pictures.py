"""The site's pictures (scripts/docs/pictures.py): every one is used and every one asked for
exists; the apply diagram has words for every step the strategies run, and its shaded window
is the one the strategies' code keeps free of journal writes."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "docs"))

import pictures  # noqa: E402
import sequence  # noqa: E402

from qidf_ctl.install.strategy import Strategy  # noqa: E402


def _asked_for() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for page in sorted((ROOT / "docs").rglob("*.md")):
        for name in re.findall(r"^[ \t]*<!-- picture: ([\w-]+) -->$", page.read_text(), re.M):
            found.setdefault(name, []).append(str(page.relative_to(ROOT)))
    return found


def test_every_picture_is_on_a_page_and_every_one_asked_for_exists():
    asked = _asked_for()
    assert set(asked) == set(pictures.PICTURES)


def test_every_picture_names_files_that_exist():
    for picture in pictures.PICTURES.values():
        assert (ROOT / picture.source[1]).is_file(), picture.name
        assert all((ROOT / path).is_file() for path in picture.inputs), picture.name


@pytest.mark.parametrize("strategy", list(Strategy))
def test_every_step_the_code_runs_has_words(strategy):
    steps = sequence.steps(strategy)
    assert steps[-1].name in ("recorded", "retired")
    assert all(sequence.label(strategy, step.name) for step in steps)
    assert set(sequence.WINDOW) == set(Strategy)


def test_the_shaded_window_is_the_one_the_code_keeps_free_of_journal_writes():
    window = {s: [step.name for step in sequence.steps(s) if step.in_window] for s in Strategy}
    assert window == {
        Strategy.CLOSE: ["closed", "updated", "opened"],
        Strategy.REOPEN: ["reopened", "searchable"],
        Strategy.CLONE: ["blocked", "cloned", "configured", "searchable", "swapped"]}
    only_with_stats = {step.name for s in Strategy for step in sequence.steps(s)
                       if step.stats_only}
    assert only_with_stats == {"staged", "pipelined"}


def test_a_step_without_words_fails_the_build():
    with pytest.raises(ValueError, match="no label for"):
        sequence.label(Strategy.CLOSE, "teleported")


def test_the_diagram_is_an_svg_that_names_every_step():
    drawn = sequence.svg()
    assert drawn.startswith("<svg") and "http" not in drawn.replace(
        "http://www.w3.org/2000/svg", "")
    for strategy in Strategy:
        for step in sequence.steps(strategy):
            assert f">{step.name}<" in drawn


def test_a_marker_becomes_an_image_with_its_source_linked(tmp_path):
    page_dir = ROOT / "docs" / "explanation"
    out = pictures.expand("a\n\n<!-- picture: apply-sequence -->\n\nb\n",
                          "explanation/apply-safety.md", page_dir)
    assert "](../pictures/apply-sequence.svg)" in out
    assert "](../../qidf_ctl/install/__init__.py)" in out
    with pytest.raises(ValueError, match="no picture 'nope'"):
        pictures.expand("<!-- picture: nope -->\n", "index.md", ROOT / "docs")


def test_the_idf_caption_says_what_the_formula_gives():
    from qidf_ctl.formula import idf

    def share(q: float) -> float:
        return idf(q, 13_994, 50) / idf(q, 13_994, 1)

    caption = pictures.PICTURES["idf-curves"].caption
    assert f"{share(1.0):.0%}" in caption and share(0.3) < 0.10 and "under 10%" in caption
