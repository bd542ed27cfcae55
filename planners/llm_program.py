"""The LLM path of question understanding: the model writes the question's program as JSON, validated against the
same schema (``planners.program.Program``) the offline parser fills, and the same executor runs it.

The model gets the program's JSON schema, the asks and the question; its reply must hold one JSON object that
validates. On a validation error it is asked once more with the error; a second failure (or a failing endpoint)
leaves the question to the offline parser's program, with the reason in the trace.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from planners.llm_client import LLMError, complete
from planners.program import Ask, Program, program_schema

MAX_ATTEMPTS = 2  # the first reply and one retry with the validation error
_JSON_OBJECT = re.compile(r"\{.*\}", re.S)


def instructions(question: str, n_images: int) -> str:
    """The prompt: the schema, what each field means, and the question."""
    asks = ", ".join(a.value for a in Ask)
    return (f"Turn the question about {n_images} drone image(s) into a JSON program. Reply with only one JSON "
            f"object that satisfies this JSON schema:\n{json.dumps(program_schema(), separators=(',', ':'))}\n"
            f"`ask` is the asked quantity, one of: {asks}. `operands` are the referents (images are 1-based; "
            f"regions by id). Put values the question states (altitude, lens, pitch, units) in `conventions`.\n"
            f"Question: {question}")


def _program_from(text: str) -> Program:
    """The program in a reply (the first {...} span); ValidationError or ValueError when there is none."""
    m = _JSON_OBJECT.search(text or "")
    if m is None:
        raise ValueError("the reply holds no JSON object")
    return Program.model_validate_json(m.group(0))


async def write_program(llm: Any, question: str, n_images: int, trace: list[dict] | None = None
                        ) -> tuple[Program | None, str | None]:
    """The program the LLM writes for ``question`` (``None`` and the reason when it gives no valid one)."""
    messages: list[Any] = [("user", instructions(question, n_images))]
    reason = None
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            reply = await complete(llm, messages)
        except LLMError as exc:
            return None, str(exc)
        try:
            program = _program_from(reply.text)
        except (ValidationError, ValueError) as exc:
            reason = f"the model's program is not valid: {_short(exc)}"
            if trace is not None:
                trace.append({"tool": "llm_program", "args": {"attempt": attempt}, "seconds": reply.seconds,
                              "error": reason})
            messages += [("assistant", reply.text or ""), ("user", f"That is not a valid program: {_short(exc)}. "
                                                                   "Reply with only the corrected JSON object.")]
            continue
        program.question = question
        if trace is not None:
            trace.append({"tool": "llm_program", "args": {"attempt": attempt}, "seconds": reply.seconds,
                          "result": program.model_dump_json(exclude_defaults=True)[:300]})
        return program, None
    return None, reason


def _short(exc: Exception, limit: int = 300) -> str:
    text = str(exc).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 3] + "..."
