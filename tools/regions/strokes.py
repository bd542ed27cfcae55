"""Straight thin line pieces of a picture, found by their profile across them (the first stages of
:mod:`tools.regions.thin`), and the colour likeness that follows a thin line JPEG has greyed.

1. Line pixels (:func:`line_pixels`): a pixel that differs by LINE_CONTRAST (summed |RGB| differences) from the
   pixels LINE_REACHES px above and below it (left and right), those two being more alike each other than either
   is to it, and whose own colour is chromatic (MIN_CHROMA) or light (LIGHT_MIN: white, light grey and pale
   outlines). Filled areas (tags, markers) differ on one side only and drop out; so do edges and ramps between two
   areas.
2. Segments (:func:`segments`, :func:`longest`): runs of such pixels at least MIN_SEGMENT px long (a morphological
   opening), pieces of one line less than CORNER_GAP apart joined, the MAX_SEGMENTS longest of an overlay-like
   colour per direction (foliage breaks into thousands of short ones).
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

LINE_REACHES = (3, 6)  # px beside a line where the picture is compared with it (lines up to 6 px thick)
LINE_REACH = LINE_REACHES[-1]
# px, longest image side from which lines are looked for at the wider reach too: below it outlines that thick keep
# their colour and the colour-level pass finds them (tools.regions.colours)
WIDE_REACH_FROM = 2000
LINE_CONTRAST = 60    # least sum of |RGB differences| of a line pixel from the picture on both sides of it
HUE_CONTRAST = 90     # least sum of |chroma differences| of a line pixel from both sides (a line on an edge)
SAME_WAY = 0.8        # the two sides of a line differ by at most this share of the line's least contrast
MIN_CHROMA = 35       # least max - min of a line pixel's RGB: overlay colours are saturated, or light (LIGHT_MIN)
# least channel of a light outline's pixel (white, light grey, pale yellow or cyan): JPEG keeps a 2 px white line
# at 240-255 on dark foliage; the picture's own light pixels (sunlit leaves, twigs, road edges) make short pieces
# or lines that close no box, which the later stages drop
LIGHT_MIN = 160
MIN_SEGMENT = 12      # px, shortest line piece looked at (boxes are 15 px and more)
CORNER_GAP = 10       # px, most distance between the ends of two segments that meet at a corner
COLOUR_TOL = 70.0     # RGB distance within which a pixel has a rectangle's colour
HUE_COS = 0.9         # least cosine between a pixel's chroma and a line colour's, for the same hue
CHROMA_SHARE = 0.35   # least share of the line colour's chroma that a pixel of its hue keeps
DARKER_TOL = 150.0    # most RGB distance of a pixel of the line's hue from the line colour
SEGMENT_VAL, SEGMENT_SAT = 90, 0.2   # a segment's colour: looser than thin.MIN_VAL / MIN_SAT (JPEG greys thin lines)
MAX_SEGMENTS = 300    # longest segments per direction looked at


@dataclasses.dataclass(frozen=True)
class Segment:
    """A straight line piece: its extent (inclusive px) and mean colour."""

    x1: int
    y1: int
    x2: int
    y2: int
    colour: tuple[float, float, float]


def line_pixels(rgb: np.ndarray, axis: int, hue_chroma: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Boolean mask of pixels on thin lines running along ``axis`` (1: horizontal lines, compared with the rows
    above and below; 0: vertical lines, compared with the columns left and right), at each of LINE_REACHES.

    A line pixel differs by LINE_CONTRAST (sum of absolute RGB differences) from the pixels on both sides, which
    are more alike each other than either is to it (SAME_WAY): a ramp between a dark and a bright area is no line.
    A line drawn along the edge between a bright and a dark area lies between them in brightness: its colour alone
    (RGB less its mean) differs from both sides, which are alike in colour, by HUE_CONTRAST. ``hue_chroma``:
    :func:`hue_and_chroma` of ``rgb`` when already computed (both axes of one image share it).
    """
    hue_of, chroma = hue_and_chroma(rgb) if hue_chroma is None else hue_chroma
    out = np.zeros(rgb.shape[:2], bool)
    for r in LINE_REACHES if max(rgb.shape[:2]) > WIDE_REACH_FROM else LINE_REACHES[:1]:
        before, after = _beside(rgb, r, axis)
        d1 = _l1(rgb, before)
        d2 = _l1(rgb, after)
        both = cv2.min(d1, d2)
        out |= (both >= LINE_CONTRAST) & (_l1(before, after) <= SAME_WAY * both)
        hb, ha = _beside(hue_of, r, axis)
        h_both = cv2.min(_l1(hue_of, hb), _l1(hue_of, ha))
        out |= (h_both >= HUE_CONTRAST) & (_l1(hb, ha) <= SAME_WAY * h_both)
    return out & chroma


