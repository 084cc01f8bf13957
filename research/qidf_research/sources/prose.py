"""More natural-language controls: five English documentation sets, query -> answering passage.

The benchmark checks that the q predictor leaves prose alone (q near 1, never more than 0.005
NDCG@10 below BM25). The man pages (``prose_task`` in corpus_sources.py) were the only prose
corpus; these five add evidence across corpus sizes (177 to 6,634 documents), document
lengths (medians of 97 to 169 words; means of 165 to 759, Perl's having a few of 10,000+)
and writing styles:

- ``gitman-prose``: Git's manual pages (Debian ``git-man``), the NAME line's summary ("Add file
  contents to the index") -> the DESCRIPTION section. 177 pages: the smallest corpus.
- ``perlpod-prose``: Perl's POD documentation (``perl-doc`` pods such as perlre, plus the
  modules' POD in ``perl-modules-5.36`` and ``libperl5.36``), the NAME line's summary
  ("Simple Getopt::Long replacement") -> the DESCRIPTION section.
- ``pydoc-prose``: the Python 3.11 documentation (``python3.11-doc`` HTML: library reference,
  tutorial, HOWTOs, FAQ, language reference, C API), each section's heading ("Reading and
  Writing Files", "How do I copy a file?") -> the section's own text (not its subsections).
- ``pgdoc-prose``: the PostgreSQL 15 manual (``postgresql-doc-15`` HTML), each section's
  heading ("Check Constraints") -> its own text, and each reference page's purpose line
  ("define a new table" for CREATE TABLE) -> its Description section.
- ``kerneldoc-prose``: the Linux 6.1 documentation (``linux-doc-6.1`` HTML: admin guide,
  driver and subsystem guides, process documents), each section's heading -> its own text:
  the largest corpus. Translations, the generated ABI pages and every section holding
  kernel-doc API entries (comments extracted from C, i.e. docstrings) are left out.

Why these are fair controls: queries and documents were both written by the projects' authors
as documentation; nothing of the query is derived from the document by us. The summary or
heading is a separate field (NAME, a heading element), never part of the document, and a
document that starts with its own query has it stripped. Code is removed from the documents
(roff no-fill blocks, POD verbatim paragraphs, HTML ``<pre>``, API signatures), and so is
metadata (Sphinx field lists such as "Author:"), so what is left is prose with the inline
identifiers a technical writer uses, like the man pages. Section numbers ("5.4.1.") and a
name before an em dash ("json — ") are removed from headings: the rest is the written
summary. As in ``prose_task``: queries under 3 tokens (``rules.doc_tokens``) and documents
under 10 words go. Unlike it, a query shared by several documents is ambiguous, so every
copy goes: generic headings ("Notes and examples") and templates differing only in a number
("Kernel driver lm63", "Release 15.10", "what is new for perl v5.20.1"); so do documents
with identical text.

Pins: the ``prose-extra`` key of benchmarks/retrieval/sources.json; every task takes its
packages from there by name. Provenance (package, version, license) is logged per corpus
and every document id starts with the corpus name and the file it came from.
"""

from __future__ import annotations

import gzip
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable

from qidf_research.corpora import RetrievalTask
from qidf_research.corpora.packaged import PackageDir
from qidf_research.corpora.rules import doc_tokens, normalize_doc
from qidf_research.sources.html_text import html_sections
from qidf_research.sources.pinned import PINS, Log, _man_sections, _roff_text, fetch_debian
from qidf_research.sources.pod import pod_summary_and_description

PIN_KEY = "prose-extra"
MIN_QUERY_TOKENS = 3
MIN_DOC_WORDS = 10
# Debian's copyright file of python3.11-doc has no machine-readable License: field.
LICENSES = {"python3.11-doc": "PSF-2.0"}

Pair = tuple[str, str, str]  # (doc id, query, document text)


# --- shared: pins, filtering, the task ----------------------------------------------------


