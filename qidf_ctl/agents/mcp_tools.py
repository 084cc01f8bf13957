"""The Model Context Protocol tools over ``Retrieval``: typed functions whose docstrings are
the descriptions a model reads and whose annotations are the JSON schemas of their arguments
(the ``mcp`` SDK derives both). No logic lives here beyond choosing the index and turning
every failure into one line: ``Retrieval`` does the work, the SDK does the transport.

Every failure is an MCP tool error (``isError``) carrying the product's one-line message,
redacted: never a traceback, in the result or in the server's log. That includes arguments
the SDK itself rejects (a wrong type, a number out of range), which pydantic would describe
over several lines.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from qidf_ctl import __version__
from qidf_ctl.agents.retrieval import DEFAULT_MAX_HITS, MAX_BUDGET, MAX_HITS, Retrieval
from qidf_ctl.cluster import redact
from qidf_ctl.cluster.redact import redact_external, redact_tree
from qidf_ctl.errors import ClusterError, NotFoundError, QidfError, UsageError
from qidf_ctl.evaluation.score import DEFAULT_BUDGET
from qidf_ctl.formula import InvalidParameter

F = TypeVar("F", bound=Callable[..., Any])

INSTRUCTIONS = (
    "Searches code indices on an Elasticsearch or OpenSearch cluster with BM25 and a "
    "q-logarithmic IDF (qidf), which ranks documents holding the rare identifiers of a query "
    "first. Use search_code with the identifiers, signatures or code you are looking for (or "
    "a question in words); each hit has an id for fetch_document. search_code packs hits "
    "into a token budget, so ask for the budget you can spend. describe_ranking says how "
    "each index is ranked and why.")
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                            open_world_hint=False)

IndexArg = Annotated[str | None, Field(
    description="The index to use, as this server names it; may be left out when the "
    "server searches one index (describe_ranking lists them).")]


def one_line(text: str) -> str:
    return redact(" ".join(str(text).split()))


def _failure(exc: BaseException) -> str:
    """A cluster's words are redacted as text from outside qidf (short secrets as whole
    tokens too): a transport that raises ClusterError itself may not have done so."""
    if isinstance(exc, ClusterError):
        return one_line(redact_external(str(exc)))
    if isinstance(exc, (QidfError, InvalidParameter)):
        return one_line(str(exc))
    return one_line(f"unexpected {type(exc).__name__}: {exc} (a qidf bug: please report it)")


def _as_tool_error(func: F) -> F:
    """Every exception of a tool body becomes one ToolError line (signature kept for the
    SDK, which reads it through ``__wrapped__``)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except ToolError:
            raise
        except Exception as exc:
            raise ToolError(_failure(exc)) from None

    return wrapper  # type: ignore[return-value]


def _validation_line(name: str, exc: ValidationError) -> str:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
        for e in exc.errors())
    return one_line(f"bad arguments for {name}: {problems}")


class QidfServer(MCPServer):
    """``MCPServer`` whose tool errors are always one redacted line: the SDK's own argument
    validation and its wrapper for a crash (which it would log with a traceback) included."""

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:
            raise ToolError(_failure(exc.__cause__ or exc)) from None
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                raise ToolError(_validation_line(name, cause)) from None
            # The SDK prefixes a tool's own message with "Error executing tool <name>: ".
            raise ToolError(one_line(str(cause if isinstance(cause, ToolError) else exc))
                            ) from None


def _result(payload: dict[str, Any]) -> CallToolResult:
    """One compact JSON text: indentation would spend the model's budget on spaces, and the
    same object again as ``structuredContent`` would double every result on the wire and cost
    about 3 ms a call to validate and serialize (measured, benchmarks/agents/); a program
    parses the text. Every string in it is redacted first as text from the cluster (a
    document may hold what a hostile server put there: the credentials it decoded)."""
    text = json.dumps(redact_tree(payload), ensure_ascii=False, separators=(",", ":"),
                      default=str)
    return CallToolResult(content=[TextContent(type="text", text=text)])


