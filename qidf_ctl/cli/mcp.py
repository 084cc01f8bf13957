"""``qidf mcp``: a Model Context Protocol server over indices of a cluster, for agents.

Thin: each index's ranking is decided once by ``qidf_ctl.agents`` (installed q-log, else q-log
at query time), the tools are ``agents.mcp_tools``, the transport is the ``mcp`` SDK's. On
stdio nothing but the protocol may reach stdout: every line of ours goes to stderr.

A server is started by a client that shows the user little of what it printed (the MCP
Inspector shows "Connection closed" when a server exits). So a cluster or an index that
cannot be served does not end it: it says why in one ``error:`` line on stderr, serves the
rest, and answers every call on what it cannot serve with that reason; it exits with that
error's code when its client ends it. Only a bad command line ends it at once (exit 2).
Ctrl-C or SIGTERM is how a server is meant to stop, starting up included: exit 0.
"""

from __future__ import annotations

import errno
import importlib.util
import json
import socket
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer

from qidf_ctl import interrupts
from qidf_ctl.agents import Retrieval
from qidf_ctl.agents.ranking import RANKINGS, parse_q
from qidf_ctl.agents.recorder import Recorder, check_dest, open_sink, recording
from qidf_ctl.cli.app import app
from qidf_ctl.cli.boundary import one_line_errors
from qidf_ctl.cli.options import ClusterOptions, with_cluster
from qidf_ctl.cli.output import err
from qidf_ctl.cli.stats import QueriesOpt
from qidf_ctl.cluster.redact import redact_external
from qidf_ctl.errors import ConflictError, QidfError, UsageError, missing_extra
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
    record: Annotated[str | None, typer.Option(
        "--record", help="Record each search and the hits fetched after it as User Behavior "
        "Insights queries and events (ids, ranks, the query text, timestamps; no document "
        "text, no secret) into this file (_bulk NDJSON, appended) or ubi: (the cluster's UBI "
        "indices), for `qidf judgments ubi` and `apply --judgments`.")] = None,
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
    privileges and the cost per call. Each call searches the one index a name points at then
    (an alias that gained a second index is refused). An index or cluster it cannot serve
    does not stop it: it says why on stderr and answers every call on that index with the
    reason. The server ends when its client closes stdin, or on Ctrl-C or SIGTERM (exit 0).

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

    if ranking not in RANKINGS:
        raise UsageError(f"--ranking must be one of {', '.join(RANKINGS)}, got {ranking!r}")
    q_value = parse_q(q)
    if record is not None:
        check_dest(record)
    if transport == "http":
        _check_port(port)
    sample = query_sample(queries) if queries else None
    serving = transport == "http" or _stdio_usable()
    code = 0
    recorders: list[Recorder] = []
    try:
        server, failures = _start(conn, indices, json_out, serving, (record, recorders),
                                  q=q_value, field=fields, ranking=ranking, queries=sample,
                                  counter_name=token_counter)
        if not serving:  # a process with no stdin (inside another program): nothing to serve
            if failures:
                raise failures[0]
            raise UsageError("qidf mcp serves on stdin and stdout, and this process has no "
                             "stdin to read: start it from an MCP client, or use --transport "
                             "http")
        code = failures[0].exit_code if failures else 0
        endpoint = "stdio" if transport == "stdio" else f"http://{HOST}:{port}/mcp"
        _say(json_out, f"serving MCP on {endpoint}", {"serving": endpoint})
        if transport == "stdio":
            server.run("stdio")
        else:
            server.run("streamable-http", host=HOST, port=port)
    except KeyboardInterrupt:
        code = 0  # Ctrl-C or SIGTERM is how a server is meant to end, starting up too
    finally:
        for recorder in recorders:
            recorder.close()
    interrupts.ended_as_meant()
    _say(json_out, "qidf mcp stopped", {"stopped": True})
    if code:
        raise typer.Exit(code)


def _stdio_usable() -> bool:
    """Whether stdin is a file the protocol can be read from (not so inside a program that
    replaced it, such as a test runner)."""
    try:
        sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    return True


def _start(conn: ClusterOptions, indices: list[str], json_out: bool, serving: bool,
           record: tuple[str | None, list[Recorder]], **options: Any
           ) -> tuple[Any, list[QidfError]]:
    """The server over ``indices``, and what could not be served (``serving``: said once on
    stderr, and to every call on it). ``record``: the ``--record`` destination and the list
    the opened recorder is put in (the caller closes it)."""
    from qidf_ctl.agents.mcp_tools import build_server, concrete_indices

    failed: dict[str, str] = {}
    failures: list[QidfError] = []

    def fail(names: list[str], exc: QidfError) -> None:
        message = redact_external(" ".join(str(exc).split()))
        failures.append(exc)
        if serving:
            report = {"message": message, "exit_code": exc.exit_code, "indices": names}
            _say(json_out, f"error: {message} (the server answers every call on "
                 f"{', '.join(names)} with this; fix it and restart qidf mcp)",
                 {"error": report})
        for name in names:
            failed[name] = (f"{message} (qidf mcp could not serve {name!r} when it started: "
                            "restart it once this is fixed)")

    retrievals: dict[str, Retrieval] = {}
    try:
        cluster = conn.connect()
    except QidfError as exc:
        fail(list(indices), exc)
        return build_server({}, failed=failed), failures

    dest, recorders = record
    recorder = _recorder(dest, lambda: cluster, json_out) if serving else None
    if recorder is not None:
        recorders.append(recorder)

    def connect(index: str) -> Retrieval:
        return recording({index: Retrieval.connect(cluster, index, **options)},
                         recorder)[index]

    for index in indices:
        try:
            r = connect(index)
        except QidfError as exc:
            fail([index], exc)
            continue
        retrievals[index] = r
        _say(json_out, startup_line(r), {"ranking": r.describe()})
    if not serving:
        return None, failures
    server = build_server(retrievals, failed=failed, reconnect=connect,
                          resolve=lambda name: concrete_indices(cluster, name),
                          say=lambda line: _say(json_out, line, {"moved": line}))
    return server, failures


def _recorder(dest: str | None, connect: Callable[[], Any], json_out: bool) -> Recorder | None:
    """The recorder of ``--record`` (None without it), opened before the server starts."""
    if dest is None:
        return None
    recorder = Recorder(open_sink(dest, connect),
                        warn=lambda line: err.print(line, markup=False, highlight=False))
    _say(json_out, f"recording searches and fetches to {recorder.sink.describe()} (session "
         f"{recorder.session_id})", {"recording": recorder.sink.describe(),
                                     "session_id": recorder.session_id})
    return recorder


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
