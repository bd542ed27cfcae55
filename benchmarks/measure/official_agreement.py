"""Agreement of our scorers with each benchmark's own evaluation code on seeded adversarial replies.

``python -m benchmarks.measure.official_agreement --official-root DIR`` where DIR holds checkouts of the official
repositories (``Hyu-Zhang+SpatialUAV``, ``lostwolves+BEDI``, ``zhajirong+AirCopBench``,
``open-compass+VLMEvalKit``; e.g. extracted from ``fetch``'s mirrors with ``git archive``). Their evaluation
functions are loaded from those files at run time (nothing of them is kept here) and run beside ours on the same
replies; the script prints, per benchmark rule, the share of replies on which strict and lenient mode give the
official outcome (a score, "crash" when the official code raises, "not_scored" when its pipeline drops the
reply), and writes the figures to ``docs/figures/official_agreement.json``. Needs numpy and tqdm (BEDI's imports).
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import random
import re
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.figures import write_figures
from benchmarks.sample import Sample
from benchmarks.scoring import OfficialCrash, score_detailed
from benchmarks.scoring.aircopbench import LetterDraw

OUT = Path(__file__).resolve().parents[2] / "docs" / "figures" / "official_agreement.json"
REPOS = {"spatialuav": "Hyu-Zhang+SpatialUAV", "bedi": "lostwolves+BEDI", "aircopbench": "zhajirong+AirCopBench",
         "vlmevalkit": "open-compass+VLMEvalKit"}
HUGE = "1" + "0" * 330
FRAGMENTS = ["<think>", "</think>", "<THINK>", "</THINK>", "Region ", ", ", "-", " o'clock", "o’clock", "\n", "A", "B",
             "C", "D", "a", "The answer is ", "answer is **", "ANSWER: ", "(B)", "Option C", "**", ".", "[", "]", "3",
             "7", "12", "0", "-4", "25", "15", HUGE, "99999999999999999999", "1.5", "0.25", ".5", "1e400",
             "-160.0 degrees", "-70", "meters", "Direction ", "json", "```", "{'action': 'move', 'distance': 10}",
             "true", "null", "Z", "Cannot determine the answer", "red car", "two", "The", "is", "[0.1, 0.2, 0.5, 0.6]",
             "0.3, 0.3, 0.9, 0.9", ", ,", "1-3", "2 - 5", "[823, 189, 932, 249]", "\t", "É", "ß"]  # fmt: skip
SPATIALUAV_GT = {
    "Region_Recognition": "Region 3, 4.", "Anomaly_Detection": "Region 6", "Direction_Recognition": "7 o'clock",
    "Distance_Comparison": "Region 1, 2", "A2A_Collaboration_Recognition": "D", "A2G_Collaboration_Recognition": "B",
    "A2A_Shared_Association": "6-11, 2-9, 4-12", "A2G_Shared_Association": "1-3", "A2A_Occlusion_Removal": "Region 2",
    "A2A_Object_Matching": "[823, 189, 932, 249]", "A2A_Camera_Transformation": "-160.0 degrees, -70.0 meters",
    "A2G_View_Translation": "Region 0", "A2G_Path_Planning": "Direction 3", "Path_Planning": "Direction 3",
    "Motion_Understanding": "The drone rotated to the left.", "Region_Counting": "three red cars",
}  # fmt: skip
ACTION_VALUES = ["'move'", "'rotate'", "'forward'", "0", "10", "10.0", "True", "False", "None", "[1, 2]", "(1, 2)",
                 "{1, 2}", "1j", "'json'", "-3"]  # fmt: skip
ACTION_KEYS = ["action", "direction", "distance", "speed", "duration", "rotate_direction", "zoom_level", "extra"]
MOVE = {"action": "move", "direction": "forward", "distance": 10, "speed": 0}
OPTIONS = {"A": "red car", "B": "two", "C": "3", "D": "The"}


class Dropped(Exception):
    """The official pipeline leaves the reply out (BEDI: no answer file is written)."""


def _module(path: Path, name: str, replace: dict[str, str] | None = None) -> dict[str, Any]:
    source = path.read_text(encoding="utf-8")
    for old, new in (replace or {}).items():
        source = source.replace(old, new)
    namespace: dict[str, Any] = {"__name__": name}
    sys.path.insert(0, str(path.parent))
    exec(compile(source, str(path), "exec"), namespace)  # noqa: S102 - the official code, run as the measure
    return namespace


def official_functions(root: Path) -> dict[str, Callable[..., Any]]:
    """The official rules as callables ``(reply, gt, …) -> score``, read from the checkouts under ``root``."""
    su = root / REPOS["spatialuav"]
    ev = _module(su / "eval_spatialuav.py", "eval_spatialuav")
    strip = _module(su / "run_spatialuav_inference.py", "inference")["strip_thinking"]
    judge = ev["MotionJudge"]("token_f1", "openai", "", "", "x", None, 1, 0.0, 1, 0.0, False)
    calc = root / REPOS["bedi"] / "test" / "score_calculation"
    clock, det = _module(calc / "Spatial_PosRelDis_score.py", "c"), _module(calc / "Semantic_InfoDet_score.py", "d")
    act = _module(calc / "Action_score.py", "a")
    air = (root / REPOS["aircopbench"] / "AirCopBench_evaluation" / "evaluation.py").read_text(encoding="utf-8")
    air_ns: dict[str, Any] = {"re": re, "random": random}
    exec(textwrap.dedent(air[air.index("    def extract_answer"):air.index("    def infer_one")]), air_ns)  # noqa: S102
    vlm = root / REPOS["vlmevalkit"] / "vlmeval"
    match = _module(vlm / "utils" / "matching_util.py", "m", {
        "from vlmeval.smp.log import get_logger": "import logging\nget_logger = logging.getLogger"})
    tdb = _module(vlm / "dataset" / "utils" / "tdbench.py", "t", {"import pandas as pd": ""})

    def spatialuav(reply: str, gt: str, task: str) -> float:
        row = {"question_id": f"{task}_00001", "gt": gt, "prediction": strip(reply)}
        return ev["evaluate_row"](row, 10.0, 10.0, 0.5, judge)["score"]

    def action(reply: str, gt: Any, answer_type: str) -> float:
        try:
            answer = ast.literal_eval(reply.replace("json", "").replace("```", "").replace("\n", ""))
        except Exception:  # noqa: BLE001 - the official script drops the reply on any exception
            raise Dropped from None
        stored = json.loads(json.dumps({"g": answer}))["g"]
        rule = act["str_acc_sequence"] if answer_type == "list" else act["str_acc_dict"]
        return 0.0 if stored is None else rule(gt, stored)["action_score"]

    def aircop(reply: str, gt: str, seed: int) -> float:
        random.seed(seed)
        try:
            letter = air_ns["extract_answer"](None, reply)
        except Exception:  # noqa: BLE001 - infer_one falls back to a random letter
            letter = random.choice(["A", "B", "C", "D"])
        return float(letter == gt)

    def grounding(reply: str, gt: str) -> float:
        try:
            box, ref = tdb["extract_bbox_from_string"](reply), tdb["extract_bbox_from_string"](gt)
            return float(tdb["evaluate_bbox"](box, ref, "centroid"))
        except Exception:  # noqa: BLE001 - TDBenchGrounding.evaluate marks any failure as a miss
            return 0.0

    return {
        "spatialuav": spatialuav,
        "bedi_clock": lambda r, g: float(clock["clock_distance_score"](clock["extract_time_direction"](g),
                                                                       clock["extract_time_direction"](r))),
        "bedi_target": lambda r, g: float(det["compare_lists_score"](det["extract_numbers"](g),
                                                                     det["extract_numbers"](r))),
        "bedi_action": action,
        "aircopbench": aircop,
        "tdbench_choice": lambda r, g: float((match["can_infer"](r, dict(OPTIONS)) or "Z") == g),
        "tdbench_grounding": grounding,
    }


def reply(rng: random.Random) -> str:
    """A reply of 0–12 fragments: think tags of every case, huge numbers, letters in prose, boxes, actions."""
    return "".join(rng.choice(FRAGMENTS) + rng.choice(["", "", " ", "\n"]) for _ in range(rng.choice(
        [0, 1, 2, 3, 4, 6, 8, 12])))


def action_reply(rng: random.Random) -> str:
    """A Python or JSON action dict (or list) in a fence, after prose, or bare."""
    quote = rng.choice(["'", '"'])
    items = [", ".join(f"{quote}{k}{quote}: {rng.choice(ACTION_VALUES)}" for k in rng.sample(ACTION_KEYS, rng.randint(
        0, 6))) for _ in range(rng.choice([1, 1, 2]))]
    body = "{" + items[0] + "}" if len(items) == 1 and rng.random() < 0.5 else "[" + ", ".join(
        "{" + i + "}" for i in items) + "]"
    if rng.random() < 0.2:
        body = body.replace("True", "true").replace("None", "null")
    return rng.choice(["{}", "```json\n{}\n```", "```python\n{}\n```", "Here: {}", "{}\n"]).format(body)


def _ours(sample: Sample, text: str, mode: str, seed: int | None = None) -> float | str:
    try:
        res = score_detailed(sample, text, mode=mode, draw=LetterDraw(seed) if seed is not None else None)
    except OfficialCrash:
        return "crash"
    return res.score if res.counted else "not_scored"


def _official(fn: Callable[..., float], *args: Any) -> float | str:
    try:
        return float(fn(*args))
    except Dropped:
        return "not_scored"
    except Exception:  # noqa: BLE001 - any exception of the official code is its outcome "crash"
        return "crash"


def _same(a: float | str, b: float | str) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def cases(rng: random.Random, i: int) -> list[tuple[str, Sample, str, tuple]]:
    """One round of (rule, sample, reply, official arguments) over every rule."""
    text, task = reply(rng), rng.choice(sorted(SPATIALUAV_GT))
    letter, at = rng.choice("ABCD"), rng.choice(["list", "dictionary"])
    regions = rng.choice(["Region 2 and 3", "none of them"])  # a GT without digits: the official division by zero
    gt_action = [MOVE, {"action": "rotate", "rotate_direction": "left"}] if at == "list" else MOVE
    act = action_reply(rng)
    return [
        ("spatialuav", Sample(f"{task}_1", "spatialuav", task, [], "q", SPATIALUAV_GT[task]), text,
         (text, SPATIALUAV_GT[task], task)),
        ("bedi_clock", Sample("b", "bedi", "Spatial_PosRelDis", [], "q", "7 o'clock"), text, (text, "7 o'clock")),
        ("bedi_target", Sample("b", "bedi", "Semantic_InfoDet", [], "q", regions), text, (text, regions)),
        ("bedi_action", Sample("b", "bedi", "Action", [], "q", gt_action, metadata={"answer_type": at}), act,
         (act, gt_action, at)),
        ("aircopbench", Sample("a", "aircopbench", "x", [], "q", letter), text, (text, letter, i)),
        ("tdbench_choice", Sample("t", "tdbench", "c", [], "q", letter, options=dict(OPTIONS)), text, (text, letter)),
        ("tdbench_grounding", Sample("g", "tdbench", "visual_grounding", [], "q", "[0.1, 0.2, 0.5, 0.6]"), text,
         (text, "[0.1, 0.2, 0.5, 0.6]")),
    ]  # fmt: skip


def measure(root: Path, replies: int, seed: int) -> dict[str, Any]:
    """Per rule: replies compared and the share (percent) where strict and lenient give the official outcome."""
    official = official_functions(root)
    rng = random.Random(seed)
    counts: dict[str, list[int]] = {}
    for i in range(replies):
        for rule, sample, text, args in cases(rng, i):
            expected = _official(official[rule], *args)
            draw_seed = i if rule == "aircopbench" else None
            hits = [_same(_ours(sample, text, mode, draw_seed), expected) for mode in ("strict", "lenient")]
            c = counts.setdefault(rule, [0, 0, 0])
            c[0] += 1
            c[1] += hits[0]
            c[2] += hits[1]
    return {rule: {"replies": n, "strict_agreement_pct": round(100 * s / n, 2),
                   "lenient_agreement_pct": round(100 * le / n, 2)} for rule, (n, s, le) in counts.items()}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--official-root", type=Path, required=True, help="folder with the official checkouts")
    parser.add_argument("--replies", type=int, default=3000, help="replies per rule")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    figures = {"replies_per_rule": args.replies, "seed": args.seed,
               "rules": measure(args.official_root, args.replies, args.seed)}
    for rule, f in figures["rules"].items():
        print(f"{rule:18s} strict {f['strict_agreement_pct']:6.2f} %   lenient {f['lenient_agreement_pct']:6.2f} %"
              f"   ({f['replies']} replies)")
    if not args.no_write:
        write_figures(figures, OUT)
    return figures


if __name__ == "__main__":
    main()
