"""The ``qidf`` command line: thin typer commands over the library, one module per group.

Importing this package registers every command on ``app``; ``main`` is the entry point.
"""

from qidf_ctl.cli import (  # noqa: F401
    demo,
    desired,
    engine,
    evaluation,
    helpformat,
    helptext,
    judgments,
    mcp,
    plugin,
    profiles,
    recover,
    render,
    search,
    similarity,
    snapshot,
    stats,
)
from qidf_ctl.cli.app import app, main

helptext.apply(app)
helpformat.install(app)

__all__ = ["app", "main"]
