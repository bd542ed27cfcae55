"""Free-form questions end to end (parser -> program -> MCP tools -> typed answer) on real photos of
``../shared/data``, with truths read here from the files' own metadata (GPS of the Parrot Sequoia survey's CSV
summary, DJI XMP text in the JPEG bytes) or from what the files lack (HIT-UAV thermal frames carry no metadata)."""

from __future__ import annotations

import csv
import json
import math
import re
import shutil

import pytest

from agent.agent import Agent
from agent.answers_measure import Compass, Length
from agent.config import Config


@pytest.fixture(scope="module")
def agent() -> Agent:
    return Agent(Config.from_env(), use_embeddings=False)


def capture_stamps_s(tags: list[dict]) -> list[float]:
    """Each photo's exiftool DateTimeOriginal ("2016:06:23 16:31:59") as seconds since 1970: truth for the asks."""
    from datetime import datetime, timezone

    return [datetime.strptime(t["DateTimeOriginal"], "%Y:%m:%d %H:%M:%S").replace(tzinfo=timezone.utc).timestamp()
            for t in tags]


def local_en_m(lat1: float, lon1: float, lat2: float, lon2: float) -> tuple[float, float]:
    """East and north offsets in metres (equirectangular: exact enough over hundreds of metres)."""
    r = 6371008.8
    return (math.radians(lon2 - lon1) * math.cos(math.radians((lat1 + lat2) / 2)) * r,
            math.radians(lat2 - lat1) * r)


def test_distance_and_bearing_between_parrot_photos(agent, shared_data):
    folder = shared_data / "garfield_dev"
    rows = list(csv.DictReader((folder / "exif_summary.csv").open()))[:2]
    images = [folder / r["SourceFile"] for r in rows]
    east, north = local_en_m(*(float(rows[0][k]) for k in ("GPSLatitude", "GPSLongitude")),
                             *(float(rows[1][k]) for k in ("GPSLatitude", "GPSLongitude")))
    a = agent.ask(images, "how far did the plane fly between these two shots, in feet?")
    assert isinstance(a.value, Length) and a.value.unit == "ft", a.reason
    assert a.value.metres == pytest.approx(math.hypot(east, north), abs=3.0)
    b = agent.ask(images, "In which compass direction is the second capture point from the first?")
    assert isinstance(b.value, Compass), b.reason
    bearing = math.degrees(math.atan2(east, north)) % 360
    assert abs((b.value.bearing_deg - bearing + 180) % 360 - 180) <= 5.0


def test_altitude_of_a_dji_photo_is_its_relative_altitude_tag(agent, shared_data):
    photo = shared_data / "dji_survey_dev" / "images" / "DJI_0018.JPG"
    tag = re.search(rb'RelativeAltitude="?\+?(-?[0-9.]+)', photo.read_bytes())
    a = agent.ask([photo], "What was the drone's height above the take-off point for this pic?")
    assert isinstance(a.value, Length), a.reason
    assert a.value.metres == pytest.approx(float(tag.group(1)), abs=0.1)


def test_a_frame_without_metadata_abstains_naming_the_missing_altitude(agent, shared_data):
    frame = sorted((shared_data / "hit_uav_thermal" / "images").glob("*.jpg"))[0]
    a = agent.ask([frame], "At what altitude was this frame taken?")
    assert a.abstained and a.text == "" and "altitude" in a.reason.lower()
    gsd = agent.ask([frame], "What's the ground sampling distance of this frame?")
    assert gsd.abstained and "ground sampling distance" in gsd.reason


def test_counting_a_class_the_detector_does_not_know_abstains(agent, shared_data):
    frame = sorted((shared_data / "hit_uav_thermal" / "images").glob("*.jpg"))[0]
    a = agent.ask([frame], "How many dogs are in this frame?")
    assert a.abstained and "dogs" in a.reason and "detector" in a.reason


