"""Unit tests of the corpus builder: CodeSearchNet's rules on small inline sources."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from qidf_research.corpora import (
    Pair,
    code_to_doc,
    doc_to_code,
    load_pairs,
    shipped_corpus,
    write_pairs,
)
from qidf_research.corpora.dedup import near_duplicates
from qidf_research.corpora.extract import BuildStats, Candidate, build_pairs
from qidf_research.corpora.rules import doc_tokens, first_paragraph, is_test_path


def _pair(i: int, lang: str = "go") -> Pair:
    """A small pair with id ``<lang>:f.go:F<i>``."""
    return Pair(
        id=f"{lang}:f.go:F{i}",
        language=lang,
        name=f"F{i}",
        code=f"func F{i}() {{\n\treturn\n}}",
        doc=f"F{i} does thing number {i}.",
        path="f.go",
        package="p",
        version="v",
        license="BSD-3-Clause",
    )


# ---------------------------------------------------------------- generic rules


def test_doc_tokens_follow_codesearchnet_tokenizer() -> None:
    assert doc_tokens("Returns the value.") == ["Returns", "the", "value", "."]
    assert len(doc_tokens("Close it")) == 2


def test_first_paragraph_stops_at_blank_line() -> None:
    lines = ["", " Foo does x", " and y.", "", " More detail."]
    assert first_paragraph(lines) == "Foo does x and y."


def test_test_path_rule_is_codesearchnet_substring() -> None:
    assert is_test_path("src/net/http/httptest/server.go")
    assert is_test_path("Lib/unittest/case.py")
    assert not is_test_path("src/bytes/buffer.go")


def test_near_duplicates_keep_lowest_index() -> None:
    base = [f"v{i}" for i in range(12)]
    twin = [*base[:11], "other"]  # set Jaccard 11/13 > 0.8
    far = [f"w{i}" for i in range(12)]
    tiny = ["a", "b"]
    assert near_duplicates([base, twin, far, tiny, tiny]) == {1}


# ---------------------------------------------------------------- storage and tasks


def test_write_load_roundtrip_sorted_and_deterministic(tmp_path: Path) -> None:
    pairs = [_pair(3), _pair(1), _pair(2)]
    a, b = tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl.gz"
    assert write_pairs(pairs, a) == 3
    write_pairs(reversed(pairs), b)
    assert a.read_bytes() == b.read_bytes()
    loaded = load_pairs(a)
    assert [p.id for p in loaded] == ["go:f.go:F1", "go:f.go:F2", "go:f.go:F3"]
    assert loaded[0] == _pair(1)
    plain = tmp_path / "c.jsonl"
    write_pairs(pairs, plain)
    assert load_pairs(plain) == loaded
    assert gzip.decompress(a.read_bytes()).decode() == plain.read_text()


def test_write_rejects_duplicate_ids(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="duplicate"):
        write_pairs([_pair(1), _pair(1)], tmp_path / "x.jsonl")


def test_code_to_doc_shape() -> None:
    pairs = [_pair(i) for i in range(10)]
    task = code_to_doc(pairs)
    assert task.name == "csn-go-code2doc"
    assert len(task.corpus) == 10 and len(task.queries) == 10
    assert task.corpus["go:f.go:F4"] == "F4 does thing number 4."
    assert task.queries["go:f.go:F4"].startswith("func F4()")
    assert task.qrels["go:f.go:F4"] == {"go:f.go:F4": 1}


def test_code_to_doc_sample_is_seeded_and_keeps_full_corpus() -> None:
    pairs = [_pair(i) for i in range(50)]
    a = code_to_doc(pairs, max_queries=7, seed=3)
    b = code_to_doc(list(reversed(pairs)), max_queries=7, seed=3)
    c = code_to_doc(pairs, max_queries=7, seed=4)
    assert len(a.queries) == 7 and len(a.corpus) == 50
    assert a.queries == b.queries and a.qrels == b.qrels
    assert a.queries != c.queries
    assert all(set(rel) <= set(a.corpus) for rel in a.qrels.values())


def test_doc_to_code_shape() -> None:
    task = doc_to_code([_pair(i) for i in range(5)], max_queries=2)
    assert task.name == "csn-go-doc2code"
    assert len(task.corpus) == 5 and len(task.queries) == 2
    qid = next(iter(task.queries))
    assert task.queries[qid].endswith("does thing number " + qid[-1] + ".")
    assert task.corpus[qid].startswith("func ")


def test_shipped_corpus_is_package_data() -> None:
    import qidf_ctl.demo

    assert shipped_corpus("go") == Path(qidf_ctl.demo.__file__).parent / "data" / \
        "go-stdlib.jsonl.gz"
    with pytest.raises(FileNotFoundError):
        shipped_corpus("cobol")


def test_shipped_go_corpus_is_present_and_well_formed() -> None:
    path = shipped_corpus("go")
    pairs = load_pairs(path)
    assert len(pairs) > 10_000
    ids = [p.id for p in pairs]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    p = next(p for p in pairs if p.id == "go:src/bytes/buffer.go:Buffer.Grow")
    assert p.package == "bytes" and p.license == "BSD-3-Clause"
    assert p.version.startswith("go1.")
    assert p.doc.startswith("Grow grows") and "//" not in p.code.split("\n")[0]
    assert (path.parent / "LICENSE-go").is_file()


# ---------------------------------------------------------------- Go extraction

GO_SRC = """\
package demo

