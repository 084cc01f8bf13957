"""TypeScript extraction on small real-shaped files: which functions are found, which JSDoc
is their doc, that bodiless signatures and constructors never become pairs, and which files
are not read at all."""

from __future__ import annotations

import json

import pytest
from qidf_research.corpora.extract import BuildStats
from qidf_research.corpora.packaged import PackageDir

pytest.importorskip("tree_sitter")
pytest.importorskip("tree_sitter_typescript")

from qidf_research.corpora.typescript import (
    build_typescript,
    skip_reason,
    ts_functions,
)

# Shaped after rxjs/src/internal/operators/map.ts and @tanstack/query-core's QueryClient.
TS = b'''import { OperatorFunction } from '../types';

export function map<T, R>(project: (value: T, index: number) => R): OperatorFunction<T, R>;
/** @deprecated Use a closure instead of a `thisArg`. */
export function map<T, R, A>(project: (value: T) => R, thisArg: A): OperatorFunction<T, R>;

/**
 * Applies a given `project` function to each value emitted by the source
 * Observable, and emits the resulting values as an Observable.
 *
 * Like `Array.prototype.map()`, it passes each source value through.
 * @param project The function to apply to each `value`.
 */
export function map<T, R>(project: (value: T, index: number) => R, thisArg?: any) {
  return operate((source, subscriber) => {
    source.subscribe(createOperatorSubscriber(subscriber, (value) => project(value)));
  });
}

/** Returns true when the query has no observers left and can be collected. */
export const isStale = <T>(query: Query<T>): boolean => {
  const observers = query.getObserversCount();
  return observers === 0;
};

export abstract class Removable {
  /** Schedules garbage collection of this entry after `gcTime`. */
  protected abstract optionalRemove(): void;

  /** Creates the removable with its default cache time here. */
  constructor(protected gcTime = 300_000) {
    this.gcTime = gcTime;
    this.scheduleGc();
  }

  /**
   * Clears the pending garbage-collection timeout, if any.
   */
  @Memoize()
  clearGcTimeout(): void {
    if (this.gcTimeout) {
      clearTimeout(this.gcTimeout);
    }
  }

  /** Handles a focus event coming from the window manager. */
  private onFocus = (event: FocusEvent): void => {
    this.focused = true;
    this.emit(event);
  };

  /** Prints the entry for debugging as a compact string. */
  toString(): string {
    const name = this.constructor.name;
    return `${name}(${this.gcTime})`;
  }
}

export class QueryClient {
  /**
   * Fetches a query, returning its cached data when it is fresh enough.
   */
  fetchQuery<T>(options: FetchQueryOptions<T>): Promise<T>;
  fetchQuery<T>(key: QueryKey, options?: FetchQueryOptions<T>): Promise<T>;
  fetchQuery<T>(arg1: unknown, arg2?: unknown): Promise<T> {
    const options = parseArgs(arg1, arg2);
    return this.queryCache.build(this, options).fetch();
  }
}

export namespace Scheduler {
  /** Runs every queued task in insertion order, then clears the queue. */
  export function flush(queue: Array<() => void>): void {
    queue.forEach((task) => task());
    queue.length = 0;
  }
}

declare function requestIdleCallback(cb: () => void): number;

interface Listener {
  /** Called with every value the subject emits to its observers. */
  next(value: unknown): void;
}
'''

TSX = b'''import * as React from 'react';

/** Renders the devtools panel with the list of active queries. */
export function QueryPanel({ queries }: { queries: Query[] }): JSX.Element {
  const sorted = queries.slice().sort(byUpdatedAt);
  return <ul>{sorted.map((q) => <li key={q.hash}>{q.hash}</li>)}</ul>;
}
'''


def _by_id(cands):
    """qualname, or qualname#n for repeats, as assign_ids will number them."""
    seen: dict[str, int] = {}
    out = {}
    for c in cands:
        seen[c.qualname] = seen.get(c.qualname, 0) + 1
        out[c.qualname if seen[c.qualname] == 1 else f"{c.qualname}#{seen[c.qualname]}"] = c
    return out


def test_functions_methods_and_bound_arrows_are_found_with_their_jsdoc():
    got = _by_id(ts_functions("src/x.ts", TS, "rxjs"))
    assert got["map"].doc == ("Applies a given `project` function to each value emitted by "
                              "the source Observable, and emits the resulting values as an "
                              "Observable.")
    assert got["map"].has_body and got["map"].code.startswith("function map<T, R>(project")
    assert got["isStale"].doc == ("Returns true when the query has no observers left and "
                                  "can be collected.")
    assert got["isStale"].code.startswith("const isStale = <T>(")
    assert got["Removable.onFocus"].doc == "Handles a focus event coming from the window manager."
    assert got["Scheduler.flush"].doc == ("Runs every queued task in insertion order, then "
                                          "clears the queue.")


def test_doc_comment_is_not_left_in_the_code():
    for c in ts_functions("src/x.ts", TS, "rxjs"):
        assert "/**" not in c.code and "@param" not in c.code


def test_decorators_between_jsdoc_and_method_are_stepped_over():
    got = _by_id(ts_functions("src/x.ts", TS, "rxjs"))
    clear = got["Removable.clearGcTimeout"]
    assert clear.doc == "Clears the pending garbage-collection timeout, if any."
    assert clear.code.startswith("clearGcTimeout(): void {")


