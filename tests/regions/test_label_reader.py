"""The region-label recognizer: its input geometry, CTC decoding, the weights loading path (on a randomly
initialised model of the real architecture) and the shipped weights on labels drawn in the benchmark's fonts,
which training never sees."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agent.config import Config, MissingWeightsError
from tools.common import ToolError, load_image
from benchmarks.synth.overlay import FONTS, RegionStyle, draw_regions, label_box, random_style
from tools.regions.label_reader import CHARSET, HEIGHT, WIDTH, LabelReader, _vote, ctc_decode, label_crop


def test_label_crop_keeps_the_label_and_its_margin_scaled_to_the_input_height():
    rgb = np.zeros((100, 200, 3), np.uint8)
    rgb[40:60, 50:90] = 255                       # a 40 x 20 px label
    crop = label_crop(rgb, (50, 40, 90, 60))      # margin 5 px each side: 50 x 30 px -> 53 x 32 px
    assert crop.shape == (HEIGHT, WIDTH, 3)
    cols = np.flatnonzero(crop[HEIGHT // 2, :, 0] > 127)
    assert cols[0] == pytest.approx(5 * HEIGHT / 30, abs=1) and cols[-1] == pytest.approx(45 * HEIGHT / 30, abs=1)
    assert not crop[:, 60:].any()                 # the canvas right of the label stays black


def test_label_crop_at_the_image_border_and_bad_boxes():
    rgb = np.full((50, 50, 3), 200, np.uint8)
    assert label_crop(rgb, (-5, -5, 20, 10)).shape == (HEIGHT, WIDTH, 3)          # edge replicated
    assert label_crop(rgb, (0, 0, 2000, 10))[:, -1].any()                          # squeezed to WIDTH
    with pytest.raises(ToolError, match="x2 > x1"):
        label_crop(rgb, (10, 10, 10, 20))


def test_ctc_decode_merges_repeats_and_drops_blanks():
    path = [2, 2, 0, 2, 0, 0, 4, 4]               # "1", "1" again after a blank, then "3"
    logits = np.full((1, len(path), 1 + len(CHARSET)), -10.0)
    logits[0, np.arange(len(path)), path] = 10.0
    (text, conf), = ctc_decode(logits)
    assert text == "113" and conf > 0.99
    logits[0, 0] = 0.0                             # an undecided first step: the path is less probable
    assert ctc_decode(logits)[0][1] < 0.2


def test_windows_vote_with_their_confidences():
    # the box itself misreads "10" as a sure "18"; three shifted windows read "10" less surely, together more
    reads = [(18, "18", 0.9), (10, "10", 0.6), (10, "10", 0.7), (None, "", 0.95), (10, "10", 0.5)]
    assert _vote(reads) == (10, "10", 0.7)
    assert _vote([(None, "", 0.9), (7, "7", 0.3), (7, "7", 0.4)]) == (None, "", 0.9)   # reading nothing may win


def test_training_fonts_are_never_drawn_by_the_benchmark_styles():
    from training.label_reader_train import training_fonts

    rng = np.random.default_rng(3)
    assert {random_style(rng).font for _ in range(300)} == set(FONTS)
    names = {Path(f).name for f in training_fonts()}
    assert names and not names & {"hershey_simplex", "hershey_duplex", "DejaVuSans.ttf", "DejaVuSans-Bold.ttf"}


def test_a_style_may_name_a_font_file(tmp_path):
    """A .ttf path draws in that font: not in the Hershey fallback, and not in the named DejaVu Sans."""
    font = Path("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf")
    if not font.is_file() or not Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf").is_file():
        pytest.skip("DejaVu Serif / Sans are not installed")

    def label(font_name: str) -> np.ndarray:
        style = RegionStyle(font=font_name, label_background=False, label_color=(255, 0, 0), font_scale=1.0)
        drawn = draw_regions(np.zeros((120, 240, 3), np.uint8), [(7, [40, 60, 200, 110])], style)
        return drawn[:52, :, 0] > 128        # above the box: the label's letters only

    serif, sans, hershey = label(str(font)), label("dejavu_sans"), label("hershey_simplex")
    assert serif.sum() > 30 and (serif != sans).sum() > 30 and (serif != hershey).sum() > 30
    with pytest.raises(ValueError, match="ttf"):
        RegionStyle(font=str(tmp_path / "missing.ttf"))


def test_loading_path_on_a_randomly_initialised_model(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from training.label_reader_train import build_model, export_onnx

    path = tmp_path / "reader.onnx"
    export_onnx(build_model(), path)
    reads = LabelReader(str(path)).read(np.zeros((64, 64, 3), np.uint8), [(2, 2, 30, 20), (10, 10, 40, 30)])
    assert len(reads) == 2 and all(0.0 <= conf <= 1.0 for _, _, conf in reads)
    monkeypatch.setenv("UAV_AGENT_LABEL_READER_MODEL", str(tmp_path / "missing.onnx"))
    with pytest.raises(MissingWeightsError, match="label_reader_model"):
        Config.from_env().resolved_label_reader_model()


def test_shipped_reader_reads_labels_in_fonts_it_never_saw(shared_data):
    """Labels drawn in the benchmark's fonts (all four), both formats, filled or not, inside their boxes on a real
    orthophoto (400 x 400 px)."""
    img = load_image(shared_data / "deepforest_neon" / "OSBS_029.png")
    rng = np.random.default_rng(5)
    size = (img.shape[1], img.shape[0])
    reader = LabelReader()   # the shipped weights, loaded once
    right = total = 0
    for k in range(36):
        font = FONTS[k % len(FONTS)]
        style = RegionStyle(color=(255, 0, 0) if k % 3 else (0, 255, 255), line_width=3,
                            label_format=("Region {id}", "{id}")[k % 2], label_position="inside_top_left",
                            font_scale=0.7, label_background=bool(k % 4 < 2),
                            label_color=(255, 255, 255) if k % 4 < 2 else (255, 0, 0) if k % 3 else (0, 255, 255),
                            font=font)
        ids = [int(i) for i in rng.choice(100, 2, replace=False)]
        boxes = [[15.0, 60.0, 195.0, 180.0], [210.0, 60.0, 390.0, 180.0]]   # wide enough to hold "Region 88"
        drawn = draw_regions(img, list(zip(ids, boxes)), style)
        labels = [label_box(b, style.label_format.format(id=i), style, size) for i, b in zip(ids, boxes)]
        reads = reader.read(drawn, labels)
        right += sum(r[0] == i for r, i in zip(reads, ids))
        total += len(ids)
    assert right / total >= 0.95, f"{right} of {total} labels read right"


def test_a_third_reader_settles_a_label_the_mask_and_picture_reads_disagree_on(shared_data):
    """A clearly drawn label "7": when the mask read says 7 and the picture read says 1, the text-line engine's
    read of the picture (7) sides with the mask, unless the picture read only adds a sure leading "1"; reads that
    agree, or that lack a number, are left alone."""
    from tools.regions.ocr import PICTURE_CERTAIN, LabelBlob, settle_disagreements

    img = load_image(shared_data / "deepforest_neon" / "OSBS_029.png")
    style = RegionStyle(color=(255, 0, 0), line_width=3, label_format="{id}", label_position="above",
                        font_scale=0.8, label_background=True, label_color=(255, 255, 255), font="dejavu_sans")
    box = [60.0, 120.0, 260.0, 300.0]
    drawn = draw_regions(img, [(7, box)], style)
    blob = LabelBlob(tuple(label_box(box, "7", style, (400, 400))), True)
    mask, picture = (7, "7", 0.4), (1, "1", 0.6)
    assert settle_disagreements(drawn, [blob], [mask], [picture])[0][0] == 7
    assert settle_disagreements(drawn, [blob], [(None, "", 0.0)], [picture]) == [picture]
    assert settle_disagreements(drawn, [blob], [(1, "1", 0.9)], [picture]) == [picture]
    # a picture read that adds a leading "1" to the mask read, surer than PICTURE_CERTAIN, is not put to the vote
    # (the text-line engine reads "7"); less sure, or adding another digit, it is
    certain = (17, "17", PICTURE_CERTAIN)
    assert settle_disagreements(drawn, [blob], [mask], [certain]) == [certain]
    assert settle_disagreements(drawn, [blob], [mask], [(17, "17", PICTURE_CERTAIN - 0.1)])[0][0] == 7
    assert settle_disagreements(drawn, [blob], [mask], [(27, "27", 0.999)])[0][0] == 7


def test_training_samples_are_label_crops_with_the_drawn_ids():
    from training.label_reader_train import scene_samples

    rng = np.random.default_rng(0)
    bg = (np.random.default_rng(1).random((600, 800, 3)) * 255).astype(np.uint8)
    samples = [s for _ in range(5) for s in scene_samples(rng, [bg], ["hershey_plain", "hershey_complex"])]
    assert samples and all(crop.shape == (HEIGHT, WIDTH, 3) and crop.dtype == np.uint8 for crop, _ in samples)
    assert all(text == "" or (text.isdigit() and int(text) < 1000) for _, text in samples)
    assert any(text == "" for _, text in samples) and any(text for _, text in samples)


def test_training_starts_from_an_onnx_export_and_computes_what_it_does(tmp_path):
    """Fine-tuning from the shipped weights: the export's folded batch norms are loaded back into the training
    architecture, which then gives the export's logits, in eval mode and in training mode with the norms frozen."""
    torch = pytest.importorskip("torch")
    import onnxruntime as ort

    from training.label_reader_train import build_model, export_onnx, freeze_norms, load_onnx

    source = build_model()
    torch.manual_seed(0)
    for m in source.modules():   # norms with statistics of their own, as after training
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)
    path = tmp_path / "reader.onnx"
    export_onnx(source, path)
    x = np.random.default_rng(0).random((3, 3, HEIGHT, WIDTH)).astype(np.float32)
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"image": x})[0]
    model = build_model()
    load_onnx(model, path)
    model.train()
    freeze_norms(model)
    with torch.no_grad():
        got = model(torch.from_numpy(x)).numpy()
    assert np.abs(got - want).max() < 1e-4
    model.train()   # norms on batch statistics: another function, which is why they stay frozen
    with torch.no_grad():
        assert np.abs(model(torch.from_numpy(x)).numpy() - want).max() > 1e-3


