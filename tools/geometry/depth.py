"""Depth maps: a monocular depth-model backend (ONNX or TorchScript) and the analytic ground-plane depth.

Model I/O contract (what Depth Anything / Metric3D exports follow): one input, float32 ``(1, 3, H, W)`` RGB scaled to
[0, 1] then normalised with the ImageNet mean/std; one output ``(1, H', W')`` or ``(1, 1, H', W')``, resized back
to the image size here. A static input size in the model is respected; a dynamic one uses ``input_size`` (default
518, Depth Anything's). Whether the output is metric depth (m), relative depth or inverse depth is a property of
the model, recorded as ``kind`` (ONNX metadata key ``depth_kind``, else ``"unknown"``).

Depth here is z-depth: distance along the optical axis, in metres for metric models (OpenCV camera frame).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np

from agent.config import Config
from tools.common import ToolError, load_image
from tools.geometry.ground import CameraGeometry

IMAGENET_MEAN = np.array([0.485, 0.456, 0.406], np.float32)
IMAGENET_STD = np.array([0.229, 0.224, 0.225], np.float32)
DEFAULT_INPUT_SIZE = 518  # Depth Anything's square input (a multiple of its 14 px patches)
ONNX_SUFFIXES = (".onnx",)
TORCHSCRIPT_SUFFIXES = (".pt", ".pth", ".ts", ".torchscript", ".jit")


@runtime_checkable
class DepthBackend(Protocol):
    """A depth model: RGB uint8 (H, W, 3) → float32 (H, W) depth of the same size."""

    kind: str  # "metric", "relative", "inverse" or "unknown"

    def predict(self, image: np.ndarray) -> np.ndarray: ...


def preprocess(rgb: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """RGB uint8 → float32 (1, 3, h, w) normalised tensor; ``size`` is (w, h)."""
    resized = cv2.resize(rgb, size, interpolation=cv2.INTER_CUBIC).astype(np.float32) / 255.0
    return ((resized - IMAGENET_MEAN) / IMAGENET_STD).transpose(2, 0, 1)[None].copy()


def postprocess(raw: np.ndarray, width: int, height: int) -> np.ndarray:
    """Model output (1, h, w) or (1, 1, h, w) → float32 (height, width) by bilinear resizing."""
    arr = np.asarray(raw, np.float32)
    if arr.ndim not in (3, 4) or int(np.prod(arr.shape[:-2])) != 1:
        raise ToolError(f"depth model output must be (1, H, W) or (1, 1, H, W), got shape {np.shape(raw)}")
    return cv2.resize(arr.reshape(arr.shape[-2:]), (width, height), interpolation=cv2.INTER_LINEAR)


class OnnxDepth:
    """Depth model exported to ONNX, run with onnxruntime on CPU."""

    def __init__(self, path: str | Path, *, input_size: int = DEFAULT_INPUT_SIZE) -> None:
        import onnxruntime as ort  # imported on use

        try:
            self.session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise ToolError(f"could not load ONNX depth model {path}: {exc}") from exc
        inputs = self.session.get_inputs()
        if len(inputs) != 1 or len(inputs[0].shape) != 4:
            raise ToolError(f"ONNX depth model {path} must have one (1, 3, H, W) input, has "
                            f"{[(i.name, i.shape) for i in inputs]}")
        self.input_name = inputs[0].name
        h, w = inputs[0].shape[2:]
        self.size = (w if isinstance(w, int) else input_size, h if isinstance(h, int) else input_size)
        meta = self.session.get_modelmeta().custom_metadata_map
        self.kind = meta.get("depth_kind", "unknown")

    def predict(self, image: np.ndarray) -> np.ndarray:
        rgb = load_image(image)
        out = self.session.run(None, {self.input_name: preprocess(rgb, self.size)})[0]
        return postprocess(out, rgb.shape[1], rgb.shape[0])


class TorchScriptDepth:
    """Depth model saved with ``torch.jit.save``, run with torch on CPU."""

    def __init__(self, path: str | Path, *, input_size: int = DEFAULT_INPUT_SIZE, kind: str = "unknown") -> None:
        import torch  # imported on use

        try:
            self.module = torch.jit.load(str(path), map_location="cpu").eval()
        except Exception as exc:
            raise ToolError(f"could not load TorchScript depth model {path}: {exc}") from exc
        self.size = (input_size, input_size)
        self.kind = kind

    def predict(self, image: np.ndarray) -> np.ndarray:
        import torch

        rgb = load_image(image)
        with torch.inference_mode():
            out = self.module(torch.from_numpy(preprocess(rgb, self.size)))
        if isinstance(out, (tuple, list)):
            out = out[0]
        return postprocess(out.detach().cpu().numpy(), rgb.shape[1], rgb.shape[0])


@lru_cache(maxsize=2)
def load_depth_backend(path: str) -> DepthBackend:
    """Backend for a weights file, chosen by its suffix (cached per process)."""
    suffix = Path(path).suffix.lower()
    if suffix in ONNX_SUFFIXES:
        return OnnxDepth(path)
    if suffix in TORCHSCRIPT_SUFFIXES:
        return TorchScriptDepth(path)
    raise ToolError(f"unsupported depth model file {path}: expected {ONNX_SUFFIXES + TORCHSCRIPT_SUFFIXES}")


def estimate_depth(image: Any, config: Config | None = None) -> np.ndarray:
    """Depth map (H, W) float32 of an image with the model at ``Config.depth_model``.

    Metric (m) or relative depending on the model (see the backend's ``kind``). Raises
    :class:`agent.config.MissingWeightsError` naming ``depth_model`` when none is configured.
    """
    cfg = config or Config.from_env()
    backend = load_depth_backend(cfg.resolved_depth_model())
    return backend.predict(load_image(image))


def depth_from_ground_plane(cam: CameraGeometry, width: int, height: int) -> np.ndarray:
    """Analytic z-depth (m) of flat ground for each pixel centre; NaN at or above the horizon.

    Pixel (u, v) is sampled at its centre (u + 0.5, v + 0.5), matching OpenCV's rendering convention.
    """
    if width <= 0 or height <= 0:
        raise ToolError(f"depth map size must be positive, got {width}x{height}")
    v, u = np.mgrid[0:height, 0:width].astype(float)
    pix = np.stack([u + 0.5, v + 0.5, np.ones_like(u)], -1)
    rays_cam = pix @ np.linalg.inv(cam.K).T  # z = 1 in the camera frame
    up_component = rays_cam @ cam.up_in_camera  # height change per unit of z-depth
    with np.errstate(divide="ignore", invalid="ignore"):
        depth = -cam.altitude_m / up_component
    depth[~(up_component < -1e-9)] = np.nan
    return depth.astype(np.float32)
