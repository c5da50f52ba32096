"""Reference answers for notebooks/08_transformer_block.ipynb."""

import numpy as np
import torch

from attention_lab.nn import MultiHeadAttention


def layer_norm(x, gamma, beta, eps):
    mu = x.mean(axis=-1, keepdims=True)  # (batch, n, 1): each position's mean over its features
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)  # (batch, n, 1): its variance, divided by d_model
    return gamma * (x - mu) / np.sqrt(var + eps) + beta  # (batch, n, d_model)


PREDICTED_EXACT_MATCH_WITHOUT_POSITIONS = 0.0


class PreLNBlock(torch.nn.Module):
    def __init__(self, d_model, num_heads, d_ff):
        super().__init__()
        self.norm1, self.norm2 = torch.nn.LayerNorm(d_model), torch.nn.LayerNorm(d_model)
        self.attention = MultiHeadAttention(d_model, num_heads)
        self.ffn = torch.nn.Sequential(torch.nn.Linear(d_model, d_ff), torch.nn.ReLU(), torch.nn.Linear(d_ff, d_model))

    def forward(self, x, mask=None):
        y = self.norm1(x)  # (b, n, d_model): the attention reads a normalised copy
        x = x + self.attention(y, y, y, mask)  # the residual path carries x itself
        return x + self.ffn(self.norm2(x))  # (b, n, d_model)


def train_step(model, optimizer, inputs, targets):
    logits = model(inputs)  # (batch, n, vocab): a prediction at every position
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()
