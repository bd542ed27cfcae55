"""Raw metadata tags of an image file, keyed ``"Group:Tag"`` as ExifTool names them (``exiftool -G1 -n``).

ExifTool (Phil Harvey's ``exiftool`` program, run once per file) knows the maker notes and vendor XMP namespaces
of every common drone and camera (DJI ``XMP-drone-dji``, Pix4D/Parrot/MicaSense ``XMP-Camera``, ``XMP-sensefly``,
Skydio, Autel, GeoTIFF keys ...), so vendor support is a table of tag names (``tools/metadata/vendors.py``), not
parsers.
``-n`` gives numbers instead of print conversions (signed decimal degrees in ``Composite:GPSLatitude``).

When the ``exiftool`` program is absent, Pillow reads EXIF, GPS and XMP instead and its keys are renamed to
ExifTool's (EXIF groups ``IFD0``/``ExifIFD``/``GPS``; XMP ``XMP-<prefix>`` with the namespace prefix the file
declares, which is what ExifTool shows for namespaces it does not know). ``TagSet.note`` says so: maker notes and
GeoTIFF keys are then missing.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.common import ToolError, file_key

EXIFTOOL_ARGS = ["-json", "-G1", "-n"]
EXIFTOOL_TIMEOUT_S = 30.0  # one file's tags take ~0.2 s; a hung or killed exiftool must not hang a server
# Tags of files read before, per process, keyed by the file's content identity (path, size, mtime) and the reader:
# a server or daemon asked again about the same photos starts no new exiftool process.
CACHE_ITEMS = 256
_CACHE: dict[tuple[Any, str | None], "TagSet"] = {}
_CACHE_LOCK = threading.Lock()


@dataclass
class TagSet:
    """Tags of one file (``"Group:Tag" -> value``), the reader that produced them and a note on its limits."""

    tags: dict[str, Any] = field(default_factory=dict)
    reader: str = ""
    note: str | None = None


def read_tags(path: str | Path) -> TagSet:
    """All metadata tags of ``path``: ExifTool when installed, else Pillow (with a note saying what is missing).

    Raises :class:`ToolError` for a missing file or one that neither reader can parse as an image.
    """
    p = Path(path)
    if not p.exists():
        raise ToolError(f"image not found: {p}")
    if not p.is_file():
        raise ToolError(f"not a file: {p}")
    exe = shutil.which("exiftool")
    key = (file_key(p), exe)
    if key[0] is None:  # unreadable: let the reader say why
        return _read_uncached(p, exe)
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
    if hit is None:
        hit = _read_uncached(p, exe)
        with _CACHE_LOCK:
            _CACHE[key] = hit
            while len(_CACHE) > CACHE_ITEMS:
                _CACHE.pop(next(iter(_CACHE)))
    return TagSet(dict(hit.tags), hit.reader, hit.note)  # a copy: callers may edit theirs


def clear_cache() -> None:
    """Forget the tags read so far (tests that break a reader on purpose)."""
    with _CACHE_LOCK:
        _CACHE.clear()


def _read_uncached(p: Path, exe: str | None) -> TagSet:
    if exe is not None:
        try:
            return _read_exiftool(exe, p)
        except ToolError:
            raise
        except (OSError, subprocess.SubprocessError, ValueError) as exc:  # broken install, timeout: fall back
            return _read_pillow(p, f"exiftool failed ({exc}); read with Pillow: maker notes and GeoTIFF keys missing")
    return _read_pillow(p, "exiftool not installed (Debian package libimage-exiftool-perl); read with Pillow: "
                           "maker notes and GeoTIFF keys missing")


def _read_exiftool(exe: str, p: Path) -> TagSet:
    """One ``exiftool -json -G1 -n`` run per file. A one-shot process rather than PyExifTool's long-running one:
    that binding's reader spins forever when its exiftool process dies mid-call, and a forked server worker would
    share its pipes; ~0.2 s of Perl start-up per photo is the price."""
    done = subprocess.run([exe, *EXIFTOOL_ARGS, "--", str(p)], capture_output=True, timeout=EXIFTOOL_TIMEOUT_S,
                          check=False)
    rows = json.loads(done.stdout.decode("utf-8", "replace") or "[]")
    tags = dict(rows[0]) if rows else {}
    if "File:FileType" not in tags or "ExifTool:Error" in tags:
        raise ToolError(f"not a readable image (cannot read metadata): {p}: {tags.get('ExifTool:Error', 'unknown')}")
    if not str(tags.get("File:MIMEType", "image/")).startswith("image/"):
        raise ToolError(f"not a readable image (cannot read metadata): {p} is {tags.get('File:FileType')}")
    return TagSet(tags, f"exiftool {tags.get('ExifTool:ExifToolVersion', '')}".strip())


# Pillow EXIF names that ExifTool spells differently.
_PIL_RENAME = {"FocalLengthIn35mmFilm": "FocalLengthIn35mmFormat"}
_EXIF_IFD_OF_PIL = {"Exif": "ExifIFD", "GPSInfo": "GPS", "Interop": "InteropIFD"}


def _read_pillow(p: Path, note: str) -> TagSet:
    from PIL import ExifTags, Image, UnidentifiedImageError

    try:
        with Image.open(p) as im:
            width, height = im.size
            exif = im.getexif()
            raw_xmp = im.info.get("xmp") or im.info.get("XML:com.adobe.xmp") or b""
    except UnidentifiedImageError as exc:
        raise ToolError(f"not a readable image (cannot read metadata): {p}") from exc
    except OSError as exc:
        raise ToolError(f"cannot read metadata of {p}: {exc}") from exc
    tags: dict[str, Any] = {"File:ImageWidth": width, "File:ImageHeight": height}
    for tag_id, value in exif.items():
        tags[f"IFD0:{ExifTags.TAGS.get(tag_id, tag_id)}"] = _plain(value)
    for ifd_name, group in _EXIF_IFD_OF_PIL.items():
        names = ExifTags.GPSTAGS if group == "GPS" else ExifTags.TAGS
        for tag_id, value in exif.get_ifd(getattr(ExifTags.IFD, ifd_name)).items():
            name = names.get(tag_id, str(tag_id))
            tags[f"{group}:{_PIL_RENAME.get(name, name)}"] = _plain(value)
    _signed_gps(tags)
    tags.update(_xmp_tags(raw_xmp))
    return TagSet(tags, "pillow", note)


def _plain(value: Any) -> Any:
    """Pillow's rationals and tuples → floats and lists; bytes → text."""
    if isinstance(value, bytes):
        return value.decode("latin-1", "ignore").replace("\x00", "").strip()
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    try:
        x = float(value)
    except (TypeError, ValueError, ZeroDivisionError):
        return value
    return x if math.isfinite(x) else None


