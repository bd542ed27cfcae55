"""The offline question parser: a question in anyone's words -> a typed :class:`~planners.program.Program`.

It reads, in this order:
1. the answer-format instruction, when there is one ("Answer with only the angle in degrees", "formatted exactly
   like `N o'clock`", "yes or no"): it wins over everything else;
2. the values the question states (altitude, lens, sensor, pitch, ground width; ``planners.referents``), which are
   conventions and never the asked quantity;
3. the asked quantity, from the wh-phrase and the units ("by how many degrees" is an angle, "how far" / "how many
   metres" a distance, "per pixel" a ground sampling distance, "how many <thing>" a count) together with what the
   referents allow (a clock hour of a region, of the second photo's capture point, or of a transferred spot);
4. the referents: images, regions by any name, object classes, the camera.

Concepts (``planners.concepts``) are written once, as patterns over the normalised vocabulary of
``planners.lexicon``, for the phenomenon (how people ask for a distance), not for particular questions. What the
parser cannot place is said in ``unsure``; the planner abstains with that reason rather than answering another
question.
"""

from __future__ import annotations

import re

from planners.comparison import COMPARABLE, LENGTHS, named_points, read_comparison
from planners.concepts import NON_COUNT, UNIT_WORDS, has
from planners.conventions import parse_options, without_format_examples
from planners.lexicon import normalise
from planners.object_classes import named_class
from planners.photo_choice import read_photo_choice
from planners.program import Ask, Conventions, Program, Referent
from planners.referents import REGION_NOUNS, images_named, region_ids, stated_values

#: Where a sentence holds a second question: after a question mark, or at "and" / "also" before a wh-word (which
#: may follow a preposition: "and in which direction", "and over what distance").
CLAUSE_BREAK = re.compile(r"\?\s+(?=\S)|[,;]?\s+(?:and|also|plus|then)\s+(?=(?:(?:in|over|at|by|to|from)\s+)?(?:what|"
                          r"which|how|where|is|was|did|does|give|tell)\b)")

#: A clause that is only a wh-phrase ("which way", "in which direction"): it shares the predicate of the clause
#: after it ("which way and how far did it move" asks "which way did it move" and "how far did it move").
BARE_WH = re.compile(r"^\s*(?:(?:in|over|at|by|to|from)\s+)?(?:what|which|how)\b(?:\s+[a-z'-]+){0,2}\s*[,?.]?\s*$")
LEADING_WH = re.compile(r"^\s*(?:(?:in|over|at|by|to|from)\s+)?(?:what|which|how)\s+[a-z'-]+(?:\s+(?:direction|way|"
                        r"distance|far|apart|bearing))?\s*,?\s*")


#: A clause that asks something (a wh-word, an auxiliary verb first, or a follow-up "and ..."); other clauses are
#: statements that give context ("the camera pointed down from 40 m").
INTERROGATIVE = re.compile(r"\b(what|which|how|where|when|who|why)\b|^\s*(is|are|was|were|did|does|do|has|have|had|can|"
                           r"could|would|will|should|and|also|plus|any)\b|\b(also|as well)\b")

#: A clause that says how to answer, not what: it applies to the whole question and is no second question.
FORMAT_INSTRUCTION = re.compile(r"\s*(?:please\s+)?(?:(?:answer|reply|respond)\s+(?:with|in|using|as|only)|formatted|"
                                r"give (?:only|just)|provide no|no explanation|use\b|(?:give|tell|state|express|report|"
                                r"provide|write|round|answer|measure)\b(?!.*\b(?:also|as well|too)\b))")


