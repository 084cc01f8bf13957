"""Does a field's analyzer already split identifiers? Asked of the engine, by example.

qidf is for fields whose analyzer keeps ``handleWebSocketUpgrade`` as one token. When the
analyzer already breaks identifiers into words (``word_delimiter_graph``, a pattern or letter
tokenizer, ...), rare identifiers stop being one-off tokens and the benchmark's
identifier-analyzer corpora show the density gate misreading them: Ruby docstrings under
such an analyzer sit above the gate yet lose 0.043 NDCG@10 at q = 0.6 (predictor.md). So the
default predictor keeps BM25 on those fields.

Reading the analysis settings would miss custom tokenizers and plugin filters; asking
``_analyze`` with the field's own analyzer sees exactly what indexing does. A field counts as
splitting when either naming style is broken into parts (either one is enough to change the
field's rare-token statistics, and keeping BM25 is the safe side).
"""

from __future__ import annotations

from .cluster import Cluster

PROBES = {"camelCase": "handleWebSocketUpgrade", "snake_case": "handle_web_socket_upgrade"}
PART = "socket"  # a word inside both probes that a splitting analyzer emits on its own


def split_styles(cluster: Cluster, index: str, field: str) -> list[str]:
    """The naming styles (keys of PROBES) the field's analyzer breaks into words."""
    styles = []
    for style, text in PROBES.items():
        resp = cluster.request("POST", f"/{index}/_analyze", {"field": field, "text": text})
        if PART in {str(t.get("token", "")).lower() for t in resp.get("tokens", [])}:
            styles.append(style)
    return styles