def test_region_nearest_to_another_region_on_a_nadir_frame(agent):
    """Distances from a named region (not from the drone): truth from the drawn boxes of the example overlay."""
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples"
    drawn = json.loads((examples / "regions_nadir.json").read_text())["regions"]
    centre = {int(k): ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for k, b in drawn.items()}
    for anchor in (1, 4):
        others = sorted((i for i in centre if i != anchor), key=lambda i: math.dist(centre[anchor], centre[i]))
        a = agent.ask([examples / "regions_nadir.png"], f"Which box is closest to box {anchor}?")
        assert a.text == f"Region {others[0]}", a.reason
        b = agent.ask([examples / "regions_nadir.png"], f"Which region lies farthest from region {anchor}?")
        assert b.text == f"Region {others[-1]}", b.reason


def test_two_questions_in_one_get_two_answers(agent, shared_data):
    photo = shared_data / "dji_survey_dev" / "images" / "DJI_0018.JPG"
    data = photo.read_bytes()
    altitude = float(re.search(rb'RelativeAltitude="?\+?(-?[0-9.]+)', data).group(1))
    yaw = float(re.search(rb'GimbalYawDegree="?\+?(-?[0-9.]+)', data).group(1)) % 360
    a = agent.ask([photo], "How high was the drone in feet, and which way was the camera facing?")
    height, facing = a.value.parts
    assert Length.parse(height).metres == pytest.approx(altitude, abs=0.2)
    assert abs((Compass.parse(facing).bearing_deg - yaw + 180) % 360 - 180) <= 1.0


def test_height_above_ground_from_gps_altitude_and_a_stated_ground_elevation(agent, shared_data):
    folder = shared_data / "garfield_dev"
    row = next(csv.DictReader((folder / "exif_summary.csv").open()))
    a = agent.ask([folder / row["SourceFile"]], "How high above the ground was the camera? Ground elevation 255 m.")
    assert isinstance(a.value, Length), a.reason
    assert a.value.metres == pytest.approx(float(row["GPSAltitude"]) - 255.0, abs=0.1)
    b = agent.ask([folder / row["SourceFile"]], "How high above the ground was the camera?")
    assert b.abstained and "ground elevation" in b.reason


def test_region_nearest_to_the_image_centre_is_measured_in_the_image(agent):
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples"
    truth = json.loads((examples / "regions_nadir.json").read_text())["truth"]
    by_pixels = sorted(truth, key=lambda k: truth[k]["pixel_distance_from_centre"])
    a = agent.ask([examples / "regions_nadir.png"], "Which box is closest to the middle of this image?")
    assert a.text == f"Region {by_pixels[0]}", a.reason
    b = agent.ask([examples / "regions_nadir.png"], "Which region lies farthest from the centre of the photo?")
    assert b.text == f"Region {by_pixels[-1]}", b.reason


def test_which_side_one_region_lies_of_another_from_the_drawn_boxes(agent):
    """Left/right and above/below between two regions, read from the example overlay; truth from its drawn boxes."""
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples"
    drawn = json.loads((examples / "regions_nadir.json").read_text())["regions"]
    cx = {int(k): (b[0] + b[2]) / 2 for k, b in drawn.items()}
    cy = {int(k): (b[1] + b[3]) / 2 for k, b in drawn.items()}
    a, b = 1, 4  # far apart on both axes in the drawing
    side = "left" if cx[a] < cx[b] else "right"
    r = agent.ask([examples / "regions_nadir.png"], f"Is box {a} to the left or right of box {b}?")
    assert r.text.startswith(side), r.reason
    r = agent.ask([examples / "regions_nadir.png"], f"Is region {a} above region {b}?")
    assert r.text == ("Yes" if cy[a] < cy[b] else "No"), r.reason


def test_closer_of_two_named_regions_to_a_third(agent):
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples"
    drawn = json.loads((examples / "regions_nadir.json").read_text())["regions"]
    centre = {int(k): ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for k, b in drawn.items()}
    anchor, x, y = 5, 1, 4
    nearer = min((x, y), key=lambda i: math.dist(centre[anchor], centre[i]))
    r = agent.ask([examples / "regions_nadir.png"], f"Which is closer to region {anchor}: region {x} or region {y}?")
    assert r.text == f"Region {nearer}", r.reason


