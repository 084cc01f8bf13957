"""Build one task: the pinned repository, its corpus, its index, the judgments from its
history (``qidf judgments git``, whose time split the benchmark keeps), the 1,000 older
messages the label-free decision gets as its sample, and each file's token count."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from qidf_ctl.cluster import Cluster
from qidf_ctl.evaluation.files import Qrels, write_queries
from qidf_ctl.stats.query_sample import QUERY_SAMPLE, sample_ids
from qidf_research.filetasks import corpus, doc_tokens, index, judgments, layout, pin, split
from qidf_research.filetasks.sources import Source

Log = Callable[[str], None]
MAX_COMMITS = 4000


@dataclass
class Built:
    source: Source
    folder: layout.TaskFolder
    repo: Path
    index: str
    docs: dict[str, str]
    tokens: dict[str, int]
    queries: dict[str, str]
    qrels: Qrels
    split: split.Split
    manifest: dict[str, object]
    judgments_summary: dict[str, object]


def _corpus(source: Source, repo: Path, folder: layout.TaskFolder, log: Log
            ) -> tuple[dict[str, str], dict[str, object]]:
    manifest_path = folder.corpus / "corpus-manifest.json"
    if manifest_path.exists() and (folder.corpus / "corpus.jsonl").exists():
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        fresh = corpus.Corpus(source.commit, {}, 0).manifest()
        if all(manifest.get(k) == fresh[k] for k in ("commit", "max_bytes", "rules")):
            return corpus.read(folder.corpus), manifest
    log(f"{source.key}: reading the files of {source.commit[:12]}")
    built = corpus.build(repo, source.commit)
    corpus.write(built, folder.corpus)
    return built.docs, built.manifest()


def _judgments(repo: Path, name: str, folder: layout.TaskFolder, url: str, max_n: int,
               fingerprint: str, log: Log) -> dict[str, object]:
    """Run the judgments command unless its last run (same command, same index) stands."""
    marker = folder.judgments / "run.json"
    argv = judgments.command(repo, name, index.PATH_FIELD, folder.judgments, max_n=max_n)
    wanted = {"argv": ["qidf", *argv[3:]], "index_fingerprint": fingerprint}
    if marker.exists():
        done = json.loads(marker.read_text(encoding="utf-8"))
        if {k: done.get(k) for k in wanted} == wanted:
            return dict(done)
    log(f"{name}: qidf judgments git {repo}")
    summary = judgments.write(repo, name, index.PATH_FIELD, folder.judgments, url=url,
                              max_n=max_n)
    record = {**wanted, **summary}
    marker.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return record


def _write_split(folder: layout.TaskFolder, queries: dict[str, str], sp: split.Split) -> None:
    older = {q: queries[q] for q in sp.older}
    write_queries({q: older[q] for q in sample_ids(older, QUERY_SAMPLE, 0)}, folder.sample)
    folder.split.write_text(json.dumps(sp.as_dict()) + "\n", encoding="utf-8")


def build(source: Source, cluster: Cluster, url: str, *, max_commits: int = MAX_COMMITS,
          log: Log = print) -> Built:
    repo = pin.pinned(source)
    folder = layout.task(source.key)
    docs, manifest = _corpus(source, repo, folder, log)
    name = index.name(source.key)
    index.ensure(cluster, name, docs, log)
    summary = _judgments(repo, name, folder, url, max_commits, index.fingerprint(docs), log)
    judged = judgments.read(folder.judgments)
    sp = split.of(judged)
    _write_split(folder, judged.queries, sp)
    tokens = doc_tokens.counts(docs, folder.root)
    folder.task.write_text(json.dumps({
        "key": source.key, "repo": source.repo, "commit": source.commit,
        "language": source.language, "family": source.family, "license": source.license,
        "index": name, "path_field": index.PATH_FIELD, "content_field": index.CONTENT_FIELD,
        "path_text_field": index.PATH_TEXT_FIELD, "mapping": index.MAPPING,
        "corpus": manifest, "judgments": summary, "queries": len(judged.queries),
        "older": len(sp.older), "newer": len(sp.newer), "newer_from": sp.newer_from,
        "max_commits": max_commits,
    }, indent=1) + "\n", encoding="utf-8")
    return Built(source, folder, repo, name, docs, tokens, judged.queries, judged.qrels, sp,
                 manifest, summary)
