"""The offline question parser: asked quantity, referents, stated values and conventions, over families of phrasing
written here (each family says one thing several ways), typos and abbreviations, and the format-instruction
precedence. None of these sentences is taken from a benchmark or a shared question set."""

from __future__ import annotations

import pytest

from planners.lexicon import normalise
from planners.parse import parse_question
from planners.program import Ask, Program, program_schema

FAMILIES: list[tuple[Ask, int, list[str]]] = [
    (Ask.DISTANCE, 2, ["How far apart were the two exposures made?", "distance from the 1st shot's position to the "
                       "2nd one's, in feet", "What horizontal spacing separates the places these frames were taken?",
                       "how many metres lie between the two camera stations"]),
    (Ask.HEADING_CHANGE, 2, ["By how many degrees is the second camera turned relative to the first?",
                             "What's the yaw difference between pic 1 and pic 2?",
                             "How much has the drone rotated from frame one to frame two, clockwise?"]),
    (Ask.TURNED, 2, ["Did the drone turn between these photos?", "Were both photos shot facing the same way?",
                     "Has the heading changed from the first image to the second?"]),
    (Ask.CLOCK, 2, ["At what o'clock from the first photo's position was the second taken (12 = top of photo 1)?",
                    "Give the clock direction of image 2's capture point as seen in image 1."]),
    (Ask.COMPASS, 2, ["Which compass direction leads from where photo 1 was shot to where photo 2 was?",
                      "Is the second capture point north, south, east or west of the first?"]),
    (Ask.COMPASS, 1, ["Which way does the top edge of this photo face, compass-wise?",
                      "What cardinal direction was the camera pointing?"]),
    (Ask.ALTITUDE, 1, ["How high was the drone when this was taken?", "What's the altitude above the launch point?",
                       "flight height of this pic in ft?"]),
    (Ask.GSD, 1, ["What is the GSD of this frame?", "How many millimetres of ground does one pixel cover?",
                  "ground sampling distance in cm/px please"]),
    (Ask.FOOTPRINT, 1, ["How much ground does this photo cover, width by height?",
                        "What are the dimensions of the area on the ground seen here, in metres?"]),
    (Ask.TILT, 1, ["Is this photo oblique?", "Was this shot taken straight down or at an angle?"]),
    (Ask.COUNT, 1, ["How many people can you see?", "count the pedestrians", "Number of cars here?"]),
    (Ask.QUALITY, 1, ["Is this picture blurry?", "Is the photo too dark?", "What is wrong with this image's quality?"]),
    (Ask.OVERLAP, 4, ["Which of the other photos overlaps the first one most?"]),
    (Ask.MOTION, 3, ["Which way is the drone moving across these frames?", "Is the aircraft turning or going straight?"]),
    (Ask.ORDER, 1, ["Which region is nearest to the drone?", "Which box lies farthest from the centre of the photo?"]),
    (Ask.SEMANTIC, 1, ["What is inside region 3?", "Is there a swimming pool in this picture?",
                       "Describe what this photo shows."]),
]