def _packages(names: Iterable[str], log: Log) -> list[PackageDir]:
    """The pinned packages among ``names``, fetched and unpacked; provenance logged."""
    import json

    pins = dict(json.loads(PINS.read_text())[PIN_KEY]["packages"])
    out = []
    for name in names:
        pkg = fetch_debian(name, pins[name], log)
        if name in LICENSES:
            pkg = PackageDir(pkg.name, pkg.version, LICENSES[name], pkg.root)
        log(f"  source: {pkg.name} {pkg.version} ({pkg.license})")
        out.append(pkg)
    return out


def _query_key(query: str) -> str:
    """Case, whitespace and every number folded: "Release 15.1" and "Release 15.10" are one
    template filled with a version, not two summaries; so are "perl 5.10.0" and "perl v5.20.1"."""
    return normalize_doc(re.sub(r"v?\d+", "0", query))


def clean_pairs(pairs: Iterable[Pair]) -> list[Pair]:
    """The CodeSearchNet-like filters of ``prose_task``, with ambiguity removed entirely.

    Whitespace is folded; a document starting with its own query loses it; queries under 3
    tokens and documents under 10 words go; every pair whose query (case, whitespace and
    numbers folded) or document text occurs more than once goes, since no single answer is
    right: generic headings ("Notes and examples") and templates that differ only in a
    version ("what is new for perl v5.20.1", "Migration to Version 15.18").
    """
    kept = []
    for pid, query, doc in pairs:
        query, doc = " ".join(query.split()), " ".join(doc.split())
        if doc.lower().startswith(query.lower()):
            doc = doc[len(query):].lstrip(" .:-—")
        if len(doc_tokens(query)) >= MIN_QUERY_TOKENS and len(doc.split()) >= MIN_DOC_WORDS:
            kept.append((pid, query, doc))
    n_query = Counter(_query_key(query) for _, query, _ in kept)
    n_doc = Counter(normalize_doc(doc) for _, _, doc in kept)
    return [(pid, query, doc) for pid, query, doc in kept
            if n_query[_query_key(query)] == 1 and n_doc[normalize_doc(doc)] == 1]


def _task(name: str, pairs: Iterable[Pair], max_queries: int, log: Log, seed: int
          ) -> RetrievalTask:
    """Corpus = every kept document; queries = all, or a seeded sample of ``max_queries``."""
    kept = clean_pairs(pairs)
    if len({p[0] for p in kept}) != len(kept):
        raise ValueError(f"{name}: document ids must be unique")
    corpus = {pid: doc for pid, _, doc in kept}
    queries = {pid: query for pid, query, _ in kept}
    ids = sorted(queries)
    if max_queries < len(ids):
        ids = sorted(random.Random(seed).sample(ids, max_queries))
    words = sum(len(d.split()) for d in corpus.values()) / max(len(corpus), 1)
    log(f"{name}: {len(corpus)} documents, {len(ids)} queries, {words:.0f} words per document")
    return RetrievalTask(name, corpus, {i: queries[i] for i in ids}, {i: {i: 1} for i in ids})


# --- roff (Git's DocBook-generated man pages) ----------------------------------------------

_DROP_BLOCKS = re.compile(r"^\.(nf|TS|EX|Vb)\b.*?^\.(fi|TE|EE|Ve)\b[^\n]*$", re.M | re.S)
_STRINGS = {"Aq": "'", "lq": '"', "rq": '"', "oq": "'", "cq": "'"}


