"""A LangChain retriever (``langchain-core``'s ``BaseRetriever``) over ``Retrieval``: documents
ranked by q-log BM25 on the cluster, with their scores and metadata; extra ``langchain``.

    from qidf_ctl.agents.langchain_retriever import QidfRetriever
    retriever = QidfRetriever.from_index(cluster, "code-search", q=0.3, k=5)
    docs = retriever.invoke("func (h *Header) FileInfo() fs.FileInfo")
"""

from __future__ import annotations

from typing import Any

from qidf_ctl.agents.retrieval import MAX_BUDGET, Retrieval
from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import missing_extra

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ImportError as exc:  # one line naming the extra, like every missing dependency
    raise missing_extra("the LangChain retriever", "langchain", "langchain-core") from exc


class QidfRetriever(BaseRetriever):
    """The ``k`` best documents of one index (``k`` may also be passed to ``invoke``); with
    ``budget_tokens``, only as many of them as fit that many LLM tokens together, walked as
    Recall@8K-tokens walks them. ``metadata`` of each document: its id, score, rank, tokens,
    the index, the ranking method and q, and the stored document's short fields."""

    retrieval: Retrieval
    k: int = 10
    budget_tokens: int | None = None

    @classmethod
    def from_index(cls, cluster: Cluster, index: str, *, q: str | float = "auto",
                   field: str | None = None, **fields: Any) -> QidfRetriever:
        """Read ``index`` once and decide its ranking (``Retrieval.connect``)."""
        return cls(retrieval=Retrieval.connect(cluster, index, q=q, field=field), **fields)

    def _get_relevant_documents(self, query: str, *,
                                run_manager: CallbackManagerForRetrieverRun,
                                k: int | None = None,
                                budget_tokens: int | None = None) -> list[Document]:
        budget = budget_tokens if budget_tokens is not None else self.budget_tokens
        result = self.retrieval.search(query, max_hits=self.k if k is None else k,
                                       budget_tokens=MAX_BUDGET if budget is None else budget)
        return [Document(page_content=hit.text, id=hit.id, metadata=result.hit_metadata(hit))
                for hit in result.hits]
