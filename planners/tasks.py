"""The one registry of task types the planner knows.

Each :class:`TaskSpec` names the task, its default answer format (an ``agent.answers.AnswerFormat`` member name),
the plan that answers it (a key of ``planners.plans.PLANS``), whether it needs semantics (an LLM/VLM), how many
images it takes, the benchmark ids it stands for (aliases), the routing cues and the example phrasings the
router embeds. Cues and examples come from the benchmarks' own question wording (``shared/specs/benchmarks.md``)
and from phrasings written here; the held-out paraphrase test set (``tests/data/paraphrases.jsonl``) is never
read to build the router.

Cue syntax: ``(regex, weight)``; the router sums the weights of the cues that match the lower-cased question.
Negative weights push a task away (e.g. "no region mentioned").
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from agent.task_types import TASK_TYPES, TaskType

Cue = tuple[str, float]

# Shared cue fragments.
REGION = r"\bregions?\s*\d+|\bregions?\b"
CLOCK = r"o'? ?clock|clock (direction|position|bearing|hour)|hour position"
OPTIONS = r"(^|\n|\s)\(?[a-d][.)]\s|\boptions?\b|\bletter\b|a, b, c,? (or|and) d"
GROUND = r"ground(-| )?(level|view|image|photo|picture)s?|street(-| )?(level|view)|ground image|from the ground"
UAVK = r"\buav\s*\d\b|\buavs\b|\bdrones\b|\bwhich uav\b"
MOTION = r"video|frames|clip|sequence|footage|over time|temporal"


@dataclass(frozen=True)
class TaskSpec:
    """One task type. ``images`` is the (min, max) number of images it takes (max ``None`` = no limit)."""

    name: str
    answer_format: str
    plan: str
    needs_semantics: bool
    images: tuple[int, int | None]
    cues: tuple[Cue, ...]
    examples: tuple[str, ...]
    aliases: tuple[str, ...] = ()
    description: str = ""
    requires: tuple[str, ...] = ()  # the task competes only if one of these matches (MULTI_CHOICE: see below)
    excludes: tuple[str, ...] = ()  # regexes any of which rules the task out

    def accepts(self, n_images: int) -> bool:
        lo, hi = self.images
        return n_images >= lo and (hi is None or n_images <= hi)


def _t(name: str, fmt: str, plan: str, sem: bool, images: tuple[int, int | None], cues: list[Cue],
       examples: list[str], aliases: tuple[str, ...] = (), description: str = "") -> TaskSpec:
    return TaskSpec(name, fmt, plan, sem, images, tuple(cues), tuple(examples), aliases, description)


def _bench(task: TaskType, plan: str, sem: bool, images: tuple[int, int | None], cues: list[Cue],
           examples: list[str], aliases: tuple[str, ...] = (), description: str = "") -> TaskSpec:
    """A benchmark task type: its name and answer format come from the shared vocabulary (``agent.task_types``)."""
    return _t(task.value, TASK_TYPES[task].answer_format.name, plan, sem, images, cues, examples, aliases, description)


_SPATIALUAV = [
    _bench(TaskType.REGION_RECOGNITION, "semantic_regions", True, (1, 1),
       [(r"which (of the )?(regions?|(numbered |marked )?(boxes|areas))\b.*\b(contain|include|ha(ve|s)|show)", 1.2),
        (r"regions? (containing|with|that (contain|show|have|has))|(list|name|tell me|give)\b.*\bregions?\b.*\b(contain|with|ha(s|ve)|show)", 1.0),
        (r"\bin which regions\b", 1.0), (r"abnormal|anomal|unusual|accident", -1.5), (CLOCK, -1.5),
        (r"closest|nearest|farthest|furthest|far (left|right)|distance", -1.5)],
       ["Which regions in the image contain a parking lot?", "Which regions in the image contain a streetlight?",
        "Which regions in the image contain a fire truck?", "Which regions show a building?",
        "Which of the regions contain vehicles?"],
       ("SpatialUAV:Region_Recognition", "BEDI:Semantic_InfoDet"), "regions whose content matches a category"),
    _bench(TaskType.ANOMALY_DETECTION, "semantic_regions", True, (1, 1),
       [(r"abnormal|anomal|unusual|accident|incident|emergenc", 1.5), (REGION, 0.3)],
       ["Which regions exhibit abnormal events?", "Which regions show an anomaly?",
        "In which region is something abnormal happening?"],
       ("SpatialUAV:Anomaly_Detection",), "regions with abnormal events"),
    _bench(TaskType.DIRECTION_RECOGNITION, "clock", False, (1, 1),
       [(CLOCK, 1.2), (r"\bregions?\s*\d+", 0.6), (r"\bregions?\b", 0.2), (r"relative to the (drone|uav|camera)", 0.3),
        (r"\bif you (are|were)|\bimagine|suppose|standing at", -1.5), (r"\b(you|your)\b", -0.3)],
       ["With the front facing the 12 o'clock direction, in which o'clock direction is the target in Region 10 "
        "relative to the drone?",
        "With the front facing the 12 o'clock direction, in which o'clock direction is the target in Region 3 of the "
        "image relative to the drone?", "In which clock direction is region 2 from the drone?",
        "Tell me the o'clock direction of region 5 as seen from region 1."],
       ("SpatialUAV:Direction_Recognition", "BEDI:Spatial_PosRelDis"), "clock direction of a region"),
    _bench(TaskType.DISTANCE_COMPARISON, "rank", False, (1, 1),
       [(r"closest|nearest|farthest|furthest|far (left|right)|most distant|further|distance (to|from) the (drone|uav|camera)", 1.0),
        (r"\bregions?\b|\bbox(es)?\b", 0.5), (r"rank|order|sort", 0.3), (CLOCK, -0.8),
        (r"ground(-| )?(level )?(image|photo|picture)|capture location|where .* (taken|captured)", -1.5),
        (r"\b(you|your)\b|\bme\b", -0.4)],
       ["Which region contains the building that is located on the far left of the drone?",
        "Among all the regions containing a fire truck, which region has a fire truck that is the closest to the drone?",
        "Rank the regions by distance to the drone, nearest first.", "Which region is farthest from the drone?"],
       ("SpatialUAV:Distance_Comparison", "BEDI:Spatial_RelDisRelDis"), "regions ordered by ground distance"),
    _bench(TaskType.A2A_COLLABORATION_RECOGNITION, "rank_views", False, (3, None),
       [(r"collaborat|same (area|location|scene|place)|overlap|capture imagery of", 1.0), (OPTIONS, 0.3),
        (r"candidate|option", 0.3), (GROUND, -1.0), (UAVK, -0.2)],
       ["Which option can collaborate with the given UAV viewpoint, i.e., capture imagery of the same area?",
        "Images 2-5 are candidate UAV images corresponding to options A-D. Which one covers the same area as image 1?",
        "Which candidate drone view overlaps the query view?"],
       ("SpatialUAV:A2A_Collaboration_Recognition",), "which candidate aerial view sees the same area"),
    _bench(TaskType.A2G_COLLABORATION_RECOGNITION, "rank_views", False, (3, None),
       [(r"collaborat|same (area|location|scene|place)|captured at the same|taken (at|over)|matches the place", 1.0),
        (GROUND, 0.8), (r"\baerial\b", 0.3), (OPTIONS, 0.3), (r"candidate", 0.3)],
       ["Which aerial UAV image was captured at the same location as the ground image?",
        "The given image is an aerial UAV image. Images 2-5 are ground-view candidate images corresponding to options "
        "A-D, respectively. Which ground image was captured at the same location as the aerial image and can "
        "collaborate with it?"],
       ("SpatialUAV:A2G_Collaboration_Recognition",), "which candidate matches across aerial and ground views"),
    _bench(TaskType.A2A_SHARED_ASSOCIATION, "associate_pairs", False, (2, 2),
       [(r"shared region|region pairs?|pairs? (of|up)|\bpair\b|correspond|common to both|appear in both|match(ing)? up", 1.0),
        (r"two (uav|drone|aerial) (images|photos|views)|both (drone|uav|aerial)", 0.4), (GROUND, -1.0)],
       ["List all shared region pairs between the two UAV images.",
        "Which regions in image 1 and image 2 show the same objects? Give region pairs like 1-3, 2-5."],
       ("SpatialUAV:A2A_Shared_Association",), "region pairs shared by two aerial views"),
    _bench(TaskType.A2G_SHARED_ASSOCIATION, "associate_pairs", False, (2, 2),
       [(r"shared region|region pairs?|pairs?\b|correspond|seen both|shared between", 0.9), (GROUND, 0.8),
        (r"\baerial\b.*\bground\b|\bair\b.*\bground\b", 0.5)],
       ["List all shared region pairs between the aerial image and ground image.",
        "Which regions of the aerial image and the ground image show the same object? Give pairs."],
       ("SpatialUAV:A2G_Shared_Association",), "region pairs shared by an aerial and a ground view"),
    _bench(TaskType.A2A_OBJECT_MATCHING, "match_object", False, (2, 2),
       [(r"bounding box|\bbox\b|\[x1", 0.6), (r"image ?2|second (image|view|photo)", 0.4),
        (r"(same object|corresponds? to the object|appear in)", 0.6), (r"region\s*\d+ (in|of) (image ?1|the first)", 0.6),
        (r"normali[sz]ed|relative coordinates|between 0 and 1", -0.4)],
       ["Which bounding box in image2 corresponds to the object at Region 0 in image1?",
        "Find the object of Region 2 in image 1 in image 2 and give its box [x1, y1, x2, y2]."],
       ("SpatialUAV:A2A_Object_Matching",), "where an image-1 region's object is in image 2"),
    _bench(TaskType.A2A_CAMERA_TRANSFORMATION, "pose", False, (2, 2),
       [(r"heading offset|offset angle|target pose|camera (pose|transformation)|relative pose|\bposes?\b", 1.0),
        (r"translation|displacement|how far apart|distance (between|separat)|how far did|move(d)? between", 0.8),
        (r"heading (change|difference)|yaw change|how much did the (heading|yaw)|rotat(e|ed|ion)|turn(ed)?\b|degrees did", 0.8),
        (r"image ?1 to image ?2|view 1 to view 2|camera 1 to camera 2|first .* second|image ?1 and image ?2|(two|2|these|both) (photos|pictures|images|shots)|shot one", 0.4),
        (r"\bregions?\b", -0.8), (r"\bframes\b|video", -0.6)],
       ["What are the aligned heading offset angle and relative translation distance from Image 1 to Image 2's "
        "target pose?", "What is the heading offset angle from Image 1 to Image 2's target pose?",
        "Give the relative rotation and translation between the two camera poses.",
        "How far apart were these two photos taken?", "How much did the heading change between the two images?",
        "By how many metres did the drone move between image 1 and image 2?"],
       ("SpatialUAV:A2A_Camera_Transformation", "Free:Photo_Pose_Change"),
       "relative heading and/or translation between two aerial views (format per the question)"),
    _bench(TaskType.A2A_OCCLUSION_REMOVAL, "occlusion", False, (2, 2),
       [(r"occlu|hidden|hides|blocks?|blocked|obstruct", 1.5), (REGION, 0.2)],
       ["Which region in image 2 contains the object that occludes the point-marked object in image 1?"],
       ("SpatialUAV:A2A_Occlusion_Removal",), "which region of one view occludes an object of the other"),
    _bench(TaskType.A2G_VIEW_TRANSLATION, "semantic_crossview", True, (2, 2),
       [(r"capture location|where .*(ground|street).*(taken|captured|shot)|(taken|captured|shot) from", 1.0),
        (GROUND, 0.6), (r"closest|nearest|region", 0.3), (r"arrow|direction \d|direction (you|i|we) should|reach the", -1.0)],
       ["Select the region in the aerial image that is closest to the capture location of the ground image."],
       ("SpatialUAV:A2G_View_Translation",), "where in the aerial image a ground photo was taken"),
    _bench(TaskType.A2G_PATH_PLANNING, "semantic_crossview", True, (2, 2),
       [(r"arrow|direction (number|\d)|which direction (should|to)|direction (you|i|we) should|reach the|route|get to", 1.0),
        (GROUND, 0.5),
        (r"red region|highlighted|target marked", 0.4)],
       ["If you are standing at the ground image capture location, determine the direction you should move to reach "
        "the red region shown in the aerial image."],
       ("SpatialUAV:A2G_Path_Planning",), "which numbered arrow leads to a target"),
    _bench(TaskType.MOTION_UNDERSTANDING, "ego_motion", False, (2, None),
       [(r"(drone|uav|camera)('s)? (moves?|moved|motion|trajectory|fl(y|ew))|how (did )?the (drone|uav) (moves?|fl(y|ew))", 1.0),
        (r"camera (angle|motion)|trajectory|describe.*(mov|motion)", 0.6), (MOTION, 0.4),
        (r"between (the|these) (two|2)|how far|distance|image ?[12]\b|first and (the )?second", -0.8), (OPTIONS, -0.5)],
       ["This video is captured from a drone-mounted camera. Please describe, in temporal order, how the drone moves, "
        "how the camera angle changes, and how the main object shifts in the frame, ending with the final viewing focus.",
        "Describe the drone's motion in this video."],
       ("SpatialUAV:Motion_Understanding",), "ego-motion of the drone over ordered frames"),
]

_BEDI = [
    _t("Semantic_InfoDis", "FREE_TEXT", "semantic_text", True, (1, 1),
       [(r"what (colou?r|type|kind|is the)|is the .* (parked|moving|open)|what (is|are) .* in region", 0.8), (REGION, 0.2)],
       ["What is the vehicle in Region 2?", "What color is the car in Region 4?", "Is the door in Region 1 open?"],
       ("BEDI:Semantic_InfoDis",), "short semantic answer about a region"),
    _t("Scene_Description", "FREE_TEXT", "semantic_text", True, (1, 1),
       [(r"describe|description|what does (this|the) .*(show|depict)|what (do you|can you) see", 0.9),
        (r"scene|picture|image|photo", 0.2), (r"mov(e|ed|ing)|motion|trajectory", -0.6), (OPTIONS, -0.5)],
       ["Describe the scene in the image.", "What does this aerial image show?", "Describe the surroundings of Region 3."],
       ("BEDI:Semantic_InfoDes", "Free:Scene_Description"), "scene description"),
    _t("Attitude_Motion", "FREE_TEXT", "semantic_text", True, (1, 1),
       [(r"attitude|climbing|descending|hovering|oriented|(current|present) (motion|state)", 1.0),
        (r"(moving|orientation) right now", 0.5)],
       ["What is the current attitude of the drone?", "Is the drone climbing or descending?"],
       ("BEDI:Attitude",), "drone attitude / current motion state"),
    _t("Tool_Usage", "FREE_TEXT", "semantic_text", True, (1, 1),
       [(r"\btool\b|equipment|payload|device should|instrument", 1.0)],
       ["Which tool should the drone use for this task?", "What payload should the UAV carry here?"],
       ("BEDI:Tool",), "which onboard tool to use"),
    _t("Task_Planning", "FREE_TEXT", "semantic_text", True, (1, 1),
       [(r"\bplan\b|mission|step(-| )by(-| )step|steps to|what steps|steps should", 1.0), (r"sequence of (drone )?actions|control commands", -0.8)],
       ["Make a plan for the drone to inspect the bridge.", "What steps should the drone take to search the area?"],
       ("BEDI:Plan",), "task plan"),
    _t("Action_Generation", "ACTIONS", "semantic_text", True, (1, 1),
       [(r"actions?\b.*(move|rotate|adjust|zoom)|list of actions|sequence of (drone )?actions|control commands", 1.2)],
       ["Generate the action sequence (move, rotate, adjust, zoom) for the drone to reach Region 2."],
       ("BEDI:Action",), "low-level action sequence"),
]

_O3D = [
    _t("O3D_Allocentric_Size", "FREE_TEXT", "semantic_tools", True, (1, 1),
       [(r"bigger|larger|smaller|taller|shorter|wider|longer|narrower", 1.0), (r"\bthan\b|\bor\b", 0.3)],
       ["Is the row of parked white vans larger than the red brick building?", "Which is taller, the tree or the lamp?"],
       ("Open3D-VQA:allocentric_size",), "compare sizes of two captioned objects"),
    _t("O3D_Allocentric_Distance", "QUANTITY", "semantic_tools", True, (1, 1),
       [(r"how far (is|are) the .* from the|distance (in \w+ )?between the", 1.0), (r"\b(you|your)\b", -0.8)],
       ["How far is the row of parked white vans from the red brick building?",
        "What is the distance between the white car and the tree?"],
       ("Open3D-VQA:allocentric_distance",), "distance between two captioned objects"),
    _t("O3D_Egocentric_Direction", "CLOCK", "semantic_tools", True, (1, 1),
       [(CLOCK, 0.8), (r"from you|your (view(point)?|position|perspective)|\byou\b", 0.8), (r"\bregions?\b", -1.0),
        (r"\bif you (are|were)|imagine|suppose|standing at", -1.2)],
       ["In which o'clock direction is the row of parked white vans from you?",
        "Where is the grey roof relative to you, as a clock direction?"],
       ("Open3D-VQA:egocentric_direction",), "clock direction of a captioned object from the camera"),
    _t("O3D_Egocentric_Distance", "QUANTITY", "semantic_tools", True, (1, 1),
       [(r"(how far|distance).*(from|to) you|how far away (from you|is)|your distance|distance from you", 1.2),
        (r"\bif you (are|were)|imagine|suppose|standing at", -1.2)],
       ["How far is the row of parked white vans from you?", "What is the distance from you to the white building?"],
       ("Open3D-VQA:egocentric_distance",), "distance of a captioned object from the camera"),
    _t("O3D_Transformation_Direction", "CLOCK", "semantic_tools", True, (1, 1),
       [(r"\bif you (are|were)|imagine you|suppose you|standing at|you stand at", 1.0), (CLOCK + r"|where will you find", 0.8),
        (r"how far|distance", -0.8)],
       ["If you are at the row of parked white vans, where will you find the red brick building?",
        "If you were at the tree, in which o'clock direction would the car be?"],
       ("Open3D-VQA:allocentric_to_egocentric_direction",), "clock direction after moving to an object"),
    _t("O3D_Transformation_Distance", "QUANTITY", "semantic_tools", True, (1, 1),
       [(r"\bif you (are|were)|imagine you|suppose you|standing at|you stand at", 1.0),
        (r"how far|distance|vertical(ly)?|horizontal(ly)?", 0.8), (CLOCK, -0.8)],
       ["If you are at the row of parked white vans, how far vertically is the red brick building from you?",
        "If you were at the tree, what is the horizontal distance to the car?"],
       ("Open3D-VQA:allocentric_to_egocentric_distance",), "vertical/horizontal distance from an object"),
    _t("O3D_Object_Size", "QUANTITY", "semantic_tools", True, (1, 1),
       [(r"how (wide|tall|high|long|big)|(width|height|length) of", 1.1), (r"\bthan\b", -0.8), (r"\bdrone|uav|altitude|take-?off", -0.8)],
       ["How wide is the row of parked white vans?", "What is the height of the red brick building?"],
       ("Open3D-VQA:object_centric_size",), "width or height of a captioned object"),
]

_AIRCOP_BASE = [(OPTIONS, 0.4), (UAVK, 0.4)]


def _ac(name: str, cues: list[Cue], examples: list[str], plan: str = "semantic_choice",
        sem: bool = True) -> TaskSpec:
    return _t(name, "OPTION_LETTER", plan, sem, (1, None), _AIRCOP_BASE + cues, examples,
              (f"AirCopBench:{name.removeprefix('Aircop_')}",), "AirCopBench multiple choice")


_AIRCOP = [
    _ac("Aircop_Scene_Description", [(r"what (kind of )?(scene|place|area|environment)|describes? the scene|scene (type|description)", 0.9)],
        ["Which option best describes the scene observed by the UAVs?"]),
    _ac("Aircop_Scene_Comparison", [(r"differ|difference|compare|comparison|in common|similar", 0.9)],
        ["What is the main difference between the scenes observed by UAV1 and UAV2?"]),
    _ac("Aircop_Observing_Posture", [(r"posture|pose of the person|standing|lying|sitting", 0.9)],
        ["What is the posture of the person observed by UAV2?"]),
    _ac("Aircop_Object_Recognition", [(r"what (is|are) the (object|target)|which object is|recogni[sz]e|identify the object", 0.9),
                                      (r"both|same|shared", -0.5)],
        ["What is the object at the centre of UAV1's view?"]),
    _ac("Aircop_Object_Counting", [(r"how many|number of|count", 1.0), (r"usable|usability|useful", -0.8)],
        ["How many vehicles can be seen in UAV1's image?"], plan="count_choice", sem=False),
    _ac("Aircop_Object_Grounding", [(r"where is|located|location of|which part", 0.9)],
        ["Where is the white car located in UAV2's image?"]),
    _ac("Aircop_Object_Matching", [(r"(appear|visible|seen) in both|same object|both uav|shared object|matching", 1.0)],
        ["Which object is visible in both UAV1 and UAV2?"]),
    _ac("Aircop_Quality_Assessment", [(r"quality|clearest|blur|noise|fog|degrad|overexpos|low light", 0.9),
                                      (r"caused|cause|usable|usability|why|benefit", -0.6)],
        ["Which UAV has the best image quality?", "What kind of degradation affects UAV3's image?"]),
    _ac("Aircop_Usability_Assessment", [(r"usable|usability|still (be )?used|suitable|useful for", 1.0)],
        ["Is UAV2's image usable for detecting pedestrians?"]),
    _ac("Aircop_Causal_Assessment", [(r"caused|cause|reason for|due to|because of|most likely led", 1.0)],
        ["What is the likely cause of the degradation in UAV1's image?"]),
    _ac("Aircop_When_Collaborate", [(r"\bwhen\b|at which (moment|time)|start sharing|timing", 1.0)],
        ["When should UAV1 and UAV2 collaborate?"]),
    _ac("Aircop_What_Collaborate", [(r"what (information|data|should .* (share|request|send))|which information", 1.0)],
        ["What information should UAV1 share with UAV2?"]),
    _ac("Aircop_Who_Collaborate", [(r"which (drone|uav) should|who should|team up|with which (drone|uav)|partner", 1.0)],
        ["Which UAV should UAV1 collaborate with to see the occluded target?"]),
    _ac("Aircop_Why_Collaborate", [(r"\bwhy\b|benefit|purpose of", 1.0), (r"caused|cause of", -0.5)],
        ["Why should UAV2 collaborate with UAV3?"]),
]

_TD_MC = [(r"please select the correct answer|options?:", 0.3), (OPTIONS, 0.3), (UAVK, -0.6)]
_TD = [
    _t("TD_Grounding", "BBOX", "grounding", False, (1, 1),
       [(r"coordinates|bounding box|\bbox\b|\[x1", 0.7), (r"relative (coordinates|bounding box)|normali[sz]ed|between 0 and 1|in \[0, ?1\]", 0.8),
        (r"image ?2|second", -0.8)],
       ["Please output the coordinates of the car in the image in the format [x1, y1, x2, y2], relative coordinates "
        "between 0 and 1."],
       ("TDBench:grounding",), "normalised box of a named object"),
    _t("TD_Counting", "OPTION_LETTER", "count_choice", False, (1, 1),
       _TD_MC + [(r"how many|number of|count", 1.0)],
       ["How many cars are in the image? A. 2 B. 4 C. 6 D. 8 Please select the correct answer from the options above."],
       ("TDBench:counting",), "multiple-choice object count"),
    _t("TD_Localization", "OPTION_LETTER", "semantic_choice", True, (1, 1),
       _TD_MC + [(r"where is|which part|located|location|(top|bottom|upper|lower)(-| )(left|right)", 1.0)],
       ["Where is the bus in the image? A. top-left B. top-right C. bottom-left D. bottom-right"],
       ("TDBench:localization",), "multiple-choice position of an object"),
]

_FREE = [
    _t("Object_Counting", "FREE_TEXT", "count", False, (1, 1),
       [(r"how many|number of|count (the)?", 1.0), (OPTIONS, -1.0), (UAVK, -0.5)],
       ["How many people are in the image?", "Count the persons in this photo."],
       ("Free:counting",), "number of detected objects"),
    _t("Image_Quality", "FREE_TEXT", "quality", False, (1, 1),
       [(r"quality|blur(red|ry)?\b|noisy|noise|too dark|overexposed|underexposed|degraded|sharp", 1.0), (OPTIONS, -1.0), (UAVK, -0.5)],
       ["What is the image quality of this photo?", "Is the image blurred?"],
       ("Free:quality",), "image quality assessment"),
    _t("Camera_Info", "FREE_TEXT", "camera_info", False, (1, 1),
       [(r"altitude|how high|height above|focal length|camera model|which camera|gps|exif", 1.0),
        (r"(altitude|height) of the (drone|uav|camera)|flying height|drone.*(altitude|height)", 0.5)],
       ["At what altitude was this photo taken?", "Which camera took this image?"],
       ("Free:camera_metadata",), "camera metadata (altitude, focal length, model)"),
]

AIRCOP_GATE = UAVK
MULTI_CHOICE = "<multiple-choice over several images>"  # special gate: options given and two or more images
_GATED = {name: (AIRCOP_GATE, MULTI_CHOICE) for name in (t.name for t in _AIRCOP)}
_GATED.update({"TD_Counting": (OPTIONS,), "TD_Localization": (OPTIONS,)})
_EXCLUDED = {"TD_Counting": (AIRCOP_GATE,), "TD_Localization": (AIRCOP_GATE,), "Object_Counting": (OPTIONS,),
             "Image_Quality": (OPTIONS, AIRCOP_GATE)}

TASKS: dict[str, TaskSpec] = {
    t.name: replace(t, requires=_GATED.get(t.name, ()), excludes=_EXCLUDED.get(t.name, ()))
    for t in (*_SPATIALUAV, *_BEDI, *_O3D, *_AIRCOP, *_TD, *_FREE)
}


def task_for_alias(alias: str) -> TaskSpec:
    """The registry entry for a benchmark task id (``"BEDI:Spatial_PosRelDis"``) or a registry name."""
    if alias in TASKS:
        return TASKS[alias]
    for spec in TASKS.values():
        if alias in spec.aliases or any(a.split(":", 1)[1] == alias for a in spec.aliases):
            return spec
    raise KeyError(f"unknown task type {alias!r}; known: {', '.join(sorted(TASKS))}")
