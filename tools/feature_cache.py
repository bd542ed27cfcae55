"""Images at working size and their local features, kept per image and process.

Matching tools look at downscaled copies of their inputs (:func:`tools.common.load_working`: a JPEG is decoded by
libjpeg at a reduced size, never in full). A process that answers several questions about the same photos — the
MCP server, the ask daemon, a benchmark — would otherwise decode each photo and find its keypoints again for every
call; here both are remembered, keyed by the identity of the file's content (path, size, modification time) or a
digest of the bytes, and by the working size and feature method. Arrays are not keyed (their content may change
under the same object) and are recomputed each time.

Both caches are small LRUs (an entry is at most a 1024 px image, ~2 MB, or 4000 SIFT descriptors, ~2 MB) and safe
to use from the threads of one process; two threads asking for the same missing entry may both compute it.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from tools.common import downscale, file_key, load_working

VIEW_ITEMS = 16  # working images kept (a pair of photos at two sizes, for eight pairs)
FEATURE_ITEMS = 64  # feature sets (per image, method and size) and tentative matches (per pair) kept

T = TypeVar("T")


@dataclass(frozen=True)
class WorkingView:
    """An image as a matcher sees it: ``rgb`` with its longer side ≤ the working size, ``scale`` = working px /
    full px, ``full_size`` = (width, height) of the original, ``key`` = identity of its content (None: not
    cached)."""

    rgb: np.ndarray  # shared by every call that gets this view from the cache: read it, never draw on it
    scale: float
    full_size: tuple[int, int]
    key: Hashable | None

    def at_side(self, side: int) -> tuple[np.ndarray, float]:
        """This view downscaled further so that its longer side is ≤ ``side``, and that copy's scale to full px."""
        rgb, s = downscale(self.rgb, side)
        return rgb, self.scale * s


class _LRU:
    def __init__(self, items: int) -> None:
        self.items, self.data, self.lock = items, OrderedDict[Hashable, Any](), threading.Lock()

    def get(self, key: Hashable) -> Any:
        with self.lock:
            if key in self.data:
                self.data.move_to_end(key)
                return self.data[key]
        return None

    def put(self, key: Hashable, value: Any) -> None:
        with self.lock:
            self.data[key] = value
            self.data.move_to_end(key)
            while len(self.data) > self.items:
                self.data.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.data.clear()


_VIEWS = _LRU(VIEW_ITEMS)
_FEATURES = _LRU(FEATURE_ITEMS)


def source_key(image: Any) -> Hashable | None:
    """Identity of an image argument's content: the file's (path, size, mtime), a digest of bytes, None for arrays."""
    if isinstance(image, (str, Path)):
        return file_key(image)
    if isinstance(image, (bytes, bytearray)):
        return ("bytes", len(image), hashlib.blake2b(image, digest_size=16).digest())
    return None


def working_view(image: Any, max_side: int) -> WorkingView:
    """:func:`tools.common.load_working` of ``image`` at ``max_side``, from the cache when the same content was
    loaded at that size before."""
    key = source_key(image)
    cached = _VIEWS.get((key, max_side)) if key is not None else None
    if cached is not None:
        return cached
    rgb, scale, full = load_working(image, max_side)
    view = WorkingView(rgb, scale, full, key)
    if key is not None:
        _VIEWS.put((key, max_side), view)
    return view


def features(view: WorkingView, what: Hashable, compute: Callable[[], T]) -> T:
    """``compute()`` (features of ``view`` described by ``what``: method, size, settings), remembered for views of
    keyed content."""
    return remember(what, compute, view)


def remember(what: Hashable, compute: Callable[[], T], *views: WorkingView) -> T:
    """``compute()``, a result about ``views`` described by ``what`` (their features, the matches between them),
    remembered when every view has keyed content."""
    if any(v.key is None for v in views):
        return compute()
    key = (*(v.key for v in views), what)
    hit = _FEATURES.get(key)
    if hit is None:
        hit = compute()
        _FEATURES.put(key, hit)
    return hit


def clear() -> None:
    """Forget every cached view and feature set (tests; a server freeing memory)."""
    _VIEWS.clear()
    _FEATURES.clear()
