"""The LangChain and LlamaIndex retrievers on the real engine: LangChain's own standard suite
(``langchain-tests``' ``RetrieversIntegrationTests``) run unchanged against the Go docstrings,
and both retrievers returning exactly the MCP core's ranking."""

from __future__ import annotations

import pytest

from qidf_ctl import install
from qidf_ctl.agents import Retrieval

pytestmark = pytest.mark.integration
pytest.importorskip("langchain_core")
standard = pytest.importorskip("langchain_tests.integration_tests")

from qidf_ctl.agents.langchain_retriever import QidfRetriever  # noqa: E402

QUERY = "func (h *Header) FileInfo() fs.FileInfo { return headerFileInfo{h} }"


@pytest.fixture(scope="module")
def retrieval(cluster, parity_index) -> Retrieval:
    install.revert(cluster, parity_index)
    return Retrieval.connect(cluster, parity_index, q=0.3)


class TestQidfRetriever(standard.RetrieversIntegrationTests):
    """LangChain's standard retriever tests; ``k`` is the number of results."""

    @pytest.fixture(autouse=True)
    def _retrieval(self, retrieval):
        type(self).shared = retrieval

    @property
    def retriever_constructor(self) -> type[QidfRetriever]:
        return QidfRetriever

    @property
    def retriever_constructor_params(self) -> dict:
        return {"retrieval": type(self).shared, "k": 5}

    @property
    def retriever_query_example(self) -> str:
        return QUERY


def test_both_retrievers_rank_as_the_core(retrieval):
    pytest.importorskip("llama_index.core")
    from qidf_ctl.agents.llamaindex_retriever import QidfLlamaRetriever

    core = retrieval.search(QUERY, max_hits=10, budget_tokens=1_000_000)
    docs = QidfRetriever(retrieval=retrieval, k=10).invoke(QUERY)
    nodes = QidfLlamaRetriever(retrieval, similarity_top_k=10).retrieve(QUERY)
    expected = [(h.id, h.score) for h in core.hits]
    assert [(d.id, d.metadata["score"]) for d in docs] == expected
    assert [(n.node.node_id, n.score) for n in nodes] == expected
    assert "go:src/archive/tar/common.go:Header.FileInfo" in [d.id for d in docs[:3]]
    assert docs[0].metadata["q"] == 0.3 and docs[0].metadata["method"] == "query-time"
    budgeted = QidfRetriever(retrieval=retrieval, k=10, budget_tokens=40).invoke(QUERY)
    assert 0 < len(budgeted) < 10 and sum(d.metadata["tokens"] for d in budgeted) <= 40