def test_signatures_have_no_body_and_come_after_the_implementation():
    cands = ts_functions("src/x.ts", TS, "rxjs")
    got = _by_id(cands)
    # The implementation keeps the plain id; its two overload signatures are numbered after.
    assert got["map"].has_body
    assert not got["map#2"].has_body and not got["map#3"].has_body
    assert not got["Removable.optionalRemove"].has_body  # abstract
    assert not got["requestIdleCallback"].has_body  # declare function
    assert not got["Listener.next"].has_body  # interface method
    first_sig = next(i for i, c in enumerate(cands) if not c.has_body)
    assert all(not c.has_body for c in cands[first_sig:])


def test_overloaded_implementation_takes_the_first_signature_doc():
    got = _by_id(ts_functions("src/x.ts", TS, "query-core"))
    fetch = got["QueryClient.fetchQuery"]
    assert fetch.has_body and fetch.code.startswith("fetchQuery<T>(arg1: unknown")
    assert fetch.doc == "Fetches a query, returning its cached data when it is fresh enough."


def test_constructor_and_standard_methods_are_excluded_kinds():
    got = _by_id(ts_functions("src/x.ts", TS, "query-core"))
    assert got["Removable.constructor"].is_excluded_kind
    assert got["Removable.toString"].is_excluded_kind
    assert not got["Removable.clearGcTimeout"].is_excluded_kind


def test_tsx_is_parsed_with_the_tsx_grammar():
    got = _by_id(ts_functions("src/panel.tsx", TSX, "@tanstack/react-query-devtools"))
    panel = got["QueryPanel"]
    assert panel.doc == "Renders the devtools panel with the list of active queries."
    assert panel.code.rstrip().endswith("}") and "<li key" in panel.code


@pytest.mark.parametrize(("path", "content", "reason"), [
    ("types/index.d.ts", b"export declare function f(): void;\n", "declaration file (.d.ts)"),
    ("dist/x.d.mts", b"export declare function f(): void;\n", "declaration file (.d.ts)"),
    ("src/map.spec.ts", b"describe('map', () => {});\n", "spec/mock file"),
    ("src/__mocks__/fs.ts", b"export const readFile = () => 1;\n", "spec/mock file"),
    ("src/vendor/unpromise/index.ts", b"export {};\n", "vendored"),
    ("src/generated/channelz.ts", b"export {};\n", "generated"),
    ("src/tokens.ts", b"// Generated with `pnpm gen:tokenlist`. Do not modify.\n", "generated"),
    ("src/index.ts", b"/** Lib. */\n// @barrel: Auto-generated exports. Do not edit.\n",
     "generated"),
    ("src/model.ts", b"/**\n * Prevent clients from setting the auto-generated ID.\n */\n", None),
    ("src/map.ts", TS, None),
])
def test_skip_reason(path, content, reason):
    assert skip_reason(path, content) == reason


def test_build_stamps_each_package_and_skips_declarations(tmp_path):
    beta = b"""/** Parses the configuration file given on the command line. */
export function parseConfig(path: string, defaults: Config): Config {
  const text = readFileSync(path, 'utf8');
  return { ...defaults, ...JSON.parse(text) };
}
"""
    for name, content in (("alpha", TS), ("beta", beta)):
        (tmp_path / name / "src").mkdir(parents=True)
        (tmp_path / name / "src" / "x.ts").write_bytes(content)
        (tmp_path / name / "src" / "x.d.ts").write_bytes(b"export declare const x: 1;\n")
    (tmp_path / "beta" / "src" / "big.ts").write_bytes(b"const a=1;" * 200)
    pkgs = [PackageDir("alpha", "1.0.0", "MIT", tmp_path / "alpha"),
            PackageDir("@scope/beta", "2.0.0", "Apache-2.0", tmp_path / "beta")]
    stats = BuildStats()
    pairs = build_typescript(pkgs, stats)
    assert {(p.package, p.version, p.license) for p in pairs} == {
        ("alpha", "1.0.0", "MIT"), ("@scope/beta", "2.0.0", "Apache-2.0")}
    assert stats.files_skipped["declaration file (.d.ts)"] == 2
    assert stats.files_skipped["minified/bundled"] == 1
    names = {p.name for p in pairs}
    assert {"map", "isStale", "Removable.clearGcTimeout", "QueryClient.fetchQuery",
            "parseConfig"} <= names
    assert not names & {"Removable.constructor", "Removable.toString",
                        "Removable.optionalRemove", "Listener.next"}
    assert stats.removed["no body"] >= 5
    assert all(p.language == "typescript" for p in pairs)


def test_sources_script_fetches_every_pin(tmp_path, monkeypatch):
    from qidf_research.sources import pinned as corpus_sources
    from qidf_research.sources import typescript as sources_typescript

    pins = tmp_path / "sources.json"
    pins.write_text(json.dumps({"typescript": {"registry": "npm",
                                               "packages": [["alpha", "1.0.0"]]}}))
    (tmp_path / "alpha" / "src").mkdir(parents=True)
    (tmp_path / "alpha" / "src" / "x.ts").write_bytes(TS)
    fetched = []

    def fake_fetch(name, version, log):
        fetched.append((name, version))
        return PackageDir(name, version, "MIT", tmp_path / "alpha")

    monkeypatch.setattr(sources_typescript, "PINS", pins)
    monkeypatch.setattr(sources_typescript, "fetch_npm", fake_fetch)
    assert "typescript" in corpus_sources.EXTRA_LANGUAGES
    pairs = sources_typescript.pairs(print, BuildStats())
    assert fetched == [("alpha", "1.0.0")]
    assert pairs and all(p.package == "alpha" for p in pairs)
