"""Seq2seq pieces of notebook 06: data generation and loading, the model's shapes and masks, its decoder steps
against the equations written out, its input checks (the alignment explorer: tests/explorers/test_alignment.py)."""

import csv
import re

import pytest
import torch

from attention_lab.paths import repo_root
from attention_lab.seq2seq import Encoder, Seq2Seq, exact_match
from attention_lab.translation_data import (
    Vocab,
    format_date,
    load_pairs,
    make_date_pairs,
    make_phrase_pairs,
    write_data,
)


def test_shipped_data_is_exactly_what_the_generator_writes(tmp_path):
    for path in write_data(tmp_path):
        assert path.read_bytes() == (repo_root() / "data" / path.name).read_bytes(), f"data/{path.name} is stale"


def test_date_pairs_are_correct_and_test_dates_are_unseen():
    train, test = make_date_pairs(500, 100, seed=3)
    assert not {t for _, t in train} & {t for _, t in test}
    import datetime as dt

    d = dt.date(2026, 11, 29)
    assert format_date(d, "d Mon yyyy") == "29 Nov 2026"
    assert format_date(d, "yyyy年m月d日") == "2026年11月29日"
    assert format_date(d, "Weekday, d Month yyyy") == "Sunday, 29 November 2026"
    for source, target in train[:50]:
        date = dt.date.fromisoformat(target)
        assert source in {
            format_date(date, style)
            for style in [
                "d Mon yyyy",
                "d Month yyyy",
                "Mon d, yyyy",
                "Month d, yyyy",
                "dd/mm/yyyy",
                "Weekday, d Month yyyy",
                "yyyy年m月d日",
            ]
        }
    with pytest.raises(ValueError, match="style must be one of"):
        format_date(d, "yyyy/dd")


def test_phrases_echo_the_source_post():
    pairs = dict(make_phrase_pairs())
    assert pairs["I am a student"] == "我 是 一个 学生"
    assert pairs["he reads books every day"] == "他 每天 看 书"
    assert len(pairs) == len(make_phrase_pairs())  # no duplicate English sentence


