"""Which commits make a judged query, and which of their files count as the answer.

A commit is skipped, in this order, for the first reason that holds (each reason is counted):

``merge``
    more than one parent: its message describes branches, its diff repeats theirs.
``no_files``
    an empty commit (or one whose diff git does not show).
``bulk``
    more than ``max_files`` changed files (or fewer than ``min_files``): a reformat, a
    rename sweep, a vendor update; no message describes fifty files.
``release``
    a release or version bump, recognised by its subject line (``release 1.2``, ``v1.2.3``,
    ``bump version``, ``prepare release``, ``chore(release): ...``, dependency bumps such as
    ``Bump serde from 1.0.1 to 1.0.2``): it names a version, not the code.
``only_tests``, ``only_docs``, ``only_vendored``, ``only_generated``, ``only_lock``,
``only_auxiliary``
    every changed file is a test, documentation, vendored, generated or lock file (the last
    when several of these kinds mix). Recognised by path alone (no file is read): see
    ``kind_of`` for the rules.
``short_message``
    fewer than ``min_words`` words left after cleaning (``messages.clean_message``).
``no_answer``
    no changed file that can be the answer: only added, deleted or copied files (the
    commit's files did not exist before it, or do not exist after).
``not_in_index``
    none of its answer files is a document of the index (``matching``).

The answer files of a kept commit are the files it modified, renamed (under the new name)
or changed the type of; added files only with ``include_added`` (a search before the commit
could not have found them, but the index holds them today).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from qidf_ctl.judgments.history import Commit

MERGE = "merge"
NO_FILES = "no_files"
BULK = "bulk"
RELEASE = "release"
ONLY_TESTS = "only_tests"
ONLY_DOCS = "only_docs"
ONLY_VENDORED = "only_vendored"
ONLY_GENERATED = "only_generated"
ONLY_LOCK = "only_lock"
ONLY_AUXILIARY = "only_auxiliary"
SHORT_MESSAGE = "short_message"
NO_ANSWER = "no_answer"
NOT_IN_INDEX = "not_in_index"
SKIP_REASONS = (MERGE, NO_FILES, BULK, RELEASE, ONLY_TESTS, ONLY_DOCS, ONLY_VENDORED,
                ONLY_GENERATED, ONLY_LOCK, ONLY_AUXILIARY, SHORT_MESSAGE, NO_ANSWER,
                NOT_IN_INDEX)

TEST, DOCS, VENDORED, GENERATED, LOCK, CODE = "test", "docs", "vendored", "generated", "lock", \
    "code"
_ONLY = {TEST: ONLY_TESTS, DOCS: ONLY_DOCS, VENDORED: ONLY_VENDORED, GENERATED: ONLY_GENERATED,
         LOCK: ONLY_LOCK}

DEFAULT_MAX_FILES = 50
DEFAULT_MIN_FILES = 1
DEFAULT_MIN_WORDS = 3

_VENDOR_DIRS = {"vendor", "vendored", "third_party", "third-party", "thirdparty",
                "node_modules", "bower_components"}
_TEST_DIRS = {"test", "tests", "__tests__", "testdata", "test-data", "test_data", "spec",
              "specs", "e2e", "fixtures", "__snapshots__", "testsuite"}
_DOC_DIRS = {"doc", "docs", "documentation", "man", "site", "website"}
_DOC_SUFFIXES = {".md", ".markdown", ".rst", ".adoc", ".asciidoc", ".txt", ".texi"}
_DOC_STEMS = {"readme", "changelog", "changes", "news", "history", "license", "licence",
              "copying", "authors", "contributors", "contributing", "notice", "code_of_conduct",
              "security", "maintainers", "codeowners"}
_LOCK_NAMES = {"cargo.lock", "package-lock.json", "npm-shrinkwrap.json", "yarn.lock",
               "pnpm-lock.yaml", "go.sum", "poetry.lock", "pipfile.lock", "gemfile.lock",
               "composer.lock", "uv.lock", "flake.lock", "mix.lock", "pubspec.lock",
               "podfile.lock", "packages.lock.json", "gradle.lockfile", "bun.lockb"}
_TEST_FILE = re.compile(
    r"(^test_.*\.py$|_test\.(py|go|rb|exs?|dart|cc|cpp|c)$|_spec\.rb$|^conftest\.py$|"
    r"(Test|Tests|IT|Spec)\.(java|kt|scala|cs|groovy|php|swift)$|"
    r"\.(test|spec)\.(js|jsx|ts|tsx|mjs|cjs)$)")
_GENERATED_FILE = re.compile(
    r"(\.pb\.(go|cc|h|c|swift|rs)$|_pb2(_grpc)?\.pyi?$|\.pb\.gw\.go$|_grpc\.pb\.go$|"
    r"(^|[._-])generated\.[a-z]+$|^zz_generated|\.gen\.(go|ts|rs)$|_gen\.go$|\.min\.(js|css)$|"
    r"\.g\.dart$|\.freezed\.dart$|\.designer\.cs$|\.g\.cs$)", re.IGNORECASE)

_RELEASE = re.compile(
    r"^\s*(?:"
    r"(?:chore|build|ci)\([\w.-]*release[\w.-]*\)!?:"
    r"|(?:chore|build|ci|release)!?:\s*(?:release|bump|prepare|publish|version)\b"
    r"|(?:chore|build|deps?)\(deps?(?:-dev)?\):\s*bump\b"
    r"|release[sd]?\s+v?\d"
    r"|releasing\b|publish(?:ed|ing)?\s+v?\d"
    r"|prepare\s+(?:for\s+)?(?:the\s+)?(?:\S+\s+)?release"
    r"|cut\s+(?:a\s+)?release"
    r"|(?:bump|update|set|increment)\s+(?:the\s+)?(?:\S+\s+)?version"
    r"|version\s+bump"
    r"|bump\s+\S+(?:\s+\S+)?\s+(?:from\s+\S+\s+)?to\s+v?\d"
    r"|v?\d+\.\d+(?:\.\d+)*(?:[-+.][\w.]+)?\s*$"
    r"|\[?(?:release|version)\]?\s*:?\s*v?\d+\.\d+"
    r")", re.IGNORECASE)


def kind_of(path: str) -> str:
    """What a path is, by its folders and name only: ``vendored`` (a folder such as
    ``vendor/``, ``third_party/``, ``node_modules/``), ``generated`` (``*.pb.go``,
    ``*_pb2.py``, ``zz_generated*``, ``*.min.js``, ``*.gen.go``...), ``lock``
    (``Cargo.lock``, ``go.sum``, ``package-lock.json``, ``*.lock``...), ``test`` (a folder
    such as ``test/``, ``tests/``, ``testdata/``, ``__tests__/``, or a name such as
    ``*_test.go``, ``test_*.py``, ``FooTest.java``, ``*.spec.ts``), ``docs`` (a folder such as
    ``docs/`` or ``man/``, a ``.md``/``.rst``/``.adoc``/``.txt`` file, ``README``,
    ``CHANGELOG``, ``LICENSE``...), else ``code``. The first that applies wins, in that
    order."""
    pure = PurePosixPath(path)
    folders = {part.lower() for part in pure.parts[:-1]}
    name = pure.name
    lower = name.lower()
    if folders & _VENDOR_DIRS:
        return VENDORED
    if _GENERATED_FILE.search(name):
        return GENERATED
    if lower in _LOCK_NAMES or lower.endswith(".lock"):
        return LOCK
    if folders & _TEST_DIRS or _TEST_FILE.search(name):
        return TEST
    stem = lower.split(".", 1)[0]
    if folders & _DOC_DIRS or pure.suffix.lower() in _DOC_SUFFIXES or stem in _DOC_STEMS:
        return DOCS
    return CODE


def is_release(message: str) -> bool:
    """Whether the subject line announces a release or a version bump (module docstring)."""
    subject = message.strip().split("\n", 1)[0]
    return bool(_RELEASE.match(subject))


@dataclass(frozen=True)
class Rules:
    """The thresholds of the filters (module docstring)."""

    max_files: int = DEFAULT_MAX_FILES
    min_files: int = DEFAULT_MIN_FILES
    min_words: int = DEFAULT_MIN_WORDS
    include_added: bool = False

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def skip_reason(commit: Commit, rules: Rules) -> str | None:
    """Why ``commit`` makes no judged query, judged from git alone (the reasons before
    ``short_message``); None when it may."""
    if commit.is_merge:
        return MERGE
    if not commit.changes:
        return NO_FILES
    if not rules.min_files <= len(commit.changes) <= rules.max_files:
        return BULK
    if is_release(commit.message):
        return RELEASE
    kinds = {kind_of(c.path) for c in commit.changes}
    if CODE not in kinds:
        return _ONLY[kinds.pop()] if len(kinds) == 1 else ONLY_AUXILIARY
    return None


def answer_paths(commit: Commit, rules: Rules) -> list[str]:
    """The files of ``commit`` that count as its answer (module docstring), in git's order."""
    wanted = "MRT" + ("A" if rules.include_added else "")
    return list(dict.fromkeys(c.path for c in commit.changes if c.status in wanted))