def parse_question(question: str, n_images: int) -> Program:
    """The typed program of ``question`` asked about ``n_images`` images (see the module docstring). Two questions
    in one ("how high was it, and which way was it facing?") give a program whose ``then`` is the second."""
    text = normalise(question).strip()
    form_ask = format_ask(text)
    stated, rest = stated_values(without_format_examples(text))
    clauses = _with_shared_predicates([c for c in CLAUSE_BREAK.split(rest) if re.search(r"[a-z]{3}", c)
                                       and not FORMAT_INSTRUCTION.match(c) and INTERROGATIVE.search(c)])
    programs = [_parse_clause(question, c, n_images, stated) for c in clauses] if len(clauses) >= 2 else []
    asked = [p for p in programs if not p.unsure and p.ask not in (Ask.SEMANTIC, Ask.CHOICE)]
    # two counts are two questions only when each names its class ("how many cars and how many people"); a count of
    # nothing named repeats the other ("are there any people? if so, how many?")
    key = {id(p): (p.ask, p.form, tuple(p.regions()), tuple(o for o in p.objects() if o != "object")) for p in asked}
    if len(asked) >= 2 and all(k[3] or k[0] != Ask.COUNT for k in key.values()) and len(set(key.values())) == len(asked):
        first, second = asked[0], asked[1]
        if {first.ask, second.ask} == {Ask.HEADING_CHANGE, Ask.DISTANCE} and n_images == 2:  # one camera pose
            return first.model_copy(update={"ask": Ask.POSE, "understood": ["asked: pose (heading change and "
                                                                            "distance)"]})
        first.then = second
        first.understood.append(f"then: {second.ask.value}")
        return first
    program = _parse_clause(question, rest, n_images, stated)
    return _with_format(program, form_ask, n_images)


def _with_shared_predicates(clauses: list[str]) -> list[str]:
    """Clauses with each bare wh-phrase completed by the predicate of the clause after it."""
    out = list(clauses)
    for i in range(len(out) - 1):
        if BARE_WH.match(out[i]) and not BARE_WH.match(out[i + 1]):
            out[i] = out[i].strip(" ,?.") + " " + LEADING_WH.sub("", out[i + 1], count=1)
    return out


def _parse_clause(question: str, rest: str, n_images: int, stated) -> Program:
    """The program of one question (``rest``: its normalised text with the stated values blanked out)."""
    conv = _conventions(rest, stated)
    refs = [Referent(kind="region", id=rid, image=img) for rid, img in region_ids(rest)]
    program = _program(rest, n_images, refs, conv)
    if parse_options(question):
        program = Program(ask=Ask.CHOICE, operands=refs, conventions=conv, understood=["asked: choice (options)"])
    program.question = question
    if program.ask == Ask.TILT and stated.pitch_deg is None:  # "straight down or oblique?" asks, it does not state
        program.conventions.pitch_deg = None
    if program.ask == Ask.COMPASS and len(program.regions()) >= 2 and (
            anchor := _anchor(rest, r"from|of|relative to|with respect to|seen from")) is not None:
        program.conventions.anchor = Referent(kind="region", id=anchor)  # "is region 1 east of region 2?"
        program.understood.append(f"anchor: region {anchor}")
    if program.ask == Ask.CLOCK and (anchor := _anchor(rest)) is not None and anchor in program.regions():
        program.conventions.anchor = Referent(kind="region", id=anchor)
        program.understood.append(f"anchor: region {anchor}")
    if program.ask == Ask.ORDER and (anchor := _anchor(rest, r"to|from")) is not None:
        program.conventions.anchor = Referent(kind="region", id=anchor)
        program.understood.append(f"distances from region {anchor}")
    if program.ask == Ask.ORDER and program.conventions.anchor is None and re.search(IMAGE_CENTRE, rest):
        program.conventions.anchor = Referent(kind="centre")
        program.understood.append("distances from the image centre, in the image")
    if program.ask == Ask.ORDER and re.search(r"(nearest|closest) and (the )?(farthest|furthest)", rest):
        program.expect = "nearest_and_farthest"
    if program.ask == Ask.SIDE and re.search(r"\b(which|what) side of\b", rest):  # "which side of 2 is 6 on": 6 of 2
        program.operands = [*reversed(program.operands[:2]), *program.operands[2:]]
    if program.ask == Ask.COMPASS and has("yes_no_start", rest) and not has("how_much", rest) and len(
            points := set(named_points(rest))) == 1:  # "was it facing north?"; "north or south?" asks which
        program.form, program.expect = "yes_no", points.pop()
        program.understood.append(f"is the direction {program.expect}")
    if program.ask == Ask.COMPASS and program.form == "value" and has("yes_no_start", rest) and not has(
            "how_much", rest) and not named_points(rest) and not re.search(r"\b(which|what|where)\b", rest):
        # "was the camera facing into the sun?": a yes/no that names no direction
        return Program(ask=Ask.SEMANTIC, operands=program.operands, conventions=program.conventions,
                       question=question, unsure=["a yes/no about a direction that names no compass point (the sun, "
                                                  "a landmark) needs recognition of what is where"])
    if program.ask == Ask.ALTITUDE and program.form == "value" and len(program.operands) <= 1 and re.search(
            r"\b(above|over) (mean )?sea level\b|\b(asl|amsl|msl)\b|\bgps altitude\b|\baltitude of the gps\b", rest):
        program.expect = "sea_level"
        program.understood.append("above sea level (the GPS altitude)")
    if program.ask == Ask.TURNED and re.search(r"\bsame\b", rest):
        program.expect = "same"
    if program.ask == Ask.QUALITY and program.form == "yes_no" and re.search(POSITIVE_QUALITY, rest):
        program.expect = "no_" + (program.expect or "any")
    if program.ask in COMPARABLE and (c := read_comparison(rest)) is not None and (
            program.form == "yes_no" or has("yes_no_start", rest)):
        program.form, program.compare = "yes_no", c
        program.understood.append(f"compared: {c.op} {c.value:g}{' ' + c.unit if c.unit else ''}")
    program.understood += [f"stated: {s.strip()}" for s in stated.spans]
    if program.ask == Ask.COUNT:
        program.operands.append(Referent(kind="object", label=_count_label(rest)))
    return program