def test_loading_is_safe_and_explains_missing_files(tmp_path):
    pairs = load_pairs("dates_test.csv")
    with open(repo_root() / "data" / "dates_test.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert len(pairs) == 1000 and pairs[0] == tuple(rows[1])
    with pytest.raises(FileNotFoundError, match=r"data/nope\.csv is missing; regenerate it with `python -m attenti"):
        load_pairs("nope.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(ValueError, match="bad.csv, line 1: the file must start with the header source,target"):
        load_pairs(bad)
    bad.write_text("source,target\n1,2\n3,4,5\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.csv, line 3: expected 2 fields \(source,target\), got 3"):
        load_pairs(bad)
    bom = tmp_path / "bom.csv"
    bom.write_bytes("source,target\n1 Jan 2000,2000-01-01\n".encode("utf-8-sig"))
    assert load_pairs(bom) == [("1 Jan 2000", "2000-01-01")]


def test_vocab_round_trip_and_padding():
    vocab = Vocab(["29 Nov 2026", "2026年11月29日"])
    ids, lens = vocab.batch(["29 Nov", "年"])
    assert ids.shape == (2, 7) and lens.tolist() == [7, 2] and ids[1, 2:].eq(Vocab.PAD).all()
    assert vocab.decode(ids[0]) == "29 Nov" and vocab.decode(vocab.encode("?")) == "<unk>"
    words = Vocab(["I am a student"], level="word")
    assert words.decode(words.encode("a student")) == "a student"
    with pytest.raises(ValueError, match=r"level must be one of \['char', 'word'\]"):
        Vocab([], level="byte")


VARIANTS = [
    dict(score="additive"),
    dict(score="general"),
    dict(score=None),
    dict(score="general", decoder="luong"),
    dict(score="additive", decoder="luong"),
    dict(score="additive", bidirectional=False),
]


@pytest.mark.parametrize("options", VARIANTS, ids=lambda o: "-".join(str(v) for v in o.values()))
def test_seq2seq_shapes_masks_and_gradients(options):
    kind = options["score"]
    torch.manual_seed(0)
    model = Seq2Seq(12, 9, embed_size=8, num_hiddens=16, **options)
    src = torch.tensor([[4, 5, 6, 7, 2], [4, 5, 2, 0, 0]])
    lens = torch.tensor([5, 3])
    tgt = torch.tensor([[4, 5, 6, 2], [7, 2, 0, 0]])
    logits = model(src, lens, tgt)
    assert logits.shape == (2, 4, 9)
    loss = model.loss(src, lens, tgt)
    loss.backward()
    assert torch.isfinite(loss) and all(torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None)
    ids, alignment = model.greedy(src, lens, max_len=6)
    assert ids.shape == (2, 6) and alignment.shape == (2, 6, 5)
    if kind is not None:
        assert torch.all(alignment[1, :, 3:] == 0)  # padding gets no attention
        torch.testing.assert_close(alignment.sum(-1), torch.ones(2, 6))
    # padding does not change the encoding of the shorter sequence
    states_a, summary_a = model.encoder(src[1:, :3], lens[1:])
    states_b, summary_b = model.encoder(src[1:], lens[1:])
    torch.testing.assert_close(summary_a, summary_b)
    torch.testing.assert_close(states_a, states_b[:, :3])


def test_short_training_learns_to_copy():
    """A copy task learns fast with attention: a smoke test of the training loop used in notebook 06."""
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    # 64 sequences learn it as well as 256 did (loss / first < 0.01 and every copy exact at seeds 0-2)
    src = torch.randint(4, 10, (64, 5), generator=g)
    src = torch.cat([src, torch.full((64, 1), 2)], dim=1)  # <eos>
    lens = torch.full((64,), 6)
    model = Seq2Seq(10, 10, embed_size=16, num_hiddens=32, score="additive")
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    first = None
    for _ in range(60):
        optimizer.zero_grad()
        loss = model.loss(src, lens, src)
        loss.backward()
        optimizer.step()
        first = first or loss.item()
    assert loss.item() < 0.3 * first
    ids, _ = model.greedy(src[:32], lens[:32], max_len=6)
    assert (ids == src[:32]).all(dim=1).float().mean() > 0.5


def test_general_attention_is_s_W_h():
    from attention_lab.nn import GeneralAttention

    att = GeneralAttention(3, 4).double()
    s, h = torch.randn(1, 1, 3, dtype=torch.float64), torch.randn(1, 5, 4, dtype=torch.float64)
    att(s, h, h)
    W = att.W.weight  # (3, 4)
    expected = torch.softmax(torch.stack([s[0, 0] @ W @ h[0, j] for j in range(5)]), 0)
    torch.testing.assert_close(att.attention_weights[0, 0], expected.detach())


def test_exact_match():
    assert exact_match(["a", "b", "c"], ["a", "x", "c"]) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="same length"):
        exact_match(["a"], [])


# --- the attention step inside the decoders ---------------------------------------------------------------------


@pytest.mark.parametrize("score", ["additive", "general"])
def test_decoder_attention_is_the_attention_layer(score):
    """attend() with W e_j computed once per input gives the nn layer's own forward, weights and context."""
    torch.manual_seed(1)
    model = Seq2Seq(12, 9, embed_size=8, num_hiddens=16, score=score).double()
    src, lens = torch.tensor([[4, 5, 6, 7, 2], [4, 5, 2, 0, 0]]), torch.tensor([5, 3])
    memory = model.encode(src, lens)
    query = torch.randn(2, 16, dtype=torch.float64)
    context, weights = model.decoder.attend(query, memory)
    layer = model.decoder.attention
    expected = layer(query[:, None, :], memory.states, memory.states, memory.mask[:, None, :])[:, 0]
    torch.testing.assert_close(context, expected)
    torch.testing.assert_close(weights, layer.attention_weights[:, 0])


def test_bahdanau_step_uses_the_previous_state_as_query():
    """BahdanauDecoder.step against the equations: query s_{t-1}, then s_t = GRU(s_{t-1}, [y_{t-1}; c_t])."""
    torch.manual_seed(2)
    model = Seq2Seq(12, 9, embed_size=8, num_hiddens=16).double()
    src, lens = torch.tensor([[4, 5, 6, 7, 2], [4, 5, 2, 0, 0]]), torch.tensor([5, 3])
    memory, d = model.encode(src, lens), model.decoder
    s_prev, token = torch.randn(2, 16, dtype=torch.float64), torch.tensor([4, 7])
    a = d.attention
    e = memory.states  # (2, 5, 32)
    alpha = torch.stack(
        [
            torch.stack(
                [a.w_v.weight[0] @ torch.tanh(a.W_q.weight @ s_prev[b] + a.W_k.weight @ e[b, j]) for j in range(5)]
            )
            for b in range(2)
        ]
    )
    lam = torch.softmax(alpha.masked_fill(~memory.mask, -torch.inf), dim=-1)
    c = torch.einsum("bn,bnd->bd", lam, e)
    s = d.cell(torch.cat([d.embedding(token), c], dim=-1), s_prev)
    logits, state, weights = d.step(token, s_prev, memory)
    torch.testing.assert_close(weights, lam)
    torch.testing.assert_close(state, s)
    torch.testing.assert_close(logits, d.out(torch.cat([s, c], dim=-1)))


def test_luong_step_uses_the_current_state_and_the_attentional_state():
    """LuongDecoder.step against Luong et al.'s equations: s_t first, score s_t^T W e_j, s~_t = tanh(W_c [c_t; s_t])."""
    torch.manual_seed(3)
    model = Seq2Seq(12, 9, embed_size=8, num_hiddens=16, decoder="luong", score="general").double()
    src, lens = torch.tensor([[4, 5, 6, 7, 2], [4, 5, 2, 0, 0]]), torch.tensor([5, 3])
    memory, d = model.encode(src, lens), model.decoder
    s_prev, tilde_prev = torch.randn(2, 16, dtype=torch.float64), torch.randn(2, 16, dtype=torch.float64)
    token = torch.tensor([4, 7])
    s = d.cell(torch.cat([d.embedding(token), tilde_prev], dim=-1), s_prev)  # input feeding
    W = d.attention.W.weight  # (16, 32)
    alpha = torch.stack([torch.stack([s[b] @ W @ memory.states[b, j] for j in range(5)]) for b in range(2)])
    lam = torch.softmax(alpha.masked_fill(~memory.mask, -torch.inf), dim=-1)
    c = torch.einsum("bn,bnd->bd", lam, memory.states)
    tilde = torch.tanh(torch.cat([c, s], dim=-1) @ d.combine.weight.T)
    logits, (state, attentional), weights = d.step(token, (s_prev, tilde_prev), memory)
    torch.testing.assert_close(weights, lam)
    torch.testing.assert_close(state, s)
    torch.testing.assert_close(attentional, tilde)
    torch.testing.assert_close(logits, d.out(tilde))
    # the query is s_t, not s_{t-1}: scoring with s_{t-1} would give other weights
    other = torch.einsum("bh,hd,bnd->bn", s_prev, W, memory.states).masked_fill(~memory.mask, -torch.inf)
    other = torch.softmax(other, dim=-1)
    assert not torch.allclose(weights, other)


def test_bidirectional_states_are_forward_and_backward_runs():
    """e_j = [forward GRU after x_1..x_j; backward GRU after x_n..x_j], from the library's own weights."""
    torch.manual_seed(4)
    encoder = Encoder(12, 8, 6).double()
    src, lens = torch.tensor([[4, 5, 6, 7, 2]]), torch.tensor([5])
    states, summary = encoder(src, lens)
    x = encoder.embedding(src)[0]  # (5, 8)
    forward, backward = torch.nn.GRUCell(8, 6).double(), torch.nn.GRUCell(8, 6).double()
    for cell, suffix in ((forward, ""), (backward, "_reverse")):
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(cell, name).data = getattr(encoder.rnn, f"{name}_l0{suffix}").data
    h, fwd = torch.zeros(1, 6, dtype=torch.float64), []
    for j in range(5):
        h = forward(x[j : j + 1], h)
        fwd.append(h[0])
    h, bwd = torch.zeros(1, 6, dtype=torch.float64), [None] * 5
    for j in reversed(range(5)):
        h = backward(x[j : j + 1], h)
        bwd[j] = h[0]
    expected = torch.stack([torch.cat([f, b]) for f, b in zip(fwd, bwd, strict=True)])
    torch.testing.assert_close(states[0], expected)
    torch.testing.assert_close(summary[0], torch.cat([fwd[-1], bwd[0]]))


# --- bad input: a ValueError that names the argument and the shapes ----------------------------------------------


@pytest.fixture(scope="module")
def small():
    torch.manual_seed(0)
    return Seq2Seq(12, 9, embed_size=8, num_hiddens=16)


SRC, LENS, TGT = torch.tensor([[4, 5, 6, 2], [4, 2, 0, 0]]), torch.tensor([4, 2]), torch.tensor([[4, 2], [5, 2]])


@pytest.mark.parametrize(
    "src, lens, match",
    [
        (
            torch.tensor([4, 5, 2]),
            torch.tensor([3]),
            r"src must be a 2-D tensor .*, got a torch tensor of shape \(3,\)",
        ),
        (SRC[None], LENS, r"src must be a 2-D tensor .* got a torch tensor of shape \(1, 2, 4\)"),
        ([[4, 5, 2]], torch.tensor([3]), r"src must be a 2-D tensor .* got \[\[4, 5, 2\]\]"),
        (SRC.float(), LENS, "src must hold integer token ids, got dtype torch.float32"),
        (torch.zeros(2, 0, dtype=torch.long), torch.tensor([1, 1]), r"src of shape \(2, 0\) is empty"),
        (torch.zeros(0, 4, dtype=torch.long), torch.zeros(0, dtype=torch.long), r"src of shape \(0, 4\) is empty"),
        (SRC + 10, LENS, r"src holds token ids from 10 to 16, but the vocabulary has 12 tokens \(ids 0..11\)"),
        (
            SRC,
            torch.tensor([4]),
            r"src_lens must be a 1-D tensor with one length per sequence of src, shape \(2,\), "
            r"got a torch tensor of shape \(1,\) .* for src of shape \(2, 4\)",
        ),
        (SRC, torch.tensor([[4, 2]]), r"src_lens must be a 1-D tensor .* got a torch tensor of shape \(1, 2\)"),
        (SRC, [4, 2], r"src_lens must be a 1-D tensor .* got \[4, 2\]"),
        (SRC, torch.tensor([4.0, 2.0]), "src_lens must hold integer lengths"),
        (
            SRC,
            torch.tensor([4, 0]),
            r"src_lens must lie between 1 and n = 4 \(src has shape \(2, 4\)\), got lengths "
            "from 0 to 4",
        ),
        (SRC, torch.tensor([5, 2]), "src_lens must lie between 1 and n = 4 .* from 2 to 5"),
    ],
)
def test_bad_source_is_named(small, src, lens, match):
    with pytest.raises(ValueError, match=match):
        small.loss(src, lens, TGT)
    with pytest.raises(ValueError, match=match):
        small.greedy(src, lens)


@pytest.mark.parametrize(
    "tgt, match",
    [
        (
            torch.tensor([4, 2]),
            r"tgt must be a 2-D tensor of token ids \(batch, n_q\), got a torch tensor of shape \(2,\)",
        ),
        (torch.zeros(2, 0, dtype=torch.long), r"tgt of shape \(2, 0\) is empty"),
        (TGT.double(), "tgt must hold integer token ids"),
        (TGT + 8, r"tgt holds token ids from 10 to 13, but the vocabulary has 9 tokens"),
        (
            TGT[:1],
            r"src and tgt must hold the same number of sequences, got src of shape \(2, 4\) and tgt of shape "
            r"\(1, 2\)",
        ),
    ],
)
def test_bad_target_is_named(small, tgt, match):
    with pytest.raises(ValueError, match=match):
        small.loss(SRC, LENS, tgt)


@pytest.mark.parametrize("max_len", [0, -1, 2.5, True, "5", None])
def test_bad_max_len_is_named(small, max_len):
    with pytest.raises(ValueError, match=f"max_len must be an integer >= 1 .*got {re.escape(repr(max_len))}"):
        small.greedy(SRC, LENS, max_len=max_len)


def test_bad_options_are_named():
    with pytest.raises(ValueError, match=r"decoder must be one of \['bahdanau', 'luong'\], got 'transformer'"):
        Seq2Seq(12, 9, decoder="transformer")
    with pytest.raises(ValueError, match=r"score of Luong's decoder must be one of \['general', 'additive'\], got No"):
        Seq2Seq(12, 9, decoder="luong", score=None)
    with pytest.raises(ValueError, match=r"score must be one of \[None, 'additive', 'general'\], got 'dot'"):
        Seq2Seq(12, 9, score="dot")


# --- Vocab at bad input -------------------------------------------------------------------------------------

VOCAB = Vocab(["abc", "cab"])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: VOCAB.decode([4, -1]), r"ids must lie in \[0, 7\)"),
        (lambda: VOCAB.decode([7]), r"ids must lie in \[0, 7\)"),
        (lambda: VOCAB.decode(torch.tensor([4, -2])), r"ids must lie in"),
        (lambda: VOCAB.decode([4.5]), r"ids must be integer token ids"),
        (lambda: VOCAB.decode([True]), r"ids must be integer token ids"),
        (lambda: VOCAB.decode(torch.tensor([4.0])), r"integer token ids"),
        (lambda: VOCAB.decode("abc"), r"got the text"),
        (lambda: VOCAB.encode(None), r"text must hold strings"),
        (lambda: VOCAB.encode("ab", eos="yes"), r"eos must be True or False"),
        (lambda: VOCAB.batch([]), r"at least one non-empty text"),
        (lambda: VOCAB.batch("abc"), r"got one string"),
        (lambda: Vocab("abc"), r"got one string"),
        (lambda: Vocab([1, 2]), r"texts must hold strings"),
        (lambda: Vocab(5), r"texts must be a list of strings"),
        (lambda: Vocab(["a"], level=["char"]), r"level must be one of \['char', 'word'\]"),
    ],
)
def test_vocab_refuses_bad_ids_and_texts(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_vocab_still_decodes_good_ids():
    ids = VOCAB.encode("cab")
    assert VOCAB.decode(ids) == "cab" and VOCAB.decode(torch.tensor(ids)) == "cab"
