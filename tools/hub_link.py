"""An nbgitpuller link that gives every student of a JupyterHub the course: ``python -m tools.hub_link HUB [NOTEBOOK]``.

Opening the link logs the student in, pulls the repository (``pyproject.toml``'s ``Repository``, branch
``main``) into ``~/attention-from-hard-to-soft`` (a later click merges new commits without overwriting the
student's own changes) and opens the notebook in JupyterLab. The hub's single-user image must have
nbgitpuller and the course's packages (build it from ``environment.yml`` with repo2docker; see the README).

    python -m tools.hub_link https://hub.example.edu 03_nadaraya_watson.ipynb
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit

from attention_lab.paths import repo_root
from tools.launch_buttons import REPOSITORY

__all__ = ["REPOSITORY", "hub_link"]

ROOT = repo_root(Path(__file__).parent)
BRANCH = "main"


def hub_link(hub: str, notebook: str | None = None, *, repository: str = REPOSITORY, branch: str = BRANCH) -> str:
    """The nbgitpuller link for ``hub`` (an http(s) URL) opening ``notebook`` (a file in ``notebooks/``)."""
    parts = urlsplit(hub)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise ValueError(f"HUB must be the hub's address, like https://hub.example.edu, got {hub!r}")
    folder = repository.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
    target = f"lab/tree/{folder}/notebooks"
    if notebook is not None:
        name = Path(notebook).name
        if not name.endswith(".ipynb") or not (ROOT / "notebooks" / name).exists():
            choices = ", ".join(p.name for p in sorted((ROOT / "notebooks").glob("*.ipynb")))
            raise ValueError(f"NOTEBOOK must be one of the course's notebooks ({choices}), got {notebook!r}")
        target += f"/{name}"
    query = urlencode({"repo": repository, "branch": branch, "urlpath": target}, quote_via=quote, safe="")
    return f"{hub.rstrip('/')}/hub/user-redirect/git-pull?{query}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("hub", help="the hub's address, e.g. https://hub.example.edu")
    parser.add_argument("notebook", nargs="?", help="the notebook to open, e.g. 01_queries_keys_values.ipynb")

    def one_line_error(message):  # a usage mistake is one line on stderr, exit status 2
        print(f"hub_link: {message} (usage: python -m tools.hub_link HUB_URL [NOTEBOOK])", file=sys.stderr)
        sys.exit(2)

    parser.error = one_line_error
    args = parser.parse_args(argv)
    try:
        print(hub_link(args.hub, args.notebook))
    except ValueError as error:
        print(f"hub_link: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
