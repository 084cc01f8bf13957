"""The extractors of issue 36's languages on small snippets written for the test: which
function is found, with which doc (first paragraph, tags left out), and what is skipped."""

from __future__ import annotations

from qidf_research.corpora import cpp, elixir, haskell, lua
from qidf_research.corpora.comments import summary

HASKELL = b"""module M where

helper :: Int -> Int
helper = id

-- | Look up a key.
-- Returns the default otherwise.
--
-- > lookupOr 0 k m
lookupOr :: Ord k => v -> k -> Map k v -> v
lookupOr d k m = case lookup k m of
  Nothing -> d
  Just v -> v
"""

ELIXIR = b'''defmodule M do
  @doc """
  Counts the items.

  ## Examples
  """
  @doc since: "1.0"
  @spec count(list) :: integer
  def count([]), do: 0
  def count([_ | t]), do: 1 + count(t)

  @doc false
  def hidden(x) do
    x
  end
end
'''

LUA = b"""--- Split a string on a separator.
-- @param s the string
function M.split(s, sep)
  local out = {}
  return out
end

local function noisy(x)
  return x
end
"""

CPP = b"""namespace ns {
/// Adds two numbers and returns
/// their sum.
template <typename T>
T add(T a, T b) {
  return a + b;
}

class C {
 public:
  // The size.
  int size() const { return n_; }
  C() { n_ = 0; }
};
}  // namespace ns
"""


def test_haskell_signature_and_equations_with_their_haddock():
    """(A Haddock comment before a module's first declaration sits outside the declarations
    node and is not read: a known gap of the extractor, which costs a few pairs.)"""
    (f,) = haskell.haskell_functions("M.hs", HASKELL, "pkg")
    assert f.name == "lookupOr" and f.doc == "Look up a key. Returns the default otherwise."
    assert f.code.startswith("lookupOr :: Ord k") and "Just v -> v" in f.code


def test_elixir_doc_clauses_and_hidden_functions():
    found = {c.name: c for c in elixir.elixir_functions("m.ex", ELIXIR, "pkg")}
    assert found["count"].doc == "Counts the items."  # "@doc since:" does not replace it
    assert found["count"].code.count("def count") == 2  # both clauses, one function
    assert found["hidden"].doc == ""  # @doc false


def test_lua_ldoc_summary_without_tags():
    found = {c.name: c for c in lua.lua_functions("m.lua", LUA, "pkg")}
    assert found["split"].doc == "Split a string on a separator."
    assert found["noisy"].doc == ""


def test_cpp_comment_above_a_template_and_constructors_excluded():
    found = {c.name: c for c in cpp.cpp_functions("a.h", CPP, "pkg")}
    assert found["add"].doc == "Adds two numbers and returns their sum."
    assert found["add"].code.startswith("template <typename T>")
    assert found["size"].doc == "The size." and not found["size"].is_excluded_kind
    assert found["C"].is_excluded_kind  # a constructor: CodeSearchNet's standard method


def test_license_headers_and_title_lines():
    assert summary(["// Copyright 2024 The Authors. Licensed under the Apache License"]) == ""
    assert summary(["// StrSplit()\n//\n// Splits a string."]) == "Splits a string."
