"""Image features for the learned camera tilt of thermal frames: the thermal detector's backbone, pooled by rows.

A camera tilted forward sees the near ground at the bottom of the frame and the far ground at the top: objects,
road markings and texture shrink from the bottom rows to the top ones, and the ground's thermal contrast changes
with the viewing distance. A straight-down camera sees the same scale in every row. So the features are the
backbone activations of the shipped thermal detector (``Config.thermal_yolo_weights``, a YOLOv8s trained on
HIT-UAV's aerial thermal frames, whose filters already respond to people, cars and road texture at several sizes)
averaged over :data:`ROW_BANDS` horizontal bands of the frame, at three depths (strides 8, 16 and 32): what is
seen where, and at which size, from the top of the frame to the bottom. Columns are pooled away: the camera's roll
is taken as about zero, so tilt only changes the picture down the rows.

The frame is seen at :data:`INPUT_SIDE_PX` on its longer side (each side a multiple of the backbone's stride 32,
so a 640x512 HIT-UAV frame is seen unscaled), grey levels in [0, 1] on the three input channels as the detector
saw them in training. A frame so wide that it is seen under ``ROW_BANDS * STRIDE_PX`` rows high has too few rows at
the coarsest stride to split into bands: no estimate (a ToolError, which the photo_geometry tool reports as the
estimate's reason while giving the other facts).
"""

from __future__ import annotations

import numpy as np

from tools.common import ToolError

INPUT_SIDE_PX = 640  # longer side of the frame as the backbone sees it
STRIDE_PX = 32  # the backbone's coarsest stride: each input side is a multiple of it
ROW_BANDS = 4  # horizontal bands (top to bottom) the activations are averaged over
#: Backbone layers pooled (indices in the YOLOv8 model's layer list): the C2f blocks at strides 8 and 16 and the
#: SPPF block at stride 32 (128, 256 and 512 channels for YOLOv8s).
LAYERS = (4, 6, 9)


def backbone_input(rgb: np.ndarray) -> np.ndarray:
    """(1, 3, H, W) float32 array in [0, 1] of an (H, W) or (H, W, C) uint8 image, resized so that its longer side
    is :data:`INPUT_SIDE_PX` and both sides are multiples of :data:`STRIDE_PX` (aspect kept to within a stride).
    ToolError when it would be seen under ``ROW_BANDS * STRIDE_PX`` rows high (too wide to split into bands)."""
    import cv2

    img = np.asarray(rgb)
    if img.ndim == 2:
        img = np.repeat(img[:, :, None], 3, axis=2)
    if img.ndim != 3 or img.shape[2] < 3 or min(img.shape[:2]) < 1:
        raise ValueError(f"expected an (H, W) or (H, W, 3) image, got shape {img.shape}")
    h, w = img.shape[:2]
    scale = INPUT_SIDE_PX / max(h, w)
    size = [max(STRIDE_PX, int(round(s * scale / STRIDE_PX)) * STRIDE_PX) for s in (w, h)]
    if size[1] < ROW_BANDS * STRIDE_PX:
        raise ToolError(f"a {w}x{h} frame is too wide for the learned tilt estimate (seen {size[1]} px high, under "
                        f"{ROW_BANDS * STRIDE_PX} px: too few rows for {ROW_BANDS} bands)")
    resized = cv2.resize(np.ascontiguousarray(img[:, :, :3]), tuple(size), interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(resized.transpose(2, 0, 1)[None].astype(np.float32) / 255.0)


def band_means(activation: np.ndarray, bands: int = ROW_BANDS) -> np.ndarray:
    """(bands * C,) mean of a (C, H, W) activation over each of ``bands`` horizontal bands, top band first, channels
    within a band in order. Band edges split the H rows as evenly as possible."""
    c, h, _ = activation.shape
    if h < bands:
        raise ValueError(f"activation of {h} rows cannot be split into {bands} bands")
    edges = np.linspace(0, h, bands + 1).round().astype(int)
    return np.concatenate([activation[:, a:b].mean(axis=(1, 2)) for a, b in zip(edges[:-1], edges[1:])])


def tilt_features(rgb: np.ndarray, layers: list) -> np.ndarray:
    """The feature vector of one image: :func:`band_means` of each pooled layer's activation, in :data:`LAYERS`
    order. ``layers``: the YOLOv8 model's layer list (``YOLO(...).model.model``), run in order up to the last
    pooled layer (the backbone's layers each take the previous one's output)."""
    import torch

    x = torch.from_numpy(backbone_input(rgb))
    pooled = []
    with torch.no_grad():
        for i, layer in enumerate(layers[: max(LAYERS) + 1]):
            x = layer(x)
            if i in LAYERS:
                pooled.append(band_means(x[0].float().numpy()))
    return np.concatenate(pooled).astype(np.float32)


def detector_layers(weights: str) -> list:
    """The layer list of the YOLO detector at ``weights`` (loaded once per process by the detect tool's loader)."""
    from tools.perception.detect import _load_model

    return list(_load_model(weights).model.model)


def backbone_digest(layers: list) -> str:
    """SHA-256 of the weights of the layers :func:`tilt_features` runs (up to the last of :data:`LAYERS`), at half
    precision, as shipped: a detector retrained with those layers frozen keeps the digest, and the tilt head fitted
    on its features stays valid; any change to them changes it."""
    import hashlib

    h = hashlib.sha256()
    for i, layer in enumerate(layers[: max(LAYERS) + 1]):
        for name, tensor in sorted(layer.state_dict().items()):
            t = tensor.detach().cpu()
            h.update(f"{i}.{name}:{tuple(t.shape)}".encode())
            h.update((t.half() if t.is_floating_point() else t).contiguous().numpy().tobytes())
    return h.hexdigest()
