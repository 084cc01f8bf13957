"""Reading connection profiles: the ``[clusters.NAME]`` tables of ``qidf.toml`` and of the
user's config file, checked by one loader, each mistake one line naming the file and key.

The user's config file is ``$QIDF_CONFIG``, else ``$XDG_CONFIG_HOME/qidf/config.toml``, else
``~/.config/qidf/config.toml`` (the XDG base directory rule that opensearch-cli, ecctl and
most command-line tools follow). It holds ``[clusters.NAME]`` tables only, and is read only
when a profile is asked for (``--profile``, ``QIDF_PROFILE``, ``qidf profiles``): a broken
file never breaks a command that does not use it.
"""

from __future__ import annotations

import difflib
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qidf_ctl import textfile
from qidf_ctl.cluster.profiles import KEYS_BY_NAME, SECRET_KEYS, Profile
from qidf_ctl.cluster.url import parse_url
from qidf_ctl.errors import NotFoundError, UsageError

ENV_CONFIG = "QIDF_CONFIG"
FORMAT_VERSION = 1
_KINDS = {
    "string": lambda v: isinstance(v, str) and v != "",
    "boolean": lambda v: isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool)
    and math.isfinite(v),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
}
_ARTICLE = {"string": "a non-empty string", "boolean": "true or false",
            "number": "a finite number", "integer": "an integer"}


def _suggest(word: str, known: list[str]) -> str:
    close = difflib.get_close_matches(word, known, n=1, cutoff=0.5)
    return f" (did you mean {close[0]!r}?)" if close else ""


def parse_profile(name: str, raw: Any, source: str, base: Path) -> Profile:
    """One ``[clusters.NAME]`` table, validated; relative paths resolved against ``base``."""
    where = f"{source}: [clusters.{name}]"
    if not isinstance(raw, dict):
        raise UsageError(f"{where}: must be a table")
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key in SECRET_KEYS:
            raise UsageError(f"{where}: {key} is refused: secrets never go in a file that is "
                             f"copied, shared or meant to be checked in; use "
                             f"{SECRET_KEYS[key]}")
        spec = KEYS_BY_NAME.get(key)
        if spec is None:
            raise UsageError(f"{where}: unknown key {key!r}{_suggest(key, list(KEYS_BY_NAME))}")
        if not _KINDS[spec.kind](value):
            raise UsageError(f"{where}: {key} must be {_ARTICLE[spec.kind]}, got "
                             f"{textfile.shown(value)}")
        if spec.bounds is not None and not spec.bounds[0] <= value <= spec.bounds[1]:
            low, high = spec.bounds
            raise UsageError(f"{where}: {key} must be between {low:g} and {high:g}, got "
                             f"{value!r}")
        if spec.path:
            value = str((base / Path(value).expanduser()).resolve())
        values[key] = float(value) if spec.kind == "number" else value
    if not {"url", "url_env", "cloud_id"} & set(values):
        raise UsageError(f"{where}: give url (or url_env), or cloud_id")
    for key in ("url", "proxy"):
        if key in values and _has_password(values[key], f"{where}: {key}"):
            raise UsageError(f"{where}: {key} holds a password: secrets never go in this "
                             "file; use user and password_env instead"
                             if key == "url" else
                             f"{where}: proxy holds a password: give that proxy with "
                             "HTTPS_PROXY or --proxy instead")
    for secret in ("password", "api_key", "bearer_token"):
        if f"{secret}_env" in values and f"{secret}_file" in values:
            raise UsageError(f"{where}: give {secret}_env or {secret}_file, not both")
    return Profile(name=name, source=source, **values)


def _has_password(url: str, where: str) -> bool:
    """Whether ``url`` (parsed as strictly as on the command line) holds a password; a URL
    that does not parse is refused here, naming the file and key."""
    if url.strip().lower() == "none":  # a proxy of "none" connects directly
        return False
    return parse_url(url, where).password is not None


def parse_profiles(raw: Any, source: str, base: Path) -> dict[str, Profile]:
    """Every ``[clusters.NAME]`` of a file (``raw`` is its ``clusters`` table, or None)."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise UsageError(f"{source}: clusters: must be a table of [clusters.NAME] tables")
    return {name: parse_profile(name, table, source, base) for name, table in raw.items()}


def config_path() -> tuple[Path, str]:
    """The user's config file and what chose it."""
    if os.environ.get(ENV_CONFIG):
        return Path(os.environ[ENV_CONFIG]).expanduser(), ENV_CONFIG
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    if xdg and Path(xdg).is_absolute():  # the XDG rule: a relative value is ignored
        return Path(xdg) / "qidf" / "config.toml", "XDG_CONFIG_HOME"
    return Path("~/.config/qidf/config.toml").expanduser(), "default"


@dataclass(frozen=True)
class UserConfig:
    """The user's config file: where it is, what chose that place, and its profiles."""

    path: Path
    chosen_by: str
    exists: bool
    profiles: dict[str, Profile] = field(default_factory=dict)

    def profile(self, name: str) -> Profile:
        if not self.exists:
            raise NotFoundError(
                f"profile {name!r} was asked for, but the config file {self.path} does not "
                f"exist: write [clusters.{name}] there (see docs/how-to/profiles.md), or point "
                f"{ENV_CONFIG} at yours")
        if name not in self.profiles:
            known = ", ".join(sorted(self.profiles)) or "none"
            raise UsageError(f"profile {name!r} is not in {self.path} (profiles there: "
                             f"{known}){_suggest(name, list(self.profiles))}")
        return self.profiles[name]


def load_config(path: Path | None = None) -> UserConfig:
    """The user's config file, validated (an absent file is an empty config)."""
    chosen_by = "argument"
    if path is None:
        path, chosen_by = config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return UserConfig(path, chosen_by, False)
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise UsageError(f"cannot read the config file {path}: {reason or exc}") from None
    source = str(path)
    data = textfile.loads_toml(text, source)
    for key in data:
        if key not in ("version", "clusters"):
            raise UsageError(f"{source}: unknown key {key!r} at the top level (the config file "
                             "holds [clusters.NAME] tables)"
                             f"{_suggest(key, ['version', 'clusters'])}")
    if data.get("version", FORMAT_VERSION) != FORMAT_VERSION:
        raise UsageError(f"{source}: version must be {FORMAT_VERSION}, got "
                         f"{data['version']!r} (a newer qidf wrote it?)")
    profiles = parse_profiles(data.get("clusters"), source, path.resolve().parent)
    return UserConfig(path, chosen_by, True, profiles)
