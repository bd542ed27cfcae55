"""The one box drawn on a photo to mark a spot (unlabelled, as in "the box I drew in photo 1"), told apart from the
other things the region reader may return there: pieces of the box, labels it thought it read, lawns and field edges
of a colour close to the outline's.

A drawn outline is a thin closed rectangle: on each of its four sides a straight line of one colour runs the whole
side, and the pixels just inside and just outside that line are of another colour. Scene structure fails that
somewhere: a lawn is its colour on both sides of any line through it, a field edge has one side only, a piece of a
box cut short has a "side" that runs across the box's inside, a box cut by the image border has no outside there.

Per candidate box (the reader's boxes, labelled or not):

1. The outline's colour: the median of the most saturated quarter of the pixels within ``BAND`` px of the box's
   perimeter (a coloured line), or of the brightest quarter (a white or light grey line); both are tried.
2. Stroke pixels: those within ``NEAR`` (RGB distance) of that colour.
3. Each side is searched for the line position (a column for left and right, a row for top and bottom) where
   stroke pixels cover most of the span between the other two sides, less what they cover ``PROBE`` px beyond the
   line's own run of covered positions on either side (its contrast with both sides); a run wider than ``THIN`` of
   the box's larger size is a filled area, no line. The search reaches out by the box's larger size and in to its
   middle, so a piece of a box grows back to the box it was cut from. Two rounds: the sides found in the first give
   the spans of the second.
4. Its evidence is the weakest side's: a side at the image border, with no outside to compare, has none.

Under the prior that the photo carries ONE marked box, the strongest outline is it when its evidence reaches
``MIN_EVIDENCE`` and no other distinct outline comes within ``MARGIN`` of it; else there is no answer and the
reason says why (none found, or two equally strong).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import cv2
import numpy as np

from tools.regions.geom import iou

BAND = 4             # px either side of a candidate's perimeter sampled for its outline colour
NEAR = 60.0          # RGB distance (0-441) within which a pixel has the outline's colour (JPEG spreads a line's edge)
PROBE = (2, 4)       # px beyond a line's run of covered positions where its two sides are compared with it
THIN = 1 / 3         # widest line, as a share of the box's larger size: its inside shows between its lines
SPAN_TRIM = 0.1      # share of a side's span left out at each end (the corners, where the other lines cross)
MIN_EVIDENCE = 0.5   # weakest side's evidence for a drawn outline: stroke covers >= half of it more than beside it
MARGIN = 0.2         # lead of the strongest outline over any other for it to be the one marked box
SAME_BOX = 0.5       # IoU above which two refined candidates are one outline found twice


@dataclasses.dataclass
class Outline:
    """A candidate refined to the drawn rectangle its lines make: ``bbox`` [x1, y1, x2, y2] px (on its lines),
    ``colour`` RGB of its lines, ``sides`` evidence (left, top, right, bottom) in [0, 1]; ``evidence`` the weakest."""

    bbox: list[float]
    colour: tuple[int, int, int]
    sides: tuple[float, float, float, float]

    @property
    def evidence(self) -> float:
        return min(self.sides)


@dataclasses.dataclass
class Marked:
    """The one marked box (``bbox`` None when there is no clear one, and ``reason`` says why) and every candidate's
    refined outline, strongest first."""

    bbox: list[float] | None
    evidence: float
    reason: str | None
    outlines: list[Outline]


def outline_colours(rgb: np.ndarray, box: Sequence[float]) -> list[np.ndarray]:
    """RGB (float) the line drawn along ``box``'s perimeter may have: the median of the most saturated quarter of
    the pixels within BAND px of it (a coloured line), and of the brightest quarter (a white or light grey one)."""
    h, w = rgb.shape[:2]
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    ring = np.zeros((h, w), np.uint8)
    cv2.rectangle(ring, (x1, y1), (x2, y2), 1, 2 * BAND + 1)
    px = rgb[ring > 0].astype(np.float32)
    if len(px) == 0:
        return []
    out = []
    for key in (px.max(axis=1) - px.min(axis=1), px.min(axis=1)):   # chroma; lightness of the darkest channel
        out.append(np.median(px[key >= np.quantile(key, 0.75)], axis=0))
    return out


def _coverage(near: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Per column of ``near`` (bool, rows x columns), the share of rows lo..hi with a stroke pixel within 1 px of
    the column (a line drawn between pixel columns is still one line); none where lo..hi holds no row."""
    if hi < lo:
        return np.zeros(near.shape[1])
    spread = near[lo:hi + 1].copy()
    spread[:, 1:] |= near[lo:hi + 1, :-1]
    spread[:, :-1] |= near[lo:hi + 1, 1:]
    return spread.mean(axis=0)


def _run(cov: np.ndarray, p: int, widest: float) -> tuple[int, int] | None:
    """The run of positions around ``p`` covered at least half as much as ``p`` (the line's width, JPEG's blur
    included), or None when it is wider than ``widest`` (a filled area; the walk stops there)."""
    lo, hi, floor = p, p, 0.5 * cov[p]
    while lo > 0 and cov[lo - 1] >= floor and hi - lo < widest:
        lo -= 1
    while hi < len(cov) - 1 and cov[hi + 1] >= floor and hi - lo < widest:
        hi += 1
    return None if hi - lo + 1 > widest else (lo, hi)


