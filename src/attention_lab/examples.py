"""The course's small worked examples, in one place: the tests and the benchmark import them from here.

The notebooks write these numbers out in their own cells, where the story needs them in plain sight;
``tests/test_examples.py`` checks that every notebook's numbers are these. Each function returns fresh
objects, so changing what one caller got never changes what the next one gets.

- :func:`fruit_boxes`: notebook 01's four boxes (keys: sweetness and sourness; values: sugar, vitamin C,
  fibre per 100 g, rounded from USDA FoodData Central, SR Legacy) and its named queries;
- :func:`display_name`: one of those names as a figure shows it, in the reader's language;
- :func:`six_scores`: the six scores alpha_i and 2-D values v_i of notebooks 00 and 02.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .i18n import N_, _

__all__ = ["FruitBoxes", "display_name", "fruit_boxes", "six_scores"]


class FruitBoxes(NamedTuple):
    """Notebook 01's boxes: one key k_i and one value v_i per box, and queries q by name."""

    labels: list  # the boxes' names, (n_keys,) = (4,)
    feature_names: tuple  # what a key's two numbers mean
    keys: np.ndarray  # k_i, (n_keys, d) = (4, 2)
    value_names: list  # what a value's three numbers mean
    values: np.ndarray  # v_i, (n_keys, d_v) = (4, 3)
    queries: dict  # name -> q, each (d,) = (2,)


def fruit_boxes() -> FruitBoxes:
    """The four fruit boxes of notebook 01 (apple, orange, pear, cherry) and its six named queries."""
    return FruitBoxes(
        # the names the code and the exercise checks use; shown in the reader's language (display_name)
        labels=[N_("apple"), N_("orange"), N_("pear"), N_("cherry")],
        feature_names=(N_("sweetness (0-10)"), N_("sourness (0-10)")),  # axis labels: translated where drawn
        keys=np.array(
            [
                [6.0, 4.0],  # apple
                [5.0, 8.0],  # orange
                [5.5, 2.0],  # pear
                [9.0, 3.0],  # cherry
            ]
        ),
        value_names=[N_("sugar (g)"), N_("vit. C (mg)"), N_("fibre (g)")],
        values=np.array(
            [
                [10.4, 4.6, 2.4],  # apple
                [9.4, 53.2, 2.4],  # orange
                [9.8, 4.3, 3.1],  # pear
                [12.8, 7.0, 2.1],  # cherry
            ]
        ),
        queries={
            N_("cherry"): [9.0, 3.0],
            N_("apple"): [6.0, 4.0],
            N_("orange"): [5.0, 8.0],
            N_("a pear, please"): [5.5, 2.0],
            N_("sweet and sour"): [7.5, 6.0],
            N_("not too sweet"): [4.0, 3.0],
        },
    )


def display_name(name: str) -> str:
    """How a figure shows ``name``: one of notebook 01's names (a box, a query, an axis, a value) in the reader's
    language, from the catalogue; any other name as the reader gave it. The code keeps the English name."""
    boxes = fruit_boxes()
    course = (*boxes.labels, *boxes.queries, *boxes.feature_names, *boxes.value_names)
    return _(name) if isinstance(name, str) and name in course else name


def six_scores() -> tuple[np.ndarray, np.ndarray]:
    """(alpha (6,), values (6, 2)): the scores and 2-D values of notebooks 00 and 02 (argmax: the second key)."""
    alpha = np.array([1.2, 3.0, 0.5, 2.6, -0.8, 1.9])  # alpha_i, (6,)
    values = np.array([[0.0, 0.0], [4.0, 1.0], [1.0, 3.0], [3.0, 3.5], [-1.0, 2.0], [2.0, -1.0]])  # v_i, (6, 2)
    return alpha, values
