"""Ground textures for the generator: real orthophotos / nadir photos with a known ground sample distance (GSD)
and, where they exist, real object boxes (Pascal VOC) to ask about.

Built-in sources come from ``../shared/data`` (see each folder's README for provenance and licenses):

- NEON orthophotos (``deepforest_neon``): GSD 0.1 m/px (GeoTIFF PixelScale of OSBS_029; the NEON product for
  the others); boxes ``Tree`` / ``Dead`` / ``Alive``.
- DJI survey nadir photos (``dji_survey_dev``): GSD ≈ 40 m / 2340 px ≈ 0.0171 m/px (altitude / focal in pixels);
  no boxes (questions then use ground patches as regions). They are nadir photos, not orthophotos: relief and
  lens distortion are ignored.
- HIT-UAV thermal nadir frames (``hit_uav_thermal``, only PERSP = 90 in the file name): GSD = altitude /
  ``HIT_UAV_FOCAL_PX``. The dataset gives no intrinsics; we ASSUME a 640-px-wide thermal camera with a 13.5 mm
  lens and 12 µm pixels (DJI Zenmuse H20T class), i.e. 1125 px. Boxes ``Person`` / ``Car`` / ``Bicycle`` /
  ``OtherVehicle`` (``DontCare`` dropped).

A user image becomes a source with :func:`load_source` (GSD given, or read from a GeoTIFF's ModelPixelScale).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from tools.common import ToolError, load_image

HIT_UAV_FOCAL_PX = 1125.0  # assumed, see module docstring
DJI_SURVEY_GSD_M = 40.0 / 2340.0
NEON_GSD_M = 0.1
LABEL_NAMES = {"Tree": "tree", "Dead": "dead tree", "Alive": "living tree", "Person": "person", "Car": "car",
               "Bicycle": "bicycle", "OtherVehicle": "vehicle"}
DROPPED_LABELS = {"DontCare"}


@dataclass(frozen=True)
class SourceObject:
    """An annotated object: ``label`` (as in the annotation file) and ``box`` [x1, y1, x2, y2] in texture pixels."""

    label: str
    box: tuple[float, float, float, float]


@dataclass(frozen=True)
class Source:
    """A ground texture file with its nominal GSD (m/px), license note and annotated objects."""

    name: str
    path: Path
    gsd_m: float
    license: str
    objects: tuple[SourceObject, ...] = field(default_factory=tuple)
    note: str = ""
    shrink: int = 1  # the texture is used at 1/shrink of its resolution (GSD × shrink) to save time

    def load(self) -> np.ndarray:
        """The texture as RGB uint8 at 1/``shrink`` resolution (cached per path)."""
        return _cached_image(str(self.path), self.shrink)

    @property
    def texture_gsd_m(self) -> float:
        """Metres per pixel of :meth:`load`'s image."""
        return self.gsd_m * self.shrink

    @property
    def labels(self) -> set[str]:
        return {o.label for o in self.objects}