MORE_PHRASINGS: list[tuple[str, int, str, str | None]] = [  # (ask, images, question, unit asked for)
    ('distance', 2, 'How many meters did the UAV travel between exposures?', None),
    ('distance', 2, "What's the ground distance separating the two camera locations?", None),
    ('distance', 2, 'how far was photo B shot from photo A', None),
    ('distance', 2, 'Give the length of the flight leg between these two images in metres.', None),
    ('distance', 2, 'How far did the drone fly from the first waypoint photo to the second?', None),
    ('distance', 2, 'What is the spacing between consecutive exposures here?', None),
    ('distance', 2, 'Estimate the displacement of the camera between frame 1 and frame 2.', None),
    ('distance', 2, 'Between shot 1 and shot 2, how much ground did we cover?', None),
    ('heading_change', 2, 'What is the relative rotation between the two views in degrees?', None),
    ('heading_change', 2, 'How many degrees of yaw separate these images?', None),
    ('heading_change', 2, "By what amount did the drone's heading change, clockwise?", None),
    ('heading_change', 2, 'Angle between the two camera headings?', None),
    ('heading_change', 2, 'how much did the camera rotate from pic A to pic B', None),
    ('heading_change', 2, "What's the yaw delta from image one to image two?", None),
    ('turned', 2, 'Did the camera rotate between the shots?', None),
    ('turned', 2, 'Is the heading of the two photos different?', None),
    ('turned', 2, 'Did the drone keep the same heading for both pictures?', None),
    ('turned', 2, 'were these taken facing different directions?', None),
    ('clock', 2, "Relative to the first image's up direction, at what clock hour was the second image taken?", None),
    ('clock', 2, "In o'clock terms, where is camera 2 relative to camera 1 (12 = image top)?", None),
    ('clock', 2, "If the top of photo 1 is 12 o'clock, which hour points to where photo 2 was captured?", None),
    ('compass', 2, 'Which cardinal direction did the drone fly from the first shot to the second?', None),
    ('compass', 2, "Where, in compass terms, is the second photo's location relative to the first?", None),
    ('compass', 2, 'Was the second picture taken to the NE, SE, SW or NW of the first?', None),
    ('compass', 1, 'Which way is north in this photo?', None),
    ('compass', 1, 'What direction was the drone facing when it took this?', None),
    ('compass', 1, 'What is the camera heading of this image in compass terms?', None),
    ('compass', 1, 'Is the top of this picture facing east or west?', None),
    ('altitude', 1, 'How high above the ground was this photo taken?', None),
    ('altitude', 1, 'What was the flight altitude?', None),
    ('altitude', 1, 'At what height did the UAV capture this image?', None),
    ('altitude', 1, 'How far up was the camera?', None),
    ('altitude', 1, 'Tell me the AGL of this shot.', None),
    ('altitude', 1, 'what elevation was the drone flying at (relative to takeoff)?', None),
    ('gsd', 1, 'What is the ground pixel size of this image?', None),
    ('gsd', 1, 'How big is one pixel on the ground in centimeters?', None),
    ('gsd', 1, "What's the cm/pixel resolution?", None),
    ('gsd', 1, "What's the GSD?", None),
    ('gsd', 1, 'How much terrain does each pixel represent?', None),
    ('footprint', 1, 'How large is the area shown in this photo, in metres by metres?', None),
    ('footprint', 1, 'What is the ground extent of this image?', None),
    ('footprint', 1, 'How many meters wide and long is the imaged area?', None),
    ('footprint', 1, 'What area of ground does this photo cover (w x h)?', None),
    ('footprint', 1, 'how big is the scene on the ground', None),
    ('tilt', 1, 'Is the camera looking straight down?', None),
    ('tilt', 1, 'Is this a nadir image?', None),
    ('tilt', 1, 'Was the gimbal pointed at the horizon or down?', None),
    ('tilt', 1, 'Is this an angled shot?', None),
    ('tilt', 1, 'Nadir or oblique?', None),
    ('tilt', 1, 'Is this view vertical or oblique?', None),
    ('count', 1, 'How many persons appear in this image?', None),
    ('count', 1, 'What is the number of people in the frame?', None),
    ('count', 1, 'Count the vehicles.', None),
    ('count', 1, 'How many trucks are visible?', None),
    ('count', 1, 'Are there people here? How many?', None),
    ('quality', 1, 'Is this image blurred?', None),
    ('quality', 1, 'Is there any motion blur?', None),
    ('quality', 1, 'Does this photo suffer from low light?', None),
    ('quality', 1, 'Is the image overexposed?', None),
    ('quality', 1, 'Is it foggy in this photo?', None),
    ('quality', 1, 'What degradation does this image have?', None),
    ('quality', 1, 'Is this photo good enough to use?', None),
    ('quality', 1, 'Rate the quality of this frame.', None),
    ('overlap', 4, 'Which image shares the most area with image 1?', None),
    ('overlap', 3, 'Which of images 2 and 3 overlaps more with image 1?', None),
    ('overlap', 4, 'Which photo covers the most of the same ground as the first?', None),
    ('motion', 3, 'In which direction did the drone move in this sequence?', None),
    ('motion', 4, 'Is the drone flying forwards or backwards?', None),
    ('motion', 3, 'Which direction is the camera drifting?', None),
    ('motion', 3, 'Which compass direction is the drone flying across these images?', None),
    ('clock', 1, 'What clock position is region 3 at, from the image centre?', None),
    ('clock', 1, 'Where is box 2 relative to the centre, as a clock hour?', None),
    ('clock', 1, "Give the o'clock direction of #4.", None),
    ('clock', 1, "Region 0's direction from the drone in clock terms?", None),
    ('order', 1, 'Which region is closest to the drone?', None),
    ('order', 1, 'Which box is nearest the image centre?', None),
    ('order', 1, 'Order the regions from closest to farthest from the drone.', None),
    ('order', 1, 'Which marked area is the farthest away from the camera?', None),
    ('distance', 1, 'How far is region 1 from region 2 on the ground? Altitude 50 m, nadir.', None),
    ('distance', 1, 'Distance between box 3 and box 5 in metres?', None),
    ('distance', 1, 'How many meters apart are region 0 and region 4?', None),
    ('transfer', 2, 'Which region in the second image corresponds to the box in the first image?', None),
    ('transfer', 2, 'The spot boxed in image 1 appears in image 2 under which number?', None),
    ('semantic', 1, 'What vehicle is in region 2?', None),
    ('semantic', 1, 'What is this building?', None),
    ('semantic', 1, 'Are there any cars in region 3?', None),
    ('semantic', 1, 'What kind of surface is the parking lot?', None),
    ('semantic', 1, 'Is the river flooded?', None),
    ('distance', 2, 'I flew a survey yesterday; these are two consecutive frames. How far apart were they shot, in yards?', 'yd'),
    ('distance', 2, 'Compute the planar distance between the GPS fixes of the two images.', None),
    ('distance', 2, "what's the horizontal baseline b/w these 2 pics in ft", 'ft'),
    ('distance', 2, 'Roughly how many kilometres lie between where these were taken?', 'km'),
    ('heading_change', 2, 'The gimbal yaw changed between these two photos - by how much, counter-clockwise?', None),
    ('heading_change', 2, 'Give me the rotation angle from view 1 to view 2, signed, clockwise positive.', None),
    ('turned', 2, 'Has the aircraft changed its yaw between the two pictures? yes/no', None),
    ('clock', 2, "With 12 o'clock straight up in the first image, what is the direction to the second camera position?", None),
    ('compass', 2, 'Heading from the first capture location to the second, as N/NE/E/SE/S/SW/W/NW?', None),
    ('compass', 1, "What's the azimuth of the image top, as a compass point?", None),
    ('compass', 1, 'Which way does this photo face?', None),
    ('altitude', 1, "The drone's AGL height for this frame in metres?", 'm'),
    ('altitude', 1, 'How high was I flying when I took this one?', None),
    ('gsd', 1, 'What is the ground sampling distance, in inches per pixel?', 'in'),
    ('gsd', 1, 'How many centimetres does a pixel cover on the ground here?', 'cm'),
    ('footprint', 1, 'Width and height of the ground area visible in this frame, in feet?', 'ft'),
    ('footprint', 1, 'What ground area (W x H) does the sensor cover in this shot?', None),
    ('tilt', 1, 'Was this photo taken with the camera pointing straight down?', None),
    ('tilt', 1, 'Is the camera pitched forward in this picture or is it a nadir capture?', None),
    ('count', 1, 'How many pedestrians are on the road?', None),
    ('count', 1, 'Give a count of the cars parked in the lot.', None),
    ('quality', 1, 'Is this frame blurry or sharp?', None),
    ('quality', 1, 'Check this image for noise.', None),
    ('quality', 1, 'Is the exposure OK?', None),
    ('overlap', 3, 'Of the two candidates, which photo overlaps photo 1 more?', None),
    ('motion', 4, 'Relative to the image frame, which way is the drone travelling in this sequence?', None),
    ('motion', 3, 'What heading is the aircraft flying on across these shots, compass-wise?', None),
    ('clock', 1, 'The camera looks straight down from 40 m. In which clock direction is region 7 from the centre?', None),
    ('clock', 1, "From region 1, what o'clock is region 3?", None),
    ('order', 1, 'Rank the regions by distance from the drone, farthest first.', None),
    ('order', 1, 'Which of the boxes is closest to the point directly below the drone?', None),
    ('distance', 1, "At 60 m altitude with a nadir camera, what's the ground distance between box 1 and box 2 in feet?", 'ft'),
    ('distance', 1, 'How far apart on the ground are the centres of region 3 and region 8?', None),
    ('transfer', 2, 'The area I outlined in photo 1: which numbered region of photo 2 shows the same place?', None),
    ('transfer', 2, 'Where does the boxed spot of image 1 lie in image 2, as a clock hour from its centre?', None),
    ('semantic', 1, 'What colour is the car in box 2?', None),
    ('semantic', 1, 'Is there a swimming pool?', None),
    ('semantic', 1, 'What is the object in region 4?', None),
    ('semantic', 1, 'Describe this image.', None),
    ('distance', 2, 'What is the separation, in metres, between the two photograph locations?', None),
    ('distance', 2, 'How far had the quadcopter moved by the time it took the second snapshot?', None),
    ('distance', 2, 'Tell me the inter-camera distance for this image pair.', None),
    ('distance', 2, 'How many feet between the exposure stations of these stills?', None),
    ('heading_change', 2, "What's the relative orientation change (yaw) between these two stills, in degrees?", None),
    ('heading_change', 2, 'How many degrees did the heading drift between the snapshots?', None),
    ('turned', 2, 'Did the UAV yaw between these captures?', None),
    ('turned', 2, 'Is there a heading change between the two frames, yes or no?', None),
    ('clock', 2, 'Taking the top of the first photograph as 12, at what hour position was the second photograph taken?', None),
    ('compass', 2, 'Which direction (N, NE, E, ...) is the second station from the first?', None),
    ('compass', 1, 'What direction is the top of this photograph oriented toward?', None),
    ('compass', 1, "Which compass point does the image's upward direction correspond to?", None),
    ('altitude', 1, "What was the UAV's height above ground when this snapshot was taken?", None),
    ('altitude', 1, 'How many feet above the launch point was the quadcopter?', None),
    ('altitude', 1, 'Flight altitude?', None),
    ('gsd', 1, "What's the pixel footprint on the ground (cm per pixel)?", None),
    ('gsd', 1, 'What ground resolution does this still have?', None),
    ('footprint', 1, 'How much area on the ground does this photograph cover, in metres by metres?', None),
    ('footprint', 1, "What's the on-ground width and height of this frame?", None),
    ('tilt', 1, 'Was the camera gimbal at nadir for this capture?', None),
    ('tilt', 1, 'Is this snapshot looking obliquely at the scene?', None),
    ('count', 1, 'How many individuals are visible in this frame?', None),
    ('count', 1, 'How many people are walking in this thermal image?', None),
    ('quality', 1, 'Is this photograph out of focus or sharp?', None),
    ('quality', 1, 'Is there haze in this picture?', None),
    ('quality', 1, 'Is the image washed out?', None),
    ('overlap', 4, 'Which of the later photos has the largest overlap with the first photo?', None),
    ('motion', 3, 'In what direction is the UAV travelling relative to the image top across these stills?', None),
    ('clock', 1, 'From the centre of the photo, which hour hand position points to area 3?', None),
    ('order', 1, 'Which numbered rectangle is closest to the nadir point?', None),
    ('distance', 1, 'How many metres separate region 2 and region 6? The drone was 45 m up, camera straight down.', None),
    ('transfer', 2, 'Which labelled box in the second photo contains the place I marked in the first photo?', None),
    ('semantic', 1, 'What sort of vegetation is in this image?', None),
    ('semantic', 1, 'Which regions contain trees?', None),
    # synonyms of each concept: overhead/slanted views, camera-model questions, pixels and strips of ground are not
    # objects to be measured, pairing verbs for correspondences
    ('tilt', 1, 'Overhead view, or slanted?', None),
    ('tilt', 1, "Is this a bird's-eye shot?", None),
    ('tilt', 1, 'Was the lens aimed at the ground or looking across the landscape?', None),
    ('tilt', 1, 'Is the optical axis perpendicular to the terrain here?', None),
    ('camera', 1, 'Which drone took this picture?', None),
    ('camera', 1, 'What is the focal length of the lens used here?', None),
    ('camera', 1, 'Tell me the camera model.', None),
    ('gsd', 1, 'How large is one pixel on the terrain?', None),
    ('footprint', 1, 'How long and how wide is the swath of ground in this picture?', None),
    ('correspondence', 2, 'Link the boxes of photo 1 with the boxes of photo 2 that show the same thing.', None),
    ('correspondence', 2, 'Please pair up the regions shared by the two pictures.', None),
    ('correspondence', 2, 'For every region of view 1, name the corresponding region of view 2.', None),
    ('camera', 1, 'When was this frame shot?', None),
    ('camera', 1, 'Where was this image captured (coordinates)?', None),
    ('tilt', 1, 'Straight-down survey frame, or a perspective view?', None),
    ('order', 1, 'What is the closest of the numbered boxes to the aircraft?', None),
    ('turned', 2, 'Different headings in the two shots?', None),
]


