"""The Model Context Protocol tools over ``Retrieval``: typed functions whose docstrings are
the descriptions a model reads and whose annotations are the JSON schemas of their arguments
(the ``mcp`` SDK derives both). No logic lives here beyond choosing the index and turning
every failure into one line: ``Retrieval`` does the work, the SDK does the transport.

Every failure is an MCP tool error (``isError``) carrying the product's one-line message,
redacted: never a traceback, in the result or in the server's log. That includes arguments
the SDK itself rejects (a wrong type, a number out of range), which pydantic would describe
over several lines, and arguments no tool takes (refused, not ignored). Numbers are strict
(``true`` is not 1); an empty and a blank query are the same refusal. On stdio, a line that
is not JSON-RPC is answered with the protocol's parse error (the SDK drops it silently).

Each call resolves the name it searches (an alias may move or grow): the search and the
fetch go to the one concrete index the name points at now, so no document of an index the
alias gained later is ever returned; a name that now points at several indices is refused,
one that moved to another index (a clone swap) has its ranking decided again. An index that
could not be served at start (not found, refused) answers every call with that reason.
"""

from __future__ import annotations

import functools
import inspect
import json
import threading
from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeVar

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import Field, ValidationError

from qidf_ctl import __version__
from qidf_ctl.agents.retrieval import (
    DEFAULT_MAX_HITS,
    MAX_BUDGET,
    MAX_HITS,
    Retrieval,
    check_query,
)
from qidf_ctl.cluster import Cluster, index_path, redact
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


def _unknown_arguments(name: str, arguments: Mapping[str, Any],
                       schema: dict[str, Any] | None) -> str | None:
    """The refusal of arguments the tool does not take (a misspelt ``max_result`` would
    otherwise be ignored without a word)."""
    if schema is None:
        return None
    known = set(schema.get("properties") or {})
    extra = sorted(str(k) for k in arguments if k not in known)
    if not extra:
        return None
    return one_line(f"bad arguments for {name}: unknown argument"
                    f"{'s' if len(extra) > 1 else ''} {', '.join(map(repr, extra))}; it takes "
                    f"{', '.join(sorted(known))}")


def _protocol_error(exc: Exception) -> SessionMessage:
    """The answer to a line that is not a JSON-RPC message: a parse error (not JSON), or an
    invalid request (JSON, but no message), with no id (JSON-RPC 2.0, section 5.1)."""
    errors = exc.errors() if isinstance(exc, ValidationError) else []
    not_json = any(e.get("type") == "json_invalid" for e in errors) or not errors
    code, what = (PARSE_ERROR, "Parse error: the line is not JSON") if not_json else (
        INVALID_REQUEST, "Invalid Request: the line is JSON but not a JSON-RPC message")
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=None,
                                       error=ErrorData(code=code, message=what)))


class QidfServer(MCPServer):
    """``MCPServer`` whose tool errors are always one redacted line: the SDK's own argument
    validation and its wrapper for a crash (which it would log with a traceback) included;
    arguments no tool takes refused; lines that are not JSON-RPC answered on stdio."""

    async def run_stdio_async(self) -> None:
        """The SDK's stdio transport, with a line it cannot read answered (not dropped)."""
        async with stdio_server() as (read_stream, write_stream):
            send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

            async def pump() -> None:
                async with send:
                    async for item in read_stream:
                        if isinstance(item, Exception):
                            await write_stream.send(_protocol_error(item))
                        else:
                            await send.send(item)

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(pump)
                low = self._lowlevel_server
                await low.run(receive, write_stream, low.create_initialization_options())

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Any = None) -> Any:
        schema = getattr(self, "_tool_input_schema", lambda _: None)(name)
        refused = _unknown_arguments(name, arguments, schema)
        if refused is not None:
            raise ToolError(refused)
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


def concrete_indices(cluster: Cluster, name: str) -> list[str]:
    """The concrete indices ``name`` points at now (``_field_caps``: the read privilege a
    search needs is enough, and no shard is searched)."""
    try:
        found = cluster.request("GET", index_path(name, "_field_caps"), params={"fields": "_id"})
    except ClusterError as exc:
        if exc.status == 404:
            raise NotFoundError(f"index {name!r} not found (it existed when the server "
                                "started): check the name with GET _cat/indices, then "
                                "restart qidf mcp") from None
        raise
    return sorted(str(i) for i in (found or {}).get("indices") or [])


