"""The typed question program: what a question asks (a quantity or relation), about which referents, in which
conventions, and in which answer form.

A question becomes a :class:`Program`: one :class:`Ask` (the asked quantity: a clock hour, a ground distance, an
altitude ...), its operands (:class:`Referent`: an image, a region by id, an object class, the camera, an image's
capture point) and the conventions read from the wording (units, clockwise or signed, anchor, rounding). Benchmark
task types are *named programs*: when a program is one a benchmark asks, ``task`` names it (a registry name of
``planners.tasks``) and its answer format is the benchmark's canonical one. The offline parser
(``planners.parse``) and the optional LLM (``planners.llm_program``) both produce this type, and one executor
(``planners.execute``) runs it. Programs are pydantic models, so the LLM's JSON is validated against the same
schema the parser fills.
"""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Ask(str, Enum):
    """The asked quantity or relation: the type of the answer."""

    CLOCK = "clock"  # clock hour 1-12 of a referent, 12 = image up (or heading)
    COMPASS = "compass"  # compass direction (8 points) of a heading or of a referent
    SIDE = "side"  # left / right / ahead / behind
    HEADING_CHANGE = "heading_change"  # degrees one camera is turned relative to another
    TURNED = "turned"  # yes/no: did the heading change
    DISTANCE = "distance"  # ground distance between two referents
    POSE = "pose"  # heading change and distance together (camera transformation)
    ALTITUDE = "altitude"  # height of the camera above ground / take-off
    FOOTPRINT = "footprint"  # ground width x height a photo covers
    GSD = "gsd"  # ground sampling distance (length per pixel)
    COUNT = "count"  # number of objects of a class
    ORDER = "order"  # regions ordered by distance (nearest / farthest first)
    OVERLAP = "overlap"  # which candidate image overlaps the first most
    CORRESPONDENCE = "correspondence"  # region pairs that show the same object in two images
    TRANSFER = "transfer"  # where a marked spot of one image is in another (region id, clock or box)
    BOX = "box"  # a bounding box
    VISIBILITY = "visibility"  # which regions of one image another does not show
    MOTION = "motion"  # how the drone moved over ordered frames
    SPEED = "speed"  # ground speed between two capture points (their distance over the time between the photos)
    INTERVAL = "interval"  # time between two photos' capture stamps
    QUALITY = "quality"  # image quality problems (or a yes/no about one)
    TILT = "tilt"  # nadir or oblique (or a yes/no about it)
    CAMERA = "camera"  # camera metadata facts (model, focal length, GPS): the metadata tool's answer
    CHOICE = "choice"  # a multiple-choice question whose options carry the meaning
    SEMANTIC = "semantic"  # needs recognition of what things are (an LLM/VLM), not geometry


class Referent(BaseModel):
    """Something a question talks about."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["image", "region", "object", "camera", "centre", "capture_point", "box"]
    image: int | None = Field(None, description="1-based image the referent belongs to (None: the only/first one)")
    id: int | None = Field(None, description="region id (regions), or None")
    label: str | None = Field(None, description="object class or phrase (objects), or None")


class Conventions(BaseModel):
    """How the answer is to be measured and written."""

    model_config = ConfigDict(extra="forbid")
    unit: str | None = Field(None, description="length unit asked for: m, km, cm, mm, ft, yd, in, mi")
    clockwise: bool = True
    signed: bool = Field(False, description="angle in (-180, 180] instead of [0, 360)")
    rounding: Literal["nearest", "floor"] = "nearest"
    anchor: Referent | None = Field(None, description="what a direction is measured from (None: image centre)")
    reference: Literal["image_up", "north"] = Field("image_up", description="what 12 o'clock / 0 deg points to")
    order: Literal["nearest_first", "farthest_first"] = "nearest_first"
    want_all: bool = Field(False, description="the whole order / every item rather than the first")
    altitude_m: float | None = None
    pitch_deg: float | None = Field(None, description="camera pitch, -90 = nadir")
    focal_mm: float | None = None
    sensor_width_mm: float | None = None
    focal_px: float | None = None
    ground_width_m: float | None = Field(None, description="ground width the whole image spans, when stated")
    ground_elevation_m: float | None = Field(None, description="ground height above sea level, when stated")
    normalized_boxes: bool = False


class Comparison(BaseModel):
    """A threshold a yes/no question compares the asked quantity with ("higher than 100 m": gt 100 m)."""

    model_config = ConfigDict(extra="forbid")
    op: Literal["gt", "ge", "lt", "le"]
    value: float
    unit: str | None = Field(None, description="m, km, cm, mm, ft, yd, mi, in, deg, m/s, km/h, mph or kn; None: a bare "
                             "number")


class Program(BaseModel):
    """One question as a typed program (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")
    ask: Ask
    operands: list[Referent] = Field(default_factory=list)
    conventions: Conventions = Field(default_factory=Conventions)
    form: Literal["value", "yes_no", "label", "choice"] = Field(
        "value", description="value: the quantity itself; yes_no: a yes/no question about it (see `expect`); "
        "label: a word (nadir/oblique, blur ...); choice: pick one of the images or options")
    expect: str | None = Field(None, description="for yes_no: the state asked about (e.g. 'nadir', 'blur', 'same')")
    compare: Comparison | None = Field(None, description="for yes_no: the threshold the asked quantity is compared with")
    task: str | None = Field(None, description="the benchmark task type this program is (planners.tasks name)")
    answer_format: str | None = Field(None, description="agent.answers.AnswerFormat member name of the answer")
    understood: list[str] = Field(default_factory=list, description="what the parser read, for the trace")
    unsure: list[str] = Field(default_factory=list, description="what it could not read")
    question: str = Field("", description="the question text (filled in by the planner)")
    then: "Program | None" = Field(None, description="a second question asked in the same sentence")

    def regions(self, image: int | None = None) -> list[int]:
        """Ids of the region operands (of 1-based ``image`` when given), in order of mention."""
        return [r.id for r in self.operands if r.kind == "region" and r.id is not None
                and (image is None or (r.image or 1) == image)]

    def objects(self) -> list[str]:
        return [r.label for r in self.operands if r.kind == "object" and r.label]


def program_schema() -> dict:
    """The JSON schema a program (from the parser or an LLM) must satisfy."""
    return Program.model_json_schema()
