"""Scala extraction on small real-shaped files: which functions are found, which Scaladoc is
their doc (also when the grammar hangs it at the end of the previous function), that the
doc is not left in the code, and that tests, auxiliary constructors, standard methods and
abstract defs are kept out of the pairs."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from qidf_research.corpora.extract import BuildStats
from qidf_research.corpora.packaged import PackageDir

pytest.importorskip("tree_sitter")
pytest.importorskip("tree_sitter_scala")

# Shaped on scala-library 2.13: braces, Scaladoc with `*` gutters, $macros, {{{ }}} blocks.
SCALA2 = b'''/*
 * Scala (https://www.scala-lang.org)
 *
 * Copyright EPFL and Lightbend, Inc. dba Akka
 *
 * Licensed under Apache License 2.0
 */

package scala
package collection

import scala.annotation.tailrec

/** Base trait for sequence collections.
  *
  * @tparam A the element type of the collection
  */
trait SeqOps[+A, +CC[_], +C] extends Any {

  /** Get the element at the specified index. This operation is provided for convenience in `Seq`.
    * It should not be assumed to be efficient unless you have an `IndexedSeq`.
    */
  @throws[IndexOutOfBoundsException]
  def apply(i: Int): A

  /** Tests whether this $coll contains a given value as an element.
   *  $mayNotTerminateInf
   *
   *  @param elem  the element to test.
   *  @return     `true` if this $coll has an element that is equal (as
   *              determined by `==`) to `elem`, `false` otherwise.
   */
  def contains[A1 >: A](elem: A1): Boolean = exists (_ == elem)

  /** Finds index of first occurrence of some value in this $coll after or at some start index.
   *
   *  @param   elem   the element value to search for.
   */
  @deprecatedOverriding("Override indexOf(elem, from) instead", "2.13.0")
  def indexOf[B >: A](elem: B): Int = {
    val it = iterator
    indexWhere(elem == _, 0)
  }

  /** Returns a new $coll with the elements in reverse order. Example:
   *  {{{
   *  List(1, 2, 3).reverse
   *  }}}
   */
  def reverse: C = {
    val b = newSpecificBuilder
    b ++= reversed
    b.result()
  }

  /** === Overview ===
   *  Produces a new sequence which contains all elements of this $coll and also all
   *  elements of a given sequence. `xs union ys` is equivalent to `xs ++ ys`.
   */
  def union[B >: A](that: Seq[B]): CC[B] = {
    val b = iterableFactory.newBuilder[B]
    b ++= that
    b.result()
  }

  /*** Banner: internal helpers ***/
  private[this] def occCounts[B](sq: Seq[B]): mutable.Map[B, Int] = {
    val occ = new mutable.HashMap[B, Int]()
    occ
  }

  /** A Scaladoc that a line comment separates from its def. */
  // TODO: inline
  private def separated(a: Int): Int = {
    val b = a + 1
    b
  }
}

object SeqOps {
  /** A helper for the KMP algorithm: builds the partial match table.
   */
  @tailrec private def kmpOptimizeWord[B](W: Seq[B], n0: Int, n1: Int, forward: Boolean): Seq[B] =
    if (n0 >= n1) W
    else if (forward) W.take(n1)
    else W.drop(n0)
}

final class Range(val start: Int, val end: Int) extends AbstractSeq[Int] {
  /** Creates an empty range starting at the given start index. */
  def this(start: Int) = {
    this(start, start)
    println("empty")
  }

  /** Returns a textual representation of this range and its bounds. */
  override def toString: String = {
    val endStr = end.toString
    s"Range($start, $endStr)"
  }

  /** Whether this range may equal another object of any kind. */
  override def canEqual(other: Any): Boolean = {
    val ok = other.isInstanceOf[Range]
    ok
  }

  /** Extracts the start and end bounds of a range for a pattern match. */
  def unapply(r: Range): Option[(Int, Int)] = {
    val pair = (r.start, r.end)
    Some(pair)
  }

  /** Builds a range from its two bounds, start inclusive and end exclusive. */
  def apply(start: Int, end: Int): Range = {
    val r = new Range(start, end)
    r
  }

  def iterator: Iterator[Int] = new AbstractIterator[Int] {
    /** Anonymous class members are not recorded. */
    def hasNext: Boolean = {
      val a = 1
      a > 0
    }
    def next(): Int = 0
  }
}

class RangeSpec {
  /** Checks that an empty range has no elements at all. */
  @Test
  def emptyRangeHasNoElements(): Unit = {
    val r = new Range(0, 0)
    assert(r.isEmpty)
  }

  /** Checks that a range iterates its elements in order. */
  def testIterationOrder(): Unit = {
    val r = new Range(0, 3)
    assert(r.toList == List(0, 1, 2))
  }
}
'''

# Shaped on the Scala 3 compiler and library: indentation syntax, top-level defs, end
# markers, extensions, givens, enums. In indentation syntax the grammar puts the comment
# after an indented body inside that body: ``normalize``'s Scaladoc ends ``atoms``' block.
SCALA3 = b'''package dotty.tools
package dotc.core

import scala.annotation.tailrec

/** Returns the singleton types that must or may be in this type. */
def atoms(tp: Type)(using Context): Atoms =
  val set = Set.empty + tp
  Atoms.Range(set, set)

/** Normalizes a singleton type by dealiasing its underlying prefix. */
def normalize(tp: Type): Type = tp match
  case tp: TermRef => tp.derivedSelect(normalize(tp.prefix))
  case _ => tp
end normalize

/** Whether a string is empty or consists of whitespace characters only. */
extension (s: String)
  def isBlankText: Boolean =
    val t = s.trim
    t.isEmpty

extension [T](xs: List[T])
  /** Returns the second element of this list, if the list has one. */
  def secondOption: Option[T] =
    xs match
      case _ :: y :: _ => Some(y)
      case _ => None
  def thirdOption: Option[T] = xs.drop(2).headOption

given Ordering[Name] with
  /** Compares two names by their mangled string representations. */
  def compare(x: Name, y: Name): Int =
    val a = x.mangledString
    a.compareTo(y.mangledString)

enum Mode:
  case Typer, Pattern

  /** Whether this mode is active when patterns are typed. */
  def isPattern: Boolean =
    val p = this == Pattern
    p

object Scanners:
  /** Handles newlines, possibly inserting an INDENT or OUTDENT token. */
  inline def handleNewLine(lastToken: Token): Unit =
    val width = indentWidth(offset)
    insert(width, lastToken)
  end handleNewLine
end Scanners
'''


def _by_name(cands):
    return {c.qualname: c for c in cands}


def test_scala2_functions_docs_and_code():
    from qidf_research.corpora.scala import scala_functions

    got = _by_name(scala_functions("scala/collection/Seq.scala", SCALA2, "scala-library"))
    # Abstract defs are found, with their doc, and have no body.
    assert not got["SeqOps.apply"].has_body
    assert got["SeqOps.apply"].doc.startswith("Get the element at the specified index.")
    # A one-line body: the grammar hangs the next Scaladoc at its end; it belongs to the
    # next def, not to this one's code.
    contains = got["SeqOps.contains"]
    assert contains.doc == ("Tests whether this $coll contains a given value as an element. "
                            "$mayNotTerminateInf")
    assert contains.code == "def contains[A1 >: A](elem: A1): Boolean = exists (_ == elem)"
    index_of = got["SeqOps.indexOf"]
    assert index_of.doc == ("Finds index of first occurrence of some value in this $coll "
                            "after or at some start index.")
    # Annotations stay in the code; the Scaladoc and its tags do not.
    assert index_of.code.startswith('@deprecatedOverriding("Override indexOf(elem, from) '
                                    'instead", "2.13.0")\ndef indexOf[B >: A]')
    assert "/**" not in index_of.code and "@param" not in index_of.code
    # A {{{ code block ends the summary; a wiki heading is a title, not the summary.
    assert got["SeqOps.reverse"].doc == (
        "Returns a new $coll with the elements in reverse order. Example:")
    assert got["SeqOps.union"].doc.startswith("Produces a new sequence which contains all")
    # A banner is no Scaladoc, nor is a Scaladoc that a line comment cuts off.
    assert got["SeqOps.occCounts"].doc == ""
    assert got["SeqOps.separated"].doc == ""
    kmp = got["SeqOps.kmpOptimizeWord"]
    assert kmp.doc == "A helper for the KMP algorithm: builds the partial match table."
    assert kmp.code.startswith("@tailrec private def kmpOptimizeWord[B]")
    assert kmp.code.endswith("else W.drop(n0)")
    # apply and unapply are ordinary functions in Scala, not standard methods.
    assert not got["Range.apply"].is_excluded_kind and got["Range.apply"].doc
    assert not got["Range.unapply"].is_excluded_kind
    # Members of an anonymous class inside a body are not recorded (as in Java).
    assert not any(name.endswith(("hasNext", "next")) for name in got)
    assert all(c.has_body for name, c in got.items() if name != "SeqOps.apply")


def test_scala2_constructors_standard_methods_and_tests_are_marked():
    from qidf_research.corpora.scala import scala_functions

    got = _by_name(scala_functions("scala/collection/Seq.scala", SCALA2, "scala-library"))
    assert got["Range.this"].is_excluded_kind  # auxiliary constructor
    assert got["Range.this"].doc == "Creates an empty range starting at the given start index."
    assert got["Range.toString"].is_excluded_kind
    assert got["Range.canEqual"].is_excluded_kind
    assert got["RangeSpec.emptyRangeHasNoElements"].is_test  # @Test
    assert got["RangeSpec.testIterationOrder"].is_test  # test name prefix
    assert not got["SeqOps.indexOf"].is_test


def test_scala3_indentation_syntax():
    from qidf_research.corpora.scala import scala_functions

    got = _by_name(scala_functions("dotty/tools/dotc/core/Types.scala", SCALA3, "scala3"))
    atoms = got["atoms"]
    assert atoms.doc == "Returns the singleton types that must or may be in this type."
    assert atoms.code.endswith("Atoms.Range(set, set)")  # the next def's doc cut off
    normalize = got["normalize"]
    assert normalize.doc == "Normalizes a singleton type by dealiasing its underlying prefix."
    assert normalize.code.endswith("end normalize")
    # A Scaladoc above an extension with one def documents that def.
    assert got["isBlankText"].doc == (
        "Whether a string is empty or consists of whitespace characters only.")
    assert got["secondOption"].doc == (
        "Returns the second element of this list, if the list has one.")
    assert got["thirdOption"].doc == ""
    assert got["given.compare"].doc == "Compares two names by their mangled string representations."
    assert got["Mode.isPattern"].doc == "Whether this mode is active when patterns are typed."
    handle = got["Scanners.handleNewLine"]
    assert handle.doc.startswith("Handles newlines, possibly inserting")
    assert handle.code.startswith("inline def handleNewLine") and "end Scanners" not in handle.code


def test_scaladoc_summary():
    from qidf_research.corpora.rules import first_paragraph
    from qidf_research.corpora.scala import scaladoc_lines

    def summary(comment: str) -> str:
        return first_paragraph(scaladoc_lines(comment))

    assert summary("/** First line\n  *  second line.\n  *  @param x an input\n  */") == (
        "First line second line.")
    assert summary("/** Before {{{ code }}} */") == "Before"
    assert summary("/**\n * {{{\n * code\n * }}}\n */") == ""
    spark = "/**\n * :: DeveloperApi ::\n * Return pools for fair scheduler\n */"
    assert summary(spark) == "Return pools for fair scheduler"
    assert summary("/** :: Experimental :: Same line. */") == "Same line."
    assert summary("/** =Overview=\n *  The real summary.\n */") == "The real summary."


def test_generated_files_are_skipped():
    from qidf_research.corpora.scala import scala_skip_reason

    function1 = (b"/*\n * Scala (https://www.scala-lang.org)\n */\n\n// GENERATED CODE: DO NOT "
                 b"EDIT. See scala.Function0 for timestamp.\n\npackage scala\n")
    assert scala_skip_reason("scala/Function1.scala", function1) == "generated"
    boilerplate = b"// auto-generated by sbt-boilerplate\npackage org.apache.pekko.japi\n"
    assert scala_skip_reason("org/apache/pekko/japi/Functions.scala", boilerplate) == "generated"
    assert scala_skip_reason("dotty/semanticdb/generated/Range.scala", b"package x\n") == (
        "generated")
    # Prose that mentions generated code is not a marker.
    app = b"package scala\n/** Instead it is called as compiler-generated code for objects. */\n"
    assert scala_skip_reason("scala/App.scala", app) is None
    assert scala_skip_reason("scala/collection/Seq.scala", SCALA2) is None


def _jar(path: Path, entries: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, content in entries.items():
            zf.writestr(name, content)
    return path


OPTION = b'''package scala

/** Represents optional values. */
sealed abstract class Option[+A] {
  /** Returns the option's value if it is nonempty, or `null` if it is empty.
   */
  @inline final def orNull[A1 >: A](implicit ev: Null <:< A1): A1 = {
    val v = this getOrElse ev(null)
    v
  }
}
'''


def test_archives_keep_provenance_and_skip_tests_and_generated(tmp_path):
    from qidf_research.corpora.scala import build_scala_archives

    a = _jar(tmp_path / "a-sources.jar", {
        "scala/collection/Seq.scala": SCALA2,
        "scala/collection/Seq.java": b"class Seq {}",
        "scala/Function1.scala": b"// GENERATED CODE: DO NOT EDIT.\n" + SCALA2,
        "META-INF/MANIFEST.MF": b"Manifest-Version: 1.0\n",
    })
    b = _jar(tmp_path / "b-sources.jar", {
        "scala/Option.scala": OPTION,
        "scala/Copy.scala": SCALA2,  # the same file in another jar: all duplicates
        "scala/OptionTest.scala": OPTION,
    })
    pkgs = [PackageDir("org.scala-lang:scala-library", "2.13.18", "Apache-2.0", a),
            PackageDir("org.typelevel:cats-core_2.13", "2.13.0", "MIT", b)]
    stats = BuildStats()
    pairs = build_scala_archives(pkgs, stats)
    assert stats.files_seen == 5  # .scala entries only
    assert stats.files_skipped["generated"] == 1 and stats.files_skipped["test path"] == 1
    by_name = {p.name: p for p in pairs}
    assert by_name["Option.orNull"].package == "org.typelevel:cats-core_2.13"
    or_null = by_name["Option.orNull"]
    assert or_null.version == "2.13.0" and or_null.license == "MIT"
    # scala-library's copy in cats and the original are duplicates: the smaller id is kept.
    assert by_name["SeqOps.indexOf"].id == (
        "scala:org.scala-lang:scala-library@2.13.18/scala/collection/Seq.scala:SeqOps.indexOf")
    assert by_name["SeqOps.indexOf"].license == "Apache-2.0"
    assert not set(by_name) & {"SeqOps.apply", "SeqOps.contains", "Range.this", "Range.toString",
                               "Range.canEqual", "RangeSpec.emptyRangeHasNoElements",
                               "RangeSpec.testIterationOrder", "SeqOps.occCounts",
                               "SeqOps.separated"}
    assert {"Range.apply", "Range.unapply", "SeqOps.reverse",
            "SeqOps.kmpOptimizeWord"} <= set(by_name)
    assert stats.removed["no body"] == 2  # apply, in both copies
    assert all(p.language == "scala" and "/**" not in p.code for p in pairs)


def test_sources_script_fetches_every_pin(tmp_path, monkeypatch):
    from qidf_research.sources import pinned as corpus_sources
    from qidf_research.sources import scala as sources_scala

    pins = tmp_path / "sources.json"
    pins.write_text(json.dumps({"scala-maven": {"registry": "maven", "packages": [
        ["org.scala-lang:scala-library", "2.13.18", "Apache-2.0"]]}}))
    jar = _jar(tmp_path / "scala-library-2.13.18-sources.jar", {"scala/Option.scala": OPTION})
    fetched = []

    def fake_fetch(coord, version, license_, log):
        fetched.append((coord, version, license_))
        return PackageDir(coord, version, license_, jar)

    monkeypatch.setattr(sources_scala, "PINS", pins)
    monkeypatch.setattr(sources_scala, "fetch_maven", fake_fetch)
    assert "scala" in corpus_sources.EXTRA_LANGUAGES
    pairs = sources_scala.pairs(print, BuildStats())
    assert fetched == [("org.scala-lang:scala-library", "2.13.18", "Apache-2.0")]
    assert [p.name for p in pairs] == ["Option.orNull"]


def test_pins_are_exact_maven_coordinates_under_open_licenses():
    from qidf_research.sources import scala as sources_scala

    pins = sources_scala.pins()
    assert len(pins) >= 20
    for coord, version, license_ in pins:
        assert coord.count(":") == 1 and version and version[0].isdigit()
        assert license_ in {"Apache-2.0", "MIT", "BSD-2-Clause", "BSD-3-Clause", "MPL-2.0"}
        if coord.startswith("com.typesafe.akka:"):  # Akka 2.7+ is BUSL-1.1
            assert int(version.split(".")[1]) <= 6
    assert len({c for c, _, _ in pins}) == len(pins)
