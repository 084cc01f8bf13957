"""Query, qrels and run files in the formats BEIR/CoIR and TREC tools write.

- queries: ``.jsonl``, one ``{"_id": ..., "text": ...}`` a line (BEIR; ``id``/``qid``/
  ``query_id`` and ``query`` are accepted too, other keys such as ``metadata`` ignored), or
  ``.tsv``, ``qid<TAB>text`` a line (text on one line).
- qrels: TREC (``qid 0 docid rel``, whitespace-separated) or BEIR's TSV
  (``query-id<TAB>corpus-id<TAB>score``, header line optional). A relevance is an integer
  from -100 to 100 (``1.0`` is read as 1; 0 and below are not relevant, as in trec_eval);
  a document judged twice must be judged the same.

Every file is read through ``qidf_ctl.textfile`` (UTF-8 text, no folder, no binary), and
every line that does not fit is one usage error naming the file, the line and what a line
must look like.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Mapping
from pathlib import Path

from qidf_ctl import textfile
from qidf_ctl.errors import UsageError

Qrels = dict[str, dict[str, int]]
ID_KEYS = ("_id", "id", "qid", "query_id")
TEXT_KEYS = ("text", "query")
MAX_RELEVANCE = 100  # NDCG's gain is 2^rel - 1: far beyond any graded scale, still finite
QRELS_HEADER = ("query-id", "query_id", "qid")
_INTEGER = re.compile(r"[+-]?[0-9]{1,30}")


def _json_query(file: textfile.TextFile, lineno: int, line: str) -> tuple[str, str]:
    expected = 'expected a JSON object such as {"_id": "q1", "text": "..."}'
    try:
        row = textfile.loads_json(line)
    except ValueError as exc:
        raise file.error(f"not valid JSON: {exc}; {expected}", lineno) from None
    if not isinstance(row, dict):
        raise file.error(f"{expected}, got {textfile.kind_of(row)}", lineno)
    id_key = next((k for k in ID_KEYS if k in row), None)
    text_key = next((k for k in TEXT_KEYS if k in row), None)
    if id_key is None or text_key is None:
        missing = '"_id"' if id_key is None else '"text"'
        raise file.error(f"the object has no {missing} key; {expected}", lineno)
    qid, text = row[id_key], row[text_key]
    if isinstance(qid, bool) or not isinstance(qid, str | int) or not str(qid).strip():
        raise file.error(f'"{id_key}" must be a non-empty string (or an integer), got '
                         f"{textfile.kind_of(qid)}", lineno)
    if not isinstance(text, str):
        raise file.error(f'"{text_key}" must be a string, got {textfile.kind_of(text)}',
                         lineno)
    return str(qid), text


def read_queries(path: str | Path, option: str = "--queries") -> dict[str, str]:
    """Queries from BEIR-style JSONL or a ``qid<TAB>text`` TSV, in file order."""
    file = textfile.read(path, "queries file", option)
    jsonl = Path(file.path).suffix in (".jsonl", ".json")
    out: dict[str, str] = {}
    for lineno, line in file.lines():
        if not line.strip():
            continue
        if jsonl or line.lstrip().startswith(("{", "[")):
            if line.lstrip().startswith("["):
                raise file.error("a JSON array: write one JSON object a line (JSONL), "
                                 'e.g. {"_id": "q1", "text": "..."}', lineno)
            qid, text = _json_query(file, lineno, line)
        else:
            qid, sep, text = line.partition("\t")
            if not sep or not qid.strip():
                raise file.error("expected qid<TAB>text (or a .jsonl file of "
                                 '{"_id": ..., "text": ...} objects)', lineno)
        if qid in out:
            raise file.error(f"query id {textfile.shown(qid)} appears twice", lineno)
        out[qid] = text
    if not out:
        raise file.error("holds no queries")
    return out


def _relevance(file: textfile.TextFile, lineno: int, text: str) -> int:
    if _INTEGER.fullmatch(text):
        value = int(text)
    else:
        try:
            number = float(text)
        except ValueError:
            number = math.nan
        if not (math.isfinite(number) and number == int(number)):
            raise file.error(f"relevance must be an integer, got {textfile.shown(text)}",
                             lineno)
        value = int(number)
    if abs(value) > MAX_RELEVANCE:
        raise file.error(f"relevance must be from {-MAX_RELEVANCE} to {MAX_RELEVANCE}, got "
                         f"{textfile.shown(text)}", lineno)
    return value


def read_qrels(path: str | Path, option: str = "--qrels") -> Qrels:
    """Relevance judgements from TREC qrels (4 columns) or BEIR TSV (3 columns)."""
    file = textfile.read(path, "qrels file", option)
    out: Qrels = {}
    for lineno, line in file.lines():
        parts = textfile.fields(line)
        if not parts or (lineno == 1 and parts[0] in QRELS_HEADER):
            continue
        if len(parts) == 4:
            qid, _, doc, rel = parts
        elif len(parts) == 3:
            qid, doc, rel = parts
        else:
            raise file.error(f"expected 'qid 0 docid rel' (TREC) or 'qid<TAB>docid<TAB>rel' "
                             f"(BEIR), got {len(parts)} fields", lineno)
        value = _relevance(file, lineno, rel)
        judged = out.setdefault(qid, {})
        if judged.get(doc, value) != value:
            raise file.error(f"query {textfile.shown(qid)} judges document "
                             f"{textfile.shown(doc)} twice, {judged[doc]} and {value}", lineno)
        judged[doc] = value
    if not out:
        raise file.error("holds no judgements")
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

