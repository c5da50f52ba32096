"""The causal character model's KV cache (nn/language_model.py): the same logits, counted work, memory; generate()."""

import numpy as np
import pytest
import torch
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.utils.flop_counter import FlopCounterMode

from attention_lab.nn import CharTransformer, KVCache, generate

V, L, D, D_FF = 11, 2, 16, 24


def model(seed=0):
    torch.manual_seed(seed)
    return CharTransformer(V, 24, d_model=D, num_heads=4, num_layers=L, d_ff=D_FF).eval()


@settings(max_examples=examples(15))
@given(
    st.integers(1, 3), st.lists(st.integers(1, 5), min_size=1, max_size=4), st.integers(0, 2**16)
)  # at most 20 positions: the model holds 24
def test_the_cache_gives_the_full_passs_logits_in_any_chunks(b, chunks, seed):
    net = model(seed % 7)
    tokens = torch.randint(0, V, (b, sum(chunks)), generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        full = net(tokens)  # (b, n, V)
        pieces, cache, at = [], None, 0
        for size in chunks:
            logits, cache = net.step(tokens[:, at : at + size], cache)
            pieces.append(logits)
            at += size
    torch.testing.assert_close(torch.cat(pieces, dim=1), full, atol=1e-5, rtol=1e-4)
    assert cache.length == tokens.shape[1]


def test_step_leaves_the_given_cache_alone():
    net = model()
    with torch.no_grad():
        _, cache = net.step(torch.tensor([[1, 2, 3]]))
        keys = [k.clone() for k in cache.keys]
        net.step(torch.tensor([[4]]), cache)
    assert cache.length == 3 and all(torch.equal(a, b) for a, b in zip(keys, cache.keys, strict=True))


@pytest.mark.parametrize("t", [1, 5, 17])
def test_operations_per_token_counted_exactly(t):
    net, tokens = model(), torch.randint(0, V, (1, t), generator=torch.Generator().manual_seed(t))
    per_position = L * (4 * D * D + 2 * D * D_FF) + D * V
    with torch.no_grad(), FlopCounterMode(display=False) as uncached:
        net(tokens)
    _, cache = net.step(tokens[:, :-1]) if t > 1 else (None, None)
    with torch.no_grad(), FlopCounterMode(display=False) as cached:
        net.step(tokens[:, -1:], cache)
    assert uncached.get_total_flops() == 2 * t * per_position + 4 * L * t * t * D
    assert cached.get_total_flops() == 2 * per_position + 4 * L * t * D


def test_cache_memory_is_two_layers_widths_per_position():
    with torch.no_grad():
        _, cache = model().step(torch.randint(0, V, (3, 7)))
    assert cache.nbytes() == 3 * 7 * 2 * L * D * 4  # batch x positions x (keys + values) x layers x width x float32
    assert KVCache().length == 0 and KVCache().nbytes() == 0


def test_generate_is_the_same_with_and_without_the_cache_and_greedy_is_deterministic():
    net, prompt = model(), torch.tensor([[1, 2, 3], [4, 5, 6]])
    for kwargs in (
        {"temperature": 0.0},
        {"temperature": 1.0, "rng": 3},
        {"temperature": 0.7, "top_k": 4, "rng": 3},
        {"temperature": 1.5, "top_p": 0.8, "rng": 3},
    ):
        fast = generate(net, prompt, 12, use_cache=True, **kwargs)
        slow = generate(net, prompt, 12, use_cache=False, **kwargs)
        assert fast.shape == (2, 15) and torch.equal(fast[:, :3], prompt) and torch.equal(fast, slow), kwargs
    with torch.no_grad():
        greedy = generate(net, prompt[:1], 5, temperature=0.0)
        assert torch.equal(net(greedy[:, :-1])[0, 2:].argmax(-1), greedy[0, 3:])  # each token the argmax of its logits


def test_sampled_tokens_follow_the_distribution():
    net, prompt = model(), torch.tensor([[1, 2]])
    with torch.no_grad():
        p = torch.softmax(net(prompt)[0, -1].double(), -1).numpy()
    rng = np.random.default_rng(0)
    # 3000 draws as 60 calls of 50 rows: rows that shared a draw, or calls that restarted the generator, would
    # leave 50 or 60 independent draws, outside the bound
    firsts = np.concatenate([generate(net, prompt.repeat(50, 1), 1, rng=rng)[:, -1].numpy() for _ in range(60)])
    shares = np.bincount(firsts, minlength=V) / len(firsts)
    assert np.abs(shares - p).max() < 4 * np.sqrt(p.max() / len(firsts)) + 1e-3


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda net: net.step(torch.tensor([[1.0]])), "tokens must be a 2-D integer tensor"),
        (lambda net: net.step(torch.zeros(1, 25, dtype=torch.long)), "do not fit in max_len=24"),
        (lambda net: generate(net, torch.tensor([[1]]), -1), "n_new must be a whole number >= 0"),
        (lambda net: generate(net, torch.tensor([1, 2]), 3), "prompt must be a 2-D tensor"),
        (lambda net: generate(net, torch.tensor([[1, 2]]), 30), "exceed the model's max_len=24"),
        (lambda net: generate(net, torch.tensor([[1, 2]]), 3, temperature=-1.0), "temperature must be a number >= 0"),
        (lambda net: generate(net, torch.tensor([[1, 2]]), 3, top_p=2.0), r"top_p must be a number in \(0, 1\]"),
        (lambda net: generate(net, torch.tensor([[1, 2]]), 3, rng="x"), "rng must be None, an integer seed"),
    ],
)
def test_bad_input_is_named(call, match):
    with pytest.raises(ValueError, match=match):
        call(model())
