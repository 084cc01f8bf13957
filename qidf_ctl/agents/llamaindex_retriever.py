"""A LlamaIndex retriever (``llama-index-core``'s ``BaseRetriever``) over ``Retrieval``: nodes
ranked by q-log BM25 on the cluster, with their scores and metadata; extra ``llamaindex``.

llama-index-core 0.14 ships the NLTK data it uses (stopwords, punkt) inside its wheel and
reads it only when a text splitter asks for it, so importing it and retrieving work offline;
``NLTK_DATA`` would point it elsewhere.

    from qidf_ctl.agents.llamaindex_retriever import QidfLlamaRetriever
    retriever = QidfLlamaRetriever.from_index(cluster, "code-search", q=0.3,
                                              similarity_top_k=5)
    nodes = retriever.retrieve("func (h *Header) FileInfo() fs.FileInfo")
"""

from __future__ import annotations

from typing import Any

from qidf_ctl.agents.retrieval import MAX_BUDGET, Retrieval
from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import missing_extra

try:
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
except ImportError as exc:  # one line naming the extra, like every missing dependency
    raise missing_extra("the LlamaIndex retriever", "llamaindex", "llama-index-core") from exc


class QidfLlamaRetriever(BaseRetriever):
    """The ``similarity_top_k`` best nodes of one index; with ``budget_tokens``, only as many
    as fit that many LLM tokens together (Recall@8K-tokens' walk). Each node's id is the
    document id; its metadata holds the score, rank, tokens, index, ranking method and q,
    and the stored document's short fields."""

    def __init__(self, retrieval: Retrieval, *, similarity_top_k: int = 10,
                 budget_tokens: int | None = None, **options: Any) -> None:
        self.retrieval = retrieval
        self.similarity_top_k = similarity_top_k
        self.budget_tokens = budget_tokens
        super().__init__(**options)

    @classmethod
    def from_index(cls, cluster: Cluster, index: str, *, q: str | float = "auto",
                   field: str | None = None, **options: Any) -> QidfLlamaRetriever:
        """Read ``index`` once and decide its ranking (``Retrieval.connect``)."""
        return cls(Retrieval.connect(cluster, index, q=q, field=field), **options)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        budget = MAX_BUDGET if self.budget_tokens is None else self.budget_tokens
        result = self.retrieval.search(query_bundle.query_str, max_hits=self.similarity_top_k,
                                       budget_tokens=budget)
        return [NodeWithScore(node=TextNode(text=hit.text, id_=hit.id,
                                            metadata=result.hit_metadata(hit)),
                              score=hit.score)
                for hit in result.hits]
