"""Read region label numbers ("Region 3" or "3") from an overlay-colour mask with an offline OCR engine.

Used by :mod:`tools.regions.pipeline`. The OCR input is a grey image rendered from the overlay colour (dark letters on
white, upscaled to ~OCR_HEIGHT px), so that the aerial background never reaches the OCR engine. Engines, in order
of preference (``UAV_AGENT_OCR_ENGINE`` = ``rapidocr`` or ``tesseract`` forces one):

- ``rapidocr``: the PP-OCRv4 text-line recognizer (ONNX, shipped inside the rapidocr-onnxruntime wheel; path from
  ``Config.ocr_model``), ~15 ms a crop on one core. On our overlay bench it misreads about half as many labels
  as Tesseract (docs/figures/regions.json).
- ``tesseract``: Debian's engine and ``eng`` model, in process through tesserocr (~10 ms a crop), or the
  pytesseract subprocess (~200 ms a crop) when tesserocr is missing.

Labels are read off the picture's own pixels by :mod:`tools.regions.label_reader` (:func:`read_pictures`).

Reading: first the whole label as one text line (whitelist ``Region0123456789``), the number is its last group of
digits; when that finds no digits, the right-most word of the label (split at column gaps wider than
WORD_GAP x label height) is read again as a single word, then as a single character, with a digits whitelist.
"""

from __future__ import annotations

import dataclasses
import os
import re
import threading
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from tools.common import ToolError
# Read: a label's number (None: no digits), the text read, confidence
from tools.regions.label_reader import READER, Read, is_id
from tools.regions.geom import enclosed

TESSDATA_DIRS = ("/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata")
LINE_WHITELIST = "Region0123456789 "
DIGITS = "0123456789"
DIGIT_LOOKALIKES = str.maketrans("OoIl|\u3002", "001110")   # U+3002 "。": PP-OCR's (Chinese) reading of a lone "0"
OCR_HEIGHT = 48.0   # px, height the label crop is scaled to
DET_MIN_SIDE = 480  # px, shorter side a crop is scaled to for text detection
# px, width the recognizer pads each crop to at least (height 48): PaddleOCR's 320 suits sentence lines; region
# labels are 1-9 characters, and the padding cost a third of the reading time for no accuracy (dev overlays: the
# same recovered count at 160 and 320)
REC_MIN_WIDTH = 160
LETTER_PAD = 2      # px, padding renderers draw around a label's letters (benchmarks.synth.overlay: at least 2 px)
RAW_PAD = 0.15      # margin around a label cut from the picture for the text-line engine, in label heights
INSET = 0.15        # margin cut off inside a label background read so, in label heights
FILL_PAD = 4        # px added around a filled label's box before its letters (enclosed holes) are found
WORD_GAP = 0.25     # gap between "Region" and the number, in label heights
# a picture read this sure that only adds a leading "1" to the mask read (or a digit after its first, see
# settle_disagreements) is not put to the vote: over 138 mask / picture disagreements on dev overlays (seeds 1,
# 11, 21) the vote settled 106 right; with the leading "1" alone, from 0.99 / 0.9 / 0.75 / 0.5: 111 / 111 / 113 /
# 113 (where such a label was drawn, the picture named it in all 20). (Any picture read at least 0.99 sure, not
# put to the vote: 112, but the recognizer reads a bold "0" in a box's corner as a sure "6")
PICTURE_CERTAIN = 0.75
_NUMBER = re.compile(r"\d+")
_LEADING_ONE = re.compile(r"(?<![A-Za-z])[il](\d)")   # a "1" read as the "i" of the line whitelist
_ZERO = re.compile("(?<![A-Za-z])[Oo\u3002](?![A-Za-z])")
PSM_LINE, PSM_WORD, PSM_CHAR = 7, 8, 10   # Tesseract page-segmentation modes


@dataclasses.dataclass
class LabelBlob:
    """A label candidate: ``box`` (x1, y1, x2, y2), exclusive end, px; ``filled``: a filled label background
    (the text is its holes) rather than text written in coloured strokes."""

    box: tuple[int, int, int, int]
    filled: bool


