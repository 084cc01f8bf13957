"""Which files are vendored or generated (left out of the corpus), tests or docs: the
product's rules when the judgments command that owns them is installed, else the stand-in's.
One place decides, so the corpus and the judgments skip the same files."""

from __future__ import annotations

from collections.abc import Callable

from qidf_research.filetasks import standin_paths

PathRule = Callable[[str], bool]


def rules() -> dict[str, PathRule]:
    """name -> rule over a repository-relative path."""
    return {"vendored": standin_paths.vendored, "generated": standin_paths.generated,
            "test": standin_paths.test_file, "doc": standin_paths.doc_file}


def source() -> str:
    """Where the rules come from, for the task's record."""
    return "research stand-in (qidf_research.filetasks.standin_paths)"


def excluded_from_corpus(path: str) -> str | None:
    """Why a file stays out of the corpus ("vendored", "generated"), or None."""
    r = rules()
    for name in ("vendored", "generated"):
        if r[name](path):
            return name
    return None
