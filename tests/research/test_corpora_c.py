"""C extraction on small kernel-shaped files: which functions are found, which kernel-doc
short description is their doc, that the comment is not left in the code, the kernel's
macro idioms (``__init``, ``SYSCALL_DEFINEn``, a comment above ``#ifdef``), and the
source's unpacking of a linux-source tarball."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest
from qidf_research.corpora.extract import BuildStats
from qidf_research.corpora.packaged import PackageDir

pytest.importorskip("tree_sitter")
pytest.importorskip("tree_sitter_c")


FORK = b'''// SPDX-License-Identifier: GPL-2.0-only
/*
 *  linux/kernel/fork.c
 */
#include <linux/slab.h>

/**
 * get_task_mm - acquire a reference to the task's mm
 * @task: The task.
 *
 * Returns %NULL if the task has no mm.  Checks PF_KTHREAD (meaning
 * this kernel workthread has transiently adopted a user mm with use_mm,
 * to do its AIO) is not set and if so returns a reference to it.
 */
struct mm_struct *get_task_mm(struct task_struct *task)
{
	struct mm_struct *mm;

	task_lock(task);
	mm = task->mm;
	task_unlock(task);
	return mm;
}
EXPORT_SYMBOL_GPL(get_task_mm);

/**
 * replace_mm_exe_file() - Replaces a reference to the mm's executable file and
 *                         denies write access to it.
 * @mm: The mm to change.
 * @new_exe_file: The new file to use.
 *
 * This changes mm's executable file (shown as symlink /proc/[pid]/exe).
 */
int replace_mm_exe_file(struct mm_struct *mm, struct file *new_exe_file)
{
	int ret = 0;

	/* Forbid mm->exe_file change if old file still mapped. */
	if (!mm->exe_file)
		return ret;
	return ret;
}

/*
 * Not kernel-doc: a plain comment.
 */
static void mm_init_aio(struct mm_struct *mm)
{
	spin_lock_init(&mm->ioctx_lock);
	mm->ioctx_table = NULL;
}

/**
 * fork_init: set up the task caches
 * Return: nothing.
 */
void __init fork_init(void)
{
	int i;

	set_max_threads(MAX_THREADS);
	init_task.signal->rlim[RLIMIT_NPROC].rlim_cur = max_threads/2;
}

/**
 * copy_process - create a new process as a copy of the old one
 * @pid: pid
 */
static __latent_entropy struct task_struct *copy_process(
					struct pid *pid,
					int trace,
					int node)
{
	int retval;

	retval = -ENOMEM;
	return ERR_PTR(retval);
}

#ifdef __ARCH_WANT_SYS_FORK
/**
 * sys_fork - create a child process the traditional way
 */
SYSCALL_DEFINE0(fork)
{
	struct kernel_clone_args args = {
		.exit_signal = SIGCHLD,
	};

	return kernel_clone(&args);
}
#endif

/**
 * sys_unshare - disassociate parts of the process execution context
 * @unshare_flags: flags
 */
SYSCALL_DEFINE1(unshare, unsigned long, unshare_flags)
{
	int err;

	err = ksys_unshare(unshare_flags);
	return err;
}
'''

STRING = b'''// SPDX-License-Identifier: GPL-2.0
/**
 * strlen - Find the length of a string
 * @s: The string to be sized
 *
 * returns the length of @s
 */
#ifdef __HAVE_ARCH_STRLEN
size_t strlen(const char *s)
{
	/* the end is found by the hardware */
	return __strend(s) - s;
}
EXPORT_SYMBOL(strlen);
#endif

/** strnlen - not kernel-doc: text on the opening line */
size_t strnlen(const char *s, size_t n)
{
	const char *end = __strnend(s, n);

	return end - s;
}

/**
 * DOC: string helpers
 *
 * This is an overview, not a function's documentation.
 */
int strcmp(const char *s1, const char *s2)
{
	int ret = 0;

	ret = __strcmp(s1, s2);
	return ret;
}
'''

# A sparse annotation the parser cannot place makes the first body run on into the next
# function (net/mac80211/agg-tx.c).
OVERRUN = b'''/**
 * ieee80211_stop_queue_agg - stop the queue for an aggregation session
 * @sdata: interface
 */
static void __acquires(agg_queue)
ieee80211_stop_queue_agg(struct ieee80211_sub_if_data *sdata, int tid)
{
	int queue = sdata->vif.hw_queue[ieee80211_ac_from_tid(tid)];

	if (atomic_inc_return(&sdata->local->agg_queue_stop[queue]) == 1)
		ieee80211_stop_queue_by_reason(&sdata->local->hw, queue, false);
	__acquire(agg_queue);
}

static void __releases(agg_queue)
ieee80211_wake_queue_agg(struct ieee80211_sub_if_data *sdata, int tid)
{
	int queue = sdata->vif.hw_queue[ieee80211_ac_from_tid(tid)];

	if (atomic_dec_return(&sdata->local->agg_queue_stop[queue]) == 0)
		ieee80211_wake_queue_by_reason(&sdata->local->hw, queue, false);
	__release(agg_queue);
}

static void
ieee80211_agg_stop_txq(struct sta_info *sta, int tid)
{
	struct ieee80211_txq *txq = sta->sta.txq[tid];

	if (!txq)
		return;
}
'''


def _by_name(content: bytes) -> dict:
    from qidf_research.corpora.c import c_functions

    return {c.qualname: c for c in c_functions("kernel/fork.c", content, "linux-source-6.1")}


def test_kernel_doc_summary_forms() -> None:
    from qidf_research.corpora.c import kernel_doc_name, kernel_doc_summary

    assert kernel_doc_summary("/**\n * foo() - Do a thing.\n * @a: arg\n */") == "Do a thing."
    assert kernel_doc_summary("/**\n * foo - first\n * second line\n *\n * Long.\n */") == (
        "first second line")
    assert kernel_doc_summary("/**\n * foo: colon form\n * Return: 0\n */") == "colon form"
    assert kernel_doc_summary("/**\n * sys_flock: - flock() system call.\n */") == (
        "flock() system call.")
    assert kernel_doc_summary("/**\n * foo -\n * on the next line\n * @a: x\n */") == (
        "on the next line")
    assert kernel_doc_summary("/**\n * void *foo(void) - typed\n */") == "typed"
    # Not kernel-doc: no separator, a struct, a DOC: block, text on the opening line.
    assert kernel_doc_summary("/**\n * Returns the length\n */") == ""
    assert kernel_doc_summary("/**\n * struct foo - a struct\n */") == ""
    assert kernel_doc_summary("/**\n * DOC: Overview\n */") == ""
    assert kernel_doc_summary("/** foo - one line */") == ""
    assert kernel_doc_summary("/*\n * foo - plain comment\n */") == ""
    assert kernel_doc_name("/**\n * foo() - x\n */") == "foo"
    assert kernel_doc_name("/*\n * foo() - x\n */") is None
    assert kernel_doc_name("/**\n * DOC: Overview\n */") is None


def test_functions_docs_and_code() -> None:
    fns = _by_name(FORK)
    assert fns["get_task_mm"].doc == "acquire a reference to the task's mm"
    assert fns["replace_mm_exe_file"].doc == (
        "Replaces a reference to the mm's executable file and denies write access to it.")
    assert fns["mm_init_aio"].doc == ""  # plain /* */ comment
    assert fns["fork_init"].doc == "set up the task caches"
    code = fns["get_task_mm"].code
    assert code.startswith("struct mm_struct *get_task_mm(struct task_struct *task)\n{")
    assert code.endswith("return mm;\n}")
    assert "acquire a reference" not in code and "EXPORT_SYMBOL" not in code
    assert fns["fork_init"].code.startswith("void __init fork_init(void)")
    # Comments are not code tokens; identifiers and string literals are.
    assert "/* Forbid mm->exe_file change if old file still mapped. */" not in (
        fns["replace_mm_exe_file"].tokens)
    assert "mm" in fns["replace_mm_exe_file"].tokens
    assert all(c.package == "linux-source-6.1" and c.has_body for c in fns.values())


def test_split_head_and_macro_defined_functions() -> None:
    fns = _by_name(FORK)
    cp = fns["copy_process"]
    assert cp.doc == "create a new process as a copy of the old one"
    assert cp.code.startswith("static __latent_entropy struct task_struct *copy_process(")
    assert fns["SYSCALL_DEFINE0(fork)"].name == "fork"
    assert fns["SYSCALL_DEFINE0(fork)"].doc == "create a child process the traditional way"
    un = fns["SYSCALL_DEFINE1(unshare)"]
    assert un.name == "unshare"
    assert un.doc == "disassociate parts of the process execution context"
    assert un.code.startswith("SYSCALL_DEFINE1(unshare, unsigned long, unshare_flags)\n{")
    assert un.code.endswith("return err;\n}")
    assert "ksys_unshare" in un.tokens
    bpf = _by_name(b"""/**
 * bpf_map_push_elem - push an element onto a map
 * @map: the map
 */
