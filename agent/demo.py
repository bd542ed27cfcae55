"""``python -m agent.demo`` (what ``make demo`` runs): the agent on real images bundled in ``examples/``.

Each question is asked as ``uav-agent ask ... --explain`` would, and printed beside its ground truth:
two real DJI photos (heading change and distance vs their EXIF GPS and gimbal yaw), a clock-direction and a
distance-ranking question on a real nadir thermal frame with drawn regions (truth from its annotation boxes),
and a question that needs an LLM (the honest abstention when none is configured).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# dji_survey_dev README (exiftool -n): GPS and gimbal yaw of the two photos.
DJI = {"DJI_0018.JPG": (46.8426070833, -91.9945598889, 45.0), "DJI_0019.JPG": (46.8426906667, -91.9944272778, 42.8)}


def _gps_truth() -> str:
    (la1, lo1, y1), (la2, lo2, y2) = DJI.values()
    r = 6371008.8
    dx = math.radians(lo2 - lo1) * math.cos(math.radians((la1 + la2) / 2)) * r
    dy = math.radians(la2 - la1) * r
    return f"{y2 - y1:.1f} degrees, {math.hypot(dx, dy):.1f} meters (gimbal yaw and GPS; consumer-grade, +-few m/deg)"


def questions() -> list[tuple[list[Path], str, str]]:
    """(images, question, ground truth) for the demo."""
    regions = json.loads((EXAMPLES / "regions_nadir.json").read_text())
    img = [EXAMPLES / "regions_nadir.png"]
    clock_id = sorted(regions["truth"])[-1]
    return [
        ([EXAMPLES / "dji" / n for n in DJI],
         "How much did the heading change between these two photos, and how far apart were they taken?", _gps_truth()),
        (img, f"Where is region {clock_id} from the drone, as a clock direction?",
         f"{regions['truth'][clock_id]['clock']} o'clock (angle of the annotated person box from the image centre)"),
        (img, "The drone looks straight down from 60 m. Rank the regions from nearest to farthest from the drone.",
         "Region " + ", ".join(map(str, regions["nearest_first"])) + " (nadir: distance from the image centre)"),
        (img, "Which regions in the image contain a parking lot?", "needs semantics: abstain unless an LLM is set"),
    ]


def main() -> int:
    from agent.agent import Agent
    from agent.cli_ask import _explain

    agent = Agent()
    for images, question, truth in questions():
        print("=" * 100)
        shown = " ".join(str(p.relative_to(EXAMPLES.parent)) for p in images)
        print(f'$ uav-agent ask {shown} "{question}" --explain')
        answer = agent.ask(images, question)
        _explain(answer)
        print(f"ANSWER: {'abstained: ' + str(answer.reason) if answer.abstained else answer.text}")
        print(f"TRUTH:  {truth}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