@pytest.mark.parametrize("ask,n,question", [(a, n, q) for a, n, qs in FAMILIES for q in qs])
def test_each_phrasing_of_a_quantity_is_that_quantity(ask, n, question):
    assert parse_question(question, n).ask == ask


@pytest.mark.parametrize("ask,n,question,unit", MORE_PHRASINGS)
def test_more_phrasings_and_their_units(ask, n, question, unit):
    p = parse_question(question, n)
    assert p.ask.value == ask
    if unit is not None:
        assert p.conventions.unit == unit


@pytest.mark.parametrize("question,ids", [
    ("In which clock direction is region 7 from the centre?", [7]),
    ("Where is box 0, as a clock hour?", [0]),
    ("What o'clock is the area marked 12?", [12]),
    ("Clock position of #3?", [3]),
    ("Which hour points at the label numbered 4?", [4]),
    ("clock dir of R5 from the middle", [5]),
    ("o'clock of the object marked 6, from the image centre?", [6]),
    ("Which hour is the car labelled 11 at?", [11]),
])
def test_a_region_by_any_name_is_a_region_referent(question, ids):
    p = parse_question(question, 1)
    assert p.ask == Ask.CLOCK and p.regions() == ids


@pytest.mark.parametrize("question,ids", [
    ("Tell me the real distance between the objects marked 1 and 3.", [1, 3]),
    ("How far apart are the things labelled 2 and 5 on the ground?", [2, 5]),
    ("Ground distance between the cars numbered 0 & 4?", [0, 4]),
])
def test_every_id_named_by_its_marking_is_a_region(question, ids):
    p = parse_question(question, 1)
    assert p.ask == Ask.DISTANCE and p.regions() == ids


