"""mkdocs hooks (``hooks:`` in mkdocs.yml): the site built from the repository's own files.

- pages from outside ``docs/`` (benchmark results, the plugin's guide, the changelog) join
  the site at their repository path, and every link written as a repository path is mapped
  to its page or to the file in the repository (``repo_links.py``);
- ``<!-- generated: NAME -->`` lines become reference sections rendered from the code: the
  CLI from the typer app, the exit codes, the keys of qidf.toml (``generated.py``);
- ``<!-- picture: NAME -->`` lines become pictures drawn from the code and the benchmark
  results, served as ``pictures/NAME.svg`` (``pictures.py``).

A failure here fails the build, as a warning does under ``--strict``.
"""

from __future__ import annotations

from pathlib import Path

import generated
import pictures
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from repo_links import RepoLinks, RepoLinksExtension

ROOT = Path(__file__).resolve().parents[2]
_links: RepoLinks | None = None


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    global _links
    _links = RepoLinks(ROOT, config.repo_url or "")
    config.markdown_extensions.append(RepoLinksExtension(_links))  # type: ignore[arg-type]
    # `mkdocs serve` rebuilds when the sources of generated or included pages change.
    config.watch.extend(str(ROOT / p) for p in ("qidf_ctl", "benchmarks", "plugin-java/README.md",
                                                "CHANGELOG.md", "README.md", "scripts/docs"))
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    assert _links is not None
    for file in _links.outside_docs(config):
        files.append(file)
    for name in pictures.PICTURES:
        try:
            content = pictures.svg(name)
        except Exception as exc:  # one line naming the picture, and the build stops
            raise PluginError(f"drawing the picture {name}: {exc}") from exc
        files.append(File.generated(config, pictures.site_path(name), content=content))
    _links.index(files)
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    assert _links is not None
    _links.page = page
    outside = _links.repository_path(page.file)
    if outside and not outside.startswith("docs/") and config.repo_url:
        page.edit_url = f"{config.repo_url.rstrip('/')}/edit/main/{outside}"
    try:
        markdown = generated.expand(markdown, page.file.src_uri)
        page_dir = Path(page.file.abs_src_path or ROOT / "docs" / page.file.src_uri).parent
        return pictures.expand(markdown, page.file.src_uri, page_dir)
    except Exception as exc:  # one line naming the page, and the build stops
        raise PluginError(f"generating {page.file.src_uri}: {exc}") from exc