def _program(t: str, n: int, refs: list[Referent], conv: Conventions) -> Program:
    regions = [r for r in refs if r.kind == "region"]
    yes_no = has("yes_no_start", t) and not has("how_much", t)

    def make(ask: Ask, operands: list[Referent] | None = None, form: str = "value", expect: str | None = None,
             why: str = "") -> Program:
        return Program(ask=ask, operands=operands if operands is not None else list(refs), conventions=conv,
                       form=form, expect=expect, understood=[f"asked: {ask.value}" + (f" ({why})" if why else "")])

    if n >= 2 and (parse_options(t) or re.search(r"\boptions?\b|\bletter\b|\b[a-e]-[a-e]\b", t)) or (
            n >= 3 and re.search(r"ground[- ](level |view )?(image|photo|picture|view)", t)) or re.search(
            r"\buav\s*\d\b|\bdrone\s*\d\b|\bwhich (uav|drone)s?\b", t) and not (n == 1 and has("camera_info", t)):
        return make(Ask.CHOICE, why="options given, or several drones compared")
    if n >= 2 and re.search(r"\bvideo\b|temporal order", t):
        return make(Ask.MOTION, form="label", why="how the drone moved over the frames")
    if n == 2 and has("correspondence", t):
        return make(Ask.CORRESPONDENCE, why="regions of the two images that show the same objects")
    if has("perspective", t) and not regions or has("object_size", t):
        return make(Ask.SEMANTIC, why="about named objects, seen from a place or measured: needs recognition")
    if has("occlusion", t) and n == 2:
        return make(Ask.VISIBILITY, why="what one view hides")
    if n == 2 and (re.search(r"bounding box|\[x1", t) or re.search(r"same object", t) and regions):
        return make(Ask.BOX, why="an object of image 1 found in image 2")
    if n == 1 and has("gsd", t) and (NON_COUNT.search(t) or not has("count", t)):
        return make(Ask.GSD, why="length per pixel")
    if n == 1 and not regions and has("footprint", t) and not has("gsd", t):
        return make(Ask.FOOTPRINT, why="ground width x height")
    if regions and n == 1:
        if has("clock", t):
            return make(Ask.CLOCK, why="clock hour of a region")
        if has("order", t):
            return make(Ask.ORDER, why="regions by distance")
        if yes_no and len(regions) >= 2 and re.search(r"\b(closer|nearer|farther|further)\b", t):
            return make(Ask.ORDER, form="yes_no", why="is the first region nearer (farther) than the other")
        if len(regions) >= 2 and (has("distance", t) or (c := read_comparison(t)) is not None and c.unit in LENGTHS):
            return make(Ask.DISTANCE, why="ground distance between regions")
        if has("distance", t) and len(regions) == 1 and re.search(DRONE, t):
            return make(Ask.DISTANCE, [*regions, Referent(kind="camera", image=1)],
                        why="ground distance from the drone to a region")
        if has("side", t) and len(regions) >= 2 and not has("semantic", t):
            either = re.search(r"\b(left|right|above|below|ahead|behind) or\b|\b(which|what) side\b", t)
            return make(Ask.SIDE, form="yes_no" if yes_no and not either else "label",
                        why="where one region lies from another, in the image")
        if has("count", t) and not NON_COUNT.search(t) and not yes_no:
            return make(Ask.COUNT, why="number of objects inside a region")
        if has("compass", t) or re.search(r"\bbearing\b", t):
            return make(Ask.COMPASS, why="compass direction of a region from the drone (or another region)")
        if not (has("quality", t) or has("tilt", t)):
            return make(Ask.SEMANTIC, why="what a region shows")
    if n == 1 and has("order", t) and not has("semantic", t):
        return make(Ask.ORDER, why="regions by distance")
    if n >= 2 and not regions and re.search(INTERVAL, t) and not re.search(r"\bhow far\b|\bdistance\b", t):
        return make(Ask.INTERVAL, _pair_refs("capture_point"), why="time between the photos' capture stamps")
    if not regions and re.search(SPEED, t):
        return make(Ask.SPEED, _pair_refs("capture_point"), why="ground speed between the capture points")
    if n == 2 and not regions and (yes_no and (has("overlap", t) or re.search(SAME_PLACE, t)) and not re.search(
            r"\b(which|what|where)\b", t) or re.search(SHARE_SEEN, t)):
        return make(Ask.OVERLAP, form="yes_no" if yes_no else "value",
                    why="whether (how much of) photo 1's ground photo 2 shows")
    if n == 2 and has("transfer", t) and not regions and _names_both(t) and not has("angle", t):
        return make(Ask.TRANSFER, form="value", expect="clock" if has("clock", t) else "region",
                    why="a marked spot of image 1 found in image 2")
    if n == 2 and regions and has("transfer", t) and not has("clock", t):
        return make(Ask.TRANSFER, expect="region", why="a marked spot of image 1 found in image 2")
    if not regions and (choice := read_photo_choice(t, n)) is not None:
        return make(choice[0], [Referent(kind="image", image=i + 1) for i in range(n)], form="choice",
                    expect=choice[1], why=f"the photo with the {'largest' if choice[1] == 'max' else 'smallest'} value")
    if has("clock", t) and n == 2:
        return make(Ask.CLOCK, _pair_refs(), why="where image 2 was taken, from image 1")
    if n == 2 and has("direction_wh", t) and not has("compass", t) and re.search(FIRST_VIEW, t):
        return make(Ask.CLOCK, _pair_refs(), why="where image 2 was taken, in image 1's own frame")
    if n == 2 and has("same_heading", t) and yes_no:
        return make(Ask.TURNED, _pair_refs(), form="yes_no", why="did the heading change")
    if n == 2 and (has("angle", t) or re.search(r"\btransformation\b|\b(relative|camera) pose\b|\bpose change\b", t)) \
            and not has("compass", t):
        if has("metric_distance", t) and not re.search(r"only the (angle|heading)|angle only", t):
            return make(Ask.POSE, _pair_refs(), why="heading change and distance")
        return make(Ask.HEADING_CHANGE, _pair_refs(), why="heading change")
    if n >= 2 and has("motion", t) and not _names_both(t) and (
            has("compass", t) or re.search(r"over the ground|on the map|geographic", t)):
        return make(Ask.MOTION, expect="compass", why="compass direction of travel")
    if has("compass", t):
        if n >= 3:
            return make(Ask.MOTION, expect="compass", why="compass direction of travel")
        if n == 2:
            return make(Ask.COMPASS, _pair_refs(), why="compass direction of image 2's position from image 1's")
        return make(Ask.COMPASS, [Referent(kind="camera", image=1)], why="compass heading of the photo")
    if n == 1 and not regions and has("direction_wh", t) and re.search(
            r"\b(camera|aircraft|drone|nose|top|upper edge|up|heading|yaw|facing|looking|frame|photo|image)\b", t):
        return make(Ask.COMPASS, [Referent(kind="camera", image=1)], why="compass heading of the photo")
    if n == 2 and has("direction_wh", t) and (has("motion", t) or re.search(
            r"\b(taken|shot|captured|snapped|locations?|positions?|spots?|capture points?)\b|"
            r"\bfrom (the )?(first|1st|earlier|previous|other)\b", t)):
        return make(Ask.COMPASS, _pair_refs(), why="compass direction of image 2's position from image 1's")
    if n == 2 and not regions and re.search(CLIMB, t):
        both_ways = bool(re.search(DESCENT, t)) and bool(re.search(r"\b(climb|ascen|rose|risen|gain|higher)", t))
        form = "label" if both_ways else "yes_no" if yes_no else "value"
        return make(Ask.ALTITUDE, _pair_refs("capture_point"), form=form,
                    expect=("down" if re.search(DESCENT, t) else "up") if form == "yes_no" else None,
                    why="height change from image 1's capture point to image 2's")
    if n == 2 and has("distance", t):
        return make(Ask.DISTANCE, _pair_refs("capture_point"), why="distance between the capture points")
    if n == 1 and has("altitude", t) and not regions:
        return make(Ask.ALTITUDE, [Referent(kind="camera", image=1)], why="height of the camera")
    if n >= 2 and has("overlap", t):
        return make(Ask.OVERLAP, form="choice", why="which image overlaps image 1 most")
    if n >= 2 and has("motion", t):
        return make(Ask.MOTION, form="label", why="how the drone moved")
    if has("camera_info", t):
        return make(Ask.CAMERA, why="camera metadata")
    if has("count", t) and not NON_COUNT.search(t):
        return make(Ask.COUNT, why="number of objects")
    if n == 1 and has("quality", t):
        return make(Ask.QUALITY, form="yes_no" if yes_no else "label", expect=_quality_expect(t) if yes_no else None,
                    why="image quality")
    if n == 1 and has("tilt", t):
        # "nadir or oblique?" offers both views; "pointed at the ground at a slant?" asks about one
        either = bool(re.search(rf"({TILT_NADIR}).*\bor\b.*({TILT_OBLIQUE})|({TILT_OBLIQUE}).*\bor\b.*({TILT_NADIR})", t))
        yn = yes_no and not either
        if not yn and not either and (angle := _tilt_angle(t)) is not None:
            return make(Ask.TILT, form="value", expect=angle, why=f"the camera's angle ({angle})")
        return make(Ask.TILT, form="yes_no" if yn else "label", expect=_tilt_expect(t) if yn else None,
                    why="nadir or oblique")
    if n == 1 and not regions and yes_no and (c := read_comparison(t)) is not None:
        if c.unit in LENGTHS and re.search(r"\b(higher|lower|above|below|fl(y|ying|ew|own)|up)\b", t):
            return make(Ask.ALTITUDE, [Referent(kind="camera", image=1)], why="height of the camera, compared")
        if c.unit is None and named_class(t):
            return make(Ask.COUNT, why="number of objects, compared")
    if has("semantic", t) or yes_no:
        return make(Ask.SEMANTIC, why="needs recognition of what things are")
    if n == 1 and named_class(t) and (re.search(r"\b(number|amount|quantity|how much|total)\b", t)
                                      or re.fullmatch(r"\s*(the |any )?[a-z -]{2,30}\?\s*", t)):
        return make(Ask.COUNT, why="number of objects (a class named, a number asked)")
    p = make(Ask.SEMANTIC)
    p.understood, p.unsure = [], ["the question could not be placed: no asked quantity recognised (not a distance, angle, direction, clock, height, "
                                  "footprint, GSD, count, overlap, motion, quality or tilt question)"]
    return p


