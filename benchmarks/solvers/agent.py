"""The agent as a benchmark solver: ``agent.Agent.ask(images, prompt)`` with its tools (LLM optional).

``AgentSolver`` uses only the tools (plus an LLM when ``UAV_AGENT_LLM_BASE_URL``/``UAV_AGENT_LLM_MODEL`` are set);
``AgentVLMSolver`` hands the agent an OpenAI-compatible VLM for the semantic sub-questions (region contents,
anomalies, descriptions, multiple choice). Both build the agent once per process; the runner keeps one solver per
worker. An abstention is an empty answer (it scores 0) with the agent's reason kept in the row; an abstention
caused by the language model failing (unreachable, HTTP error, timeout: an ``llm`` trace entry with an error) is
raised as :class:`planners.llm_client.LLMError` instead, so that its row is an error row that a resumed run retries.
"""

from __future__ import annotations

from typing import Any

from agent import __version__
from benchmarks.sample import Sample
from benchmarks.solvers import Solution, prompt


class AgentSolver:
    """Planner + MCP tools. ``mcp_url``: remote tool server; ``use_embeddings``: router MiniLM fallback."""

    name = "agent"

    def __init__(self, mcp_url: str | None = None, use_embeddings: bool = True, llm: Any = None,
                 model_id: str | None = None) -> None:
        from agent.agent import Agent
        from agent.config import Config

        self.config = Config.from_env()
        self.agent = Agent(self.config, mcp_url=mcp_url, llm=llm, use_embeddings=use_embeddings)
        llm_name = getattr(self.agent.llm, "model_name", None) if self.agent.llm is not None else None
        self.model_id = model_id or f"uav-agent-{__version__}" + (f"+{llm_name}" if llm_name else "")

    def solve(self, sample: Sample) -> Solution:
        """Ask the agent the benchmark prompt about the sample's images (``AgentInputError`` propagates)."""
        answer = self.agent.ask(sample.images, prompt(sample))
        if answer.abstained:
            _raise_llm_failure(answer.trace)
        extra = {"abstained": answer.abstained, "reason": answer.reason, "confidence": answer.confidence,
                 "agent_task": answer.task, "answer_format": answer.format, "plan": answer.plan}
        return Solution(raw=answer.text, trace=answer.trace, timings=_jsonable_timings(answer.timings), extra=extra)


class AgentVLMSolver(AgentSolver):
    """The agent using an OpenAI-compatible VLM (``base_url`` + ``model``, key from ``api_key_env``) for semantic
    sub-questions; geometry still comes from the tools."""

    name = "agent+vlm"

    def __init__(self, base_url: str | None = None, model: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 mcp_url: str | None = None, timeout_s: float | None = None, max_tokens: int | None = None) -> None:
        if not (base_url and model):
            raise ValueError("solver agent+vlm needs --vlm-base-url and --vlm-model (an OpenAI-compatible endpoint)")
        from agent.config import Config
        from planners.llm_client import make_chat_model

        cfg = Config.from_env()  # limits default to the agent's LLM settings (UAV_AGENT_LLM_*)
        llm = make_chat_model(base_url, model, api_key_env, timeout_s=timeout_s or cfg.llm_timeout_s,
                              max_tokens=max_tokens or cfg.llm_max_tokens, max_retries=cfg.llm_max_retries)
        super().__init__(mcp_url=mcp_url, llm=llm, model_id=f"uav-agent-{__version__}+{model}")


def _raise_llm_failure(trace: list[dict]) -> None:
    """Raise the language model endpoint's failure recorded in ``trace``, if any."""
    from planners.llm import endpoint_failure
    from planners.llm_client import LLMError

    failure = endpoint_failure(trace)
    if failure:
        raise LLMError(failure)


def _jsonable_timings(timings: dict) -> dict:
    """Timings with floats rounded to ms; nested per-node lists kept as they are."""
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in timings.items()}
