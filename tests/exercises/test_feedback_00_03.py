"""Issue 42's feedback findings in notebooks 01-03: each mistake a student made gets its own diagnosis, and the
message it used to get can no longer be produced for it."""

import numpy as np
from helpers import text

from attention_lab import exercises as ex


def _top_k(pick, share=None):
    def top_k(alpha, k_top):
        chosen = pick(np.asarray(alpha), k_top)
        weights = np.zeros(len(alpha))
        weights[chosen] = 1 / len(chosen) if share is None else share
        return weights

    return top_k


def test_copies_counted_n_c_plus_one_times_are_told_so():
    said = text(ex.check_copies_weight(lambda lam, n_c: n_c * lam / (1 + n_c * lam)))
    assert "n_c + 1 times" in said and "the other keys once" in said
    assert "n_c times as well" not in said and "or not at all" not in said


def test_weights_one_over_k_plus_one_on_k_plus_one_keys_are_told_so():
    feedback = ex.check_top_k(_top_k(lambda a, k_top: np.argsort(-a, kind="stable")[: k_top + 1]))
    said = text(feedback)
    assert not feedback.passed and "1/(k_top + 1) each" in said and "[0.0, 0.5, 0.5, 0.0]" in said
    assert "are 1/k_top on k_top keys" not in said and "not on the k_top largest" not in said


def test_an_unstable_sort_is_rejected_and_told_in_02_as_in_03():
    unstable = ex.check_top_k(_top_k(lambda a, k_top: np.argsort(-a)[:k_top]))
    assert not unstable.passed and "not stable" in text(unstable)

    def knn_unstable(x_query, x_keys, y_values, k_top):
        return y_values[np.argsort(np.abs(x_query[:, None] - x_keys[None, :]), axis=1)[:, :k_top]].mean(axis=1)

    knn = ex.check_knn_regression(knn_unstable)
    assert not knn.passed and "not stable" in text(knn)
    assert "reversed sort" not in text(knn).lower() and "reversed sort" not in knn.hint().lower()


def test_a_reversed_stable_sort_is_still_told_as_reversed():
    said = text(ex.check_top_k(_top_k(lambda a, k: np.argsort(a, kind="stable")[::-1][:k])))
    assert "later key among tied" in said and "not stable" not in said


def test_an_error_exponent_is_read_back_to_the_student_and_the_hint_follows_a_right_h_exponent():
    feedback = ex.check_bandwidth_rate("-1/5", "-1.2")
    said = text(feedback)
    assert not feedback.passed and "does not follow" not in said
    assert "faster than 1/n" in said and "?" in said
    assert "solve for h" not in feedback.hint() and "Put h* back" in feedback.hint()
    middle = text(ex.check_bandwidth_rate("-1/5", "-0.6"))
    assert "doubling the data multiplies the error by" in middle and "0.66" in middle
    assert "solve for h" in ex.check_bandwidth_rate("-1/4", "-1.2").hint()


def test_the_smooth_max_gap_counts_keys_with_n_k():
    assert ex.check_smooth_max_gap(0.5 * np.log(4), [1.0, 1.0, 1.0, 1.0], n_k=4, temperature=0.5).passed
    assert not ex.check_smooth_max_gap(0.5 * np.log(4), [1.0, 1.0, 1.0], n_k=4, temperature=0.5).passed