def man_summary_and_description(text: str) -> tuple[str, str]:
    """(NAME summary, DESCRIPTION text) of one roff page, code and tables left out.

    ``_man_sections`` keeps no-fill blocks (``.nf``/``.fi``: the examples) as text and knows
    neither ``\\*(Aq``-style strings nor bullet arguments of ``.IP``; those are handled here.
    """
    text = _DROP_BLOCKS.sub("", text)  # examples (.nf, .EX, pod2man's .Vb) and tables
    text = re.sub(r"\\\*\((..)|\\\*\[([^\]]*)\]",
                  lambda m: _STRINGS.get(m.group(1) or m.group(2), ""), text)
    text = re.sub(r"\\\((lq|rq|oq|cq)", lambda m: _STRINGS[m.group(1)], text)
    text = re.sub(r"^\.IP\b.*$", ".IP", text, flags=re.M)
    text = re.sub(r"\\h'[^']*'|\\\(bu|\\c$", "", text, flags=re.M)  # drawn bullets
    sec = _man_sections(text)
    name = " ".join(_roff_text(x) for x in sec.get("NAME", [])).strip()
    desc = " ".join(" ".join(sec.get("DESCRIPTION", [])).split())
    desc = re.sub(r"\\\(..|\\.", "", desc)
    summary = name.split(" - ", 1)[1] if " - " in name else ""
    return summary, desc


def gitman_task(max_queries: int, log: Log, seed: int = 0) -> RetrievalTask:
    """Git's man pages: NAME summary -> DESCRIPTION (the smallest corpus, 177 pages)."""
    pairs = []
    for pkg in _packages(["git-man"], log):
        for path in sorted((pkg.root / "usr" / "share" / "man").glob("man*/*.gz")):
            text = gzip.decompress(path.read_bytes()).decode("utf-8", errors="replace")
            if text.lstrip().startswith(".so "):
                continue
            summary, desc = man_summary_and_description(text)
            pairs.append((f"gitman:{path.parent.name}/{path.name.removesuffix('.gz')}",
                          summary, desc))
    return _task("gitman-summary2description", pairs, max_queries, log, seed)


# --- POD (Perl) --------------------------------------------------------------------------

def perlpod_task(max_queries: int, log: Log, seed: int = 0) -> RetrievalTask:
    """Perl's POD: NAME summary -> DESCRIPTION, core pods plus every module's POD."""
    pairs = []
    for pkg in _packages(["perl-doc", "perl-modules-5.36", "libperl5.36"], log):
        for path in sorted(p for p in pkg.root.glob("usr/**/*.p*") if p.suffix in (".pm", ".pod")):
            rel = path.relative_to(pkg.root).as_posix()
            summary, desc = pod_summary_and_description(
                path.read_text(encoding="utf-8", errors="replace"))
            lib = re.sub(r"^usr/(share|lib/[^/]+)/perl/[\d.]+/", "", rel)
            pairs.append((f"perlpod:{lib}", summary, desc))
    return _task("perlpod-summary2description", pairs, max_queries, log, seed)


# --- HTML (Sphinx and DocBook): heading -> the section's own text ----------------------------

_NUMBER_RE = re.compile(r"^(?:(?:Chapter|Part|Appendix)\s+[\dA-Z]+\.?\s+"
                        r"|\d+(?:\.\d+)*\.\s+|\d+(?:\.\d+)+\s+|[A-Z](?:\.\d+)*\.\s+)")
_NAME_DASH_RE = re.compile(r"^\S+\s+—\s+(.+)$")


def heading_query(heading: str) -> str:
    """A heading as a query: permalink sign, section number and a leading ``name — `` go."""
    heading = _NUMBER_RE.sub("", heading.replace("¶", "").strip())
    m = _NAME_DASH_RE.match(heading)
    return (m.group(1) if m else heading).strip()


SPHINX_SKIP = ("headerlink", "highlight", "admonition-title", "sig", "toctree-wrapper",
               "contents", "footer", "related", "sphinxsidebar", "field-list")