@lru_cache(maxsize=32)
def _cached_image(path: str, shrink: int = 1) -> np.ndarray:
    img = load_image(path)
    if shrink > 1:
        import cv2

        img = cv2.resize(img, (img.shape[1] // shrink, img.shape[0] // shrink), interpolation=cv2.INTER_AREA)
    img.setflags(write=False)
    return img


def read_voc_boxes(xml_path: Path) -> tuple[SourceObject, ...]:
    """Pascal VOC ``<object><name>, <bndbox>`` entries (``DontCare`` dropped). Raises ToolError on a bad file."""
    from defusedxml import ElementTree

    try:
        root = ElementTree.parse(str(xml_path)).getroot()
    except Exception as exc:  # defusedxml raises several parse error types
        raise ToolError(f"cannot read VOC annotation {xml_path}: {exc}") from exc
    out = []
    for obj in root.iter("object"):
        name = (obj.findtext("name") or "").strip()
        bb = obj.find("bndbox")
        if not name or name in DROPPED_LABELS or bb is None:
            continue
        try:
            box = tuple(float(bb.findtext(k)) for k in ("xmin", "ymin", "xmax", "ymax"))
        except (TypeError, ValueError) as exc:
            raise ToolError(f"malformed <bndbox> in {xml_path}") from exc
        if box[2] > box[0] and box[3] > box[1]:
            out.append(SourceObject(name, box))  # type: ignore[arg-type]
    return tuple(out)


def geotiff_gsd(path: Path) -> float | None:
    """Metres per pixel from a GeoTIFF's ModelPixelScale tag (33550), or None if absent / not square."""
    from PIL import Image

    try:
        with Image.open(path) as im:
            scale = getattr(im, "tag_v2", {}).get(33550)
    except Exception as exc:
        raise ToolError(f"cannot read {path}: {exc}") from exc
    if not scale or len(scale) < 2 or scale[0] <= 0 or abs(scale[0] - scale[1]) > 1e-6 * scale[0]:
        return None
    return float(scale[0])


def load_source(path: str | Path, gsd_m: float | None = None, *, annotations: str | Path | None = None,
                license: str = "user supplied") -> Source:
    """A user texture: a north-up nadir image or orthophoto with GSD ``gsd_m`` (m/px; read from a GeoTIFF when
    None). ``annotations`` is an optional Pascal VOC file of object boxes."""
    p = Path(path)
    if not p.is_file():
        raise ToolError(f"texture not found: {p}")
    if gsd_m is None and p.suffix.lower() in (".tif", ".tiff"):
        gsd_m = geotiff_gsd(p)
    if gsd_m is None or not (gsd_m > 0 and np.isfinite(gsd_m)):
        raise ToolError(f"ground sample distance unknown for {p}: pass gsd_m (metres per pixel, > 0)")
    load_image(p)  # fail now, with a clear message, on non-images
    objects = read_voc_boxes(Path(annotations)) if annotations else ()
    return Source(p.stem, p, float(gsd_m), license, objects)


def builtin_sources(data_root: str | Path) -> list[Source]:
    """The textures shipped in ``../shared/data`` (those present); empty if the folder is missing."""
    root = Path(data_root)
    out: list[Source] = []
    neon = root / "deepforest_neon"
    neon_lic = "MIT (DeepForest package); imagery NEON AOP, CC BY 4.0; boxes NeonTreeEvaluation"
    for name, fname in (("neon_YELL", "2019_YELL_2_541000_4977000_image_crop.png"), ("neon_OSBS_029", "OSBS_029.tif"),
                        ("neon_SOAP_061", "SOAP_061.png")):
        p, x = neon / fname, (neon / fname).with_suffix(".xml")
        if p.is_file():
            gsd = geotiff_gsd(p) if p.suffix == ".tif" else None
            if p.with_suffix(".png").is_file():  # same pixels; OpenCV warns about the GeoTIFF tags
                p = p.with_suffix(".png")
            out.append(Source(name, p, gsd or NEON_GSD_M,
                              neon_lic, read_voc_boxes(x) if x.is_file() else ()))
    for p in sorted((root / "dji_survey_dev" / "images").glob("*.JPG")):
        out.append(Source(f"dji_{p.stem}", p, DJI_SURVEY_GSD_M, "BSD-2-Clause (c) 2017 Piero Toffanin",
                          note="nadir photo at ~40 m, GSD from altitude / 2340 px focal", shrink=2))
    hit = root / "hit_uav_thermal"
    for p in sorted((hit / "images").glob("*.jpg")):
        m = re.fullmatch(r"(\d)_(\d+)_(\d+)_(\d+)_(\d+)", p.stem)
        if not m or int(m.group(3)) != 90:
            continue  # oblique frames are not orthophotos
        xml = hit / "annotations_voc" / f"{p.stem}.xml"
        out.append(Source(f"hituav_{p.stem}", p, int(m.group(2)) / HIT_UAV_FOCAL_PX,
                          "CC BY 4.0, Suo et al. 2023 (HIT-UAV)", read_voc_boxes(xml) if xml.is_file() else (),
                          note=f"thermal nadir frame, GSD = altitude / assumed {HIT_UAV_FOCAL_PX:.0f} px focal"))
    return out