class Tools:
    """The tools of one server, over the retrievals of the indices it serves."""

    def __init__(self, retrievals: Mapping[str, Retrieval]) -> None:
        if not retrievals:
            raise UsageError("name at least one index to serve")
        self.retrievals = dict(retrievals)

    def _pick(self, index: str | None) -> Retrieval:
        names = ", ".join(sorted(self.retrievals))
        if index is None or index == "":
            if len(self.retrievals) == 1:
                return next(iter(self.retrievals.values()))
            raise UsageError(f"this server searches several indices ({names}): pass index")
        if not isinstance(index, str) or index not in self.retrievals:
            raise NotFoundError(f"unknown index {index!r}: this server searches {names}")
        return self.retrievals[index]

    @_as_tool_error
    def search_code(
        self,
        query: Annotated[str, Field(
            min_length=1, description="What to find: identifiers, a signature, a snippet or "
            "a whole function, or a question in words. Exact identifiers rank best.")],
        index: IndexArg = None,
        budget_tokens: Annotated[int, Field(
            ge=1, le=MAX_BUDGET, description="Most LLM tokens (cl100k) the hits' texts may "
            "take together; hits are added best first until the next would not fit.")]
        = DEFAULT_BUDGET,
        max_results: Annotated[int, Field(
            ge=1, le=MAX_HITS, description="Most hits to return, whatever the budget.")]
        = DEFAULT_MAX_HITS,
        q: Annotated[float | None, Field(
            ge=0, le=2, description="Override q for this search (1 is plain BM25, lower "
            "rewards rare terms more); only for indices ranked at query time. Leave it out "
            "to use the index's q.")] = None,
    ) -> CallToolResult:
        """Search a code index and get the best-ranked documents whose texts fit together in
        a token budget, best first.

        Ranking is BM25 with a q-logarithmic IDF: documents that share the query's rare
        identifiers rank first. Each hit has its rank, id (for fetch_document), score, tokens
        (the size of its text), text and short metadata fields. `stopped` says why the list
        ended: "budget" (the next hit would not fit; `next_hit_tokens` is its size),
        "max_results" or "no more hits". The budget counts the hits' texts only.
        """
        retrieval = self._pick(index)
        found = retrieval.search(query, budget_tokens=budget_tokens, max_hits=max_results,
                                 q=q)
        return _result(found.as_dict())

    @_as_tool_error
    def fetch_document(
        self,
        id: Annotated[str, Field(min_length=1, description="The id of a search_code hit.")],
        index: IndexArg = None,
    ) -> CallToolResult:
        """Fetch one document by the id a search_code hit gave: its whole text, the tokens it
        costs, and every field stored with it."""
        return _result(self._pick(index).fetch(id))

    @_as_tool_error
    def describe_ranking(self, index: IndexArg = None) -> CallToolResult:
        """Say how an index is ranked: by the q-log similarity installed on it, or with q-log
        added at query time to an index that keeps built-in BM25; the q used, where it came
        from and why, the field searched and the token counter. Without `index`: every index
        this server searches."""
        if index is None or index == "":
            chosen = list(self.retrievals.values())
        else:
            chosen = [self._pick(index)]
        return _result({"indices": [r.describe() for r in chosen]})


def build_server(retrievals: Mapping[str, Retrieval]) -> QidfServer:
    """An MCP server with the three read-only tools over ``retrievals`` (by index name)."""
    tools = Tools(retrievals)
    server = QidfServer("qidf", title="qidf code search", version=__version__,
                        instructions=INSTRUCTIONS, log_level="WARNING")
    served = ", ".join(sorted(tools.retrievals))
    for fn in (tools.search_code, tools.fetch_document, tools.describe_ranking):
        doc = inspect.getdoc(fn) or ""
        server.add_tool(fn, description=f"{doc}\n\nIndices served: {served}.",
                        annotations=READ_ONLY, structured_output=False)
    return server