def pydoc_task(max_queries: int, log: Log, seed: int = 0) -> RetrievalTask:
    """Python 3.11's documentation: section heading -> the section's own text."""
    pairs = []
    for pkg in _packages(["python3.11-doc"], log):
        top = pkg.root / "usr" / "share" / "doc" / "python3.11" / "html"
        for path in sorted(top.rglob("*.html")):
            rel = path.relative_to(top).as_posix()
            if rel.startswith(("_", "genindex")):
                continue
            page = path.read_text(encoding="utf-8", errors="replace")
            for n, (anchor, heading, text) in enumerate(html_sections(page, SPHINX_SKIP, "main")):
                pairs.append((f"pydoc:{rel}#{anchor or n}", heading_query(heading), text))
    return _task("pydoc-heading2section", pairs, max_queries, log, seed)


# The kernel's API sections are kernel-doc comments pulled out of C (each entry opens with a
# ``dl class="c function"``, ``c struct`` ...): docstrings, the code corpora's side, not
# documentation written as prose; a section holding one goes whole. The ABI pages are
# generated from Documentation/ABI records ("File testing/sysfs-...": headings by a script).
KERNEL_SKIP = (*SPHINX_SKIP, "rst-footer-buttons")
KERNEL_DROP = ("c",)


def kerneldoc_task(max_queries: int, log: Log, seed: int = 0) -> RetrievalTask:
    """The Linux 6.1 documentation: section heading -> own text (translations left out)."""
    pairs = []
    for pkg in _packages(["linux-doc-6.1"], log):
        top = pkg.root / "usr" / "share" / "doc" / "linux-doc-6.1" / "html"
        for path in sorted(top.rglob("*.html")):
            rel = path.relative_to(top).as_posix()
            if rel.startswith(("_", "genindex", "search", "translations/", "admin-guide/abi")):
                continue
            page = path.read_text(encoding="utf-8", errors="replace")
            sections = html_sections(page, KERNEL_SKIP, "main", KERNEL_DROP)
            for n, (anchor, heading, text) in enumerate(sections):
                pairs.append((f"kerneldoc:{rel}#{anchor or n}", heading_query(heading), text))
    return _task("kerneldoc-heading2section", pairs, max_queries, log, seed)


DOCBOOK_SKIP = ("navheader", "navfooter", "toc", "refsynopsisdiv", "footnotes")


def docbook_pairs(rel: str, page: str) -> list[Pair]:
    """Sections of one DocBook page, plus (purpose -> Description) for a reference page.

    A reference page's heading blocks are generic (Description, Parameters, Notes) and go as
    duplicates; its ``name — purpose`` line (written for the NAME of the man page made from
    it) is the page's own summary and answers with the Description section.
    """
    blocks = html_sections(page, DOCBOOK_SKIP)
    pairs = [(f"pgdoc:{rel}#{a or n}", heading_query(h), t) for n, (a, h, t) in enumerate(blocks)]
    if blocks and (m := re.fullmatch(r"(.+?) — (.+)", blocks[0][2])) and m.group(1) == blocks[0][1]:
        desc = next((t for _, h, t in blocks if h == "Description"), "")
        pairs = [p for p in pairs if p[2] != desc]
        pairs.append((f"pgdoc:{rel}#purpose", m.group(2), desc))
    return pairs


def pgdoc_task(max_queries: int, log: Log, seed: int = 0) -> RetrievalTask:
    """The PostgreSQL 15 manual: section heading -> own text; reference purpose -> Description."""
    pairs = []
    for pkg in _packages(["postgresql-doc-15"], log):
        top = pkg.root / "usr" / "share" / "doc" / "postgresql-doc-15" / "html"
        for path in sorted(top.glob("*.html")):
            if path.name.startswith(("bookindex", "index")):
                continue
            pairs += docbook_pairs(path.name, path.read_text(encoding="utf-8", errors="replace"))
    return _task("pgdoc-heading2section", pairs, max_queries, log, seed)


PROSE_TASKS: dict[str, Callable[..., RetrievalTask]] = {
    "gitman-prose": gitman_task,
    "perlpod-prose": perlpod_task,
    "pydoc-prose": pydoc_task,
    "pgdoc-prose": pgdoc_task,
    "kerneldoc-prose": kerneldoc_task,
}
