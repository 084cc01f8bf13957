"""The install instructions: one copy (the README's install section, which the site's home page
includes), listing every extra a user can ask for. tests/integration/test_installed_wheel.py
runs its commands."""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
DEVELOPERS_ONLY = {"dev", "docs"}  # extras for working on qidf, not for using it


def install_section() -> str:
    readme = (ROOT / "README.md").read_text()
    return readme.split("[start:install]", 1)[1].split("[end:install]", 1)[0]


def test_the_site_shows_the_readmes_install_section():
    assert '--8<-- "README.md:install"' in (ROOT / "docs" / "index.md").read_text()


def test_the_extras_table_lists_every_extra_a_user_can_ask_for():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = set(project["optional-dependencies"]) - DEVELOPERS_ONLY
    listed = set(re.findall(r"^\| `([\w-]+)` \|", install_section(), re.M))
    assert listed == extras


def test_the_pypi_line_is_marked_as_not_yet_working():
    prose = re.sub(r"^```.*?^```", "", install_section(), flags=re.S | re.M)
    assert "not on PyPI yet" in prose and "Once qidf is published on PyPI" in prose
    for block in re.findall(r"^```bash\n(.*?)^```", install_section(), re.S | re.M):
        assert not re.search(r"pip install '?qidf", block), "a PyPI install in a block run"
