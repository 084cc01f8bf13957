"""Pages written for the repository, published as a site.

Every Markdown file links by its path in the repository (``../../benchmarks/stats/README.md``,
``../qidf_ctl/errors.py``), so the files read correctly on GitHub and in an editor. The site
then has to map each link: to the page that file became (pages from ``docs/``, and the few
files outside it that the site includes, such as the benchmark results), or else to the file
in the repository. A link to nothing is left alone, so that mkdocs' strict build fails on it.
"""

from __future__ import annotations

import posixpath
import xml.etree.ElementTree as etree
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from markdown import Markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

# Pages from outside docs/ that the site includes, at their repository path: the results
# beside the commands that regenerate them, the plugin's own guide, the changelog.
OUTSIDE_DOCS = ("benchmarks/*/*.md", "plugin-java/README.md", "CHANGELOG.md")
BRANCH = "main"


class RepoLinks:
    """Where a link written as a repository path goes on the site."""

    def __init__(self, root: Path, repo_url: str) -> None:
        self.root = root.resolve()
        self.repo_url = repo_url.rstrip("/")
        self.page: Page | None = None  # the page being rendered (set by the hook)
        self._by_path: dict[Path, File] = {}

    def outside_docs(self, config: MkDocsConfig) -> list[File]:
        found = sorted({p for pattern in OUTSIDE_DOCS for p in self.root.glob(pattern)})
        return [File(str(p.relative_to(self.root)), str(self.root), config.site_dir,
                     config.use_directory_urls) for p in found]

    def index(self, files: Files) -> None:
        self._by_path = {Path(f.abs_src_path).resolve(): f for f in files
                         if f.abs_src_path is not None}

    def repository_path(self, file: File) -> str | None:
        if file.abs_src_path is None:
            return None
        path = Path(file.abs_src_path).resolve()
        return str(path.relative_to(self.root)) if path.is_relative_to(self.root) else None

    def rewrite(self, url: str) -> str:
        page = self.page
        parts = urlsplit(url)
        if (page is None or page.file.abs_src_path is None or parts.scheme or parts.netloc
                or not parts.path or parts.path.startswith("/")):
            return url
        target = (Path(page.file.abs_src_path).parent / unquote(parts.path)).resolve()
        anchor = f"#{parts.fragment}" if parts.fragment else ""
        if target.is_dir():
            readme = target / "README.md"
            target = readme if readme.resolve() in self._by_path else target
        site_file = self._by_path.get(target)
        if site_file is not None:
            here = posixpath.dirname(page.file.src_uri)
            return quote(posixpath.relpath(site_file.src_uri, here or ".")) + anchor
        if target.exists() and target.is_relative_to(self.root):
            kind = "tree" if target.is_dir() else "blob"
            rel = quote(str(target.relative_to(self.root)))
            return f"{self.repo_url}/{kind}/{BRANCH}/{rel}{anchor}"
        return url  # broken: mkdocs reports it, and --strict fails


class _Rewrite(Treeprocessor):
    def __init__(self, md: Markdown, links: RepoLinks) -> None:
        super().__init__(md)
        self.links = links

    def run(self, root: etree.Element) -> None:
        for element in _linking(root.iter()):
            key = "href" if element.tag == "a" else "src"
            url = element.get(key)
            if url:
                element.set(key, self.links.rewrite(url))


def _linking(elements: Iterable[etree.Element]) -> Iterable[etree.Element]:
    return (e for e in elements if e.tag in ("a", "img"))


class RepoLinksExtension(Extension):
    """Runs before mkdocs' own link processing (priority 0), which then checks the result."""

    def __init__(self, links: RepoLinks) -> None:
        super().__init__()
        self.links = links

    def extendMarkdown(self, md: Markdown) -> None:  # Markdown's name
        md.treeprocessors.register(_Rewrite(md, self.links), "qidf_repo_links", 5)
