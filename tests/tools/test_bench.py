"""A smoke test of the latency benchmark's in-kernel part (one step per explorer, no browser, no notebooks)."""

import json

import pytest

from tools import bench


@pytest.mark.slow
def test_in_kernel_costs_cover_every_benched_explorer(tmp_path, capsys):
    out = tmp_path / "bench.json"
    report = bench.main(["--repeats", "1", "--no-browser", "--no-memory", "--no-overhead", "--out", str(out)])
    assert set(report["kernel"]) == set(bench.EXPLORERS)
    for name, costs in report["kernel"].items():
        assert set(costs) == {"compute_ms", "draw_ms", "encode_ms", "full_redraw_ms"}, name
        assert all(0 <= value < 60_000 for value in costs.values()), (name, costs)
    assert json.loads(out.read_text(encoding="utf-8"))["kernel"].keys() == report["kernel"].keys()
    assert "In-kernel cost per slider step" in capsys.readouterr().out
    tables = out.with_suffix(".md").read_text(encoding="utf-8")
    assert all(f"| {name} |" in tables for name in bench.EXPLORERS), "the report's table has every explorer"


def test_every_explorer_class_is_benched():
    import attention_lab.explorers as explorers

    classes = {name for name in explorers.__all__ if name.endswith(("Explorer", "Scrubber")) and name != "Explorer"}
    assert classes == {name.split()[0] for name in bench.EXPLORERS}
