"""Property-based differential tests: replies built by hypothesis from parts whose official reading is known, so
the expected score follows from the official rule stated in each test (not from the code under test)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.sample import Sample
from benchmarks.scoring import score, tdbench
from benchmarks.scoring.aircopbench import LetterDraw, predicted_letter
from benchmarks.scoring.common import token_f1

SETTINGS = settings(max_examples=200, deadline=None)
HOURS = st.integers(min_value=0, max_value=10**6)
PROSE = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ,", max_size=30)  # no digits, no o'clock, no upper case


@SETTINGS
@given(pred=HOURS, gt=HOURS, before=PROSE, after=PROSE)
def test_bedi_clock_is_the_official_formula_for_any_hours(pred, gt, before, after):
    # Spatial_PosRelDis_score: d = |GT − pred| (within int64 here), score = 1 − min(d, 12 − d)/6, no bounds
    d = abs(gt - pred)
    expected = 1 - min(d, 12 - d) / 6
    s = Sample("b", "bedi", "Spatial_PosRelDis", [], "q", f"{gt} o'clock.")
    assert score(s, f"{before}{pred} o'clock{after}") == expected


@SETTINGS
@given(pred=st.sets(st.integers(0, 30), max_size=6), gt=st.sets(st.integers(0, 30), min_size=1, max_size=6))
def test_bedi_target_determination_is_jaccard_of_every_number(pred, gt):
    s = Sample("d", "bedi", "Semantic_InfoDet", [], "q", "Region " + " and ".join(map(str, sorted(gt))))
    expected = len(pred & gt) / len(pred | gt)
    assert score(s, "Regions " + ", ".join(map(str, sorted(pred)))) == expected


@SETTINGS
@given(reasoning=st.lists(st.integers(0, 20), min_size=1, max_size=4), answer=st.integers(1, 12),
       tag=st.sampled_from(["think", "THINK", "Think"]))
def test_spatialuav_think_block_removed_only_in_lower_case(reasoning, answer, tag):
    # strip_thinking removes "<think>…</think>" (lower case only); Direction_Recognition compares first ints
    text = " ".join(f"region {r}" for r in reasoning)
    reply = f"<{tag}>{text}</{tag}> {answer} o'clock"
    first = answer if tag == "think" else reasoning[0]
    s = Sample("Direction_Recognition_00001", "spatialuav", "Direction_Recognition", [], "q", f"{answer} o'clock")
    assert score(s, reply) == float(first == answer)


@SETTINGS
@given(pred=PROSE, gt=PROSE, task=st.sampled_from(["Region_Counting", "Scene_Caption", "Mystery"]))
def test_spatialuav_unknown_tasks_are_token_f1(pred, gt, task):
    s = Sample(f"{task}_00001", "spatialuav", task, [], "q", gt)
    assert score(s, pred) == token_f1(pred, gt)


@SETTINGS
@given(before=st.text(alphabet="xyz <>/", max_size=12), letter=st.sampled_from("ABCD"),
       lost=st.sampled_from("xyz.! "), seed=st.integers(0, 10**6))
def test_aircopbench_reads_after_the_last_think_plus_eight(before, letter, lost, seed):
    # extract_answer: res[res.rfind('<think>') + 8:].strip(); one character after "<think>" is lost
    reply = f"{before}<think>{lost}{letter}"
    assert predicted_letter(reply, draw=LetterDraw(seed)) == letter
    # a lone letter right after the tag is the lost character: no A–D left, the seeded random letter decides
    assert predicted_letter(f"{before}<think>{letter}", draw=LetterDraw(seed)) == random.Random(seed).choice("ABCD")


@SETTINGS
@given(filler=st.integers(0, 8), letter=st.sampled_from("BCD"))
def test_tdbench_single_letter_counts_only_in_the_last_four_words(filler, letter):
    # can_infer_option: the one candidate letter present must have splits.index(ch) > len(splits) − 5
    words = [letter, *(["word"] * filler)]
    reply = " ".join(words)
    expected = 0 > len(words) - 5
    options = {"A": "apple pie", "B": "banana split", "C": "cherry tart", "D": "date loaf"}
    assert tdbench.extract_letter(reply, options) == (letter if expected else None)