def test_two_regions_and_an_anchor():
    p = parse_question("Seen from box 2, at what o'clock is box 9?", 1)
    assert p.regions() == [2, 9] and p.conventions.anchor.id == 2
    p = parse_question("Ground distance between regions 0 and 11 in yards, photo taken straight down from 60 m?", 1)
    assert p.ask == Ask.DISTANCE and p.regions() == [0, 11]
    assert (p.conventions.unit, p.conventions.altitude_m, p.conventions.pitch_deg) == ("yd", 60.0, -90.0)


def test_stated_values_are_conventions_not_the_question():
    p = parse_question("Flying at 200 ft with a 8.8 mm lens on a 13.2 mm sensor, how far is region 1 from region 2?",
                       1)
    c = p.conventions
    assert p.ask == Ask.DISTANCE
    assert c.altitude_m == pytest.approx(60.96) and (c.focal_mm, c.sensor_width_mm) == (8.8, 13.2)
    p = parse_question("This tile spans 120 m across. Distance from box 3 to box 4?", 1)
    assert p.conventions.ground_width_m == 120.0
    for said in ("The frame covers 250 ft of ground across.", "Image width 76.2 m on the ground."):
        p = parse_question(f"{said} How far apart are region 1 and region 2?", 1)
        assert p.conventions.ground_width_m == pytest.approx(76.2, rel=0.01), said