def text_mask(mask: np.ndarray, blob: LabelBlob) -> np.ndarray:
    """Boolean letter pixels of a label crop (holes of a filled background, or the coloured strokes). A filled
    label's holes are found FILL_PAD px beyond its box: letters at a trimmed edge (a label glued to an outline, a
    box a px tight) are enclosed by what lies beyond it."""
    x1, y1, x2, y2 = blob.box
    if not blob.filled:
        return mask[y1:y2, x1:x2].copy()
    h, w = mask.shape
    a, b = max(0, x1 - FILL_PAD), max(0, y1 - FILL_PAD)
    return enclosed(mask[b:min(h, y2 + FILL_PAD), a:min(w, x2 + FILL_PAD)])[y1 - b:y2 - b, x1 - a:x2 - a]


def ocr_image(text: np.ndarray, grey: np.ndarray | None = None) -> np.ndarray:
    """Dark letters on white, upscaled to about OCR_HEIGHT px high, with a white margin (uint8). ``grey``: the
    same crop as a grey picture with dark letters (used instead of the binary ``text`` when given)."""
    img = grey if grey is not None else np.where(text, 0, 255).astype(np.uint8)
    scale = max(1.0, OCR_HEIGHT / max(1, img.shape[0]))
    img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)
    img = cv2.GaussianBlur(img, (3, 3), 0)
    return cv2.copyMakeBorder(img, 12, 12, 12, 12, cv2.BORDER_CONSTANT, value=255)


def last_word(text: np.ndarray) -> np.ndarray:
    """Columns of the right-most word of a text mask (split at gaps >= WORD_GAP x height)."""
    cols = np.flatnonzero(text.any(axis=0))
    if len(cols) == 0:
        return text
    gaps = np.flatnonzero(np.diff(cols) > max(2.0, WORD_GAP * text.shape[0]))
    start = cols[gaps[-1] + 1] if len(gaps) else cols[0]
    return text[:, max(0, start - 1):cols[-1] + 2]