DRONE = r"\b(drone|uav|aircraft|quadcopter|camera|copter|platform|nadir point)\b"
SPEED = (r"(?<!shutter )\b(speed|velocity|how fast|faster|slower|m/s|km/h|mph|knots|metres per second|kilometres per hour|"
         r"miles per hour)\b")

INTERVAL = (r"\bhow (many|much) (seconds|minutes|hours|time)\b|\bhow long (did|between|passed|elapsed)\b|"
            r"\b(seconds|minutes|hours) (apart|between|elapsed|passed)\b|\btime (between|gap|difference|interval|"
            r"elapsed)\b|\b(elapsed|intervening) time\b")

#: Two photos of one place ("are these of the same place?"), and how much of one the other shows.
SAME_PLACE = r"\bsame (place|area|scene|location|spot|site|field|ground|stretch)\b|\boverlap"
SHARE_SEEN = (r"\b(how much|what (percentage|percent|fraction|share|proportion|part))\b.*\b(overlap|in common|visible in|"
              r"seen in|shown in|appears? in|covered by|shared)\b|\b(overlap|shared area) (percentage|fraction|ratio)\b")

#: A direction measured in the first photo's own frame (its view, framing, facing or image-up), not on the map: its
#: answer is a clock hour, the convention for directions relative to a view.
FIRST_VIEW = (r"\b(first|1st|earlier|photo 1|image 1|frame 1|shot 1)('s)?\b[a-z' ]{0,20}\b(point of view|pov|viewpoint|framing)\b|"
              r"\b(point of view|pov|viewpoint|framing) of (the )?(first|1st|earlier|photo 1|image 1)\b|"
              r"\b(image|photo|frame|picture)[- ]up\b|"
              r"\bwhere (the )?(first|1st|earlier|it|one)( one| photo| image| camera| frame| shot)? (faces|faced|is facing|"
              r"was facing|points|pointed|looks|looked)\b|\b(top|upper edge) of (the )?(first|1st|earlier)\b")
