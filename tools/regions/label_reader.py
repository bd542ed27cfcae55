"""Read a region label's number off the picture with a small recognizer made for overlay labels.

The general text recognizer (PP-OCRv4, :mod:`tools.regions.ocr`) reads a clean label crop right about 96 % of the
time on our overlays; it misreads small labels, labels crossed by another box's outline (the line reads as "1")
and "Region" garbled into digits. This recognizer reads only the number: a CNN over the label's picture, CTC
decoding over the ten digits, trained by :mod:`training.label_reader_train` on overlays drawn in fonts and on
backgrounds that the overlay benchmark never uses, then fine-tuned on a GPU on 525,000 more such samples, a
third of their scenes with lines run through labels (:mod:`training.label_reader_stream`). Its weights (ONNX,
~1.6 MB) ship with the package; the ``label_reader_model`` setting points elsewhere.

A label is read in a few windows around the box it is given (WINDOWS); the reads vote. Dev overlays (seeds 1/11/21),
exact regions: one window 904/861/855, three 905/866/856, these five 903/867/859, seven 905/868/857 (the recognizer's
time grows with the windows); seven windows read the true label boxes of seeds 1/11 right 927 -> 931 and
891 -> 895 times, boxes jittered by 0.1 height 911 -> 914 and 874 -> 888 (an earlier model). The shipped weights
read the true label boxes of the held-out overlays (seed 2024) right 1,421 times of 1,430 (1,417 before the
fine-tuning), every filled label and 98.6 % of those drawn in strokes of the outline colour
(:mod:`benchmarks.measure.bench_label_reader`).

Conventions: images are RGB ``uint8``; a label box is ``(x1, y1, x2, y2)`` in px; a read is
``(number or None, text, confidence in [0, 1])`` (confidence: probability of the whole decoded path).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from tools.common import ToolError

CHARSET = "0123456789"       # CTC classes 1..10; class 0 is the blank
HEIGHT, WIDTH = 32, 160      # px, the recognizer's input (a label is scaled to HEIGHT, squeezed when wider)
MARGIN = 0.25                # picture kept around a label box, in label heights
# the windows a label is read in, as shifts of its box's (x1, y1, x2, y2) in label heights: the box itself, moved
# left / right, taller, and widened; the reads vote, each with its confidence (a label finder's box is off by ~0.1
# height, and the recognizer is surest on the window it reads best)
WINDOWS = ((0, 0, 0, 0), (-.1, 0, -.1, 0), (.1, 0, .1, 0), (0, -.1, 0, .1), (0, 0, .3, 0))
Read = tuple[int | None, str, float]


def label_crop(rgb: np.ndarray, box: Sequence[float], invert: bool = False) -> np.ndarray:
    """The recognizer's input for a label box: the picture MARGIN x height around it (edge-replicated beyond the
    image; ``invert``: in negative), scaled to HEIGHT px, left-aligned on a black WIDTH px canvas (squeezed to
    WIDTH when wider)."""
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    if x2 <= x1 or y2 <= y1:
        raise ToolError(f"a label box needs x2 > x1 and y2 > y1, got {list(box)!r}")
    m = max(1, round(MARGIN * (y2 - y1)))
    x1, y1, x2, y2 = x1 - m, y1 - m, x2 + m, y2 + m
    h, w = rgb.shape[:2]
    crop = rgb[max(0, y1):min(h, y2), max(0, x1):min(w, x2)]
    if crop.size == 0:
        return np.zeros((HEIGHT, WIDTH, 3), np.uint8)
    crop = cv2.copyMakeBorder(crop, max(0, -y1), max(0, y2 - h), max(0, -x1), max(0, x2 - w), cv2.BORDER_REPLICATE)
    if invert:
        crop = 255 - crop
    scale = HEIGHT / crop.shape[0]
    width = int(min(WIDTH, max(1, round(crop.shape[1] * scale))))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    out = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
    out[:, :width] = cv2.resize(crop, (width, HEIGHT), interpolation=interp)
    return out


def to_input(crops: Sequence[np.ndarray]) -> np.ndarray:
    """A batch (N, 3, HEIGHT, WIDTH) float32 in [-1, 1] from :func:`label_crop` outputs."""
    x = np.stack(crops).astype(np.float32).transpose(0, 3, 1, 2)
    return x / 127.5 - 1.0


def is_id(digits: str) -> bool:
    """Digits a label's number can be: renderers write ids without leading zeros ("00" is a misread "8")."""
    return digits.isdigit() and (len(digits) == 1 or digits[0] != "0")


def ctc_decode(logits: np.ndarray) -> list[tuple[str, float]]:
    """Greedy CTC decoding of (N, T, 1 + len(CHARSET)) logits: (digits, probability of the best path). Written here
    because the decoders of torch and torchaudio need torch at run time, which reading a label should not."""
    z = logits - logits.max(axis=2, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=2, keepdims=True))
    best = logp.argmax(axis=2)
    out = []
    for path, lp in zip(best, logp):
        keep = (path > 0) & np.concatenate([[True], path[1:] != path[:-1]])
        text = "".join(CHARSET[c - 1] for c in path[keep])
        out.append((text, float(np.exp(lp[np.arange(len(path)), path].sum()))))
    return out


class LabelReader:
    """The ONNX recognizer, started on first use (weights: ``Config.label_reader_model``); calls serialised."""

    def __init__(self, path: str | None = None) -> None:
        self._path = path
        self._session: Any = None
        self._lock = threading.Lock()

    def _start(self) -> None:
        import onnxruntime as ort

        from agent.config import Config

        path = self._path or Config.from_env().resolved_label_reader_model()   # MissingWeightsError names it
        opts = ort.SessionOptions()
        opts.intra_op_num_threads, opts.inter_op_num_threads = 1, 1
        self._session = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])

    def read(self, rgb: np.ndarray, boxes: Sequence[Sequence[float]], invert: bool = False) -> list[Read]:
        """One read per label box of the RGB image: the number most confidence votes for over the WINDOWS around
        the box, with its best read's text and confidence (one batched call). ``invert``: read the picture in
        negative (the recognizer never learned light numbers on black: inverted, they are dark on white)."""
        if not len(boxes):
            return []
        windows = [shifted(b, shift) for b in boxes for shift in WINDOWS]
        x = to_input([label_crop(rgb, w, invert) for w in windows])
        with self._lock:
            if self._session is None:
                self._start()
            logits = self._session.run(None, {"image": x})[0]
        reads = [(int(text) if is_id(text) else None, text, conf) for text, conf in ctc_decode(logits)]
        return [_vote(reads[k:k + len(WINDOWS)]) for k in range(0, len(reads), len(WINDOWS))]


def shifted(box: Sequence[float], shift: Sequence[float]) -> list[float]:
    """``box`` (x1, y1, x2, y2 px) with each side moved by ``shift`` (the same order) in the box's heights."""
    return [v + s * (box[3] - box[1]) for v, s in zip(box, shift)]


def _vote(reads: Sequence[Read]) -> Read:
    """The read of the number with the largest summed confidence (None counts as a number), at its surest."""
    score: dict[int | None, float] = {}
    for rid, _, conf in reads:
        score[rid] = score.get(rid, 0.0) + conf
    best = max(score, key=lambda rid: score[rid])
    return max((r for r in reads if r[0] == best), key=lambda r: r[2])


READER = LabelReader()
