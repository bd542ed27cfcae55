"""Photo-like backgrounds for tests: ground texture at several scales (fields, bushes, grain), its colour mostly one
hue with a little spread between channels, as a false-colour or natural aerial photo has. Feature matchers find
plenty in it, and a drawn line in a nearby colour is not the only thing of that colour."""

from __future__ import annotations

import cv2
import numpy as np

SCALES = (64, 16, 4)   # px, sizes of the texture's blobs


def textured_photo(height: int, width: int, base: tuple[int, int, int], spread: float, seed: int) -> np.ndarray:
    """RGB uint8 image of ``base`` colour whose brightness varies by ``spread`` (standard deviation, 0-255) over
    blobs of SCALES px, with a quarter of that varying per channel."""
    rng = np.random.default_rng(seed)
    img = np.zeros((height, width, 3), np.float32)
    for cell in SCALES:
        grid = (height // cell + 2, width // cell + 2)
        noise = np.repeat(rng.normal(0.0, 1.0, (*grid, 1)), 3, axis=2) + 0.25 * rng.normal(0.0, 1.0, (*grid, 3))
        size = (width + 2 * cell, height + 2 * cell)
        img += cv2.resize(noise.astype(np.float32), size, interpolation=cv2.INTER_CUBIC)[:height, :width]
    img = img / img.std() * spread + np.array(base, np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)
