"""One connection per cluster profile, opened on first use, and the install mode each
cluster resolves ``auto`` to (asked once: it is the same for every index there)."""

from __future__ import annotations

from collections.abc import Callable

from qidf_ctl import install
from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_ctl.desired.model import COMMAND_LINE, Profile
from qidf_ctl.errors import UsageError
from qidf_ctl.similarity import Mode

Connect = Callable[[ConnectionSettings], Cluster]


class Connections:
    """Clusters by profile name (None: the command line's connection options)."""

    def __init__(self, profiles: dict[str, Profile],
                 fallback: Callable[[], ConnectionSettings] | None = None,
                 connect: Connect | None = None) -> None:
        self.profiles = profiles
        self.fallback = fallback
        self._connect = connect
        self._clusters: dict[str | None, Cluster] = {}
        self._modes: dict[tuple[str | None, str], tuple[Mode, str]] = {}

    @staticmethod
    def label(name: str | None) -> str:
        return name or COMMAND_LINE

    def get(self, name: str | None) -> Cluster:
        if name not in self._clusters:
            if name is None:
                if self.fallback is None:
                    raise UsageError("a target names no cluster profile and no connection "
                                     "was given: add cluster = NAME or pass --url")
                settings = self.fallback()
            else:
                settings = self.profiles[name].settings()
            connect = self._connect or Cluster.connect
            self._clusters[name] = connect(settings)
        return self._clusters[name]

    def mode(self, name: str | None, requested: str) -> tuple[Mode, str]:
        """``auto``/``script``/``plugin`` resolved on that cluster, with the reason."""
        key = (name, requested)
        if key not in self._modes:
            self._modes[key] = install.choose_mode(self.get(name), requested)
        return self._modes[key]
