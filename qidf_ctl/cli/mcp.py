"""``qidf mcp``: a Model Context Protocol server over indices of a cluster, for agents.

Thin: each index's ranking is decided once by ``qidf_ctl.agents`` (installed q-log, else q-log
at query time), the tools are ``agents.mcp_tools``, the transport is the ``mcp`` SDK's. On
stdio nothing but the protocol may reach stdout: every line of ours goes to stderr.
"""

from __future__ import annotations

import errno
import importlib.util
import json
import socket
from typing import Annotated, Any

import typer

from qidf_ctl import interrupts
from qidf_ctl.agents import Retrieval
from qidf_ctl.agents.ranking import RANKINGS, parse_q
from qidf_ctl.cli.app import app
from qidf_ctl.cli.boundary import one_line_errors
from qidf_ctl.cli.options import ClusterOptions, with_cluster
from qidf_ctl.cli.output import err
from qidf_ctl.cli.stats import QueriesOpt
from qidf_ctl.errors import ConflictError, UsageError, missing_extra
from qidf_ctl.evaluation.tokens import COUNTERS
from qidf_ctl.stats.query_sample import query_sample

TRANSPORTS = ("stdio", "http")
HOST = "127.0.0.1"  # never another interface: the server has no authentication of its own
DEFAULT_PORT = 8765


def _check_port(port: int) -> None:
    """Refuse a port that is taken before connecting to anything (uvicorn would exit with
    a log line of its own after the server was built)."""
    if not 1 <= port <= 65535:
        raise UsageError(f"--port must be in 1..65535, got {port}")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError as exc:
            why = "in use" if exc.errno == errno.EADDRINUSE else exc.strerror
            raise ConflictError(f"port {port} on {HOST} is {why}: pass another --port") from None


@app.command("mcp")
@one_line_errors
@with_cluster
def mcp_cmd(
    indices: Annotated[list[str], typer.Argument(
        help="Indices (or aliases to one index each) the tools may search.")],
    conn: ClusterOptions,
    q: Annotated[str, typer.Option(
        "--q", metavar="FLOAT|auto",
        help="q for indices that keep built-in BM25 (q-log at query time): a number "
        "in [0, 2], or `auto`, predicted from each index's statistics (needs monitor "
        "privileges). An index with q-log installed always ranks with its own q.")] = "auto",
    fields: Annotated[list[str] | None, typer.Option(
        "--field", metavar="FIELD", help="A text field to search (repeatable; default: "
        "every text field of each index, searched together as multi_match does).")]
    = None,
    ranking: Annotated[str, typer.Option(
        "--ranking", metavar="[auto|installed]",
        help="auto: the installed q-log similarity where there is one, else "
        "q-log at query time; installed: always the index's own similarity, never "
        "query-time boosts (for credentials that cannot read an index's settings).")]
    = "auto",
    queries: QueriesOpt = None,
    transport: Annotated[str, typer.Option(
        "--transport", metavar="[stdio|http]",
        help="stdio (the client starts the server) or http (streamable HTTP "
        f"on {HOST}, at /mcp).")] = "stdio",
    port: Annotated[int, typer.Option(
        "--port", help=f"With --transport http: the port on {HOST}.")] = DEFAULT_PORT,
    token_counter: Annotated[str, typer.Option(
        "--token-counter", metavar="[cl100k|regex]",
        help="How hits are measured against a budget: cl100k (tiktoken) "
        "or regex (a lower bound, no tokenizer).")] = "cl100k",
    json_out: Annotated[bool, typer.Option(
        "--json", help="Errors as one JSON object on stdout; each index's ranking and the "
        "endpoint as JSON lines on stderr (stdout belongs to the protocol on stdio).")]
    = False,
) -> None:
    """Serve code search to agents over the Model Context Protocol: tools to search with a
    token budget, fetch a document and say how each index is ranked. Read privileges only;
    nothing on the cluster changes.

    Register it with a client (Claude Desktop, VS Code...) as a command that runs `qidf
    mcp INDEX` with the connection options; docs/how-to/agents.md has the configuration, the
    privileges and the cost per call. The server ends when its client closes stdin, or on
    Ctrl-C or SIGTERM (exit 0).

    Example: qidf mcp code-search --q 0.3 --transport http --port 8765
    """
    if transport not in TRANSPORTS:
        raise UsageError(f"--transport must be one of {', '.join(TRANSPORTS)}, got "
                         f"{transport!r}")
    if token_counter not in COUNTERS:
        raise UsageError(f"--token-counter must be one of {', '.join(COUNTERS)}, got "
                         f"{token_counter!r}")
    if len(set(indices)) != len(indices):
        raise UsageError("an index is named twice: name each once")
    if importlib.util.find_spec("mcp") is None:
        raise missing_extra("qidf mcp", "mcp", "mcp")
    from qidf_ctl.agents.mcp_tools import build_server  # the SDK: only for this command

    if ranking not in RANKINGS:
        raise UsageError(f"--ranking must be one of {', '.join(RANKINGS)}, got {ranking!r}")
    q_value = parse_q(q)
    if transport == "http":
        _check_port(port)
    sample = query_sample(queries) if queries else None
    cluster = conn.connect()
    retrievals = {}
    for index in indices:
        r = Retrieval.connect(cluster, index, q=q_value, field=fields, ranking=ranking,
                              queries=sample, counter_name=token_counter)
        retrievals[index] = r
        _say(json_out, startup_line(r), {"ranking": r.describe()})
    server = build_server(retrievals)
    endpoint = "stdio" if transport == "stdio" else f"http://{HOST}:{port}/mcp"
    _say(json_out, f"serving MCP on {endpoint}", {"serving": endpoint})
    try:
        if transport == "stdio":
            server.run("stdio")
        else:
            server.run("streamable-http", host=HOST, port=port)
    except KeyboardInterrupt:
        pass
    interrupts.ended_as_meant()  # Ctrl-C or SIGTERM is how a server is meant to end
    _say(json_out, "qidf mcp stopped", {"stopped": True})


def startup_line(r: Retrieval) -> str:
    """What ranks one index, as the server starts: BM25 said in words, and why."""
    ranking = r.ranking
    qs = ranking.qs or {ranking.field: ranking.q}
    how = ("BM25 (built-in)" if ranking.method == "installed" and ranking.q_source == "auto"
           else ranking.method)
    if len(qs) > 1:
        shown = ", ".join(f"{f} q={'?' if v is None else f'{v:g}'}" for f, v in qs.items())
        return f"{ranking.index}: fields {', '.join(qs)}, {how}, {shown}: {ranking.reason}"
    shown = "q unknown" if ranking.q is None else f"q={ranking.q:g}"
    return f"{ranking.index}: field {ranking.field}, {how}, {shown}: {ranking.reason}"


def _say(as_json: bool, text: str, payload: dict[str, Any]) -> None:
    """One line on stderr, never stdout (the protocol's on stdio)."""
    err.print(json.dumps(payload, sort_keys=True, default=str) if as_json else text,
              markup=False, highlight=False)
