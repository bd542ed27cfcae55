"""Speed of the scorers and the offline judge: ``python -m benchmarks.scoring.bench``.

Prints the figures and writes them to ``docs/figures/scoring.json``: predictions scored per second for each
benchmark's rule-based scorer (fixed synthetic predictions), MiniLM judge load time and per-pair latency.
"""

from __future__ import annotations

import time
from pathlib import Path

from agent.answer_formats import AnswerFormat
from benchmarks.judge import MiniLMJudge, TokenF1Judge
from benchmarks.sample import Sample
from benchmarks.scoring import score
from benchmarks.scoring.spatialuav import TASKS
from benchmarks.figures import write_figures

OUT = Path(__file__).resolve().parents[2] / "docs" / "figures" / "scoring.json"
GT_BY_FORMAT = {
    AnswerFormat.REGION_SET: ("Region 3, 4.", "Region 3"),
    AnswerFormat.REGION_LIST: ("Region 3, 4.", "Region 3"),
    AnswerFormat.CLOCK: ("7 o'clock", "8 o'clock"),
    AnswerFormat.DIRECTION_LABEL: ("Direction 3", "Direction 3"),
    AnswerFormat.OPTION_LETTER: ("B", "A car is visible, so B"),
    AnswerFormat.REGION_PAIRS: ("6-11, 2-9, 4-12", "6-11, 2-9"),
    AnswerFormat.FREE_TEXT: ("The drone rotated left.", "The drone turned left."),
}


def _samples() -> list[tuple[Sample, str]]:
    out: list[tuple[Sample, str]] = []
    for task, spec in TASKS.items():
        if spec.format_from_truth:
            gt, pred = ("[823, 189, 932, 249]", "[820, 190, 930, 250]") if "Object" in task else ("-160.0, -70.0", "200, -65")
        else:
            gt, pred = GT_BY_FORMAT[spec.answer_format]
        out.append((Sample(f"{task}_00001", "spatialuav", task, [], "q", gt), pred))
    out += [
        (Sample("b1", "bedi", "Spatial_PosRelDis", [], "q", "5 o'clock"), "6 o'clock"),
        (Sample("b2", "bedi", "Semantic_InfoDet", [], "q", "Region 2 and 3"), "Region 3"),
        (Sample("o1", "open3dvqa", "d", [], "q", "3 meters", metadata={"qa_info": {"type": "quantitative"}}), "10 feet"),
        (Sample("a1", "aircopbench", "Object Counting", [], "q", "A", options={"A": "1", "B": "2"}), "Answer: A"),
        (Sample("t1", "tdbench", "counting", [], "q", "B", options={"A": "3", "B": "4"}), "(B)"),
    ]
    return out


def _rate(pairs: list[tuple[Sample, str]], repeats: int) -> float:
    judge = TokenF1Judge()
    start = time.perf_counter()
    for _ in range(repeats):
        for sample, pred in pairs:
            score(sample, pred, judge=judge)
    return repeats * len(pairs) / (time.perf_counter() - start)


def main() -> dict:
    pairs = _samples()
    figures: dict = {"rule_scorer_predictions_per_s": round(_rate(pairs, 200))}
    t0 = time.perf_counter()
    judge = MiniLMJudge()
    figures["minilm_load_s"] = round(time.perf_counter() - t0, 2)
    ref = "The drone rotated to the left while maintaining a stable altitude."
    preds = [f"The drone turned left and kept altitude, view {i}." for i in range(20)]
    t0 = time.perf_counter()
    sims = [judge.similarity(p, ref) for p in preds]
    figures["minilm_ms_per_pair"] = round(1000 * (time.perf_counter() - t0) / len(preds), 1)
    figures["minilm_paraphrase_similarity_mean"] = round(sum(sims) / len(sims), 3)
    figures["judge"] = judge.name
    write_figures(figures, OUT)
    return figures


if __name__ == "__main__":
    main()