def test_which_way_and_how_far_between_two_gps_photos_gets_both(agent, shared_data):
    folder = shared_data / "garfield_dev"
    rows = list(csv.DictReader((folder / "exif_summary.csv").open()))[:2]
    east, north = local_en_m(*(float(rows[0][k]) for k in ("GPSLatitude", "GPSLongitude")),
                             *(float(rows[1][k]) for k in ("GPSLatitude", "GPSLongitude")))
    a = agent.ask([folder / r["SourceFile"] for r in rows], "Which way and how far did the plane fly between the shots?")
    facing, length = a.value.parts
    assert abs((Compass.parse(facing).bearing_deg - math.degrees(math.atan2(east, north)) + 180) % 360 - 180) <= 2.0
    assert Length.parse(length).metres == pytest.approx(math.hypot(east, north), abs=3.0)


@pytest.mark.skipif(shutil.which("exiftool") is None, reason="exiftool program not installed")
def test_where_the_second_photo_was_taken_from_a_rotated_copy_with_its_old_tags(agent, shared_data, tmp_path):
    """A quarter-turned copy of photo 1 keeps tags that no longer describe its frame: the clock hour follows the
    pixels (truth: the flight log's positions and yaw turned by the known edit)."""
    from benchmarks.photo_edits import rotated_copy
    from photo_pairs import DJI_LOG, truth
    from tools.views.pose_types import clock_hour

    pa, pb = (shared_data / "dji_survey_dev" / "images" / f"DJI_{n}.JPG" for n in ("0018", "0019"))
    want = clock_hour(truth(DJI_LOG["0018"], DJI_LOG["0019"], turn_a=1)["bearing"])
    a = agent.ask([rotated_copy(pa, tmp_path / "a.jpg", 1), pb],
                  "In which clock direction was the second photo taken, seen from the first (12 = its top)?")
    assert a.text == f"{want} o'clock", a.reason


def test_distance_from_the_drone_to_a_region_of_a_straight_down_photo(agent):
    """Horizontal: the region centre's offset from the image centre (the point below a straight-down camera) times
    the stated ground width per pixel; straight-line: that and the stated altitude as the two legs."""
    from pathlib import Path

    import cv2

    examples = Path(__file__).resolve().parents[2] / "examples"
    image = examples / "regions_nadir.png"
    h, w = cv2.imread(str(image)).shape[:2]
    drawn = json.loads((examples / "regions_nadir.json").read_text())["regions"]
    rid, b = next(iter(drawn.items()))
    offset_px = math.dist(((b[0] + b[2]) / 2, (b[1] + b[3]) / 2), (w / 2, h / 2))
    flat = agent.ask([image], f"The photo was taken straight down and covers 120 m of ground across. How far is "
                              f"region {rid} from the drone, horizontally?")
    assert isinstance(flat.value, Length), flat.reason
    assert flat.value.metres == pytest.approx(offset_px * 120 / w, rel=0.02)
    slant = agent.ask([image], f"Camera straight down from 50 m, ground width 120 m: what is the straight-line "
                               f"distance from the drone to box {rid}?")
    assert isinstance(slant.value, Length), slant.reason
    assert slant.value.metres == pytest.approx(math.hypot(offset_px * 120 / w, 50.0), rel=0.02)


