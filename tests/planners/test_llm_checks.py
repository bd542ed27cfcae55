"""Reply sanity checks (planners.llm_checks) on replies seen from real small models and on ordinary answers."""

from __future__ import annotations

import pytest

from planners.llm_checks import echo_problem, reply_problem, strip_think, without_echo

CROP = "Does this crop of a drone image contain a parking lot? Answer yes or no."
CHOICE = ("How many cars do both UAVs see?\nA. 1\nB. 2\nC. 3\nD. 4\n"
          "Answer with the option's letter from the given choices directly.")


@pytest.mark.parametrize("reply, finish, words", [
    ("| " * 1015, "stop", "not text"),  # what a 270M text model returned for a crop question
    ("yes", "length", "cut off"),
    ("   ", "stop", "empty"),
    ("the car " * 60, "stop", "repeats itself"),
])
def test_replies_that_are_not_answers_are_named(reply, finish, words):
    assert words in reply_problem(reply, finish)


@pytest.mark.parametrize("reply", ["Yes.", "B", "3 o'clock", "Region 3, 7", "12.5 meters", "A. 1",
                                   "A sports field with a few people walking along the touchline on a sunny day."])
def test_ordinary_answers_pass(reply):
    assert reply_problem(reply, "stop") is None


@pytest.mark.parametrize("reply, prompt", [
    ("Answer yes or no.", CROP),
    ("answer  YES or\nno.", CROP),
    (CROP, CROP),
    ("A. 1\nB. 2\nC. 3\nD. 4", CHOICE),
    ("How many cars do both UAVs see? A. 1 B. 2 C. 3 D. 4", CHOICE),
])
def test_echoes_of_the_prompt_are_refused(reply, prompt):
    assert "only repeated the prompt" in echo_problem(reply, prompt)


@pytest.mark.parametrize("reply, prompt, own", [
    ("Does this crop of a drone image contain a parking lot? Yes", CROP, "Yes"),
    ("B. 2", CHOICE, "B. 2"),  # one option line is an answer
    ("A. 1\nB. 2\nC. 3\nD. 4\nB", CHOICE, "B"),
    ("No, it shows a roof.", CROP, "No, it shows a roof."),
])
def test_the_models_own_words_survive(reply, prompt, own):
    assert echo_problem(reply, prompt) is None and without_echo(reply, prompt) == own


def test_think_blocks_are_dropped_even_unclosed():
    assert strip_think("<think>the car is left</think>B") == "B"
    assert strip_think("<think>I should count the cars, there are") == ""
