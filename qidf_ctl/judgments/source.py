"""Where judgments come from, as one option names them (``--judgments``, ``qidf judgments ubi
SOURCE``, the ``judgments`` key of qidf.toml):

- a folder ``qidf judgments git`` or ``qidf judgments ubi`` wrote (it holds
  ``judgments.json``): read as written;
- ``ubi:`` (or ``ubi:APPLICATION``, only that application's searches): the cluster's
  ``ubi_queries`` and ``ubi_events`` indices, turned into judgments by the click model;
- a UBI log exported as JSON lines (a file, or a folder of them without a manifest), or what
  ``qidf mcp --record FILE`` wrote: turned into judgments by the click model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import UsageError
from qidf_ctl.judgments import ubi
from qidf_ctl.judgments.folder import MANIFEST, Judgments, read_folder
from qidf_ctl.judgments.from_ubi import UbiOptions, judgments_from_log
from qidf_ctl.progress import Progress, quiet

UBI_PREFIX = "ubi:"
FOLDER, CLUSTER_UBI, UBI_FILES = "folder", "ubi-indices", "ubi-files"


@dataclass(frozen=True)
class Source:
    """A parsed judgments source: its kind, the path (files and folders) or the application
    (``ubi:APPLICATION``; None for every application)."""

    kind: str
    text: str
    path: Path | None = None
    application: str | None = None

    @property
    def needs_cluster(self) -> bool:
        return self.kind == CLUSTER_UBI

    @property
    def spec(self) -> str:
        """The source as a decision records it: ``ubi:...``, or the absolute path."""
        return self.text if self.path is None else str(self.path.resolve())


def parse_source(text: str, option: str = "--judgments") -> Source:
    """``text`` as one of the sources of the module docstring; refused when it is none."""
    if not text or not text.strip():
        raise UsageError(f"{option} is empty: give a judgments folder, a UBI log or ubi:")
    if text.startswith(UBI_PREFIX):
        application = text[len(UBI_PREFIX):].strip() or None
        return Source(CLUSTER_UBI, text, application=application)
    path = Path(text).expanduser()
    if not path.exists():
        raise UsageError(f"{option} {text}: no such file or folder (a folder `qidf judgments` "
                         "wrote, a UBI log, or ubi: for the cluster's UBI indices)")
    if path.is_dir() and (path / MANIFEST).is_file():
        return Source(FOLDER, text, path)
    return Source(UBI_FILES, text, path)


def load(source: Source, connect: Callable[[], Cluster] | None = None, *,
         options: UbiOptions | None = None, clicks: tuple[str, ...] = ubi.DEFAULT_CLICKS,
         ordinal_base: int = 0, progress: Progress = quiet,
         option: str = "--judgments") -> Judgments:
    """The judgments ``source`` holds (``connect`` gives the cluster, for ``ubi:``)."""
    if source.kind == FOLDER:
        assert source.path is not None
        return read_folder(source.path, option)
    log = ubi.Log(clicks=clicks, ordinal_base=ordinal_base, application=source.application)
    if source.kind == CLUSTER_UBI:
        if connect is None:
            raise UsageError(f"{option} {source.text} reads the cluster's UBI indices: it "
                             "needs a connection")
        progress("reading the cluster's UBI indices")
        ubi.read_cluster(connect(), log)
        origin = f"UBI indices {ubi.QUERIES_INDEX}, {ubi.EVENTS_INDEX}" + (
            f" (application {source.application})" if source.application else "")
    else:
        assert source.path is not None
        progress(f"reading UBI log {source.path}")
        ubi.read_files(source.path, log)
        origin = f"UBI log {source.path}"
    return judgments_from_log(log, origin, options, progress=progress)