def test_camera_facts_come_from_the_photos_own_metadata(agent, shared_data):
    """Camera model and GPS position of a DJI photo, checked against Pillow's reading of the same EXIF (the tool
    reads it with ExifTool); a thermal frame without metadata abstains naming what is missing."""
    from PIL import Image

    photo = shared_data / "dji_survey_dev" / "images" / "DJI_0018.JPG"
    exif = Image.open(photo).getexif()
    gps = exif.get_ifd(0x8825)
    dms = lambda v: float(v[0]) + float(v[1]) / 60 + float(v[2]) / 3600  # noqa: E731
    lat, lon = dms(gps[2]) * (1 if gps[1] == "N" else -1), dms(gps[4]) * (1 if gps[3] == "E" else -1)
    model = agent.ask([photo], "Which camera shot this?")
    assert not model.abstained and exif[0x0110].strip("\x00 ") in model.text, model.reason
    where = agent.ask([photo], "Where was this photo taken? GPS coordinates please")
    numbers = [float(v) for v in re.findall(r"(\d+\.\d{4,})°", where.text)]
    assert numbers == [pytest.approx(abs(lat), abs=1e-5), pytest.approx(abs(lon), abs=1e-5)], where.text
    frame = sorted((shared_data / "hit_uav_thermal" / "images").glob("*.jpg"))[0]
    none = agent.ask([frame], "When was this picture taken?")
    assert none.abstained and "time" in none.reason