def test_crossing_lines_run_through_labels_before_they_are_drawn():
    """Training scenes with crossings: each line is drawn in a scene style's colour through a label's box, on the
    picture the overlay then goes over (labels are drawn after every outline)."""
    from training.label_reader_train import _cross

    style = RegionStyle(color=(0, 255, 0), line_width=3, label_format="{id}", label_position="above", font_scale=0.8,
                        label_background=False, label_color=(0, 255, 0), font="hershey_plain")
    regions = [(7, [100, 100, 200, 180]), (12, [260, 60, 360, 200])]
    img = np.zeros((300, 400, 3), np.uint8)
    labels = [label_box(b, str(i), style, (400, 300)) for i, b in regions]
    for seed in range(5):
        out = _cross(np.random.default_rng(seed), img, regions, [style, style])
        drawn = (out == (0, 255, 0)).all(axis=2)
        assert img.sum() == 0 and drawn.any()   # the input is left as it was
        assert any(drawn[y1:y2, x1:x2].any() for x1, y1, x2, y2 in labels)


def test_stream_learning_rate_warms_up_then_falls_to_zero():
    from training.label_reader_stream import _lr

    rates = [_lr(3e-3, t) for t in np.linspace(0, 1, 101)]
    peak = int(np.argmax(rates))
    assert rates[0] == 0 and rates[peak] == pytest.approx(3e-3) and peak == 5
    assert all(a >= b for a, b in zip(rates[peak:], rates[peak + 1:])) and rates[-1] == pytest.approx(0, abs=1e-12)


