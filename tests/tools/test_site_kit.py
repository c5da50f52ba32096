"""What the pages and the decks share (``tools/site_kit.py``), and how they treat tagged cells, without a kernel."""

import json

import nbformat
import pytest

from tools import decks, launch_buttons, site_kit


def _code(source, tags=(), outputs=()):
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["tags"] = list(tags)
    cell.outputs = list(outputs)
    return cell


def _markdown(source, tags=()):
    cell = nbformat.v4.new_markdown_cell(source)
    cell.metadata["tags"] = list(tags)
    return cell


def _notebook():
    printed = nbformat.v4.new_output("stream", name="stdout", text="ok: 46%\n")
    return nbformat.v4.new_notebook(
        cells=[
            _markdown("# Title\n\nSee [03](03_nadaraya_watson.ipynb#2) and the [glossary](glossary.md)."),
            _code("x = 1"),
            _code("# Check: the quoted share\nassert x == 1  # quoted: 46%\nprint('ok: 46%')", ["check"], [printed]),
            _markdown("## Going further: the Hoelder class", ["going-further"]),
            _code("# Check: a bound\nassert True", ["check", "going-further"]),
            _markdown("More of it.", ["going-further"]),
            _markdown("## Summary"),
        ]
    )


def test_check_cells_fold_with_their_first_comment_line_and_what_they_printed():
    nb = site_kit.prepare_notebook(_notebook(), "01_x.ipynb")
    folded = [c for c in nb.cells if "check" in c.metadata.get("tags", [])]
    assert [c.cell_type for c in folded] == ["markdown", "markdown"]
    assert folded[0].source.startswith('<details class="check-cell"><summary># Check: the quoted share</summary>')
    assert "ok: 46%" in folded[0].source and "</details>" in folded[0].source
    assert folded[1].metadata["tags"] == ["check", "going-further"], "it stays inside its Going further box"


def test_going_further_runs_open_with_one_label_inside_the_box():
    nb = site_kit.prepare_notebook(_notebook(), "01_x.ipynb")
    labels = [i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and "going-further-label" in c.source]
    assert len(labels) == 1
    assert nb.cells[labels[0]].metadata["tags"] == ["going-further"]
    assert nb.cells[labels[0] + 1].source.startswith("## Going further:")
    assert ".celltag_going-further" in site_kit.STYLE and "details.check-cell" in site_kit.STYLE


def test_decks_leave_out_check_cells_and_going_further_unless_asked():
    kept = [c.source[:12] for c in decks.lecture_cells(_notebook()).cells]
    assert kept == ["# Title\n\nSee", "x = 1", "## Summary"]
    with_further = decks.lecture_cells(_notebook(), going_further=True)
    assert [c.source for c in with_further.cells if "going-further" in c.metadata.get("tags", [])] == [
        "## Going further: the Hoelder class",
        "More of it.",
    ]


def test_links_titles_and_network_scripts_are_handled_once_for_pages_and_decks():
    page = '<a href="03_nadaraya_watson.ipynb#2">x</a> <a href="glossary.md">g</a>'
    assert site_kit.local_links(page, lambda stem: f"{stem}.html") == (
        '<a href="03_nadaraya_watson.html#2">x</a> <a href="glossary.html">g</a>'
    )
    assert 'href="03_nadaraya_watson.slides.html#2"' in site_kit.local_links(page, decks.deck_name)
    readme = site_kit.local_links('<a href="../README.md#how-to-cite-and-reuse">the posts</a>', decks.deck_name)
    assert readme == (
        f'<a href="https://github.com/{launch_buttons.SLUG}/blob/main/README.md#how-to-cite-and-reuse">the posts</a>'
    )
    assert site_kit.title(_notebook(), "fallback") == "Title"
    assert site_kit.title(nbformat.v4.new_notebook(), "fallback") == "fallback"
    cdn = '<script src="https://cdn.example.org/require.js"></script><p>kept</p>'
    assert site_kit.offline(cdn) == "<p>kept</p>" and site_kit.external_resources(cdn)
    assert decks.MATHJAX_URL == site_kit.MATHJAX_URL and decks.external_resources is site_kit.external_resources


def test_study_time_comes_from_the_metadata_and_falls_back_to_the_first_cell(tmp_path):
    nb = _notebook()
    nb.cells[0].source += "\n\nTime: about 35 minutes."
    path = tmp_path / "01_x.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    assert site_kit.study_time(path) == "35 min"
    nb.metadata["attention_lab"] = {"minutes": {"core": 30, "full": 45}}
    path.write_text(json.dumps(nb), encoding="utf-8")
    assert site_kit.study_time(path) == "30 min (45 with everything)"


@pytest.mark.slow
def test_the_page_run_draws_each_figure_in_lecture_style_for_the_deck_too(tmp_path):
    """One run serves page and deck: each figure carries a lecture-style picture, larger, and the cells count from 1."""
    import base64
    import io

    from PIL import Image

    from tools.build_site import _static
    from tools.execute import execute
    from tools.lecture_figures import BEFORE_NOTEBOOK, MIME

    nb = nbformat.v4.new_notebook(
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    )
    nb.cells = [
        _code("%matplotlib inline\nimport attention_lab as al\nal.use_course_style(lecture=False)"),
        _code("import matplotlib.pyplot as plt\nplt.plot([0, 1], [1, 0])\nplt.title('a line')\nplt.show()"),
    ]
    path = tmp_path / "probe.ipynb"
    nbformat.write(nb, path)
    run = execute(path, before=BEFORE_NOTEBOOK)
    assert not run.problems, run.problems
    assert [c.execution_count for c in run.nb.cells] == [1, 2]
    (figure,) = [o for o in run.nb.cells[1].outputs if "image/png" in o.get("data", {})]
    assert MIME in figure["data"]
    size = [Image.open(io.BytesIO(base64.b64decode(figure["data"][k]))).size for k in ("image/png", MIME)]
    assert size[1][0] > size[0][0], f"the lecture picture is drawn larger: {size}"
    deck = decks.lecture_run(run)
    assert deck.nb.cells[1].outputs[-1]["data"]["image/png"] == figure["data"][MIME]
    assert MIME not in str(_static(run.nb)), "the pages drop the deck's picture"
