"""Rust extraction on small real-shaped files: which functions are found, which doc comment
is their summary, that the doc is not left in the code, and which functions are dropped
(tests, std trait boilerplate, ``new``). Plus the crate fetcher's offline parts."""

from __future__ import annotations

import pytest
from qidf_research.corpora.extract import BuildStats
from qidf_research.corpora.packaged import PackageDir

pytest.importorskip("tree_sitter")
pytest.importorskip("tree_sitter_rust")


LIB = b'''//! Utilities for working with byte buffers.
use std::fmt;

/// Splits the buffer into two at the given index.
///
/// Afterwards `self` contains elements `[0, at)`.
///
/// # Panics
///
/// Panics if `at > len`.
#[inline]
#[must_use = "consider Bytes::truncate if you don't need the other half"]
pub fn split_off(buf: &mut Vec<u8>, at: usize) -> Vec<u8> {
    // the tail moves out
    assert!(at <= buf.len());
    buf.split_off(at)
}

/**
 * Copies bytes from the slice into a new buffer,
 * growing it when needed.
 */
pub fn copy_from_slice(data: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(data.len());
    v.extend_from_slice(data);
    v
}

/// # Examples
///
/// ```
/// let b = bytes::empty();
/// ```
pub fn empty() -> Vec<u8> {
    let v = Vec::new();
    v
}

/// Doc that belonged to code commented out below.
// fn old() {}
fn helper(x: u8) -> u8 {
    let y = x + 1;
    y
}

pub struct BytesMut<T> { inner: Vec<T> }

impl<T: Clone> BytesMut<T> {
    /// Creates a new `BytesMut` with default capacity.
    pub fn new() -> Self {
        let inner = Vec::new();
        BytesMut { inner }
    }

    /// Reserves capacity for at least `additional` more bytes.
    /// The collection may reserve more space:
    /// - to avoid frequent reallocations
    pub fn reserve(&mut self, additional: usize) {
        self.inner.reserve(additional);
        fn nested() {}
    }
}

impl<T> fmt::Debug for BytesMut<T> {
    /// Formats the buffer for debugging output.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BytesMut")?;
        Ok(())
    }
}

pub trait Buf {
    /// Returns the number of bytes between the position and the end.
    fn remaining(&self) -> usize;

    /// Returns true if there are any more bytes to consume.
    fn has_remaining(&self) -> bool {
        let n = self.remaining();
        n > 0
    }
}

cfg_io! {
    /// Reads all bytes from the reader into the buffer.
    pub async fn read_buf(r: &mut R, buf: &mut B) -> usize {
        let n = r.read(buf).await;
        n
    }
}

mod sys {
    /// Returns the size of a memory page on this platform.
    pub(crate) fn page_size() -> usize {
        let n = 4096;
        n
    }
}

#[cfg(test)]
mod tests {
    /// Checks that split_off keeps the head in place.
    #[test]
    fn split_off_keeps_head() {
        let mut v = vec![1, 2, 3];
        assert_eq!(super::split_off(&mut v, 1), vec![2, 3]);
    }
}

/// Runs the example server against a local port.
#[tokio::test]
async fn serves_locally() {
    let x = 1;
    assert_eq!(x, 1);
}
'''


def _by_name(cands):
    return {c.qualname: c for c in cands}


def test_functions_docs_and_code():
    from qidf_research.corpora.rust import rust_functions

    got = _by_name(rust_functions("src/lib.rs", LIB, "bytes"))
    split = got["split_off"]
    assert split.doc == "Splits the buffer into two at the given index."
    assert split.code.startswith("pub fn split_off") and "///" not in split.code
    assert "#[inline]" not in split.code and "// the tail moves out" in split.code
    assert "//" not in "".join(split.tokens)  # comments are not tokens
    assert got["copy_from_slice"].doc == ("Copies bytes from the slice into a new buffer, "
                                          "growing it when needed.")
    assert "/**" not in got["copy_from_slice"].code
    assert got["empty"].doc == ""  # a leading "# Examples" heading is not a summary
    assert got["helper"].doc == ""  # an ordinary comment cuts the doc off
    assert got["BytesMut::reserve"].doc == ("Reserves capacity for at least `additional` more "
                                            "bytes. The collection may reserve more space:")
    assert "nested" not in got  # functions nested in a body are part of it
    assert got["read_buf"].doc == "Reads all bytes from the reader into the buffer."
    assert got["sys::page_size"].doc == "Returns the size of a memory page on this platform."
    assert got["Buf::has_remaining"].has_body
    assert not got["Buf::remaining"].has_body


def test_tests_constructors_and_std_trait_methods_are_flagged():
    from qidf_research.corpora.rust import rust_functions

    got = _by_name(rust_functions("src/lib.rs", LIB, "bytes"))
    assert got["tests::split_off_keeps_head"].is_test  # #[cfg(test)] module
    assert got["serves_locally"].is_test  # #[tokio::test]
    assert got["BytesMut::new"].is_excluded_kind
    assert got["BytesMut::fmt"].is_excluded_kind  # fmt of impl Debug
    assert not got["BytesMut::reserve"].is_excluded_kind
    kept = [c for c in got.values() if not (c.is_test or c.is_excluded_kind)]
    assert {c.qualname for c in kept} >= {"split_off", "BytesMut::reserve", "read_buf"}