def _side(cov: np.ndarray, at: int, first: int, last: int, widest: float) -> tuple[int, float]:
    """Best line position for one side and its evidence. ``cov``: coverage per position (columns, or rows
    transposed); ``at``: where the side is now; positions ``first``..``last`` are searched; ``widest``: the widest
    run of covered positions that is still a line. Out of the image is no outside: a side whose probes leave it has
    no evidence."""
    n = len(cov)
    best, best_score = at, 0.0
    for p in range(max(first, 0), min(last, n - 1) + 1):
        if cov[p] < best_score:   # a line's evidence never exceeds its coverage
            continue
        run = _run(cov, p, widest)
        beside = [] if run is None else [q for d in PROBE for q in (run[0] - d, run[1] + d)]
        if not beside or min(beside) < 0 or max(beside) >= n:
            continue
        score = float(cov[p] - max(cov[q] for q in beside))
        score -= 1e-3 * abs(p - at) / n   # equal evidence: the position nearest the candidate's side
        if score > best_score:
            best, best_score = p, score
    return best, best_score


def line_pixels(rgb: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """Boolean mask of the pixels within NEAR of a line's ``colour`` (RGB)."""
    return np.linalg.norm(rgb.astype(np.float32) - colour, axis=2) < NEAR


def refine(rgb: np.ndarray, box: Sequence[float], line: tuple[np.ndarray, np.ndarray] | None = None) -> Outline:
    """``box`` moved to the rectangle its outline's lines make, with each side's evidence (module docstring).
    ``line``: the line's colour and :func:`line_pixels` when known; else each colour of :func:`outline_colours`
    is tried and the strongest outline stands."""
    if line is not None:
        return _refined(rgb, box, *line)
    tries = [_refined(rgb, box, c, line_pixels(rgb, c)) for c in outline_colours(rgb, box)]
    return max(tries, key=lambda o: o.evidence, default=Outline([float(v) for v in box], (0, 0, 0), (0.0, 0.0, 0.0, 0.0)))


def _refined(rgb: np.ndarray, box: Sequence[float], colour: np.ndarray, near: np.ndarray) -> Outline:
    """:func:`refine` with the line's colour and pixels known."""
    h, w = rgb.shape[:2]
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    sides = (0.0, 0.0, 0.0, 0.0)
    for _ in range(2):
        reach = max(x2 - x1, y2 - y1, 2 * BAND)
        widest = THIN * max(x2 - x1, y2 - y1)   # of the box's larger size: a filled area fails along it
        lo, hi = _trimmed(y1, y2)
        cols = _coverage(near, max(lo, 0), min(hi, h - 1))
        mid_x = (x1 + x2) // 2
        x1, left = _side(cols, x1, x1 - reach, mid_x, widest)
        x2, right = _side(cols, x2, mid_x, x2 + reach, widest)
        lo, hi = _trimmed(x1, x2)
        rows = _coverage(near.T, max(lo, 0), min(hi, w - 1))
        mid_y = (y1 + y2) // 2
        y1, top = _side(rows, y1, y1 - reach, mid_y, widest)
        y2, bottom = _side(rows, y2, mid_y, y2 + reach, widest)
        sides = (round(left, 3), round(top, 3), round(right, 3), round(bottom, 3))
        if x2 - x1 <= 2 or y2 - y1 <= 2:   # two sides found on one line: no rectangle
            sides = (0.0, 0.0, 0.0, 0.0)
            break
    rgb_int = tuple(int(round(float(c))) for c in colour)
    return Outline([float(x1), float(y1), float(x2), float(y2)], rgb_int, sides)  # type: ignore[arg-type]


def _trimmed(a: int, b: int) -> tuple[int, int]:
    """The span a..b without SPAN_TRIM of it at each end."""
    cut = int(round(SPAN_TRIM * (b - a)))
    return a + cut, max(b - cut, a + cut)


def marked_box(rgb: np.ndarray, candidates: Sequence[Sequence[float]],
               seeds: Sequence[tuple[Sequence[float], tuple[np.ndarray, np.ndarray]]] = (),
               refined: Sequence[Outline] = ()) -> Marked:
    """The one marked box among ``candidates`` (boxes [x1, y1, x2, y2] px in ``rgb``), by outline evidence;
    ``seeds``: more places to look, each with its line's colour and pixels (:func:`refine`); ``refined``: outlines
    refined already (a previous call's :attr:`Marked.outlines`), added as they are."""
    outlines = [refine(rgb, c) for c in candidates if c[2] > c[0] and c[3] > c[1]]
    outlines += list(refined) + [refine(rgb, box, line) for box, line in seeds]
    outlines.sort(key=lambda o: -o.evidence)
    distinct: list[Outline] = []
    for o in outlines:   # several pieces of one box refine to the same outline: it is counted once
        if all(iou(o.bbox, d.bbox) <= SAME_BOX for d in distinct):
            distinct.append(o)
    if not distinct or distinct[0].evidence < MIN_EVIDENCE:
        best = distinct[0].evidence if distinct else 0.0
        return Marked(None, best, f"no drawn outline found (strongest evidence {best:.2f} < {MIN_EVIDENCE})",
                      outlines)
    best = distinct[0]
    if len(distinct) > 1 and distinct[1].evidence > best.evidence - MARGIN:
        return Marked(None, best.evidence, f"two drawn outlines are about as strong ({best.evidence:.2f}, "
                      f"{distinct[1].evidence:.2f}): which one is marked is unclear", outlines)
    return Marked(best.bbox, best.evidence, None, outlines)
