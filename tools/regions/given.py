"""Regions given by the caller as JSON instead of read from the pixels (:func:`regions_from_json`)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tools.common import ToolError
from tools.regions.region import Region

_NUMBER = re.compile(r"\d+")


def regions_from_json(obj: Any) -> list[Region]:
    """Regions given by the caller: ``[{"id": 1, "bbox": [x1, y1, x2, y2]}, ...]`` or ``{"1": [x1, y1, x2, y2]}``.

    Also accepts a JSON string. Raises :class:`ToolError` naming the bad entry.
    """
    if isinstance(obj, (str, bytes)):
        try:
            obj = json.loads(obj)
        except ValueError as exc:
            raise ToolError(f"regions JSON does not parse: {exc}") from exc
    if isinstance(obj, Mapping):
        items = [(k, v) for k, v in obj.items()]
    elif isinstance(obj, Sequence):
        items = []
        for i, entry in enumerate(obj):
            if not isinstance(entry, Mapping) or "id" not in entry or "bbox" not in entry:
                raise ToolError(f"region entry {i} must be an object with 'id' and 'bbox', got {entry!r}")
            items.append((entry["id"], entry["bbox"]))
    else:
        raise ToolError(f"regions must be a list of {{id, bbox}} or a mapping id -> bbox, got {type(obj).__name__}")
    out = []
    for rid, bbox in items:
        m = _NUMBER.search(str(rid))
        if m is None:
            raise ToolError(f"region id {rid!r} contains no number")
        if not isinstance(bbox, Sequence) or isinstance(bbox, str) or len(bbox) != 4:
            raise ToolError(f"region {rid!r}: bbox must be [x1, y1, x2, y2], got {bbox!r}")
        try:
            x1, y1, x2, y2 = (float(v) for v in bbox)
        except (TypeError, ValueError) as exc:
            raise ToolError(f"region {rid!r}: bbox values must be numbers, got {bbox!r}") from exc
        if not (x2 > x1 and y2 > y1) or not all(np.isfinite([x1, y1, x2, y2])):
            raise ToolError(f"region {rid!r}: bbox needs x2 > x1 and y2 > y1, got {bbox!r}")
        out.append(Region(int(m.group()), [x1, y1, x2, y2], str(rid), 1.0))
    return sorted(out, key=lambda r: r.id)
