"""The region a reader returns: its id read from the label, its box and how sure the read is (a leaf module
that every pass of the reader may import)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence


@dataclasses.dataclass
class Region:
    """A labelled region: ``id`` from its label (-1 when unreadable), ``bbox`` [x1, y1, x2, y2] in px at the
    centre of the drawn outline, the raw OCR text and a confidence in [0, 1] (Tesseract's mean word
    confidence; 1.0 for regions given as JSON)."""

    id: int
    bbox: list[float]
    label_text: str = ""
    confidence: float = 1.0
    # the label's mask and picture reads gave the same number; None: the picture read was not settled with it (a
    # read past a box's side that only added a final "1")
    confirmed: bool | None = False
    label_box: list[int] | None = None   # where the label was read, [x1, y1, x2, y2] px (None: given as JSON)
    # the label's mask read (id, text, confidence) where the picture read named another number and stood (internal:
    # repr=False keeps it out of tool outputs, tools.common.to_jsonable)
    mask_read: tuple[int, str, float] | None = dataclasses.field(default=None, repr=False)
    # an id this box's label and another box's were both read as, which neither kept (internal, see
    # tools.regions.ids.unique_ids)
    contested: int | None = dataclasses.field(default=None, repr=False)

    def relabel(self, rid: int, text: str, confidence: float, label_box: Sequence[float] | None) -> None:
        """Take a label read after the first pass over the boxes (by one read: not confirmed)."""
        self.id, self.label_text, self.confidence, self.confirmed = rid, text, round(confidence, 3), False
        self.mask_read = None
        self.label_box = None if label_box is None else [int(v) for v in label_box]
