"""Edited copies of real photos for the pose benchmarks and tests: the pixels changed by a known edit while every
metadata tag stays as the camera wrote it (the edited-file trap a pose must see through)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import cv2


def rotated_copy(src: Path, dst: Path, turns: int) -> Path:
    """A copy of ``src`` with its pixels turned ``turns`` quarter turns clockwise and every tag copied unchanged
    (``-xmp`` copies the XMP packet as a block, so vendor namespaces ExifTool cannot write, e.g. XMP-Camera, stay)."""
    rgb = cv2.imread(str(src), cv2.IMREAD_COLOR)
    for _ in range(turns % 4):
        rgb = cv2.rotate(rgb, cv2.ROTATE_90_CLOCKWISE)
    cv2.imwrite(str(dst), rgb, [cv2.IMWRITE_JPEG_QUALITY, 95])
    subprocess.run(["exiftool", "-q", "-overwrite_original", "-TagsFromFile", str(src), "-all:all", "-xmp",
                    str(dst)],
                   check=True, capture_output=True, timeout=60)
    return dst