@pytest.mark.parametrize("question", ["How far is box 4 from the UAV on the ground?",
                                      "distance between the drone and region 4, straight line please",
                                      "How many metres lie between the camera and area #4?"])
def test_a_distance_from_the_drone_to_one_region(question):
    p = parse_question(question, 1)
    assert p.ask == Ask.DISTANCE and p.regions() == [4]
    assert any(r.kind == "camera" for r in p.operands)


def test_units_signs_and_senses():
    assert parse_question("Distance between the two shots in kilometres?", 2).conventions.unit == "km"
    assert parse_question("GSD in inches per pixel?", 1).conventions.unit == "in"
    p = parse_question("Heading change from image 1 to 2 as a signed angle, -180 to 180?", 2)
    assert p.ask == Ask.HEADING_CHANGE and p.conventions.signed
    assert not parse_question("How many degrees counter-clockwise did the drone turn between the photos?",
                              2).conventions.clockwise


def test_typos_and_abbreviations():
    assert normalise("regoin 3 hieght pics alt ppl") == "region 3 height photos altitude people"
    assert parse_question("wat is the altitue of this pic?", 1).ask == Ask.ALTITUDE
    assert parse_question("dist btw img 1 and img 2 in m", 2).ask == Ask.DISTANCE
    assert parse_question("clock direction of regoin 4?", 1).regions() == [4]
    # ordinary words close to a domain word stay as they are
    assert normalise("tally the snapped frames") == "tally the snapped frames"
    # two swapped neighbouring letters in a short word; a domain word typed as two
    assert normalise("hwo mnay cars, waht is teh over lap") == "how many cars, what is the overlap"
    assert normalise("the left form") == "the left form"  # English words are never swapped back
    assert parse_question("how mnay bikes r in teh pic", 1).ask == Ask.COUNT
    assert parse_question("size of the foot print on the ground?", 1).ask == Ask.FOOTPRINT
    # one letter left out of a short word, when only one word fits; English words stay
    assert normalise("hw hgh was the drne, whch way") == "how high was the drone, which way"
    assert normalise("the map was fine") == "the map was fine"


