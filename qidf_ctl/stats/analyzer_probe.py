"""Does a field's analyzer already split identifiers? Asked of the engine, by example.

qidf is for fields whose analyzer keeps ``handleWebSocketUpgrade`` as one token. When the
analyzer already breaks identifiers into words (``word_delimiter_graph``, a pattern or letter
tokenizer, ...), rare identifiers stop being one-off tokens and the density gate misreads
such fields (benchmarks/retrieval/predictor.md), so the default predictor keeps BM25 there.

Reading the analysis settings would miss custom tokenizers and plugin filters; asking
``_analyze`` with the field's own analyzer sees exactly what indexing does. A field counts as
splitting when either naming style is broken into parts (either one is enough to change the
field's rare-token statistics, and keeping BM25 is the safe side).
"""

from __future__ import annotations

from qidf_ctl.cluster import Cluster, index_path

PROBES = {"camelCase": "handleWebSocketUpgrade", "snake_case": "handle_web_socket_upgrade"}
PART = "socket"  # a word inside both probes that a splitting analyzer emits on its own


def split_styles(cluster: Cluster, index: str, field: str) -> list[str]:
    """The naming styles (keys of PROBES) the field's analyzer breaks into words."""
    styles = []
    for style, text in PROBES.items():
        resp = cluster.request("POST", index_path(index, "_analyze"),
                               {"field": field, "text": text})
        if PART in {str(t.get("token", "")).lower() for t in resp.get("tokens", [])}:
            styles.append(style)
    return styles