def test_summary_markdown_rules():
    from qidf_research.corpora.rust import summary

    assert summary(["", " Returns the key.", " More.", "", " Next."]) == "Returns the key. More."
    assert summary([" # Safety", " The pointer must be valid."]) == ""
    assert summary([" ```", " let x = 1;", " ```"]) == ""
    assert summary([" Reads a line.", " ```", " code"]) == "Reads a line."
    assert summary([" Title", " ====="]) == ""
    assert summary([" Options are:", " * fast", " * slow"]) == "Options are:"


def test_type_names_and_doc_attribute():
    from qidf_research.corpora.rust import rust_functions

    src = b'''impl<'a, T: Copy> crate::io::Reader<'a, T> {
    #[doc = "Reads the next frame from the stream."]
    pub fn next_frame(&mut self) -> Option<T> {
        let f = self.buf.pop();
        f
    }
}
impl<T> From<Vec<T>> for &mut [T] {
    /// Converts a vector into a slice for this test.
    fn from(v: Vec<T>) -> Self {
        let s = v.leak();
        s
    }
}
'''
    got = _by_name(rust_functions("src/io.rs", src, "x"))
    assert got["Reader::next_frame"].doc == "Reads the next frame from the stream."
    assert got["[T]::from"].is_excluded_kind


def test_skip_reason():
    from qidf_research.corpora.rust import rust_skip_reason

    assert rust_skip_reason("vendor/foo/src/lib.rs", b"fn a() {}") == "vendor"
    assert rust_skip_reason("benches/parse.rs", b"fn a() {}") == "benches"
    assert rust_skip_reason("src/gen/visit.rs",
                            b"// This file is @generated by syn-internal-codegen.\n") == "generated"
    assert rust_skip_reason("src/tables.rs",
                            b"// DO NOT EDIT THIS FILE. IT WAS AUTOMATICALLY GENERATED BY:\n"
                            ) == "generated"
    assert rust_skip_reason("src/lib.rs", LIB) is None


def test_build_stamps_each_crate_and_skips_files(tmp_path):
    from qidf_research.corpora.rust import build_rust_crates

    other = b'''/// Parses the configuration file given on the command line.
pub fn parse_config(path: &str) -> Config {
    let text = std::fs::read_to_string(path).unwrap();
    toml::from_str(&text).unwrap()
}
'''
    for name, content in (("bytes", LIB), ("cfgtool", other)):
        (tmp_path / name / "src").mkdir(parents=True)
        (tmp_path / name / "src" / "lib.rs").write_bytes(content)
    (tmp_path / "bytes" / "benches").mkdir()
    (tmp_path / "bytes" / "benches" / "b.rs").write_bytes(other)
    (tmp_path / "bytes" / "tests").mkdir()
    (tmp_path / "bytes" / "tests" / "t.rs").write_bytes(other)
    pkgs = [PackageDir("bytes", "1.0.0", "MIT", tmp_path / "bytes"),
            PackageDir("cfgtool", "0.2.0", "MIT OR Apache-2.0", tmp_path / "cfgtool")]
    stats = BuildStats()
    pairs = build_rust_crates(pkgs, stats)
    assert {(p.package, p.version, p.license) for p in pairs} == {
        ("bytes", "1.0.0", "MIT"), ("cfgtool", "0.2.0", "MIT OR Apache-2.0")}
    assert stats.files_skipped["benches"] == 1 and stats.files_skipped["test path"] == 1
    names = {p.name for p in pairs}
    assert "split_off" in names and "parse_config" in names
    assert not names & {"BytesMut::new", "BytesMut::fmt", "serves_locally", "empty"}
    assert all(p.id.startswith(("rust:bytes@1.0.0/src/", "rust:cfgtool@0.2.0/src/"))
               for p in pairs)


def _sources_rust():
    from qidf_research.sources import rust as sources_rust

    return sources_rust


def test_manifest_pins_exact_versions():
    s = _sources_rust()
    text = s.manifest([("serde", "1.0.229"), ("toml_edit", "0.25.20+spec-1.1.0")])
    assert 'serde = { version = "=1.0.229", default-features = false }' in text
    assert 'toml_edit = { version = "=0.25.20+spec-1.1.0", default-features = false }' in text
    assert text.startswith("[package]\n")


def test_license_and_cache_hit_without_cargo(tmp_path, monkeypatch):
    s = _sources_rust()
    root = tmp_path / "home" / "registry" / "src" / "index.crates.io-1949cf8c6b5b557f"
    crate = root / "memchr-2.8.3"
    crate.mkdir(parents=True)
    (crate / "Cargo.toml").write_text(
        '[package]\nedition = "2021"\nname = "memchr"\nversion = "2.8.3"\n'
        'license = "Unlicense OR MIT"\n\n[dependencies.core]\nversion = "1.0.0"\n')
    assert s.crate_dir("memchr", "2.8.3", tmp_path / "home") == crate
    assert s.crate_dir("memchr", "2.7.0", tmp_path / "home") is None
    assert s.crate_license(crate) == "Unlicense OR MIT"

    def no_cargo(*args, **kwargs):
        raise AssertionError("cargo must not run when every crate is cached")

    monkeypatch.setattr(s.subprocess, "run", no_cargo)
    s.cargo_fetch([("memchr", "2.8.3")], print, tmp_path / "project", tmp_path / "home")
    assert not (tmp_path / "project").exists()