def test_the_format_instruction_wins():
    p = parse_question("Describe where region 4 is. Answer formatted exactly like `N o'clock`.", 1)
    assert p.ask == Ask.CLOCK
    p = parse_question("What is the heading offset angle and distance from image 1 to image 2? Answer with only "
                       "the angle in degrees.", 2)
    assert p.ask == Ask.HEADING_CHANGE


def test_yes_no_forms_keep_their_polarity():
    p = parse_question("Is this photo sharp?", 1)
    assert (p.ask, p.form, p.expect) == (Ask.QUALITY, "yes_no", "no_blur")
    p = parse_question("Were the two photos taken with the same heading?", 2)
    assert (p.ask, p.form, p.expect) == (Ask.TURNED, "yes_no", "same")
    p = parse_question("Is this picture nadir or oblique?", 1)
    assert (p.ask, p.form) == (Ask.TILT, "label")
    assert parse_question("Is this picture oblique?", 1).expect == "oblique"


def test_what_is_not_understood_is_said():
    p = parse_question("Tell me something nice.", 1)
    assert p.ask == Ask.SEMANTIC and p.unsure


def test_the_schema_validates_programs():
    schema = program_schema()
    assert "ask" in schema["$defs"]["Program"]["required"]
    p = Program.model_validate({"ask": "distance", "operands": [{"kind": "capture_point", "image": 1},
                                                                 {"kind": "capture_point", "image": 2}],
                                "conventions": {"unit": "ft"}})
    assert p.ask == Ask.DISTANCE and p.conventions.unit == "ft"
    with pytest.raises(ValueError):
        Program.model_validate({"ask": "distance", "colour": "red"})
    with pytest.raises(ValueError):
        Program.model_validate({"ask": "weather"})


def test_an_order_from_a_region_is_measured_from_that_region():
    p = parse_question("Which region is closest to region 2?", 1)
    assert (p.ask, p.conventions.anchor.id, p.conventions.order) == (Ask.ORDER, 2, "nearest_first")
    p = parse_question("Rank the boxes by distance from box 3, farthest first.", 1)
    assert (p.conventions.anchor.id, p.conventions.order, p.conventions.want_all) == (3, "farthest_first", True)
    assert parse_question("Which region is closest to the drone?", 1).conventions.anchor is None


def test_two_questions_in_one_give_two_programs():
    p = parse_question("How high was the drone, and which way was the camera facing?", 1)
    assert (p.ask, p.then.ask) == (Ask.ALTITUDE, Ask.COMPASS)
    p = parse_question("What's the altitude in feet? And the GSD in mm/px?", 1)
    assert (p.ask, p.conventions.unit, p.then.ask, p.then.conventions.unit) == (Ask.ALTITUDE, "ft", Ask.GSD, "mm")
    # heading change and distance of a pair are one camera pose, not two answers
    assert parse_question("How much did the heading change, and how far apart were they taken?", 2).ask == Ask.POSE
    # a follow-up that asks nothing new is no second question
    assert parse_question("Are there any people here? If so, how many?", 1).then is None
    assert parse_question("Did the heading swing left or right, and by how much?", 2).then is None


