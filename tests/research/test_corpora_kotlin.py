"""Kotlin extraction on small real-shaped files: which functions are found, which KDoc is
their doc, that the doc is not left in the code, and that tests, constructors, standard
methods and abstract funs are kept out of the pairs."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from qidf_research.corpora.extract import BuildStats
from qidf_research.corpora.packaged import PackageDir

pytest.importorskip("tree_sitter")
pytest.importorskip("tree_sitter_kotlin")

KT = b'''/*
 * Copyright 2017-2024 JetBrains s.r.o. and Kotlin Programming Language contributors.
 * Use of this source code is governed by the Apache 2.0 license.
 */
@file:JvmName("FlowKt")
package kotlinx.coroutines.flow

import kotlin.coroutines.*

/**
 * Launches the collection of the given flow in the [scope].
 * It is a shorthand for `scope.launch { flow.collect() }`.
 *
 * More details follow here.
 * @param scope the scope to launch in
 */
@Deprecated("Use launchIn", level = DeprecationLevel.WARNING)
public fun <T> Flow<T>.launchInScope(scope: CoroutineScope): Job = scope.launch {
    collect()
    println("done")
}

/**
 * ## Buffer Operation
 * Buffers flow emissions via a channel of the specified capacity.
 */
public fun <T> Flow<T>.bufferAll(capacity: Int): Flow<T> {
    require(capacity >= 0)
    return this
}

/**
 * Returns the single element. Example:
 * ```kotlin
 * flowOf(1).single()
 * ```
 */
public suspend fun <T> Flow<T>.singleValue(): T {
    val list = toList()
    return list.single()
}

/********* Below are private APIs *********/
private fun bannerHelper(x: Int): Int {
    val y = x + 1
    return y
}

/** A KDoc that a line comment separates from its function. */
// TODO: move
internal fun separated(a: Int) {
    println(a)
    println(a)
}

public interface FlowCollector<in T> {
    /** Collects the value emitted by the upstream flow. */
    public suspend fun emit(value: T)

    /** Emits every value of the given iterable in order. */
    public suspend fun emitAll(values: Iterable<T>) {
        for (v in values) emit(v)
        println()
    }
}

/**
 * A channel-backed flow.
 */
public class ChannelFlow<T>(private val capacity: Int) : Flow<T> {
    init {
        require(capacity > 0)
    }

    /** Creates a flow with the default capacity of one element. */
    public constructor() : this(1) {
        println("default")
    }

    /** Collects this flow into the given [collector] until it completes. */
    @Suppress("UNCHECKED_CAST")
    override suspend fun collect(collector: FlowCollector<T>) {
        val c = collector
        c.emit(capacity as T)
    }

    /** Returns a human-readable description of this flow. */
    override fun toString(): String {
        val s = "ChannelFlow"
        return "$s($capacity)"
    }

    public companion object {
        /** Creates a channel flow with the given capacity value. */
        public fun create(capacity: Int): ChannelFlow<Int> {
            val f = ChannelFlow<Int>(capacity)
            return f
        }
    }

    internal class Inner {
        /** Resets the internal state of this inner helper. */
        fun reset() {
            println(1)
            println(2)
        }
    }
}

internal object FlowDebug {
    /** Checks that the flow was collected from the right coroutine context. */
    fun checkContext(context: CoroutineContext) {
        val job = context[Job]
        println(job)
    }
}

class ChannelFlowTest {
    /** Checks that collection of a channel flow completes. */
    @Test
    fun collectsEverything() {
        val f = ChannelFlow<Int>(1)
        println(f)
    }

    /** Checks that the buffer keeps the order of values. */
    fun testBufferOrder() {
        val f = ChannelFlow<Int>(2)
        println(f)
    }
}
'''


def _by_name(cands):
    return {c.qualname: c for c in cands}


def test_functions_docs_and_code():
    from qidf_research.corpora.kotlin import kotlin_functions

    got = _by_name(kotlin_functions("commonMain/flow/Flow.kt", KT, "kotlinx-coroutines"))
    launch = got["launchInScope"]
    assert launch.doc == ("Launches the collection of the given flow in the [scope]. "
                          "It is a shorthand for `scope.launch { flow.collect() }`.")
    # The annotation the grammar splits off a top-level fun stays in the code, the KDoc not.
    assert launch.code.startswith('@Deprecated("Use launchIn"')
    assert "/**" not in launch.code and "@param" not in launch.code
    assert launch.has_body and not launch.is_test and not launch.is_excluded_kind

    # A Markdown heading is a title, not the summary; a code fence ends the summary.
    assert got["bufferAll"].doc == "Buffers flow emissions via a channel of the specified capacity."
    assert got["singleValue"].doc == "Returns the single element. Example:"
    # A banner comment is no KDoc, nor is a KDoc that a line comment cuts off.
    assert got["bannerHelper"].doc == ""
    assert got["separated"].doc == ""

    assert got["FlowCollector.emitAll"].doc == "Emits every value of the given iterable in order."
    assert not got["FlowCollector.emit"].has_body  # abstract: no body
    collect = got["ChannelFlow.collect"]
    assert collect.doc == "Collects this flow into the given [collector] until it completes."
    assert collect.code.startswith('@Suppress("UNCHECKED_CAST")\noverride suspend fun collect')
    assert got["ChannelFlow.Companion.create"].doc.startswith("Creates a channel flow")
    assert got["ChannelFlow.Inner.reset"].doc == "Resets the internal state of this inner helper."
    assert got["FlowDebug.checkContext"].doc.startswith("Checks that the flow")


def test_constructors_standard_methods_and_tests_are_marked():
    from qidf_research.corpora.kotlin import kotlin_functions

    got = _by_name(kotlin_functions("commonMain/flow/Flow.kt", KT, "kotlinx-coroutines"))
    assert got["ChannelFlow.constructor"].is_excluded_kind  # secondary constructor
    assert got["ChannelFlow.toString"].is_excluded_kind
    assert not any("init" in name for name in got)  # init blocks are not functions
    assert got["ChannelFlowTest.collectsEverything"].is_test  # @Test
    assert got["ChannelFlowTest.testBufferOrder"].is_test  # test name prefix
    assert not got["ChannelFlow.collect"].is_test


# OkHttp's Settings.kt: ``set = set or bit`` after a ``val`` reads as a property setter to
# tree-sitter-kotlin 1.1.0, which gives up on the whole class (an ERROR node).
UNPARSED_CLASS = b'''package okhttp3.internal.http2

/** Settings describe characteristics of the sending peer. */
class Settings {
  private var set: Int = 0

  /** Clears every setting this peer has sent so far. */
  fun clear() {
    set = 0
    values.fill(0)
  }

  operator fun set(id: Int, value: Int): Settings {
    val bit = 1 shl id
    set = set or bit
    return this
  }
}
'''


def test_functions_inside_a_span_the_grammar_could_not_parse_are_kept():
    from qidf_research.corpora.kotlin import kotlin_functions

    got = _by_name(kotlin_functions("okhttp3/Settings.kt", UNPARSED_CLASS, "okhttp"))
    assert got["Settings.clear"].doc == "Clears every setting this peer has sent so far."


def test_generated_files_are_skipped():
    from qidf_research.corpora.kotlin import kotlin_skip_reason

    stdlib_header = (b"package kotlin.collections\n\n//\n// NOTE: THIS FILE IS AUTO-GENERATED "
                     b"by the GenerateStandardLib.kt\n//\n")
    assert kotlin_skip_reason("commonMain/kotlin/_Arrays.kt", stdlib_header) == "generated"
    assert kotlin_skip_reason("commonMain/generated/gen-tags.kt", b"package x\n") == "generated"
    assert kotlin_skip_reason("commonMain/flow/Flow.kt", KT) is None


def _jar(path: Path, entries: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, content in entries.items():
            zf.writestr(name, content)
    return path


OKIO = b'''package okio

/** Returns a new buffered source that reads from this source in large chunks. */
fun Source.bufferedSource(limit: Long): BufferedSource {
    val b = RealBufferedSource(this)
    return b
}
'''


def test_archives_keep_provenance_and_skip_tests_and_generated(tmp_path):
    from qidf_research.corpora.kotlin import build_kotlin_archives

    a = _jar(tmp_path / "a-sources.jar", {
        "commonMain/flow/Flow.kt": KT,
        "commonMain/flow/Flow.java": b"class Flow {}",
        "commonMain/generated/_Gen.kt": KT,
        "META-INF/MANIFEST.MF": b"Manifest-Version: 1.0\n",
    })
    b = _jar(tmp_path / "b-sources.jar", {
        "jvmMain/okio/Okio.kt": OKIO,
        "jvmMain/okio/Copy.kt": KT,  # the same file in another jar: all duplicates
        "jvmTest/okio/OkioTest.kt": OKIO,
    })
    pkgs = [PackageDir("org.jetbrains.kotlinx:kotlinx-coroutines-core-jvm", "1.10.2",
                       "Apache-2.0", a),
            PackageDir("com.squareup.okio:okio-jvm", "3.9.1", "Apache-2.0", b)]
    stats = BuildStats()
    pairs = build_kotlin_archives(pkgs, stats)
    assert stats.files_seen == 5  # .kt entries only
    assert stats.files_skipped["generated"] == 1 and stats.files_skipped["test path"] == 1
    by_name = {p.name: p for p in pairs}
    assert by_name["bufferedSource"].package == "com.squareup.okio:okio-jvm"
    assert by_name["bufferedSource"].version == "3.9.1"
    # Kotlin's copy in okio-jvm and the original are duplicates: the smaller id is kept.
    assert by_name["launchInScope"].id == (
        "kotlin:com.squareup.okio:okio-jvm@3.9.1/jvmMain/okio/Copy.kt:launchInScope")
    assert all(p.package == "com.squareup.okio:okio-jvm" for p in pairs)
    assert stats.removed["exact duplicate code"] == len(pairs) - 1  # all but bufferedSource
    assert not set(by_name) & {"FlowCollector.emit", "ChannelFlow.constructor",
                               "ChannelFlow.toString", "ChannelFlowTest.collectsEverything",
                               "ChannelFlowTest.testBufferOrder", "bannerHelper",
                               "separated"}
    assert stats.removed["no body"] == 2  # emit, in both copies
    assert all(p.language == "kotlin" and "/**" not in p.code for p in pairs)


def test_sources_script_fetches_every_pin(tmp_path, monkeypatch):
    from qidf_research.sources import kotlin as sources_kotlin
    from qidf_research.sources import pinned as corpus_sources

    pins = tmp_path / "sources.json"
    pins.write_text(json.dumps({"kotlin-maven": {"registry": "maven", "packages": [
        ["com.squareup.okio:okio-jvm", "3.9.1", "Apache-2.0"]]}}))
    jar = _jar(tmp_path / "okio-jvm-3.9.1-sources.jar", {"jvmMain/okio/Okio.kt": OKIO})
    fetched = []

    def fake_fetch(coord, version, license_, log):
        fetched.append((coord, version, license_))
        return PackageDir(coord, version, license_, jar)

    monkeypatch.setattr(sources_kotlin, "PINS", pins)
    monkeypatch.setattr(sources_kotlin, "fetch_maven", fake_fetch)
    assert "kotlin" in corpus_sources.EXTRA_LANGUAGES
    pairs = sources_kotlin.pairs(print, BuildStats())
    assert fetched == [("com.squareup.okio:okio-jvm", "3.9.1", "Apache-2.0")]
    assert [p.name for p in pairs] == ["bufferedSource"]


def test_pins_are_exact_maven_coordinates():
    from qidf_research.sources import kotlin as sources_kotlin

    pins = sources_kotlin.pins()
    assert len(pins) >= 20
    for coord, version, license_ in pins:
        assert coord.count(":") == 1 and version and version[0].isdigit() and license_
    assert len({c for c, _, _ in pins}) == len(pins)