import "testing"

// Sum adds up the values in xs and returns the total.
//
// Second paragraph that must not be in the doc.
//
//go:noinline
func Sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}

// Short one line.
func One() int { return 1 }

// Tiny.
func Tiny(a int) int {
	return a
}

// Detached comment, separated by a blank line.

func Undocumented(a, b int) int {
	c := a + b
	return c
}

// String formats the point for printing.
func (p *Point[T]) String() string {
	s := "point"
	return s
}

// Norm returns the Euclidean norm of the point.
func (p *Point[T]) Norm() float64 {
	v := p.x*p.x + p.y*p.y
	return sqrt(v)
}

// TestSum checks that the sum is computed correctly.
func TestSum(t *testing.T) {
	if Sum(nil) != 0 {
		t.Fatal("bad")
	}
}

// FuzzSupported reports whether fuzzing is supported on a platform.
func FuzzSupported(goos, goarch string) bool {
	ok := goos == "linux"
	return ok
}

// Asm is implemented in assembly elsewhere in the package.
func Asm(x int) int

// Total adds up the values in xs and returns the total.
func Total(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}
"""


@dataclass
class _MemSource:
    """An in-memory stand-in for a source tree, for the generic pipeline."""

    files_: dict[str, str]
    language: str = "go"
    version: str = "go0"
    license: str = "BSD-3-Clause"
    keywords: frozenset[str] = field(default_factory=frozenset)

    def files(self) -> Iterator[tuple[str, bytes]]:
        """Files in sorted order, as bytes."""
        for k in sorted(self.files_):
            yield k, self.files_[k].encode()

    def skip_reason(self, relpath: str, content: bytes) -> str | None:
        """Delegate to the Go source's file rules."""
        from qidf_research.corpora.go import GoSource

        return GoSource(Path("."), "go0").skip_reason(relpath, content)

    def functions(self, relpath: str, content: bytes) -> list[Candidate]:
        """Go functions of one in-memory file."""
        from qidf_research.corpora.go import go_functions

        return go_functions(relpath, content, "demo")


@pytest.fixture(scope="module")
def go_pairs() -> tuple[dict[str, Pair], BuildStats]:
    """Pairs and stats from GO_SRC plus files that must be skipped."""
    pytest.importorskip("tree_sitter_go")
    from qidf_research.corpora.go import KEYWORDS

    files = {
        "src/demo/demo.go": GO_SRC,
        "src/demo/demo_test.go": GO_SRC,
        "src/demo/testdata/x.go": GO_SRC,
        "src/vendor/x/y.go": GO_SRC,
        "src/demo/zgen.go": "// Code generated by mkgen. DO NOT EDIT.\n\n" + GO_SRC,
    }
    stats = BuildStats()
    pairs = build_pairs(_MemSource(files, keywords=KEYWORDS), stats)
    return {p.name: p for p in pairs}, stats


def test_go_files_skipped(go_pairs: tuple[dict[str, Pair], BuildStats]) -> None:
    _, stats = go_pairs
    assert stats.files_parsed == 1
    assert dict(stats.files_skipped) == {
        "_test.go": 1,
        "testdata": 1,
        "vendor": 1,
        "generated": 1,
    }


def test_go_doc_is_first_paragraph_and_removed_from_code(
    go_pairs: tuple[dict[str, Pair], BuildStats],
) -> None:
    pairs, _ = go_pairs
    p = pairs["Sum"]
    assert p.doc == "Sum adds up the values in xs and returns the total."
    assert p.code.startswith("func Sum(xs []int) int {")
    assert "//" not in p.code and "noinline" not in p.doc
    assert p.id == "go:src/demo/demo.go:Sum"
    assert (p.path, p.package, p.version) == ("src/demo/demo.go", "demo", "go0")


