"""TEMPORARY stand-in for the product's path filters (vendored, generated, tests, docs),
which the judgments command (issue 32, branch i32-judgments) brings: until it lands, the
corpus and the stand-in judgments use these rules, written the way GitHub's linguist
classifies files. Delete this module once ``qidf judgments git`` exists and import its
rules instead (``pathrules`` picks whichever is there)."""

from __future__ import annotations

import re

_VENDORED_DIRS = {"vendor", "vendored", "third_party", "third-party", "thirdparty",
                  "node_modules", "bower_components", "external", "extern"}
_GENERATED_NAMES = {"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "cargo.lock",
                    "gemfile.lock", "composer.lock", "poetry.lock", "pipfile.lock", "go.sum",
                    "mix.lock", "flake.lock", "npm-shrinkwrap.json", "bun.lockb", "uv.lock"}
_GENERATED_SUFFIX = re.compile(
    r"(\.min\.(js|css)|\.map|\.pb\.go|_pb2\.pyi?|\.pb\.(cc|h)|_generated\.\w+|\.generated\.\w+"
    r"|\.g\.dart|\.designer\.cs)$", re.IGNORECASE)
_TEST_DIRS = {"test", "tests", "spec", "specs", "__tests__", "testdata", "testing", "fixtures",
              "__fixtures__", "__snapshots__", "t", "testsuite", "test-suite", "e2e"}
_TEST_NAME = re.compile(
    r"(_test\.\w+|^test_.+\.py|_spec\.rb|\.(test|spec)\.[jt]sx?|Tests?\.(java|kt|scala)"
    r"|_tests?\.(exs?|lua|rs|hs|php)|Test\.php|\.snap)$")
_DOC_DIRS = {"doc", "docs", "documentation", "man", "examples", "example"}
_DOC_NAME = re.compile(r"(\.(md|rst|adoc|txt|asciidoc|org)|^(changelog|changes|news|readme|"
                       r"authors|contributors|history|license|copying)(\.\w+)?)$", re.IGNORECASE)


def _dirs(path: str) -> list[str]:
    return [p.lower() for p in path.split("/")[:-1]]


def vendored(path: str) -> bool:
    return any(d in _VENDORED_DIRS for d in _dirs(path))


def generated(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name.lower() in _GENERATED_NAMES or bool(_GENERATED_SUFFIX.search(name))


def test_file(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return any(d in _TEST_DIRS for d in _dirs(path)) or bool(_TEST_NAME.search(name))


def doc_file(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return any(d in _DOC_DIRS for d in _dirs(path)) or bool(_DOC_NAME.search(name))
