"""Query, qrels and run files in the formats BEIR/CoIR and TREC tools write.

- queries: ``.jsonl``, one ``{"_id": ..., "text": ...}`` a line (BEIR; ``id``/``qid`` and
  ``query`` are accepted too), or ``.tsv``, ``qid<TAB>text`` a line (text on one line).
- qrels: TREC (``qid 0 docid rel``, whitespace-separated) or BEIR's TSV
  (``query-id<TAB>corpus-id<TAB>score``, header line optional).
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from pathlib import Path

from qidf_ctl.errors import NotFoundError, UsageError

Qrels = dict[str, dict[str, int]]


def read_queries(path: str | Path) -> dict[str, str]:
    """Queries from BEIR-style JSONL or a ``qid<TAB>text`` TSV, in file order."""
    path = Path(path)
    out: dict[str, str] = {}
    try:
        fh = open(path, encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise _unreadable("queries", path, exc) from None
    with fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            if path.suffix == ".jsonl" or line.lstrip().startswith("{"):
                try:
                    row = json.loads(line)
                    qid = next(str(row[k]) for k in ("_id", "id", "qid", "query_id") if k in row)
                    text = next(str(row[k]) for k in ("text", "query") if k in row)
                except (ValueError, StopIteration):
                    raise UsageError(f"{path}:{lineno}: expected a JSON object with \"_id\" and "
                                     "\"text\"") from None
            else:
                qid, sep, text = line.rstrip("\r\n").partition("\t")
                if not sep:
                    raise UsageError(f"{path}:{lineno}: expected qid<TAB>text (or use .jsonl)")
            if qid in out:
                raise UsageError(f"{path}:{lineno}: query id {qid!r} appears twice")
            out[qid] = text
    if not out:
        raise UsageError(f"queries file {path} holds no queries")
    return out


def read_qrels(path: str | Path) -> Qrels:
    """Relevance judgements from TREC qrels (4 columns) or BEIR TSV (3 columns)."""
    path = Path(path)
    out: Qrels = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise _unreadable("qrels", path, exc) from None
    for lineno, line in enumerate(lines, 1):
        parts = line.split()
        if not parts or (lineno == 1 and parts[0] in ("query-id", "query_id", "qid")):
            continue
        if len(parts) == 4:
            qid, _, doc, rel = parts
        elif len(parts) == 3:
            qid, doc, rel = parts
        else:
            raise UsageError(f"{path}:{lineno}: expected 'qid 0 docid rel' (TREC) or "
                             f"'qid<TAB>docid<TAB>rel' (BEIR), got {len(parts)} fields")
        try:
            out.setdefault(qid, {})[doc] = int(float(rel))
        except ValueError:
            raise UsageError(f"{path}:{lineno}: relevance must be a number, got {rel!r}") from None
    if not out:
        raise UsageError(f"qrels file {path} holds no judgements")
    return out


def write_queries(queries_: Mapping[str, str], path: str | Path) -> None:
    """BEIR-style JSONL, for tasks built from pairs (code has newlines: TSV cannot hold it)."""
    with open(path, "w", encoding="utf-8") as fh:
        for qid, text in queries_.items():
            fh.write(json.dumps({"_id": qid, "text": text}, ensure_ascii=False) + "\n")


def write_qrels(qrels: Mapping[str, Mapping[str, int]], path: str | Path) -> None:
    """TREC qrels."""
    with open(path, "w", encoding="utf-8") as fh:
        for qid in qrels:
            for doc, rel in qrels[qid].items():
                fh.write(f"{qid} 0 {doc} {rel}\n")


def sample_queries(queries_: dict[str, str], qrels: Qrels, max_queries: int | None,
                   seed: int = 0) -> tuple[dict[str, str], Qrels]:
    """Judged queries only, or a seeded sample of them; qrels cut to match."""
    judged = [q for q in queries_ if q in qrels]
    if not judged:
        raise UsageError("no query id in the queries file has a judgement in the qrels file")
    if max_queries is not None and 0 < max_queries < len(judged):
        keep = set(random.Random(seed).sample(judged, max_queries))
        judged = [q for q in judged if q in keep]
    return {q: queries_[q] for q in judged}, {q: qrels[q] for q in judged}




def _unreadable(what: str, path: Path, exc: OSError) -> UsageError | NotFoundError:
    if isinstance(exc, FileNotFoundError):
        return NotFoundError(f"{what} file {path} not found")
    return UsageError(f"cannot read {what} file {path}: {exc.strerror}")
