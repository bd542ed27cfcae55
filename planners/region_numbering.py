"""The id of a drawn box whose label could not be read, from the numbering of the boxes that were read.

Region overlays number their N boxes consecutively, from 0 (SpatialUAV, BEDI) or from 1 (set-of-mark prompts,
detection-library tags). When every box but one was read, and exactly one consecutive numbering of all the drawn
boxes holds every id that was read, the unread box carries the one id that numbering leaves over. Anything less
certain (two or more boxes unread, a numbering that could start at 0 or at 1, a read id outside it) names no id:
the box stays unlabeled and an answer that needs its id abstains.
"""

from __future__ import annotations

from typing import Iterable

NUMBERING_STARTS = (0, 1)  # the first id of a consecutive region numbering


def ids_left_over(read_ids: Iterable[int], n_boxes: int) -> set[int] | None:
    """Ids that the only consecutive numbering of ``n_boxes`` boxes holding every one of ``read_ids`` does not use
    yet; None when no numbering, or more than one, holds them."""
    read = set(read_ids)
    fits = [set(range(s, s + n_boxes)) - read for s in NUMBERING_STARTS if read <= set(range(s, s + n_boxes))]
    return fits[0] if len(fits) == 1 else None


def infer_unread_id(read_ids: Iterable[int], unread: list[list[float]]) -> dict[int, list[float]]:
    """``{id: bbox}`` for the single unread box when the numbering leaves exactly one id for it, else ``{}``."""
    read = set(read_ids)
    if len(unread) != 1 or not read:
        return {}
    left = ids_left_over(read, len(read) + 1)
    return {left.pop(): unread[0]} if left is not None and len(left) == 1 else {}


INFERRED_ID_CONFIDENCE = 0.5  # an id from the numbering, not from the pixels: no surer than an assumption


def with_inferred_id(regions: dict[int, dict],
                     unread: list[list[float]]) -> tuple[dict[int, dict], list[list[float]]]:
    """``regions`` (read, by id) plus the unread box whose id the numbering gives (``id_from`` "numbering", with
    :data:`INFERRED_ID_CONFIDENCE`), and the boxes still unread."""
    inferred = infer_unread_id(regions, unread)
    if not inferred:
        return regions, unread
    named = {i: {"id": i, "bbox": b, "confidence": INFERRED_ID_CONFIDENCE, "id_from": "numbering"}
             for i, b in inferred.items()}
    return {**regions, **named}, []