def hue_and_chroma(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each pixel's chroma part (int16 RGB less the RGB mean rounded down) and whether the pixel is chromatic
    (MIN_CHROMA) or light (LIGHT_MIN)."""
    r_, g_, b_ = cv2.split(rgb)
    total = cv2.add(cv2.add(r_, g_, dtype=cv2.CV_16U), b_, dtype=cv2.CV_16U)
    mean = (total // 3).astype(np.int16)
    hue_of = rgb.astype(np.int16) - mean[..., None]
    least = cv2.min(cv2.min(r_, g_), b_)
    chroma = (cv2.subtract(cv2.max(cv2.max(r_, g_), b_), least) >= MIN_CHROMA) | (least >= LIGHT_MIN)
    return hue_of, chroma


def _beside(image: np.ndarray, r: int, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """``image`` shifted ``r`` px down and up (axis 1) or right and left (axis 0), edge pixels repeated: the
    pixels ``r`` px before and after each pixel across a line along ``axis``."""
    height, width = image.shape[:2]
    border = (r, r, 0, 0) if axis == 1 else (0, 0, r, r)
    padded = cv2.copyMakeBorder(image, *border, cv2.BORDER_REPLICATE)
    if axis == 1:
        return padded[:height], padded[2 * r:]
    return padded[:, :width], padded[:, 2 * r:]


def _l1(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sum over the channels of |a - b| (uint16; uint8 or int16 channels)."""
    d = cv2.absdiff(a, b).astype(np.uint16)
    return d[..., 0] + d[..., 1] + d[..., 2]


def segments(rgb: np.ndarray, mask: np.ndarray, axis: int) -> list[Segment]:
    """Straight pieces of ``mask`` (from :func:`line_pixels`) along ``axis`` at least MIN_SEGMENT px long (one-pixel
    gaps of JPEG noise bridged)."""
    m = mask.astype(np.uint8)
    along = (3, 1) if axis == 1 else (1, 3)   # cv2 kernel size is (width, height)
    m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, along))
    run = (MIN_SEGMENT, 1) if axis == 1 else (1, MIN_SEGMENT)
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, run))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
    out: list[Segment] = []
    for k in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[k])
        long_side, short_side = (w, h) if axis == 1 else (h, w)
        if long_side < MIN_SEGMENT or short_side > long_side:
            continue
        ys, xs = np.nonzero(labels[y:y + h, x:x + w] == k)
        colour = np.median(rgb[ys + y, xs + x].astype(np.float32), axis=0)
        out.append(Segment(x, y, x + w - 1, y + h - 1, (float(colour[0]), float(colour[1]), float(colour[2]))))
    return out


