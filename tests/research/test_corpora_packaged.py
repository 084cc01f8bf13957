"""Ruby, PHP and JavaScript extraction on small real-shaped files: which functions are
found, which comment is their doc, and that the doc is not left in the code."""

from __future__ import annotations

import pytest
from qidf_research.corpora.extract import BuildStats
from qidf_research.corpora.packaged import PackageDir

pytest.importorskip("tree_sitter")

RUBY = b'''# frozen_string_literal: true
module ActiveSupport
  class Cache
    # Fetches data from the cache, using the given key.
    # Returns nil when missing.
    #
    # Options are described below.
    def fetch(name, options = nil)
      read(name)
      write(name)
    end

    # :nodoc:
    def internal_thing(x)
      x
      x
    end

    # Creates a new cache store.
    def initialize(options = nil)
      @options = options
      @x = 1
    end

    # Clears the entire cache of this store.
    def self.clear_all(stores)
      stores.each(&:clear)
      true
    end
  end
end
'''

PHP = b'''<?php
namespace Symfony\\Component\\Console;

/**
 * Formats a message as a block of text.
 *
 * More details here.
 * @param string $m
 */
function format_block($m)
{
    $x = 1;
    return $m;
}

class Application
{
    /**
     * Runs the current application and returns the exit code.
     * @return int
     */
    public function run($input = null)
    {
        $code = 0;
        return $code;
    }

    /** Creates the application object with defaults. */
    public function __construct()
    {
        $this->x = 1;
        $this->y = 2;
    }

    /** An abstract hook that subclasses implement. */
    abstract protected function hook();
}
'''

JS = b'''/**
 * Creates an array of elements split into groups the length of `size`.
 * @param {Array} array The array to process.
 */
function chunk(array, size) {
  const out = [];
  return out;
}

/** Debounces a function so that it runs only after a pause. */
export const debounce = (fn, wait) => {
  let t;
  return t;
};

class Compiler {
  /**
   * Runs the compilation and calls back when done.
   */
  run(callback) {
    this.hooks.run();
    callback();
  }

  /** Builds the compiler with its options here. */
  constructor(options) {
    this.options = options;
    this.x = 1;
  }
}

/** Merges two objects into the first one given. */
module.exports.merge = function (a, b) {
  Object.assign(a, b);
  return a;
};
'''


def _by_name(cands):
    return {c.qualname: c for c in cands}


def test_ruby_methods_and_comment_blocks():
    pytest.importorskip("tree_sitter_ruby")
    from qidf_research.corpora.ruby import ruby_functions

    got = _by_name(ruby_functions("lib/cache.rb", RUBY, "ruby-activesupport"))
    fetch = got["ActiveSupport::Cache#fetch"]
    assert fetch.doc == ("Fetches data from the cache, using the given key. "
                         "Returns nil when missing.")
    assert fetch.code.startswith("def fetch") and "#" not in fetch.code
    assert got["ActiveSupport::Cache#internal_thing"].doc == ""  # :nodoc:
    assert got["ActiveSupport::Cache#initialize"].is_excluded_kind
    assert got["ActiveSupport::Cache.clear_all"].doc == "Clears the entire cache of this store."


def test_php_functions_methods_and_docblocks():
    pytest.importorskip("tree_sitter_php")
    from qidf_research.corpora.php import php_functions

    got = _by_name(php_functions("Console/App.php", PHP, "php-symfony-console"))
    assert got["format_block"].doc == "Formats a message as a block of text."
    run = got["Application::run"]
    assert run.doc == "Runs the current application and returns the exit code."
    assert run.code.startswith("public function run") and "/**" not in run.code
    assert got["Application::__construct"].is_excluded_kind
    assert not got["Application::hook"].has_body


def test_javascript_declarations_methods_and_assignments():
    pytest.importorskip("tree_sitter_javascript")
    from qidf_research.corpora.javascript import js_functions

    got = _by_name(js_functions("lib/x.js", JS, "lodash"))
    assert got["chunk"].doc == ("Creates an array of elements split into groups the length "
                                "of `size`.")
    assert got["debounce"].doc == "Debounces a function so that it runs only after a pause."
    assert got["Compiler.run"].doc == "Runs the compilation and calls back when done."
    assert got["Compiler.constructor"].is_excluded_kind
    assert got["module.exports.merge"].doc == "Merges two objects into the first one given."
    assert "/**" not in got["chunk"].code


def test_packaged_build_stamps_each_package(tmp_path):
    pytest.importorskip("tree_sitter_javascript")
    from qidf_research.corpora import build_packaged_language

    beta = b"""/** Parses the configuration file given on the command line. */
function parseConfig(path, defaults) {
  const text = readFileSync(path);
  return Object.assign({}, defaults, JSON.parse(text));
}
"""
    for name, content in (("alpha", JS), ("beta", beta)):
        (tmp_path / name / "lib").mkdir(parents=True)
        (tmp_path / name / "lib" / "x.js").write_bytes(content)
    (tmp_path / "beta" / "lib" / "big.min.js").write_bytes(b"var a=1;" * 10)
    pkgs = [PackageDir("alpha", "1.0.0", "MIT", tmp_path / "alpha"),
            PackageDir("beta", "2.0.0", "ISC", tmp_path / "beta")]
    stats = BuildStats()
    pairs = build_packaged_language("javascript", pkgs, stats)
    assert {(p.package, p.version, p.license) for p in pairs} == {
        ("alpha", "1.0.0", "MIT"), ("beta", "2.0.0", "ISC")}
    assert stats.files_skipped["minified/bundled"] == 1
    assert all(p.id.startswith("javascript:alpha@1.0.0/") or
               p.id.startswith("javascript:beta@2.0.0/") for p in pairs)
    with pytest.raises(ValueError, match="no package builder"):
        build_packaged_language("cobol", pkgs)
