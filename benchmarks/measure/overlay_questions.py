"""Answer SpatialUAV-format questions about region overlays with the agent, and write the answers for a scorer.

    python -m benchmarks.measure.overlay_questions QUESTIONS.jsonl --out ANSWERS.jsonl [--limit N] [--per-task N]

Each record holds ``id``, ``image`` (paths relative to the file's folder), ``conversations[0].value`` (the question)
and ``GT``; the set is read in place, never copied. Answers are written one per line as ``{"id", "prediction",
"abstained", "reason", "seconds"}`` (an abstention's prediction is empty), in the shape
``../shared/foreign/score_overlays.py --questions Q --answers A`` scores. One MCP session serves every question.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections import Counter
from pathlib import Path

from tqdm import tqdm


def load(path: Path, limit: int | None, per_task: int | None) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if per_task:
        seen: Counter[str] = Counter()
        kept = []
        for r in rows:
            task = r["id"].rsplit("_", 1)[0]
            if seen[task] < per_task:
                seen[task] += 1
                kept.append(r)
        rows = kept
    return rows[:limit] if limit else rows


async def answer_all(rows: list[dict], folder: Path, out: Path) -> None:
    from agent.agent import Agent

    agent = Agent(use_embeddings=False)
    images = [str(folder / p) for r in rows for p in r["image"]]
    with out.open("w") as f:
        async with agent.session(images) as session:
            for r in tqdm(rows, desc="questions", unit="q"):
                t0 = time.perf_counter()
                paths = [str(folder / p) for p in r["image"]]
                try:
                    a = await agent.aask(paths, r["conversations"][0]["value"], session=session)
                    row = {"prediction": a.text, "abstained": a.abstained, "reason": a.reason}
                except Exception as exc:  # one bad record must not stop the run; it is written as an error
                    row = {"prediction": "", "abstained": True, "reason": f"error: {type(exc).__name__}: {exc}"}
                f.write(json.dumps({"id": r["id"], **row, "seconds": round(time.perf_counter() - t0, 2)}) + "\n")
                f.flush()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("questions", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--per-task", type=int, help="at most this many questions of each task type")
    a = ap.parse_args(argv)
    rows = load(a.questions, a.limit, a.per_task)
    asyncio.run(answer_all(rows, a.questions.parent, a.out))
    print(f"{len(rows)} answers written to {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