SLANT = r"straight[- ]line|line of sight|\bslant\b|\bdirect(ly)?\b|\b3-?d\b|through the air|\blens\b"

IMAGE_CENTRE = (r"\b(centre|middle) (point )?of (the|this) ([a-z'-]+ ){0,2}(image|photo|picture|frame|tile|shot|"
                r"orthophoto)|\b(image|photo|picture|frame|tile|shot)('s)? (centre|middle)\b|"
                r"\b(over|above) the (centre|middle)\b")

POSITIVE_QUALITY = (r"\bsharp\b|\bsharpness\b|\bin focus\b|\bclear\b|\bpass\b|\bgood enough\b|\busable\b|\bfine\b|"
                    r"\b(properly|well|correctly) exposed\b")


def _anchor(t: str, words: str = r"from|relative to|with respect to|seen from|(?:stand|stood|standing|am|are|were) at")\
        -> int | None:
    """The region a direction or distance is measured from ("from region 2", "seen from box 1", "if I stand at
    box 2"), or None."""
    m = re.search(r"(?:" + words + r")\s+(?:the\s+)?(?:" + REGION_NOUNS
                  + r")\s*(?:number\s+|numbered\s+|#)?(\d{1,2})\b", t)
    return int(m.group(1)) if m else None


def format_ask(t: str) -> Ask | None:
    """The kind of answer an answer-format instruction asks for ("formatted exactly like `N o'clock`" is a clock,
    "answer with only the angle in degrees" an angle), or None when there is no such instruction."""
    m = re.search(r"(?:answer|reply|respond|formatted|in the format|give (?:only|just))[^.?]*", t)
    if not m:
        return None
    said = m.group(0)
    if re.search(r"o'?\s?clock|clock (hour|direction)", said):
        return Ask.CLOCK
    if re.search(r"\bangle\b|\bdegrees\b", said) and not re.search(r"\bdistance\b|\bmetres\b", said):
        return Ask.HEADING_CHANGE
    return None


