"""MkDocs hooks (``hooks:`` in ``mkdocs.yml``): the generated pages and the generated parts of hand-written ones.

``on_files`` adds :func:`gen_pages.pages` to the site as virtual files (``File.generated``: nothing is written into
the source tree); ``on_page_markdown`` fills each ``<!-- neoplan:NAME -->`` marker of a page while it is built.
"""

from __future__ import annotations

from typing import Any

import gen_pages  # docs/gen_pages.py: MkDocs puts this file's folder on the path while it loads a hook
from mkdocs.structure.files import File, Files


def on_files(files: Files, config: Any) -> Files:
    """Add every generated page to the site."""
    for path, text in gen_pages.pages().items():
        files.append(File.generated(config, path, content=text))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Fill the page's ``<!-- neoplan:NAME -->`` markers with generated Markdown."""
    return gen_pages.fill(markdown, page.file.src_uri)