def test_yes_no_about_the_direction_a_dji_photo_faced_follows_its_gimbal_yaw_tag(agent, shared_data):
    photo = shared_data / "dji_survey_dev" / "images" / "DJI_0018.JPG"
    yaw = float(re.search(rb'GimbalYawDegree="?\+?(-?[0-9.]+)', photo.read_bytes()).group(1)) % 360
    named = ("north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west")
    facing = named[int((yaw + 22.5) // 45) % 8]
    opposite = named[(named.index(facing) + 4) % 8]
    yes = agent.ask([photo], f"Was the camera facing {facing} when this was taken?")
    no = agent.ask([photo], f"is the drone pointed {opposite}?")
    assert (yes.text, no.text) == ("Yes", "No"), (yes.reason, no.reason)


def test_which_photo_was_taken_higher_finer_or_wider_follows_the_altitude_tags(agent, shared_data, tmp_path):
    photo = shared_data / "dji_survey_dev" / "images" / "DJI_0018.JPG"
    data = photo.read_bytes()
    assert data.count(b'RelativeAltitude="+39.80"') == 1
    higher = tmp_path / "higher.JPG"  # the same photo tagged 50 m higher: twice the GSD, four times the footprint
    higher.write_bytes(data.replace(b'RelativeAltitude="+39.80"', b'RelativeAltitude="+89.80"'))
    asked = {"Which of the two photos was taken from higher up?": 2, "which pic has the finer ground resolution": 1,
             "Which image covers more ground?": 2, "Which photo was flown at the lower altitude?": 1}
    for question, image in asked.items():
        a = agent.ask([photo, higher], question)
        assert a.text == f"photo {image}" and a.confidence >= 0.9, (question, a.text, a.reason)
    same = agent.ask([photo, photo], "Which of the two photos was taken from higher up?")
    assert same.confidence <= 0.5 and "about the same" in same.reason


def test_which_photo_is_blurrier_darker_or_faces_a_direction_from_each_photos_own_measure(agent, shared_data, tmp_path):
    import cv2

    photo = shared_data / "dji_survey_dev" / "images" / "DJI_0018.JPG"
    rgb = cv2.imread(str(photo))
    small = cv2.resize(rgb, (1200, 675), interpolation=cv2.INTER_AREA)
    sharp, blurred, dark = tmp_path / "sharp.jpg", tmp_path / "blurred.jpg", tmp_path / "dark.jpg"
    cv2.imwrite(str(sharp), small)
    cv2.imwrite(str(blurred), cv2.GaussianBlur(small, (0, 0), 6))
    cv2.imwrite(str(dark), (small * 0.3).astype("uint8"))
    assert agent.ask([sharp, blurred], "Which photo is blurrier?").text == "photo 2"
    assert agent.ask([blurred, sharp], "which one is sharper").text == "photo 2"
    assert agent.ask([sharp, dark, blurred], "Which of these images is the darkest?").text == "photo 2"
    # the same photo with its yaw tags turned to the opposite direction (same byte length)
    data = photo.read_bytes()
    turned = tmp_path / "turned.JPG"
    turned.write_bytes(data.replace(b'GimbalYawDegree="+45.00"', b'GimbalYawDegree="-135.0"')
                       .replace(b'FlightYawDegree="+46.00"', b'FlightYawDegree="-134.0"'))
    facing = agent.ask([photo, turned], "Which of the photos faces south-west?")
    assert facing.text == "photo 2" and facing.confidence >= 0.9, facing.reason
    none = agent.ask([photo, turned], "Which photo is facing north?")  # 45 degrees off in both: nearest, unsure
    assert none.confidence <= 0.5 and "none faces N" in none.reason


def test_a_regions_compass_direction_and_north_up_clock_follow_the_photos_heading(agent, shared_data, tmp_path):
    import subprocess

    import cv2

    from tests.overlay_drawings import drawn_overlay, region_style, survey_1080p

    photo = shared_data / "dji_survey_dev" / "images" / "DJI_0018.JPG"  # straight down, image top faces 45 degrees
    yaw = float(re.search(rb'GimbalYawDegree="?\+?(-?[0-9.]+)', photo.read_bytes()).group(1))
    assert yaw == 45.0
    style = region_style((255, 0, 0), 3, "above", "Region {id}", 0.8, "dejavu_sans_bold", True)
    # image angles (clockwise from image up) 45 (upper right) and 225 (lower left): compass 90 (E) and 270 (W)
    layout = [(1, [1300, 180, 1420, 300], style), (2, [500, 780, 620, 900], style)]
    drawn = tmp_path / "overlay.jpg"
    cv2.imwrite(str(drawn), cv2.cvtColor(drawn_overlay(survey_1080p(shared_data, photo.name), layout, 92),
                                         cv2.COLOR_RGB2BGR))
    subprocess.run(["exiftool", "-q", "-overwrite_original", "-tagsfromfile", str(photo), "-all:all", str(drawn)],
                   check=True)
    east = agent.ask([drawn], "In which compass direction is region 1 from the drone?")
    assert east.text.startswith("E "), (east.text, east.reason)
    assert agent.ask([drawn], "If 12 o'clock is north, where does region 2 sit?").text == "9 o'clock"
    assert agent.ask([drawn], "Where is region 2, as a clock direction?").text == "8 o'clock"  # image up = 12
    assert agent.ask([drawn], "Is region 1 east of the drone?").text == "Yes"
    assert agent.ask([drawn], "Is region 1 east of region 2?").text == "Yes"  # 53 degrees right of image up: 98
    assert agent.ask([drawn], "Is region 2 north of region 1?").text == "No"


def test_how_many_regions_are_drawn_counts_the_overlay_not_objects(agent, shared_data, tmp_path):
    import cv2

    from tests.overlay_drawings import drawn_overlay, region_style, survey_1080p

    style = region_style((255, 0, 0), 3, "above", "Region {id}", 0.8, "dejavu_sans_bold", True)
    layout = [(0, [300, 200, 420, 320], style), (1, [1300, 180, 1420, 300], style), (2, [500, 780, 620, 900], style)]
    drawn = tmp_path / "overlay.jpg"
    cv2.imwrite(str(drawn), cv2.cvtColor(drawn_overlay(survey_1080p(shared_data, "DJI_0018.JPG"), layout, 92),
                                         cv2.COLOR_RGB2BGR))
    for question in ("How many regions are marked?", "number of boxes drawn on this image?"):
        a = agent.ask([drawn], question)
        assert a.text.startswith("3 "), (question, a.text, a.reason)


def test_the_camera_angle_asked_in_degrees_is_written_first(agent, shared_data):
    photo = shared_data / "dji_survey_dev" / "images" / "DJI_0018.JPG"  # gimbal pitch tag -89.9
    assert agent.ask([photo], "What is the gimbal angle?").text.startswith("pitch -90 degrees")
    asked = {"How many degrees is the camera tilted from vertical?": "30 degrees from straight down",
             "How steeply is the camera looking down, in degrees?": "60 degrees below the horizon",
             "What is the camera pitch?": "pitch -60 degrees"}
    for question, start in asked.items():
        a = agent.ask([photo], "The gimbal was at -60 degrees. " + question)
        assert a.text.startswith(start), (question, a.text, a.reason)


def test_whether_and_how_much_two_photos_overlap_from_the_matched_views(agent, shared_data, tmp_path):
    import cv2

    photo = cv2.imread(str(shared_data / "dji_survey_dev" / "images" / "DJI_0018.JPG"))
    whole = cv2.resize(photo, (1200, 675), interpolation=cv2.INTER_AREA)
    a, b = tmp_path / "a.jpg", tmp_path / "b.jpg"
    cv2.imwrite(str(a), whole)
    cv2.imwrite(str(b), whole[:, 480:])  # its right 60 %: that share of photo a is seen in photo b
    share = agent.ask([a, b], "What percentage of photo 1 is visible in photo 2?")
    assert abs(int(re.search(r"(\d+)%", share.text).group(1)) - 60) <= 3, (share.text, share.reason)
    assert agent.ask([a, b], "Are these two photos of the same place?").text == "Yes"
    other = shared_data / "garfield_dev" / "images" / "IMG_161122_163234_0000_RGB.JPG"
    apart = agent.ask([a, other], "Do the two images overlap?")
    assert apart.text == "No" and apart.confidence <= 0.5, apart.reason


def test_the_ground_speed_between_two_photos_is_their_gps_distance_over_the_capture_times(agent, shared_data):
    import json
    import subprocess

    photos = [shared_data / "dji_survey_dev" / "images" / n for n in ("DJI_0018.JPG", "DJI_0019.JPG")]
    tags = json.loads(subprocess.run(["exiftool", "-j", "-n", "-GPSLatitude", "-GPSLongitude", "-DateTimeOriginal",
                                      *map(str, photos)], capture_output=True, text=True, check=True).stdout)
    east, north = local_en_m(tags[0]["GPSLatitude"], tags[0]["GPSLongitude"], tags[1]["GPSLatitude"],
                             tags[1]["GPSLongitude"])
    stamps = capture_stamps_s(tags)
    truth = math.hypot(east, north) / (stamps[1] - stamps[0])
    a = agent.ask(photos, "How fast was the drone flying between these two shots?")
    assert float(a.text.split()[0]) == pytest.approx(truth, abs=0.2), (a.text, a.reason)
    kmh = agent.ask(photos, "What was the ground speed in km/h?")
    assert float(kmh.text.split()[0]) == pytest.approx(truth * 3.6, abs=0.8), kmh.text
    assert agent.ask(photos, "Is the drone moving faster than 5 m/s?").text == ("Yes" if truth > 5 else "No")
    assert agent.ask(photos[:1], "How fast was the drone going?").abstained


def test_time_between_photos_which_came_first_and_height_above_sea_level_come_from_their_tags(agent, shared_data):
    import json
    import subprocess

    photos = [shared_data / "dji_survey_dev" / "images" / n for n in ("DJI_0019.JPG", "DJI_0018.JPG")]
    tags = json.loads(subprocess.run(["exiftool", "-j", "-n", "-GPSAltitude", "-DateTimeOriginal", *map(str, photos)],
                                     capture_output=True, text=True, check=True).stdout)
    stamps = capture_stamps_s(tags)
    gap = agent.ask(photos, "How many seconds apart were the photos taken?")
    assert gap.text.startswith(f"{abs(stamps[1] - stamps[0]):.0f} seconds"), (gap.text, gap.reason)
    first = 1 if stamps[0] < stamps[1] else 2
    assert agent.ask(photos, "Which photo was taken first?").text == f"photo {first}"
    assert agent.ask(photos, "Which image was shot later?").text == f"photo {3 - first}"
    asl = agent.ask(photos[:1], "At what height above sea level was the photo taken?")
    assert float(asl.text.split()[0]) == pytest.approx(tags[0]["GPSAltitude"], abs=0.1), asl.reason
    assert agent.ask(photos[:1], "Was the camera facing into the sun?").abstained  # no compass point named
