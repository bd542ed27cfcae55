"""Camera facts a photo's own metadata records, answered offline: which camera or drone, the lens, where and when.

The question names the facts it wants (``FACTS``: a pattern per fact over the question text); a question that
names none ("what are the EXIF details?") gets every fact the file records. Values come from the
``camera_metadata`` MCP tool (ExifTool, any vendor), each with the tag it was read from; a wanted fact the file
does not record is said to be missing, and when none of the wanted facts is recorded the operation abstains.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from planners.execute import METADATA_CONFIDENCE, OPERATIONS
from planners.plans import Evidence, found, undecided
from planners.program import Ask, Program
from planners.toolbox import ToolContext

#: Each fact: the question words that ask for it, and the metadata fields that answer it.
FACTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "camera": (r"\bmodel\b|\bmake\b|\bwhich (drone|camera|sensor|aircraft|uav|platform)\b|"
               r"\bwhat (drone|camera|sensor|aircraft|uav|platform)\b", ("make", "model")),
    "lens": (r"\bfocal\b|\blens\b", ("focal_mm", "focal_35mm")),
    "position": (r"\bwhere\b|\bgps\b|\bcoordinates?\b|\blocation\b|\blatitude\b|\blongitude\b|\bposition\b",
                 ("lat", "lon")),
    "time": (r"\bwhen\b|\bdate\b|\btime\b|\btimestamp\b", ("datetime",)),
}


def _camera(m: dict[str, Any]) -> str:
    make, model = (m.get("make") or "").strip(), (m.get("model") or "").strip()
    return model if make and model.lower().startswith(make.lower()) else " ".join(filter(None, [make, model]))


def _lens(m: dict[str, Any]) -> str:
    parts = [f"focal length {m['focal_mm']:g} mm"] if m.get("focal_mm") is not None else []
    if m.get("focal_35mm") is not None:
        parts.append(f"{m['focal_35mm']:g} mm in 35 mm terms")
    return ", ".join(parts)


def _position(m: dict[str, Any]) -> str:
    if m.get("lat") is None or m.get("lon") is None:
        return ""
    lat, lon = float(m["lat"]), float(m["lon"])
    text = f"GPS {abs(lat):.6f}° {'N' if lat >= 0 else 'S'}, {abs(lon):.6f}° {'E' if lon >= 0 else 'W'}"
    return text + (f", {m['abs_altitude_m']:.1f} m above sea level" if m.get("abs_altitude_m") is not None else "")


def _time(m: dict[str, Any]) -> str:
    return f"taken {m['datetime'].replace('T', ' ')} (camera clock)" if m.get("datetime") else ""


WRITERS: dict[str, Callable[[dict[str, Any]], str]] = {"camera": _camera, "lens": _lens, "position": _position,
                                                       "time": _time}


def wanted_facts(question: str) -> list[str]:
    """The facts ``question`` asks for, in :data:`FACTS` order; all of them when it names none."""
    t = question.lower()
    return [name for name, (rx, _) in FACTS.items() if re.search(rx, t)] or list(FACTS)


async def camera_facts(ctx: ToolContext, p: Program) -> Evidence:
    return await facts_asked_in(ctx, p.question or "")


async def facts_asked_in(ctx: ToolContext, question: str) -> Evidence:
    """The facts ``question`` wants from image 1's metadata, with their source tags; abstains when none is
    recorded."""
    r = await ctx.call("camera_metadata", image=ctx.images[0])
    meta = r.get("metadata") or {}
    sources = meta.get("sources") or {}
    facts = wanted_facts(question)
    said = {name: WRITERS[name](meta) for name in facts}
    known = [name for name in facts if said[name]]
    if not known:
        return undecided(f"the photo's metadata records no {' or '.join(facts)} "
                         f"(read by {meta.get('reader') or 'the metadata reader'})")
    missing = [name for name in facts if not said[name]]
    tags = sorted({sources[f] for name in known for f in FACTS[name][1] if f in sources})
    note = "from the file's metadata" + (f" ({', '.join(tags)})" if tags else "")
    if missing:
        note += f"; not recorded: {', '.join(missing)}"
    return found({"text": "; ".join(said[name] for name in known)}, METADATA_CONFIDENCE, note)


OPERATIONS[Ask.CAMERA] = camera_facts