class Ocr:
    """One OCR engine behind ``read`` (see module docstring); started on first use, calls serialised."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._api: Any = None
        self._mode = ""

    @property
    def engine(self) -> str:
        """The engine in use (``rapidocr``, ``tesserocr`` or ``pytesseract``); starts it if needed."""
        with self._lock:
            if not self._mode:
                self._start()
            return self._mode

    def _start(self) -> None:
        forced = os.environ.get("UAV_AGENT_OCR_ENGINE", "").strip().lower()
        if forced not in ("", "rapidocr", "tesseract"):
            raise ToolError(f"UAV_AGENT_OCR_ENGINE must be 'rapidocr' or 'tesseract', got {forced!r}")
        if forced in ("", "rapidocr") and self._start_rapidocr(required=forced == "rapidocr"):
            return
        tessdata = next((d for d in TESSDATA_DIRS if (Path(d) / "eng.traineddata").is_file()), None)
        try:
            import tesserocr

            kwargs = {"path": tessdata} if tessdata else {}
            self._api = tesserocr.PyTessBaseAPI(lang="eng", **kwargs)
            self._mode = "tesserocr"
            return
        except (ImportError, RuntimeError):
            pass
        try:
            import pytesseract

            pytesseract.get_tesseract_version()
            self._mode = "pytesseract"
        except Exception as exc:  # noqa: BLE001 - any failure means no OCR engine
            raise ToolError("no OCR engine: install rapidocr-onnxruntime, or Debian's tesseract-ocr and tesserocr") \
                from exc

    def _start_rapidocr(self, required: bool) -> bool:
        """Load the recognizer only (the labels are already cut out); False when the package is missing."""
        try:
            from rapidocr_onnxruntime import RapidOCR
        except ImportError:
            if required:
                raise ToolError("UAV_AGENT_OCR_ENGINE=rapidocr but rapidocr-onnxruntime is not installed") from None
            return False
        from agent.config import Config

        cfg = Config.from_env()
        model = cfg.resolved_ocr_model()   # MissingWeightsError names ``ocr_model``
        det = cfg.resolved_ocr_det_model()
        # detection runs on small crops around a box: the side limit scales them up to where the text is found
        self._api = RapidOCR(rec_model_path=model, det_model_path=det, det_limit_type="min",
                             det_limit_side_len=DET_MIN_SIDE, rec_img_shape=[3, 48, REC_MIN_WIDTH],
                             intra_op_num_threads=max(1, cfg.ocr_threads), inter_op_num_threads=1)
        self._mode = "rapidocr"
        return True

    def read_many(self, imgs: list[np.ndarray], psm: int = PSM_LINE,
                  whitelist: str = LINE_WHITELIST) -> list[tuple[str, float]]:
        """:meth:`read` for several line images (one batched recognizer call with rapidocr)."""
        if not imgs:
            return []
        if self.engine != "rapidocr":
            return [self.read(img, psm, whitelist) for img in imgs]
        with self._lock:
            res, _ = self._api.text_rec([_bgr(img) for img in imgs])
        return [(_keep(text, whitelist), float(conf)) for text, conf in res]

    def find_lines(self, rgb: np.ndarray) -> list[tuple[str, float, tuple[int, int, int, int]]]:
        """Text lines found and read in an RGB crop: (text, confidence, (x1, y1, x2, y2) px). Only the rapidocr
        engine has a text detector; the Tesseract engines return ``[]``."""
        if self.engine != "rapidocr":
            return []
        with self._lock:
            res, _ = self._api(np.ascontiguousarray(rgb[:, :, ::-1]), use_det=True, use_cls=False, use_rec=True)
        out = []
        for quad, text, conf in res or []:
            q = np.asarray(quad, float)
            box = (int(q[:, 0].min()), int(q[:, 1].min()), int(np.ceil(q[:, 0].max())), int(np.ceil(q[:, 1].max())))
            out.append((_keep(text, LINE_WHITELIST), float(conf), box))
        return out

    def read(self, img: np.ndarray, psm: int = PSM_LINE, whitelist: str = LINE_WHITELIST) -> tuple[str, float]:
        """(text, confidence in [0, 1]) of a uint8 image of one text line, grey or BGR; ``whitelist``: the
        characters kept; ``psm``: Tesseract's page-segmentation mode (the line recognizer reads one line anyway)."""
        with self._lock:
            if not self._mode:
                self._start()
            if self._mode == "rapidocr":
                res, _ = self._api(_bgr(img), use_det=False, use_cls=False, use_rec=True)
                text, conf = res[0] if res else ("", 0.0)
                return _keep(text, whitelist), float(conf)
            if img.ndim == 3:   # Tesseract reads grey
                img = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
            if self._mode == "tesserocr":
                from PIL import Image

                self._api.SetPageSegMode(psm)
                self._api.SetVariable("tessedit_char_whitelist", whitelist)
                self._api.SetImage(Image.fromarray(img))
                return self._api.GetUTF8Text().strip(), max(0.0, self._api.MeanTextConf() / 100.0)
            import pytesseract

            cfg = f"--psm {psm} -c tessedit_char_whitelist={whitelist.strip()}"
            d = pytesseract.image_to_data(img, config=cfg, output_type=pytesseract.Output.DICT)
            words = [(w, float(c)) for w, c in zip(d["text"], d["conf"]) if w.strip()]
            text = " ".join(w for w, _ in words)
            return text, (float(np.mean([c for _, c in words])) / 100.0 if words else 0.0)


OCR = Ocr()


def _bgr(img: np.ndarray) -> np.ndarray:
    """A grey or BGR uint8 image as BGR (the recognizer's input)."""
    return img if img.ndim == 3 else cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)


def _number(line: str, conf: float) -> Read:
    """The label number in a line read (its last group of digits) as a :data:`Read`; no digits: no number."""
    nums = _NUMBER.findall(_LEADING_ONE.sub(r"1\1", line))
    return (int(nums[-1]), line, conf) if nums and is_id(nums[-1]) else (None, line, 0.0)


def _keep(text: str, whitelist: str) -> str:
    """The whitelisted characters of a recognizer's text; when only digits are allowed, the letters a digit is
    most often read as count as that digit (a lone "0" read as "O" or "。", a "1" as "l")."""
    if whitelist == DIGITS:
        text = text.translate(DIGIT_LOOKALIKES)
    else:   # a round glyph standing apart from letters is a "0" ("Region O", "1O", a lone "。")
        text = _ZERO.sub("0", text)
    return "".join(ch for ch in text if ch in whitelist).strip()