def test_go_filters(go_pairs: tuple[dict[str, Pair], BuildStats]) -> None:
    pairs, stats = go_pairs
    assert "One" not in pairs  # one line
    assert "Tiny" not in pairs  # doc of 2 tokens
    assert "Undocumented" not in pairs  # comment separated by a blank line is not a doc
    assert "Point.String" not in pairs  # standard method
    assert "TestSum" not in pairs  # test function
    assert "Asm" not in pairs  # no body
    assert "Total" in pairs  # same body as Sum, but too few identifiers to differ reliably
    assert "Point.Norm" in pairs and pairs["Point.Norm"].id.endswith(":Point.Norm")
    assert "FuzzSupported" in pairs  # not a fuzz target: no *testing.F parameter
    assert stats.removed["test function"] == 1
    assert stats.removed["constructor/standard method"] == 1
    assert stats.removed["no body"] == 1
    assert stats.kept == len(pairs) == 4


def test_go_exact_and_near_duplicates_keep_smallest_id() -> None:
    pytest.importorskip("tree_sitter_go")
    from qidf_research.corpora.go import KEYWORDS

    body = "\n".join(f"\tacc = combine(acc, value{i}, weight{i})" for i in range(6))
    fn = (
        f"// Mix combines the inputs into one value.\nfunc Mix() int {{\n{body}\n\treturn acc\n}}\n"
    )
    near = fn.replace("Mix combines", "Blend combines").replace("weight5", "other5")
    files = {
        "src/a/a.go": "package a\n\n" + fn,
        "src/b/b.go": "package b\n\n" + fn,  # exact copy
        "src/c/c.go": "package c\n\n" + near,  # one identifier differs
    }
    stats = BuildStats()
    pairs = build_pairs(_MemSource(files, keywords=KEYWORDS), stats)
    assert [p.id for p in pairs] == ["go:src/a/a.go:Mix"]
    assert stats.removed["exact duplicate code"] == 1
    assert stats.removed["near-duplicate code"] == 1


def test_go_dedup_by_name_and_doc() -> None:
    pytest.importorskip("tree_sitter_go")
    from qidf_research.corpora.go import KEYWORDS

    unix = (
        "package os\n\n// Close closes the file for reading.\nfunc Close(f int) error {\n"
        "\treturn closeUnix(f)\n}\n"
    )
    win = unix.replace("closeUnix", "closeHandleOnWindows")
    stats = BuildStats()
    pairs = build_pairs(
        _MemSource({"src/os/a_unix.go": unix, "src/os/a_windows.go": win}, keywords=KEYWORDS),
        stats,
    )
    assert [p.id for p in pairs] == ["go:src/os/a_unix.go:Close"]
    assert stats.removed["duplicate name+doc"] == 1


def test_go_receiver_and_directives() -> None:
    from qidf_research.corpora.go import doc_comment_lines, receiver_type

    assert receiver_type("(s *Set[E])") == "Set"
    assert receiver_type("(*T)") == "T"
    assert receiver_type("(m Map[K, V])") == "Map"
    lines = doc_comment_lines(["// A doc.", "//go:nosplit", "//export f", "/* b\n * c */"])
    assert [x.strip() for x in lines] == ["A doc.", "b", "c"]


def test_pair_is_frozen() -> None:
    with pytest.raises(AttributeError):
        _pair(1).doc = "x"  # type: ignore[misc]
    assert replace(_pair(1), doc="x").doc == "x"


# ---------------------------------------------------------------- Java extraction

JAVA_SRC = """\
package demo;

public class Box<T> {
    /** Creates a box. Constructors are not pairs. */
    public Box() {
        super();
        init();
    }

    /**
     * Returns the value held by this box,
     * or null when empty.
     * <p>
     * Second paragraph.
     * @return the value
     */
    @SuppressWarnings("unchecked")
    public T get() {
        T v = value;
        return v;
    }

    /** Returns the value or a default one. */
    public T get(T other) {
        T v = value;
        return v == null ? other : v;
    }

    /** Returns a string form of this box. */
    @Override
    public String toString() {
        String s = "box";
        return s;
    }

    /** An abstract method has no body to search. */
    abstract void put(T value);

    /** Checks the box with an annotated unit test. */
    @Test
    void boxWorks() {
        int a = 1;
        assert a == 1;
    }

    static class Inner {
        /** Computes the size of the inner content. */
        int size() {
            int n = 0;
            return n;
        }
    }
}
"""