def alike(pixels: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """Which ``pixels`` (..., 3 RGB) show a line of ``colour``: within COLOUR_TOL (RGB distance), or of its hue
    (the chroma parts, RGB less their mean, point within HUE_COS of one way) with at least CHROMA_SHARE of its
    chroma and within DARKER_TOL: JPEG dims and greys a 1 px line along its length. A neutral colour (white, grey)
    has no hue to follow: only its own colour is its line's."""
    p = pixels.astype(np.float32)
    c = np.asarray(colour, np.float32)
    dist = np.linalg.norm(p - c, axis=-1)
    close = dist <= COLOUR_TOL
    if neutral(c):
        return close
    pc = p - p.mean(axis=-1, keepdims=True)
    cc = c - c.mean()
    cn = float(np.linalg.norm(cc))
    pn = np.linalg.norm(pc, axis=-1)
    hue = (pc @ cc) >= HUE_COS * pn * cn
    return close | (hue & (pn >= CHROMA_SHARE * cn) & (dist <= DARKER_TOL))


def alike_pairs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(len(a), len(b)) table of :func:`alike` between two lists of line colours (RGB)."""
    d = np.linalg.norm(a[:, None] - b[None], axis=2)
    ac, bc = a - a.mean(axis=1, keepdims=True), b - b.mean(axis=1, keepdims=True)
    an, bn = np.linalg.norm(ac, axis=1), np.linalg.norm(bc, axis=1)
    hue = (ac @ bc.T) >= HUE_COS * an[:, None] * bn[None]
    share = np.minimum(an[:, None], bn[None]) >= CHROMA_SHARE * np.maximum(an[:, None], bn[None])
    hued = ~_neutral_rows(a)[:, None] & ~_neutral_rows(b)[None]   # a neutral colour has no hue to share
    return (d <= COLOUR_TOL) | (hue & share & hued & (d <= DARKER_TOL))


def longest(pieces: list[Segment], axis: int) -> list[Segment]:
    """The MAX_SEGMENTS longest of the ``pieces`` (along ``axis``) whose colour may be an overlay's (a textured
    picture, foliage above all, breaks into thousands of short pieces; outlines are long), the coloured ones and
    the neutral light ones (white, light grey) each: white edges of roads and roofs never crowd out a coloured
    outline's sides."""
    pieces = _joined([p for p in pieces if _colourful(np.asarray(p.colour, np.float32))], axis)
    length = (lambda p: p.x2 - p.x1) if axis == 1 else (lambda p: p.y2 - p.y1)
    grey = [neutral(np.asarray(p.colour, np.float32)) for p in pieces]
    kinds = ([p for p, g in zip(pieces, grey) if not g], [p for p, g in zip(pieces, grey) if g])
    return [p for kind in kinds for p in sorted(kind, key=length, reverse=True)[:MAX_SEGMENTS]]


def _joined(pieces: list[Segment], axis: int) -> list[Segment]:
    """``pieces`` with those on one line (same rows of a horizontal line, columns of a vertical one) of alike
    colour and less than CORNER_GAP px apart joined: a side that the picture or a label broke into short pieces is
    one long line again, and ranks as long as it is among the MAX_SEGMENTS looked at."""
    def key(p: Segment) -> tuple[int, int, int]:
        return (p.y1, p.y2, p.x1) if axis == 1 else (p.x1, p.x2, p.y1)

    out: list[Segment] = []
    for p in sorted(pieces, key=key):
        q = out[-1] if out else None
        if q is not None and key(q)[:2] == key(p)[:2]:
            gap = p.x1 - q.x2 if axis == 1 else p.y1 - q.y2
            if gap <= CORNER_GAP and alike_pairs(np.array([q.colour]), np.array([p.colour]))[0, 0]:
                out[-1] = Segment(q.x1, q.y1, max(q.x2, p.x2), max(q.y2, p.y2),
                                  tuple(float(v) for v in (np.asarray(q.colour) + np.asarray(p.colour)) / 2))
                continue
        out.append(p)
    return out


def _colourful(colour: np.ndarray) -> bool:
    """An overlay's line colour: saturated enough (SEGMENT_SAT) and bright, or light (:func:`light`)."""
    hi, lo = float(colour.max()), float(colour.min())
    return (hi >= SEGMENT_VAL and hi - lo >= SEGMENT_SAT * hi) or light(colour)


def light(colour: np.ndarray) -> bool:
    """A light outline colour (white, light grey, pale yellow or cyan): every channel at least LIGHT_MIN."""
    return float(np.min(colour)) >= LIGHT_MIN


def neutral(colour: np.ndarray) -> bool:
    """A colour without a hue of its own (white, grey): saturation ((max - min) / max of RGB) under SEGMENT_SAT,
    the least of a coloured outline's line."""
    return bool(_neutral_rows(np.asarray(colour, np.float32).reshape(1, 3))[0])


def _neutral_rows(colours: np.ndarray) -> np.ndarray:
    """:func:`neutral` of each row of an (n, 3) array of RGB colours."""
    hi = colours.max(axis=1)
    return hi - colours.min(axis=1) < SEGMENT_SAT * hi
