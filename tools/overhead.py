"""What the library's checks and limits cost on small inputs: ``python tools/overhead.py [--repeats N]``.

Each public entry point is timed against the plain formula written out (numpy one-liners; for the torch
layer, ``torch.nn.MultiheadAttention``), on the same small inputs:

- ``al.softmax`` of 4 x 6 scores against exp(alpha - max) / sum;
- ``al.attention`` of 4 queries, 6 keys and values of width 8 against softmax(Q K^T / sqrt(d)) V;
- ``al.sample_tokens`` of 2 rows of 65 logits at T = 0.8 with top-k = 10 against a plain temperature + top-k
  sampler (sort, cut, softmax, inverse CDF);
- ``nn.MultiHeadAttention(64, 4)`` against ``torch.nn.MultiheadAttention(64, 4, batch_first=True)`` on
  self-attention over (batch 2, 16 positions, width 64), both in eval mode under ``torch.no_grad()``.

The ratio is the median time of the library's call over the median time of the plain one. The two are
timed in turns (library, plain, library, plain, ...) with :mod:`timeit` on the thread's CPU clock, so a
change in the machine's load hits both and waiting for a core is not counted; on a shared machine use many
repeats. A benchmark, not a test: the ratios, not the times,
carry over between machines. The budget (``LIMITS``) is what a thin teaching library may cost.
"""

from __future__ import annotations

import argparse
import statistics
import time
import timeit

import numpy as np

LIMITS = {"softmax": 3.0, "attention": 3.0, "sample_tokens": 3.0, "nn.MultiHeadAttention": 1.5}


def _plain_softmax(alpha):
    w = np.exp(alpha - alpha.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True)


def _plain_attention(q, k, v):
    return _plain_softmax(q @ k.T / np.sqrt(q.shape[-1])) @ v


def _plain_sampler(logits, temperature, top_k, rng):
    z = logits / temperature
    z = np.where(z >= np.sort(z, axis=-1)[:, -top_k, None], z, -np.inf)  # keep the top_k largest
    cdf = np.cumsum(_plain_softmax(z), axis=-1)
    return (cdf < rng.random((len(z), 1))).sum(axis=-1)


def _numpy_cases():
    import attention_lab as al

    rng = np.random.default_rng(0)
    alpha = rng.normal(size=(4, 6))
    q, k, v = rng.normal(size=(4, 8)), rng.normal(size=(6, 8)), rng.normal(size=(6, 8))
    logits = rng.normal(size=(2, 65)) * 3
    draws = np.random.default_rng(1)
    return {
        "softmax": (lambda: al.softmax(alpha), lambda: _plain_softmax(alpha)),
        "attention": (lambda: al.attention(q, k, v), lambda: _plain_attention(q, k, v)),
        "sample_tokens": (
            lambda: al.sample_tokens(logits, 0.8, top_k=10, rng=draws),
            lambda: _plain_sampler(logits, 0.8, 10, draws),
        ),
    }


def _torch_case():
    import torch

    from attention_lab import nn as aln

    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(64, 4, batch_first=True).eval()
    ours = aln.MultiHeadAttention.from_torch(theirs).eval()
    x = torch.randn(2, 16, 64)

    def run(module):
        def call():
            with torch.no_grad():
                return module(x, x, x)

        return call

    return {"nn.MultiHeadAttention": (run(ours), run(theirs))}


def _time_in_turns(library, plain, repeats: int) -> tuple[float, float]:
    """Median seconds per call of each, timed alternately ``repeats`` times (each sample ~2 ms or more).

    The clock is this thread's CPU time (``time.thread_time``), not the wall clock: on a shared machine the
    time the process waits for a core is not the code's cost.
    """
    library(), plain()  # warm up
    number = max(1, int(2e-3 / max(timeit.timeit(plain, number=20, timer=time.thread_time) / 20, 1e-9)))
    ours, theirs = [], []
    for _ in range(repeats):
        ours.append(timeit.timeit(library, number=number, timer=time.thread_time) / number)
        theirs.append(timeit.timeit(plain, number=number, timer=time.thread_time) / number)
    return statistics.median(ours), statistics.median(theirs)


def overhead_report(repeats: int = 200, *, torch_threads: int | None = 1) -> list[dict]:
    """One row per entry point: name, baseline, library and plain median time (microseconds), ratio, limit, ok.

    ``torch_threads`` sets ``torch.set_num_threads`` for the torch case (1, as the notebooks' small models
    run; None leaves torch's setting alone).
    """
    cases = _numpy_cases()
    try:
        import torch
    except ImportError:  # the numpy core is measured without torch too
        torch = None
    if torch is not None:
        previous = torch.get_num_threads()
        if torch_threads is not None:
            torch.set_num_threads(torch_threads)
        cases.update(_torch_case())
    baselines = {
        "softmax": "exp(alpha - max) / sum",
        "attention": "softmax(Q K^T / sqrt(d)) V",
        "sample_tokens": "temperature + top-k sampler",
        "nn.MultiHeadAttention": "torch.nn.MultiheadAttention",
    }
    rows = []
    try:
        for name, (library, plain) in cases.items():
            ours, theirs = _time_in_turns(library, plain, repeats)
            ratio = ours / theirs
            rows.append(
                {
                    "name": name,
                    "baseline": baselines[name],
                    "library_us": ours * 1e6,
                    "plain_us": theirs * 1e6,
                    "ratio": ratio,
                    "limit": LIMITS[name],
                    "ok": ratio <= LIMITS[name],
                }
            )
    finally:
        if torch is not None:
            torch.set_num_threads(previous)
    return rows


def format_report(rows: list[dict]) -> str:
    """The rows as a fixed-width table."""
    lines = [f"{'entry point':<24}{'plain formula':<30}{'library':>10}{'plain':>10}{'ratio':>8}{'limit':>7}  ok"]
    for row in rows:
        lines.append(
            f"{row['name']:<24}{row['baseline']:<30}{row['library_us']:>8.1f}us{row['plain_us']:>8.1f}us"
            f"{row['ratio']:>7.2f}x{row['limit']:>6.1f}x  {'yes' if row['ok'] else 'NO'}"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200, help="timed samples per entry point (default 200)")
    arguments = parser.parse_args(argv)
    if arguments.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {arguments.repeats}")
    print(format_report(overhead_report(arguments.repeats)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