class Tools:
    """The tools of one server, over the retrievals of the indices it serves.

    ``resolve`` (name -> the concrete indices it points at now) pins each call to one
    concrete index (the module docstring); ``reconnect`` (name -> a new Retrieval) decides
    the ranking again when a name moved; ``failed``: names that could not be served at
    start, and why. Without ``resolve`` (a library caller) the names are used as given."""

    def __init__(self, retrievals: Mapping[str, Retrieval], *,
                 resolve: Callable[[str], list[str]] | None = None,
                 reconnect: Callable[[str], Retrieval] | None = None,
                 failed: Mapping[str, str] | None = None,
                 say: Callable[[str], None] = lambda line: None) -> None:
        if not retrievals and not failed:
            raise UsageError("name at least one index to serve")
        self.retrievals = dict(retrievals)
        self.failed = dict(failed or {})
        self.resolve = resolve
        self.reconnect = reconnect
        self.say = say
        self.pinned: dict[str, str] = {}
        self._lock = threading.Lock()
        for name, retrieval in list(self.retrievals.items()):
            if resolve is None:
                continue
            try:
                self.pinned[name] = self._one(name, resolve(name))
            except QidfError as exc:
                self.failed[name] = one_line(_failure(exc))
                del self.retrievals[name]
                say(f"error: {self.failed[name]}")
                continue
            retrieval.target = self.pinned[name]

    @property
    def names(self) -> list[str]:
        return sorted({*self.retrievals, *self.failed})

    def _one(self, name: str, indices: list[str]) -> str:
        if len(indices) == 1:
            return indices[0]
        started = self.pinned.get(name)
        since = f" (it pointed at {started} when the server started)" if started else ""
        raise UsageError(f"{name!r} now points at {len(indices)} indices "
                         f"({', '.join(indices)}){since}: this server searches one index per "
                         "name and returns no document of another; point the alias at one "
                         "index, or restart qidf mcp naming the index to search")

    def _pick(self, index: str | None) -> Retrieval:
        names = ", ".join(self.names)
        if index is None or index == "":
            if len(self.names) != 1:
                raise UsageError(f"this server searches several indices ({names}): pass index")
            index = self.names[0]
        if not isinstance(index, str) or index not in self.names:
            raise NotFoundError(f"unknown index {index!r}: this server searches {names}")
        if index in self.failed:
            raise QidfError(self.failed[index])
        return self._current(index)

    def _current(self, name: str) -> Retrieval:
        """The retrieval of ``name``, pinned to the one index it points at now."""
        if self.resolve is None:
            return self.retrievals[name]
        now = self._one(name, self.resolve(name))
        with self._lock:
            if now != self.pinned[name]:
                if self.reconnect is None:
                    raise UsageError(f"{name!r} now points at {now} (it pointed at "
                                     f"{self.pinned[name]}): restart qidf mcp")
                fresh = self.reconnect(name)
                fresh.target = now
                self.say(f"{name} now points at {now} (it pointed at {self.pinned[name]}): "
                         f"ranking decided again: {fresh.ranking.method}, "
                         f"{fresh.ranking.reason}")
                self.retrievals[name], self.pinned[name] = fresh, now
            return self.retrievals[name]

    @_as_tool_error
    def search_code(
        self,
        query: Annotated[str, Field(
            description="What to find (not empty): identifiers, a signature, a snippet or a "
            "whole function, or a question in words. Exact identifiers rank best.")],
        index: IndexArg = None,
        budget_tokens: Annotated[int, Field(
            strict=True, ge=1, le=MAX_BUDGET, description="Most LLM tokens (cl100k) the "
            "hits' texts may take together; hits are added best first until the next would "
            "not fit.")]
        = DEFAULT_BUDGET,
        max_results: Annotated[int, Field(
            strict=True, ge=1, le=MAX_HITS, description="Most hits to return, whatever the "
            "budget.")]
        = DEFAULT_MAX_HITS,
        q: Annotated[float | None, Field(
            strict=True, ge=0, le=2, description="Override q for this search (1 is plain "
            "BM25, lower rewards rare terms more); only for indices ranked at query time. "
            "Leave it out to use the index's q.")] = None,
    ) -> CallToolResult:
        """Search a code index and get the best-ranked documents whose texts fit together in
        a token budget, best first.

        Ranking is BM25 with a q-logarithmic IDF: documents that share the query's rare
        identifiers rank first. Each hit has its rank, id (for fetch_document), score, tokens
        (the size of its text), text and short metadata fields. `stopped` says why the list
        ended: "budget" (the next hit would not fit; `next_hit_tokens` is its size),
        "max_results" or "no more hits". The budget counts the hits' texts only.
        """
        check_query(query)  # before the cluster is asked anything
        retrieval = self._pick(index)
        found = retrieval.search(query, budget_tokens=budget_tokens, max_hits=max_results,
                                 q=q)
        return _result(found.as_dict())

    @_as_tool_error
    def fetch_document(
        self,
        id: Annotated[str, Field(description="The id of a search_code hit.")],
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
        if (index is None or index == "") and len(self.names) > 1:
            return _result({"indices": [
                self.retrievals[name].describe() if name in self.retrievals else
                {"index": name, "error": self.failed[name]} for name in self.names]})
        return _result({"indices": [self._pick(index).describe()]})


def build_server(retrievals: Mapping[str, Retrieval], **tools_options: Any) -> QidfServer:
    """An MCP server with the three read-only tools over ``retrievals`` (by index name);
    ``tools_options``: ``Tools``'s (``resolve``, ``reconnect``, ``failed``, ``say``)."""
    tools = Tools(retrievals, **tools_options)
    server = QidfServer("qidf", title="qidf code search", version=__version__,
                        instructions=INSTRUCTIONS, log_level="WARNING")
    served = ", ".join(tools.names)
    for fn in (tools.search_code, tools.fetch_document, tools.describe_ranking):
        doc = inspect.getdoc(fn) or ""
        server.add_tool(fn, description=f"{doc}\n\nIndices served: {served}.",
                        annotations=READ_ONLY, structured_output=False)
    return server