def _java_pairs() -> dict[str, Pair]:
    """Pairs from JAVA_SRC, keyed by id."""
    pytest.importorskip("tree_sitter_java")
    from qidf_research.corpora.java import KEYWORDS, java_functions

    @dataclass
    class _Src(_MemSource):
        language: str = "java"

        def skip_reason(self, relpath: str, content: bytes) -> str | None:
            return None

        def functions(self, relpath: str, content: bytes) -> list[Candidate]:
            return java_functions(relpath, content, "demo")

    pairs = build_pairs(_Src({"java.base/demo/Box.java": JAVA_SRC}, keywords=KEYWORDS))
    return {p.id: p for p in pairs}


def test_java_javadoc_rules_and_exclusions() -> None:
    pairs = _java_pairs()
    assert sorted(pairs) == [
        "java:java.base/demo/Box.java:Box.Inner.size",
        "java:java.base/demo/Box.java:Box.get",
        "java:java.base/demo/Box.java:Box.get#2",
    ]
    get = pairs["java:java.base/demo/Box.java:Box.get"]
    assert get.doc == "Returns the value held by this box, or null when empty."
    assert get.code.startswith('@SuppressWarnings("unchecked")\npublic T get() {')
    assert "/**" not in get.code and get.code.endswith("}")
    assert get.package == "demo"


def test_javadoc_lines() -> None:
    from qidf_research.corpora.java import javadoc_lines

    lines = javadoc_lines("/** First part<p>second part.\n * @param x ignored\n */")
    assert first_paragraph(lines) == "First part"


# ---------------------------------------------------------------- Python extraction

PY_SRC = '''\
def area(width, height):
    """Compute the area of a rectangle.

    Longer explanation that is not part of the pair.
    """
    result = width * height
    return result


class Shape:
    def __str__(self):
        """Return a printable form of the shape."""
        text = "shape"
        return text

    @property
    def sides(self):
        """Number of sides of this shape."""
        count = 0
        return count

    def test_sides(self):
        """Check the number of sides here."""
        count = self.sides
        assert count == 0

    class Part:
        def weight(self):
            """Weight of the part in grams."""
            def helper():
                """Nested functions are not pairs."""
                return 1
            return helper()
'''


def _py_pairs() -> dict[str, Pair]:
    """Pairs from PY_SRC, keyed by name."""
    pytest.importorskip("tree_sitter_python")
    from qidf_research.corpora.python import KEYWORDS, python_functions

    @dataclass
    class _Src(_MemSource):
        language: str = "python"

        def skip_reason(self, relpath: str, content: bytes) -> str | None:
            return None

        def functions(self, relpath: str, content: bytes) -> list[Candidate]:
            return python_functions(relpath, content, "shapes")

    pairs = build_pairs(_Src({"Lib/shapes.py": PY_SRC}, keywords=KEYWORDS))
    return {p.name: p for p in pairs}


def test_python_docstring_removed_and_rules() -> None:
    pairs = _py_pairs()
    assert sorted(pairs) == ["Shape.Part.weight", "Shape.sides", "area"]
    area = pairs["area"]
    assert area.doc == "Compute the area of a rectangle."
    assert area.code == "def area(width, height):\n    result = width * height\n    return result"
    sides = pairs["Shape.sides"]
    assert sides.code.startswith("@property\ndef sides(self):\n    count = 0")
    assert '"""' not in pairs["Shape.Part.weight"].code.split("\n")[1]


def test_java_archives_dedup_across_jars_and_keep_provenance(tmp_path: Path) -> None:
    """Two source jars holding the same class: one pair per function survives, and every pair
    names its own archive, version and license."""
    pytest.importorskip("tree_sitter_java")
    import zipfile

    from qidf_research.corpora.java import build_java_archives
    from qidf_research.corpora.packaged import PackageDir

    packages = []
    for name in ("liba", "libb"):
        jar = tmp_path / f"{name}-sources.jar"
        with zipfile.ZipFile(jar, "w") as zf:
            zf.writestr("demo/Box.java", JAVA_SRC)
            zf.writestr("demo/package-info.java", "package demo;\n")
        packages.append(PackageDir(name, "1.0", "Apache-2.0", jar))
    pairs = build_java_archives(packages)
    assert pairs, "no pairs from the archives"
    # The one-archive build keeps Box.get, its overload Box.get#2 and Box.Inner.size; the
    # second jar's copies are duplicates and must all go.
    local = sorted(p.id.split("/", 1)[1] for p in pairs)
    assert local == ["demo/Box.java:Box.Inner.size", "demo/Box.java:Box.get",
                     "demo/Box.java:Box.get#2"]
    assert {p.package for p in pairs} <= {"liba", "libb"}
    assert all(p.version == "1.0" and p.license == "Apache-2.0" for p in pairs)
    assert all(p.id.startswith(("java:liba@1.0/", "java:libb@1.0/")) for p in pairs)