def test_a_stated_ground_elevation_is_a_convention():
    p = parse_question("The ground elevation is 255 m above sea level. How high was the drone above ground?", 1)
    assert (p.ask, p.conventions.ground_elevation_m, p.conventions.altitude_m) == (Ask.ALTITUDE, 255.0, None)
    assert parse_question("Altitude above ground? Site elevation 590 ft.", 1).conventions.ground_elevation_m == \
        pytest.approx(179.832)


def test_statements_and_answer_specifications_are_no_second_question():
    p = parse_question("Where does the spot I boxed in photo 1 lie in photo 2? Give the direction from its centre "
                       "as a clock hour.", 2)
    assert (p.ask, p.expect, p.then) == (Ask.TRANSFER, "clock", None)
    p = parse_question("What's the ground distance between box 1 and box 2? The camera pointed down from 50 m.", 1)
    assert (p.ask, p.then, p.conventions.altitude_m) == (Ask.DISTANCE, None, 50.0)
    assert parse_question("How high was the drone? Give also its heading.", 1).then.ask == Ask.COMPASS


def test_answer_format_examples_are_no_referents():
    p = parse_question("Rank the regions from nearest to farthest from the drone. Answer with only the region labels "
                       "in order, formatted exactly like `Region 1, 2, 3`. No explanation.", 1)
    assert (p.ask, p.regions(), p.conventions.want_all) == (Ask.ORDER, [], True)


def test_an_order_from_the_image_centre_is_in_the_image():
    p = parse_question("Which box is nearest to the middle of this tile?", 1)
    assert (p.ask, p.conventions.anchor.kind) == (Ask.ORDER, "centre")
    assert parse_question("Which box is nearest to the drone?", 1).conventions.anchor is None
    assert parse_question("Which box is nearest the drone in this orthophoto?", 1).conventions.pitch_deg == -90.0


def test_the_first_of_a_ranking_can_be_decided_when_the_rest_is_not():
    from planners.plans import first_is_clear

    ranked = {"order": [4, 0, 2, 1], "distances_m": {"4": 6.0, "0": 14.0, "2": 23.0, "1": 23.0},
              "uncertainty_m": {"4": 1.0, "0": 1.5, "2": 1.0, "1": 1.0}}
    assert first_is_clear(ranked)
    ranked["distances_m"]["0"] = 7.5
    assert not first_is_clear(ranked)


def test_shared_region_pairs_are_a_correspondence_not_a_transfer():
    q = ("Regions are marked in both photos. List the region pairs that show the same object in the two images, "
         "like `1-3, 2-5`.")
    assert parse_question(q, 2).ask == Ask.CORRESPONDENCE
    assert parse_question("Which box in photo 2 covers the same ground as the box I marked in photo 1?",
                          2).ask == Ask.TRANSFER


def test_the_asked_quantity_of_each_regression_question():
    """A data-driven regression set of questions written in the team (plain, chatty, misspelt), by asked quantity."""
    import json
    from pathlib import Path

    rows = [json.loads(line) for line in
            (Path(__file__).resolve().parents[1] / "data" / "asked_quantities.jsonl").read_text().splitlines()]
    wrong = [(r["question"], want, got) for r in rows for want, got in _read_as(r) if want != got]
    assert len(rows) >= 150 and not wrong


def _read_as(row: dict) -> list[tuple[object, object]]:
    """(wanted, read) for the asked quantity and for each optional field a regression row names."""
    p = parse_question(row["question"], row["n_images"])
    read = {"ask": p.ask.value, "form": p.form, "expect": p.expect, "unit": p.conventions.unit,
            "signed": p.conventions.signed, "regions": p.regions(), "object": (p.objects() or [None])[0]}
    stated = ("altitude_m", "pitch_deg", "focal_mm", "sensor_width_mm", "ground_width_m", "ground_elevation_m")
    read |= {key: None if (v := getattr(p.conventions, key)) is None else round(v, 2) for key in stated}
    return [(row[key], read[key]) for key in read if key in row]


def test_a_clock_with_north_at_12_is_read_as_north_up():
    for q in ("If 12 o'clock is north, where does region 6 sit?", "With north at 12, where is box 8?",
              "clock direction of region 2, 12 = north"):
        assert parse_question(q, 1).conventions.reference == "north", q
    assert parse_question("Region 3 is at what clock position?", 1).conventions.reference == "image_up"
    p = parse_question("Is region 1 east of region 2?", 1)
    assert (p.ask, p.expect, p.conventions.anchor.id) == (Ask.COMPASS, "E", 2)