def _signed_gps(tags: dict[str, Any]) -> None:
    """ExifTool's ``-n`` composites: signed decimal degrees and a signed altitude."""
    for axis, negative in (("Latitude", "S"), ("Longitude", "W")):
        dms = tags.get(f"GPS:GPS{axis}")
        if isinstance(dms, list) and len(dms) == 3 and all(isinstance(v, float) for v in dms):
            deg = dms[0] + dms[1] / 60.0 + dms[2] / 3600.0
            ref = str(tags.get(f"GPS:GPS{axis}Ref", "")).strip().upper()
            tags[f"Composite:GPS{axis}"] = -deg if ref.startswith(negative) else deg
    alt = tags.get("GPS:GPSAltitude")
    if isinstance(alt, float):
        tags["Composite:GPSAltitude"] = -alt if tags.get("GPS:GPSAltitudeRef") in (1, 1.0, "\x01") else alt


_XMLNS = re.compile(rb"""xmlns:([A-Za-z0-9_.-]+)\s*=\s*["']([^"']+)["']""")


def _xmp_tags(raw: bytes | str) -> dict[str, Any]:
    """Leaf values of an XMP packet keyed ``XMP-<prefix>:<Name>`` (struct fields joined to their parent's name)."""
    if not raw:
        return {}
    data = raw.encode("utf-8", "ignore") if isinstance(raw, str) else raw
    prefixes = {uri.decode("utf-8", "ignore"): name.decode() for name, uri in _XMLNS.findall(data)}
    try:
        from defusedxml import ElementTree
    except ImportError:  # pragma: no cover - defusedxml is a pinned dependency
        return {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            root = ElementTree.fromstring(data.strip(b"\x00 \t\r\n"))
    except Exception:  # malformed XMP: keep the EXIF we have
        return {}
    out: dict[str, Any] = {}

    def key(qname: str) -> tuple[str, str] | None:
        if not qname.startswith("{"):
            return None
        uri, local = qname[1:].split("}", 1)
        prefix = prefixes.get(uri)
        return None if prefix in (None, "rdf", "x") else (prefix, local)

    def visit(elem: Any, parent: str) -> None:
        for attr, value in elem.attrib.items():
            k = key(attr)
            if k is not None:
                out.setdefault(f"XMP-{k[0]}:{parent}{k[1]}", _xmp_value(value))
        k = key(elem.tag)
        children = list(elem)
        name = parent + k[1] if k is not None else parent
        if k is not None and not children and elem.text and elem.text.strip():
            out.setdefault(f"XMP-{k[0]}:{name}", _xmp_value(elem.text))
        for child in children:
            visit(child, name)

    visit(root, "")
    return out


def _xmp_value(text: str) -> Any:
    text = text.strip()
    try:
        x = float(text)
    except ValueError:
        return text
    return x if math.isfinite(x) else text
