"""Question understanding: routing of benchmark wordings and held-out paraphrases, conventions, image counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.answers import AnswerFormat
from planners.conventions import parse_conventions, parse_options
from planners.plans import PLANS
from planners.router import ImageCountError, route, routes_to
from planners.tasks import TASKS, task_for_alias

PARAPHRASES = Path(__file__).resolve().parents[1] / "data" / "paraphrases.jsonl"

# The benchmarks' own question wording (shared/specs/benchmarks.md), with the number of images each task takes.
SPEC_WORDING = [
    ("Which regions in the image contain a parking lot? Answer with only the region labels, formatted exactly like "
     "`Region 1, 2`. No explanation.", 1, "Region_Recognition"),
    ("Which regions exhibit abnormal events?", 1, "Anomaly_Detection"),
    ("With the front facing the 12 o'clock direction, in which o'clock direction is the target in Region 10 relative "
     "to the drone?", 1, "Direction_Recognition"),
    ("Which region contains the building that is located on the far left of the drone?", 1, "Distance_Comparison"),
    ("Which option can collaborate with the given UAV viewpoint, i.e., capture imagery of the same area?", 5,
     "A2A_Collaboration_Recognition"),
    ("Which aerial UAV image was captured at the same location as the ground image?", 5,
     "A2G_Collaboration_Recognition"),
    ("The given image is an aerial UAV image. Images 2-5 are ground-view candidate images corresponding to options "
     "A-D, respectively. Which ground image was captured at the same location as the aerial image and can "
     "collaborate with it? Answer with only one option letter: A, B, C, or D. Provide no explanation.", 5,
     "A2G_Collaboration_Recognition"),
    ("List all shared region pairs between the two UAV images.", 2, "A2A_Shared_Association"),
    ("List all shared region pairs between the aerial image and ground image.", 2, "A2G_Shared_Association"),
    ("Which bounding box in image2 corresponds to the object at Region 0 in image1?", 2, "A2A_Object_Matching"),
    ("What are the aligned heading offset angle and relative translation distance from Image 1 to Image 2's target "
     "pose?", 2, "A2A_Camera_Transformation"),
    ("Which region in image 2 contains the object that occludes the point-marked object in image 1?", 2,
     "A2A_Occlusion_Removal"),
    ("Select the region in the aerial image that is closest to the capture location of the ground image.", 2,
     "A2G_View_Translation"),
    ("If you are standing at the ground image capture location, determine the direction you should move to reach "
     "the red region shown in the aerial image", 2, "A2G_Path_Planning"),
    ("This video is captured from a drone-mounted camera. Please describe, in temporal order, how the drone moves, "
     "how the camera angle changes, and how the main object shifts in the frame, ending with the final viewing "
     "focus.", 16, "Motion_Understanding"),
    ("With the front facing the 12 o'clock direction, in which o'clock direction is the target in Region 3 of the "
     "image relative to the drone?", 1, "BEDI:Spatial_PosRelDis"),
    ("Which regions in the image contain a fire truck?", 1, "BEDI:Semantic_InfoDet"),
    ("Among all the regions containing a fire truck, which region has a fire truck that is the closest to the "
     "drone?", 1, "BEDI:Spatial_RelDisRelDis"),
    ("If you are at the row of parked white vans, where will you find the red brick building?", 1,
     "Open3D-VQA:allocentric_to_egocentric_direction"),
    ("Please output the coordinates of the car in the image in the format [x1, y1, x2, y2], relative coordinates "
     "between 0 and 1.", 1, "TDBench:grounding"),
    ("How many persons are visible in UAV1's image?\nA. 2\nB. 3\nC. 4\nD. 5\nAnswer with the option's letter from "
     "the given choices directly.", 3, "AirCopBench:Object_Counting"),
    ("How far apart were these two photos taken?", 2, "Free:Photo_Pose_Change"),
    ("Which of these regions is closest to the drone?", 1, "Distance_Comparison"),
    ("Where is region 4 from the drone, as a clock direction?", 1, "Direction_Recognition"),
    ("Describe how the drone moved.", 16, "Motion_Understanding"),
]


def _load_paraphrases() -> list[dict]:
    return [json.loads(line) for line in PARAPHRASES.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("question,n,task", SPEC_WORDING)
def test_spec_wording_routes(question, n, task):
    assert routes_to(route(question, n).task, task)


def test_every_registry_example_routes_to_its_task():
    wrong = [(ex, spec.name, route(ex, spec.images[0]).task) for spec in TASKS.values() for ex in spec.examples
             if not routes_to(route(ex, spec.images[0]).task, spec.name)]
    assert not wrong


def test_paraphrases_are_held_out_and_route():
    rows = _load_paraphrases()
    assert len(rows) >= 100
    examples = {ex.lower() for spec in TASKS.values() for ex in spec.examples}
    assert not [r["question"] for r in rows if r["question"].lower() in examples]  # kept separate
    wrong = [(r["question"], r["task"], route(r["question"], r["n_images"]).task) for r in rows
             if not routes_to(route(r["question"], r["n_images"]).task, r["task"])]
    assert not wrong, wrong


def test_registry_is_consistent():
    for spec in TASKS.values():
        assert spec.plan in PLANS, spec.name
        assert AnswerFormat[spec.answer_format]
        assert spec.examples and spec.cues and spec.aliases


def test_embedding_fallback_places_free_phrasing():
    # No cue word of any task matches this phrasing, so the MiniLM nearest-example match decides (off by default:
    # it loads a model on the question path).
    u = route("Tell me about the drone's trip through these shots from start to end.", 16, use_embeddings=True)
    assert u.method == "embedding" and u.task == "Motion_Understanding"


def test_the_embedding_fallback_never_picks_a_task_of_another_kind():
    # a question about what a region shows: no clock task, however close its wording
    u = route("Identify the object outlined as Region 5.", 1, use_embeddings=True)
    assert u.task is None or TASKS[u.task].needs_semantics


def test_conventions_from_the_question():
    c = parse_conventions("Seen from Region 2, in which o'clock direction is region 5, counting counter-clockwise? "
                          "The drone flies at 60 m with the camera pitched 30° down.")
    assert (c.anchor_region, c.region_ids, c.clockwise) == (2, [2, 5], False)
    assert (c.altitude_m, c.pitch_deg) == (60.0, -30.0)
    c = parse_conventions("Rank the regions from farthest to nearest. Distances in feet.")
    assert (c.order, c.want_all, c.units) == ("farthest_first", True, "ft")
    c = parse_conventions("Give the box of the person as relative coordinates between 0 and 1.")
    assert c.normalized_boxes and c.target_label == "person"
    c = parse_conventions("Which bounding box in image2 corresponds to the object at Region 0 in image1?")
    assert c.region_ids == [0] and not c.normalized_boxes
    c = parse_conventions("Image 1 was taken 40 m above the ground with the camera pitched 35° below the horizon; "
                          "horizontal field of view is 62°. Answer with only the angle.")
    assert (c.altitude_m, c.pitch_deg, c.hfov_deg, c.wants_distance) == (40.0, -35.0, 62.0, False)
    assert parse_conventions("Which region is on the far left of the drone?").side == "left"
    assert parse_conventions("Use floor rounding for the clock hour.").rounding == "floor"


def test_options_are_read():
    assert parse_options("How many? A. 2 B. 3 C. 4 D. 5") == {"A": "2", "B": "3", "C": "4", "D": "5"}
    assert parse_options("Which is it?\n(A) a van\n(B) a tent") == {"A": "a van", "B": "a tent"}
    assert parse_options("Which region is closest to the drone?") == {}


def test_formats_follow_the_instruction():
    assert route("What is the heading offset angle from Image 1 to Image 2's target pose?", 2).answer_format == "ANGLE"
    assert route("How far apart were these two photos taken?", 2).answer_format == "LENGTH"
    assert route("What are the aligned heading offset angle and relative translation distance from Image 1 to "
                 "Image 2's target pose?", 2).answer_format == "ANGLE_DISTANCE"


def test_wrong_number_of_images_is_an_error():
    with pytest.raises(ImageCountError, match="2 image"):
        route("List all shared region pairs between the two UAV images.", 1)
    with pytest.raises(ImageCountError, match="takes 1"):
        route("anything", 3, task_hint="Direction_Recognition")


def test_regions_in_a_format_example_are_not_referents():
    c = parse_conventions("Rank the regions from nearest to farthest from the drone. Answer with only the region "
                          "labels in order, formatted exactly like `Region 1, 2, 3`. No explanation.")
    assert c.region_ids == [] and c.want_all
    c = parse_conventions("In which o'clock direction is Region 4 from the drone? Answer formatted exactly like "
                          "`Region 1`.")
    assert c.region_ids == [4]