def test_stream_training_saves_states_that_export_to_weights_the_reader_reads(tmp_path, shared_data):
    """A few steps of stream training (no worker processes, on the CPU): a fresh model and the shipped weights
    fine-tuned are saved each; the fine-tuned one keeps its folded norms frozen (the pass-through statistics
    :func:`load_onnx` set) and exports to weights that read labels drawn in a benchmark font (ground truth: the drawn
    ids and label boxes)."""
    torch = pytest.importorskip("torch")
    from training.label_reader_stream import export, train
    from training.label_reader_train import OUT

    train(seconds=600, widths=[1.0, 0.0], out=tmp_path, workers=0, batch=16, seed=3, crossing=0.3, save_every=1e9,
          init=OUT, val=32, max_steps=3)
    assert {p.name for p in tmp_path.glob("*.pt")} == {"label_reader_w1.pt", "label_reader_w0.pt"}
    state = torch.load(tmp_path / "label_reader_w0.pt")
    means = [v for k, v in state.items() if k.endswith("running_mean")]
    assert means and all(float(m.abs().max()) == 0.0 for m in means)
    export(tmp_path / "label_reader_w0.pt", 1.0, tmp_path / "w0.onnx")
    img = load_image(shared_data / "deepforest_neon" / "OSBS_029.png")
    style = RegionStyle(color=(255, 0, 0), line_width=3, label_format="Region {id}", label_position="above",
                        font_scale=0.8, label_background=True, label_color=(255, 255, 255), font="dejavu_sans")
    regions = [(7, [20.0, 80.0, 180.0, 200.0]), (15, [210.0, 80.0, 380.0, 200.0])]
    drawn = draw_regions(img, regions, style)
    labels = [label_box(b, f"Region {i}", style, (400, 400)) for i, b in regions]
    reads = LabelReader(str(tmp_path / "w0.onnx")).read(drawn, labels)
    assert [r[0] for r in reads] == [7, 15]


def test_stream_workers_draw_samples_of_their_own(monkeypatch):
    """Each DataLoader worker draws from its own seed: two workers give different first batches, one worker the
    same batch again."""
    torch = pytest.importorskip("torch")
    from training.label_reader_stream import _stream_class

    def first_batch(worker: int):
        monkeypatch.setattr(torch.utils.data, "get_worker_info", lambda: type("Info", (), {"id": worker})())
        return next(iter(_stream_class()(5, 8, 0.0)))

    (a, ta), (b, tb), (c, tc) = first_batch(0), first_batch(1), first_batch(0)
    assert torch.equal(a, c) and ta == tc
    assert not torch.equal(a, b)
