"""Running a program: its one operation, or, for two questions asked in one, each part's operation with its
answer rendered in its own format and the texts joined (``agent.answers_measure.Compound``)."""

from __future__ import annotations

from planners.compose import build
from planners.conventions import parse_conventions
from planners.execute_camera import OPERATIONS as _  # noqa: F401  (registers the camera operation)
from planners.execute_regions import OPERATIONS
from planners.plans import Evidence, found, undecided
from planners.comparison import judge
from planners.photo_choice import PER_PHOTO, photo_choice
from planners.program import Ask, Program
from planners.router import program_understanding
from planners.toolbox import ToolContext


async def run_program(ctx: ToolContext, program: Program) -> Evidence:
    """The evidence for ``program`` (a compound one when it has a second part)."""
    if program.then is None and program.compare is not None:
        ask = Ask.HEADING_CHANGE if program.ask == Ask.TURNED else program.ask   # the turn's size is compared
        measure = program.model_copy(update={"ask": ask, "form": "value", "compare": None})
        return judge(program.compare, ask, await OPERATIONS[ask](ctx, measure))
    if program.then is None and program.form == "choice" and program.ask in PER_PHOTO:
        return await photo_choice(ctx, program)
    if program.then is None:
        return await OPERATIONS[program.ask](ctx, program)
    parts = [program.model_copy(update={"then": None}), program.then]
    texts, reasons, confidence = [], [], 1.0
    for part in parts:
        u = program_understanding(part, parse_conventions(program.question))
        evidence = await OPERATIONS[part.ask](ctx, part)
        if evidence["value"] is None:
            texts.append(f"{part.ask.value}: not answered ({evidence['reason']})".replace("; ", ", "))
            reasons.append(f"{part.ask.value} not answered")
            confidence = min(confidence, 0.5)
            continue
        texts.append(build(u.answer_format, evidence["value"]).render())
        confidence = min(confidence, evidence["confidence"])
        if evidence.get("reason"):
            reasons.append(evidence["reason"])
    if len(reasons) == len(parts) and all(r.endswith("not answered") for r in reasons):
        return undecided("; ".join(t for t in texts))
    return found({"parts": texts}, confidence, "; ".join(reasons) or None)