BPF_CALL_3(bpf_map_push_elem, struct bpf_map *, map, void *, value, u64, flags)
{
\treturn map->ops->map_push_elem(map, value, flags);
}

/**
 * FOO - an upper-case name is not a macro call
 */
int FOO(void)
{
\treturn 0;
}
""")
    assert bpf["BPF_CALL_3(bpf_map_push_elem)"].doc == "push an element onto a map"
    assert bpf["FOO"].name == "FOO"


def test_comment_above_ifdef_and_non_kernel_doc() -> None:
    fns = _by_name(STRING)
    assert fns["strlen"].doc == "Find the length of a string"
    assert fns["strlen"].code.startswith("size_t strlen(const char *s)")
    assert "__HAVE_ARCH_STRLEN" not in fns["strlen"].code
    assert fns["strnlen"].doc == ""
    assert fns["strcmp"].doc == ""


def test_body_that_runs_on_is_dropped() -> None:
    from qidf_research.corpora.c import c_functions

    cands = c_functions("net/mac80211/agg-tx.c", OVERRUN, "linux-source-6.1")
    runaway = [c for c in cands if "ieee80211_wake_queue_agg" in c.code
               and "ieee80211_stop_queue_agg" in c.code]
    assert runaway and not any(c.has_body for c in runaway)


def test_skip_reasons_and_spdx() -> None:
    from qidf_research.corpora.c import c_skip_reason, spdx_license

    assert c_skip_reason(FORK) is None
    assert c_skip_reason(b"/* Do not edit this file! It was automatically generated */\n"
                         b"/**\n * f - x\n */\nint f(void) { return 0; }\n") == "generated"
    assert c_skip_reason(b"/* interrupts generated by the CPU */\nint f(void);\n") == (
        "no kernel-doc comment")
    assert spdx_license(FORK) == "GPL-2.0-only"
    assert spdx_license(b"/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */\n") == (
        "(GPL-2.0 OR MIT)")
    assert spdx_license(b"int x;\n") is None


def test_build_c_stamps_file_license(tmp_path: Path) -> None:
    from qidf_research.corpora.c import build_c

    root = tmp_path / "linux"
    (root / "kernel").mkdir(parents=True)
    (root / "kernel" / "fork.c").write_bytes(FORK)
    (root / "lib").mkdir()
    (root / "lib" / "string.c").write_bytes(STRING.replace(b"// SPDX-License-Identifier: "
                                                           b"GPL-2.0\n", b""))
    (root / "lib" / "test_string.c").write_bytes(STRING)
    stats = BuildStats()
    pairs = build_c([PackageDir("linux-source-6.1", "6.1.176-1", "GPL-2", root)], stats)
    by = {p.name: p for p in pairs}
    assert by["get_task_mm"].id == "c:linux-source-6.1@6.1.176-1/kernel/fork.c:get_task_mm"
    assert by["get_task_mm"].license == "GPL-2.0-only"  # the file's SPDX line
    assert by["strlen"].license == "GPL-2"  # no SPDX line: the package's
    assert by["strlen"].version == "6.1.176-1"
    assert "mm_init_aio" not in by
    assert stats.files_skipped["test path"] == 1
    assert stats.kept == len(pairs)


def _sources_c():
    from qidf_research.sources import c as sources_c

    return sources_c


def test_wanted_members() -> None:
    sc = _sources_c()
    assert sc.wanted("linux-source-6.1/mm/slab.c", []) == "mm/slab.c"
    assert sc.wanted("linux-source-6.1/mm/slab.h", []) is None
    assert sc.wanted("linux-source-6.1/net/core/dev.c", ["net/core"]) == "net/core/dev.c"
    assert sc.wanted("linux-source-6.1/net/coreless.c", ["net/core"]) is None
    assert sc.wanted("linux-source-6.1/mm/slab.c", ["kernel", "net/core"]) is None
    assert sc.wanted("linux-source-6.1/../../etc/evil.c", []) is None


def test_unpack_sources_once(tmp_path: Path) -> None:
    sc = _sources_c()
    root = tmp_path / "pkg" / "root"
    (root / "usr" / "src").mkdir(parents=True)
    with tarfile.open(root / "usr" / "src" / "linux-source-6.1.tar.xz", "w:xz") as tf:
        for name, data in (("linux-source-6.1/kernel/fork.c", FORK),
                           ("linux-source-6.1/include/linux/mm.h", b"int x;\n"),
                           ("linux-source-6.1/lib/string.c", STRING)):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    pkg = PackageDir("linux-source-6.1", "6.1.176-1", "GPL-2", root)
    logs: list[str] = []
    dest = sc.unpack_sources(pkg, ["kernel"], logs.append)
    assert (dest / "kernel" / "fork.c").read_bytes() == FORK
    assert not (dest / "lib").exists() and not (dest / "include").exists()
    assert json.loads((dest / ".done").read_text()) == ["kernel"]
    n = len(logs)
    assert sc.unpack_sources(pkg, ["kernel"], logs.append) == dest and len(logs) == n
    sc.unpack_sources(pkg, [], logs.append)  # another pin unpacks again
    assert (dest / "lib" / "string.c").is_file()
