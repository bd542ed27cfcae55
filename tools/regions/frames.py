"""Box outlines drawn around their own filled label ("framed labels"): a label centred in a box little bigger than
itself, with background showing between the label and the outline.

The closing that fills a label's letter holes (:func:`tools.regions.fill.filled_areas`) also bridges a narrow gap,
so the outline is taken for part of the label background, and a box whose inside is mostly label is no box to the
rectangle search (:data:`tools.regions.lines.INTERIOR_MAX`; it takes one only with background showing off the label,
:func:`tools.regions.lines._around_label`). Here the outline is found from the drawn-share profiles across the
label's middle: outward from the label, a gap (drawn share <= GAP_MAX) then a line, above and below the label and
left and right of it; each of the four lines drawn along the whole span between the others, each gap mostly
background. Another box's line across the whole profile window (drawn at both its ends) is left out of the profile:
in a gap it would look like a line. A label as wide as its box's inside touches the left and right sides: those are
where the lines above and below it end; one as tall as the inside touches the lines above and below it, where the
lines left and right end. The strokes of a "1" in a filled label make gaps and lines of the label's own background
as tall as it, so such a frame must hold letters and its top and bottom lines must end at its corners (a label's
pads run on past its letters). A thin "1" makes such a false gap across the middle of any label, with a strip of
the label's background beyond it that looks like a line: the frame taken is the innermost whose gaps are clear all
along the inside (the label's own pads close a letter's gap above and below it), else the innermost. A plain label
has no gap beyond its padding on both sides of both axes, and a box side may run past one of its sides, not around
it.

Conventions: masks are (H, W) bool, boxes [x1, y1, x2, y2] at outline centres (px), as in :mod:`tools.regions.lines`.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from tools.regions.geom import components, enclosed, true_runs

GAP_MAX = 0.25    # most drawn share of a profile step in the gap between label and outline
LINE_MIN = 0.7    # least drawn share of a profile step on the outline
FILL_MIN = 0.85   # least drawn share of the label's edge just inside the gap
MAX_GAP = 12      # px, widest gap looked across
MAX_THICK = 10    # px, thickest outline (tools.regions.geom.MAX_LINE)
ALONG_MIN = 0.85  # least drawn share of each outline along the span between the two crossing outlines
MIN_LABEL = 10    # px, least height and width of a label (the strokes around a letter's holes frame no label)
GAP_ALONG_MAX = 0.5  # most drawn share of each gap between the label and the outline (JPEG may bridge it)
MIN_LETTER_SHARE = 0.04  # least share of a label background's area (or a frame's inside) its letters take
CROSSING = 0.7   # least drawn share of a column across a whole profile window that is another box's line
RUN_ON = 3        # px looked at past a frame's corners
CLEAR = 0.9       # least background share along the inside of a line of pixels across a gap (a clear gap)
FRAMED = 2        # value of :func:`tools.regions.fill.filled_areas` on a filled label with an outline around it

Side = tuple[int, int, int]   # (the label's edge, the line's inner edge, its outer edge) as end-exclusive bounds


@dataclasses.dataclass(frozen=True)
class Frame:
    """An outline around a filled label: ``box`` at line centres, line ``thick``ness, and the ``inside`` of the
    gap ([x1, y1, x2, y2], end-exclusive px), which holds the label."""

    box: list[float]
    thick: float
    inside: tuple[int, int, int, int]
    clear: bool   # each gap is background all along the label somewhere across it (:func:`_clear`)


def _outward(profile: np.ndarray) -> list[tuple[int, int, int]]:
    """Candidate (gap start, line start, line end) steps along ``profile`` (drawn shares, index 0 at the label's
    middle, rising outward; end-exclusive), innermost first: a gap between two drawn runs, the inner one ending in a
    solid step (the label's edge), the outer one a line (JPEG-blurred edge steps included). A letter stroke across
    the middle makes a false gap inside the label; :func:`frame_around` keeps the candidates whose lines close a
    box."""
    runs = true_runs(profile > GAP_MAX)
    return [(f1 + 1, l0, l1 + 1) for (f0, f1), (l0, l1) in zip(runs, runs[1:])
            if profile[max(f0, f1 - 2):f1 + 1].max() >= FILL_MIN and l0 - f1 - 1 <= MAX_GAP
            and l1 + 1 - l0 <= MAX_THICK + 2 and profile[l0:l1 + 1].max() >= LINE_MIN]


def _sides(mask: np.ndarray, lo: int, hi: int, centre: int, a: int, b: int) -> tuple[list[Side], list[Side]]:
    """Candidate gap/line steps before and after ``centre`` along the rows ``lo:hi`` of ``mask`` (columns averaged
    over ``a:b``), innermost first."""
    window = mask[lo:hi, a:b]
    # another box's line across the whole window (drawn at both its ends, mostly drawn): neither gap nor line
    crossing = window[:RUN_ON].all(axis=0) & window[-RUN_ON:].all(axis=0) & (window.mean(axis=0) >= CROSSING)
    prof = (window[:, ~crossing] if crossing.mean() < 0.5 else window).mean(axis=1)
    c = centre - lo
    before = [(c - g + 1 + lo, c - l0 + 1 + lo, c - l1 + 1 + lo) for g, l0, l1 in _outward(prof[c::-1])]
    after = [(c + g + lo, c + l0 + lo, c + l1 + lo) for g, l0, l1 in _outward(prof[c:])]
    return before, after


def frame_around(mask: np.ndarray, label: tuple[int, int, int, int]) -> Frame | None:
    """The outline drawn around the filled label whose box (x, y, w, h in px) is ``label``, if there is one: the
    innermost whose gaps are clear (:func:`_clear`), else the innermost."""
    x, y, w, h = label
    H, W = mask.shape
    reach = MAX_GAP + MAX_THICK + 2
    tops, bots = _sides(mask, max(0, y - reach), min(H, y + h + reach), y + h // 2, x + w // 4, x + w - w // 4)
    lefts, rights = _sides(mask.T, max(0, x - reach), min(W, x + w + reach), x + w // 2, y + h // 4, y + h - h // 4)
    combos = list(itertools.product(tops, bots, lefts, rights))
    # a label as wide as its box's inside touches the left and right sides: where the lines above and below end
    combos += [(t, b, *_touching(mask.T, t, b, x + w // 2)) for t, b in itertools.product(tops, bots)]
    # one as tall as the inside touches the lines above and below it: where the lines left and right of it end
    # (such a frame must hold letters and have corners: the strokes of a "1" make gaps and lines of the label's own
    # background)
    tall = [(*_touching(mask, l, r, y + h // 2), l, r) for l, r in itertools.product(lefts, rights)]
    first = None
    for k, (t, b, l, r) in enumerate(combos + tall):
        frame = None if l is None or t is None else _closed(mask, t, b, l, r)
        if frame is None or k >= len(combos) and not (frame_holds_letters(mask, frame)
                                                      and _corners_end(mask, t, b, l, r)):
            continue
        if frame.clear:
            return frame
        first = first or frame
    return first


def frame_holds_letters(mask: np.ndarray, frame: Frame) -> bool:
    """The inside of ``frame`` holds letters: holes in its drawn pixels, at least MIN_LETTER_SHARE of it."""
    l, t, r, b = frame.inside
    return bool(enclosed(mask[t:b, l:r]).mean() >= MIN_LETTER_SHARE)


def _corners_end(mask: np.ndarray, top: Side, bot: Side, left: Side, right: Side) -> bool:
    """The lines above and below end at the outer edges of the lines left and right, as a box's corners do (a
    label's own background runs on past the gaps its letters make)."""
    (_, t1, t0), (_, b0, b1), (_, _, l0), (_, _, r1) = top, bot, left, right
    beyond = [mask[a:z, max(0, l0 - RUN_ON):l0] for a, z in ((t0, t1), (b0, b1))]
    beyond += [mask[a:z, r1:r1 + RUN_ON] for a, z in ((t0, t1), (b0, b1))]
    return all(part.size == 0 or part.mean() < 0.5 for part in beyond)


def _touching(mask: np.ndarray, before: Side, after: Side, centre: int) -> tuple[Side | None, Side | None]:
    """The sides across two gapped lines of a box whose label touches them (``mask`` transposed so that the lines
    ``before``/``after`` are columns): the lines' common ends, as thick as they are; (None, None) when the two
    lines do not end together (within 2 px)."""
    (_, e0, o0), (_, s1, e1) = before, after
    ends = [next(((a, z + 1) for a, z in true_runs(line.mean(axis=1) >= 0.5) if a <= centre <= z), None)
            for line in (mask[:, o0:e0], mask[:, s1:e1])]
    if None in ends or abs(ends[0][0] - ends[1][0]) > 2 or abs(ends[0][1] - ends[1][1]) > 2:
        return None, None
    thick = round(((e0 - o0) + (e1 - s1)) / 2)
    a, z = min(ends[0][0], ends[1][0]), max(ends[0][1], ends[1][1])
    return (a + thick, a + thick, a), (z - thick, z - thick, z)


def _closed(mask: np.ndarray, top: Side, bot: Side, left: Side, right: Side) -> Frame | None:
    """The frame whose four sides are these candidates, when each line is drawn along the whole span between the
    two crossing lines, each gap is mostly background (a letter stroke's false gap is not) and the inside is big
    enough for a label."""
    (ti, t1, t0), (bi, b0, b1), (li, l1, l0), (ri, r0, r1) = top, bot, left, right
    lines = (mask[t0:t1, l0:r1], mask[b0:b1, l0:r1], mask[t0:b1, l0:l1].T, mask[t0:b1, r0:r1].T)
    gaps = (mask[t1:ti, l1:r0], mask[bi:b0, l1:r0], mask[t1:b0, l1:li], mask[t1:b0, ri:r0])
    if min(line.size for line in lines) == 0 or min(ri - li, bi - ti) < MIN_LABEL:
        return None
    gaps = tuple(g for g in gaps if g.size)   # a side the label touches has none
    if (min(line.any(axis=0).mean() for line in lines) < ALONG_MIN
            or max((g.mean() for g in gaps), default=0.0) > GAP_ALONG_MAX):
        return None
    thick = float(np.mean([(line.mean(axis=1) >= 0.5).sum() for line in lines]))
    box = [(l0 + l1 - 1) / 2, (t0 + t1 - 1) / 2, (r0 + r1 - 1) / 2, (b0 + b1 - 1) / 2]
    return Frame(box, thick, (li, ti, ri, bi), _clear(mask[t1:b0, l1:r0], (ti - t1, bi - t1, li - l1, ri - l1)))


def _clear(inner: np.ndarray, label: tuple[int, int, int, int]) -> bool:
    """Each gap between the label (``label``: top, bottom, left, right edges in ``inner``, the frame's inside up to
    its lines) and the lines has a line of pixels across it that is background (>= CLEAR share) all along the
    inside: a letter stroke's false gap (the "1" of "13") is closed by the label's own pads above and below it."""
    t, b, l, r = label
    gaps = (inner[:, :l], inner[:, r:], inner[:t].T, inner[b:].T)
    return all(g.size == 0 or (1 - g.mean(axis=0)).max() >= CLEAR for g in gaps)


def framed_boxes(mask: np.ndarray, filled: np.ndarray) -> list[tuple[list[float], float]]:
    """(box, line thickness) of the outlines around the labels marked FRAMED in ``filled``."""
    n, _, stats = components((filled == FRAMED).astype(np.uint8))
    frames = [frame_around(mask, tuple(int(v) for v in s[:4])) for s in stats[1:n]]
    return [(f.box, f.thick) for f in frames if f is not None]