def grey_letters(strength: np.ndarray, blob: LabelBlob, text: np.ndarray) -> np.ndarray:
    """The label crop of an overlay strength map with dark letters on white (uint8); ``text``: the crop's letter
    mask (:func:`text_mask`). A filled label's outside (what its background does not enclose) turns white."""
    x1, y1, x2, y2 = blob.box
    crop = strength[y1:y2, x1:x2]
    if blob.filled:
        near = cv2.dilate(text.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        return np.where(near, crop, 255).astype(np.uint8)
    return (255 - crop).astype(np.uint8)


def label_images(mask: np.ndarray, blob: LabelBlob,
                 strength: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(OCR line image, letter mask) of one label. ``strength``: the overlay colour's strength map (grey picture
    of the label), else the binary mask is read."""
    if blob.filled:   # letters cut at a trimmed edge (a label glued to an outline) are read whole
        x1, y1, x2, y2 = blob.box
        h, w = mask.shape
        blob = LabelBlob((max(0, x1 - FILL_PAD), max(0, y1 - FILL_PAD), min(w, x2 + FILL_PAD), min(h, y2 + FILL_PAD)),
                         True)
    text = text_mask(mask, blob)
    grey = grey_letters(strength, blob, text) if strength is not None else None
    text, grey = _trim_to_letters(text, grey)
    return ocr_image(text, grey), text


def _trim_to_letters(text: np.ndarray, grey: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    """Crop to the letters plus a margin: a blob box that also holds outline remnants or empty label background
    would otherwise shrink the letters when the crop is scaled to OCR_HEIGHT."""
    rows, cols = np.flatnonzero(text.any(axis=1)), np.flatnonzero(text.any(axis=0))
    if len(rows) == 0:
        return text, grey
    pad = max(2, round(0.15 * (rows[-1] - rows[0] + 1)))
    y1, y2 = max(0, rows[0] - pad), rows[-1] + pad + 1
    x1, x2 = max(0, cols[0] - pad), cols[-1] + pad + 1
    return text[y1:y2, x1:x2], None if grey is None else grey[y1:y2, x1:x2]


def read_labels(jobs: list[tuple[np.ndarray, LabelBlob, np.ndarray | None]]) -> list[Read]:
    """(number or None, text read, confidence in [0, 1]) of each ``(mask, blob, strength)`` label (see module
    docstring): all lines in one batch, then the last words of those without digits."""
    images = [label_images(*job) for job in jobs]
    out = [_number(line, conf) for line, conf in OCR.read_many([img for img, _ in images])]
    retry = [k for k, (rid, _, _) in enumerate(out) if rid is None]
    psms = (PSM_WORD,) if OCR.engine == "rapidocr" else (PSM_WORD, PSM_CHAR)
    for psm in psms:
        words = [ocr_image(last_word(images[k][1])) for k in retry]
        still = []
        for k, (digits, conf) in zip(retry, OCR.read_many(words, psm, DIGITS)):
            if _NUMBER.fullmatch(digits) and is_id(digits):
                out[k] = (int(digits), (out[k][1] + " " + digits).strip(), conf)
            else:
                still.append(k)
        retry = still
    return out


def picture_label(rgb: np.ndarray, box: tuple[int, int, int, int], inside: bool = False) -> np.ndarray:
    """The label's own pixels (BGR, upscaled to about OCR_HEIGHT, edge-replicated margin): the letters as drawn,
    without the overlay-colour mask, whose thresholds lose thin strokes that JPEG's halved colour resolution
    blurs (the recognizer reads text on any background). ``inside``: cut INSET x height inside the box instead of
    RAW_PAD x height around it, for a label background, whose square edge the recognizer reads as a CJK box
    glyph ("口", "日") rather than the digit it holds."""
    x1, y1, x2, y2 = box
    h, w = rgb.shape[:2]
    pad = -max(1, round(INSET * (y2 - y1))) if inside else max(2, round(RAW_PAD * (y2 - y1)))
    if x2 - x1 <= -2 * pad or y2 - y1 <= -2 * pad:
        pad = 0
    crop = rgb[max(0, y1 - pad):min(h, y2 + pad), max(0, x1 - pad):min(w, x2 + pad), ::-1]
    scale = max(1.0, OCR_HEIGHT / max(1, crop.shape[0]))
    crop = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    return cv2.copyMakeBorder(crop, 8, 8, 8, 8, cv2.BORDER_REPLICATE)


def read_pictures(rgb: np.ndarray, blobs: list[LabelBlob]) -> list[Read]:
    """(number or None, digits, confidence) of each label blob read off the image's own pixels by the label
    recognizer (:mod:`tools.regions.label_reader`): the letters as drawn, without the overlay-colour mask, whose thresholds
    lose thin strokes that JPEG's halved colour resolution blurs."""
    return READER.read(rgb, [b.box if b.filled else _with_pad(b.box) for b in blobs])


def _with_pad(box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """A stroke label's letters grown by the padding renderers draw around them (the recognizer learnt on labels
    cut at their drawn box). Dev overlays (seed 1, 949 regions), exact regions by padding: none 867, 1 px 873,
    2 px 875, 3 px 861, 15 % of the height 860 (an earlier checkpoint of the recognizer)."""
    x1, y1, x2, y2 = box
    return x1 - LETTER_PAD, y1 - LETTER_PAD, x2 + LETTER_PAD, y2 + LETTER_PAD


def text_line_pictures(rgb: np.ndarray, blobs: list[LabelBlob]) -> list[Read]:
    """:func:`read_pictures` by the text-line engine (PP-OCRv4 or Tesseract) instead: a filled label inside its
    background, stroke text with a margin around it and, when that finds no digits, inside it too."""
    def read(boxes: list[tuple[int, int, int, int]], inside: list[bool]) -> list[Read]:
        return [_number(*r) for r in OCR.read_many([picture_label(rgb, b, i) for b, i in zip(boxes, inside)])]

    first = read([b.box for b in blobs], [b.filled for b in blobs])
    retry = [k for k, (rid, _, _) in enumerate(first) if rid is None and not blobs[k].filled]
    for k, again in zip(retry, read([blobs[k].box for k in retry], [True] * len(retry))):
        first[k] = again
    return first


def settle_disagreements(rgb: np.ndarray, blobs: list[LabelBlob], mask_reads: list[Read],
                    picture_reads: list[Read]) -> list[Read]:
    """Picture reads of labels whose mask and picture reads name different numbers, decided by a third reader
    (:func:`text_line_pictures`): the number it agrees with stands as the picture's read (a vote of two readers
    to one); where it agrees with neither, the picture read is kept. So is a picture read that only adds a
    digit to the mask read (:func:`digit_added`: a leading "1", or a digit after the first) when surer than
    PICTURE_CERTAIN: the third reader is the mask's engine again, and both drop the same narrow leading "1", or a
    digit that a crossing line runs through (dev seeds 1/11/21 and 41/51: +1 each on seeds 11, 41 and 51, none
    lost; a digit added in front, such as "918" for "18", is a neighbour's)."""
    out = list(picture_reads)
    split = [k for k, (m, p) in enumerate(zip(mask_reads, picture_reads))
             if None not in (m[0], p[0]) and m[0] != p[0]
             and not (p[2] >= PICTURE_CERTAIN and digit_added(m, p))]
    for k, third in zip(split, text_line_pictures(rgb, [blobs[k] for k in split])):
        for agreed in (mask_reads[k], picture_reads[k]):
            if third[0] == agreed[0]:
                out[k] = (agreed[0], third[1], max(third[2], agreed[2]))
                break
    return out


def digit_added(mask_read: Read, picture_read: Read) -> bool:
    """The picture read names the mask read's number with one more digit: a leading "1", or any digit after its
    first."""
    m, p = str(mask_read[0]), str(picture_read[0])
    return len(p) == len(m) + 1 and (p == f"1{m}" or (p[0] == m[0] and any(p[:k] + p[k + 1:] == m
                                                                            for k in range(1, len(p)))))


def read_label(mask: np.ndarray, blob: LabelBlob, strength: np.ndarray | None = None) -> Read:
    """:func:`read_labels` of one label."""
    return read_labels([(mask, blob, strength)])[0]
