"""Code retrieval for agents and applications, over the cluster users already run.

``retrieval`` is the core (hits packed into a token budget, a document by id, how the index
is ranked), ``ranking`` decides the ranking once (an installed q-log similarity, else q-log at
query time). Three thin layers sit on it, each behind its own extra and imported only when
used: ``mcp_tools`` (a Model Context Protocol server, ``qidf mcp``; extra ``mcp``),
``langchain_retriever`` (extra ``langchain``) and ``llamaindex_retriever`` (extra
``llamaindex``).
"""

from qidf_ctl.agents.ranking import Ranking, decide
from qidf_ctl.agents.retrieval import Hit, Retrieval, SearchResult

__all__ = ["Hit", "Ranking", "Retrieval", "SearchResult", "decide"]