def _with_format(program: Program, form_ask: Ask | None, n: int) -> Program:
    """The program with the asked quantity the format instruction names, where the referents allow it (the
    instruction wins over the wording)."""
    if form_ask is None or program.ask == form_ask or program.then is not None:
        return program
    if form_ask == Ask.CLOCK and (program.regions() or n == 2) and program.ask not in (Ask.TRANSFER,):
        program.ask, program.form = Ask.CLOCK, "value"
    elif form_ask == Ask.HEADING_CHANGE and n == 2 and program.ask in (Ask.POSE, Ask.DISTANCE, Ask.SEMANTIC):
        program.ask, program.form = Ask.HEADING_CHANGE, "value"
    else:
        return program
    program.unsure = []
    program.understood = [f"asked: {program.ask.value} (the answer-format instruction)"]
    return program


# a change of height between two photos: climbing or descending, "higher up than", an altitude difference
CLIMB = (r"\b(climb(s|ed|ing)?|ascen(d|ds|ded|ding|t)|descen(d|ds|ded|ding|t)|rose|risen|sank|"
         r"(gain|gained|lose|lost|drop|dropped) (height|altitude)|(altitude|height) (change|difference|gain|loss)|"
         r"change (in|of) (altitude|height)|difference in (altitude|height)|(higher|lower) (up|down)|"
         r"how much (higher|lower)|(higher|lower) (altitude|height)|from (higher|lower)( up)?|"
         r"(height|altitude) ([a-z]+ ){0,4}(gain|gained|lose|lost|drop|dropped)|"
         r"from (higher|lower)|(higher|lower) than)\b")
DESCENT = r"\b(descen|sank|lose|lost|drop|lower|loss)"


def _pair_refs(kind: str = "image") -> list[Referent]:
    return [Referent(kind=kind, image=1), Referent(kind=kind, image=2)]


def _names_both(t: str) -> bool:
    """Whether the text speaks of two images (first/second, image 1/2, A/B, 'the other')."""
    named = images_named(t)
    return len(named) >= 2 or bool(re.search(r"\b(two|both|across)\b", t)) or bool(
        re.search(r"\b(second|other|2|2nd|b)\b", t)) and bool(re.search(r"\b(first|1|1st|a|one)\b", t))


def _conventions(t: str, s) -> Conventions:
    unit = None
    m = re.search(r"\b(?:in|into|as|using)\s+(" + "|".join(UNIT_WORDS) + r"|m)\b", t) or re.search(
        r"\b(" + "|".join(UNIT_WORDS) + r")\s*(?:/|per)\s*(?:px|pixel)", t) or re.search(
        r"how many (" + "|".join(UNIT_WORDS) + r")\b", t) or re.search(
        r"\b(" + "|".join(UNIT_WORDS) + r")\s+(?:is|are|would be)\s+(?:fine|ok|okay|good|great|preferred)\b|"
        r"\b(?:units?)\s*[:=]?\s*(" + "|".join(UNIT_WORDS) + r")\b", t) or re.search(
        r"[(\[]\s*(" + "|".join(UNIT_WORDS) + r"|m)\s*[)\]]", t)   # "the altitude (ft)"
    if m:
        unit = UNIT_WORDS[next(g for g in m.groups() if g)]
    elif m := re.search(r"\b(cm|mm)\b[a-z ]{0,25}?(/|per)\s*(px|pixel)|\bhow many (cm|mm)\b", t):
        unit = m.group(1) or m.group(4)  # "how many mm on the ground per pixel"
    signed = bool(re.search(r"\bsigned\b|-180|negative|positive\s*=|(right|clockwise) positive|left or right", t))
    return Conventions(
        unit=unit, signed=signed, clockwise=not re.search(r"counter-?\s?clockwise|anti-?\s?clockwise", t),
        rounding="floor" if re.search(r"\bfloor\b|round(ed)? down", t) else "nearest",
        order=_order(t),
        want_all=bool(re.search(r"\b(rank|order|sort|list)\b|from (nearest|closest|farthest) to|all (the )?regions",
                                t)),
        altitude_m=s.altitude_m, pitch_deg=-90.0 if s.pitch_deg is None and re.search(
            r"\bnadir\b|straight down|top[- ]?down|vertical|pointing down|ortho(photo|mosaic|image)", t) else s.pitch_deg,
        focal_mm=s.focal_mm, sensor_width_mm=s.sensor_width_mm, focal_px=s.focal_px,
        ground_width_m=s.ground_width_m, ground_elevation_m=s.ground_elevation_m,
        normalized_boxes=bool(re.search(r"normali[sz]ed|relative coordinates|between 0 and 1", t)),
        reference="north" if re.search(NORTH_AT_12, t) else "image_up")


#: A clock whose 12 is stated to point north ("if 12 o'clock is north", "with north at 12").
NORTH_AT_12 = (r"\b12( o'clock)? (is|=|at|as|being|means|points? (to )?|facing) (true |grid |due )?north\b|"
               r"\bnorth\b (is|=|at|as|being) (the )?12\b|\bnorth[- ]up clock\b|\bclock\b[^.?]*\bnorth[- ]up\b")


def _order(t: str) -> str:
    """nearest_first or farthest_first: the end a ranking starts from ("from farthest to nearest"), else the
    extreme asked for ("which is farthest")."""
    m = re.search(r"from (?:the )?(nearest|closest|farthest|furthest)", t)
    if m:
        return "nearest_first" if m.group(1) in ("nearest", "closest") else "farthest_first"
    if re.search(r"(nearest|closest) and (the )?(farthest|furthest)", t):
        return "nearest_first"
    return "farthest_first" if re.search(r"farthest|furthest|farther|further|most distant|longest", t) else "nearest_first"


EXCLUDED = re.compile(r"\b(?:not counting|not including|excluding|except(?: for)?|ignoring|other than|apart from|"
                      r"besides|leaving out|leave out|without counting)\s+(?:the |any |all )?[a-z-]+"
                      r"(?:\s+(?:and|or)\s+(?:the )?[a-z-]+)?")


def _count_label(t: str) -> str:
    """The object class counted: the first class of the synonym table :mod:`planners.object_classes` named, else
    the phrase. A class the question sets aside ("not counting the cars", "other than trucks") is not it."""
    t = EXCLUDED.sub(" ", t)
    named = named_class(t)
    if named:
        return named
    m = re.search(r"(?:how many|number of|count(?: every| all| the)?|tally up(?: the)?|any)\s+([a-z][a-z\- ]*?)"
                  r"(?=\s+(?:are|is|can|do|does|were|in|on|visible|does|parked|the|this|there|here|picked)\b|[?.,]|$)",
                  t)
    if re.search(r"head ?count", t):
        return "person"
    return m.group(1).strip() if m else "object"


def _quality_expect(t: str) -> str:
    for label, rx in (("blur", r"blur|focus|sharp"), ("noise", r"nois|grain"),
                      ("low_light", r"underexpos|dark|dim"), ("overexposure", r"overexpos|blown out|too bright|washed[- ]out|faded"),
                      ("fog", r"haz|fog|mist"), ("exposure", r"expos")):
        if re.search(rx, t):
            return label
    return "any"


TILT_NADIR = (r"straight[- ]down|vertical|\bnadir\b|-90|top[- ]?down|looking down|pointing down|\boverhead\b|"
              r"perpendicular|bird'?s[- ]eye|(straight|directly|vertically) (down )?at the (ground|floor)|"
              r"(straight|directly|vertically) (below|beneath|under)")
TILT_OBLIQUE = r"\boblique(ly)?\b|\btilt|\bangled\b|at an angle|horizon|off-nadir|perspective view|\bslant|\bskew|looking across"


def _tilt_angle(t: str) -> str | None:
    """Which angle a tilt question asks for in degrees: ``off_nadir`` ("tilted from vertical"), ``depression``
    ("below the horizon") or ``pitch`` ("the gimbal pitch"); None when it asks for the view, not a number."""
    if not re.search(r"how many degrees|\b(what|which)\b[a-z' -]{0,30}\bangle\b|\bangle (of|is)\b|\bin degrees\b|"
                     r"\b(off-nadir|depression|gimbal|camera|tilt|pitch) angle\b|\bhow (steep|steeply)\b|"
                     r"\bhow (much|far) .*\btilt|\bpitch\b", t):
        return None
    if re.search(r"\b(from|off|away from|relative to) (the )?(vertical|nadir|straight down|plumb)|\boff-nadir angle\b", t):
        return "off_nadir"
    if re.search(r"\bdepression\b|below (the )?horizon|from (the )?horizontal|look-?down angle|\bhow (steep|steeply)\b", t):
        return "depression"
    return "pitch"


def _tilt_expect(t: str) -> str:
    return "oblique" if re.search(TILT_OBLIQUE, t) and not re.search(TILT_NADIR, t) else "nadir"

