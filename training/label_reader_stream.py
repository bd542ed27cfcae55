"""Train label recognizers (:mod:`tools.regions.label_reader`) on a stream of freshly drawn samples, on a GPU if there is one.

:mod:`training.label_reader_train` draws a fixed set of samples and trains over it for a number of steps; here
DataLoader workers keep drawing new scenes (:func:`training.label_reader_train.scene_samples`, the same fonts,
backgrounds and held-out rules) while the models train, so no sample is seen twice and the run is bounded by time,
not by steps: the learning rate follows a warm-up and a cosine over ``--seconds`` of wall-clock time. Several
models (``--widths``; ``0`` = the shipped weights, fine-tuned with their norms frozen) train on the same batches.
Each is saved as ``<out>/label_reader_w<width>.pt`` (torch state) every ``--save-every`` seconds and at the end;
:func:`export` writes the ONNX file the reader loads.

Run (the shipped weights' settings, on a GPU machine with 16 cores): ``python -m training.label_reader_stream --seconds
420 --workers 15 --widths 1,1.5,2,0 --out /tmp/lr``, then ``python -m training.label_reader_stream --export
/tmp/lr/label_reader_w0.pt --width 1`` writes ``tools/weights/label_reader.onnx`` (steps per second, and so the
result, depend on the machine). The fonts and backgrounds travel with it: the font files of
:func:`training.label_reader_train.training_fonts` at their paths, the shared data where ``LABEL_TRAIN_DATA`` says.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from tools.regions.label_reader import to_input
from training.label_reader_train import (OUT, accuracy, backgrounds, build_model, cap_threads, ctc_step, dataset,
                                      export_onnx, freeze_norms, load_onnx, scene_samples, training_fonts)

SHUFFLE = 8   # batches pooled and shuffled in each worker, so that a batch mixes labels of several scenes


def _stream_class():
    import torch

    class Stream(torch.utils.data.IterableDataset):
        """Endless batches (inputs (N, 3, H, W) float32, digits) of samples drawn in each worker from its own seed."""

        def __init__(self, seed: int, batch: int, crossing: float) -> None:
            self.seed, self.batch, self.crossing = seed, batch, crossing

        def __iter__(self):
            import cv2

            cv2.setNumThreads(1)
            info = torch.utils.data.get_worker_info()
            rng = np.random.default_rng([self.seed, info.id if info else 0])
            bgs, fonts = backgrounds(), training_fonts()
            pool: list[tuple[np.ndarray, str]] = []
            while True:
                while len(pool) < SHUFFLE * self.batch:
                    pool += scene_samples(rng, bgs, fonts, self.crossing)
                order = rng.permutation(len(pool))
                picked = [pool[i] for i in order[:SHUFFLE * self.batch]]
                pool = [pool[i] for i in order[SHUFFLE * self.batch:]]
                for k in range(0, len(picked), self.batch):
                    part = picked[k:k + self.batch]
                    yield torch.from_numpy(to_input([c for c, _ in part])), [t for _, t in part]

    return Stream


def _lr(peak: float, done: float) -> float:
    """Learning rate at ``done`` (0-1) of the run: linear warm-up over the first 5 %, then a cosine to 0."""
    if done < 0.05:
        return peak * done / 0.05
    return peak * 0.5 * (1 + np.cos(np.pi * min(1.0, (done - 0.05) / 0.95)))


def _models(widths: list[float], init: Path, device: str) -> dict[str, tuple]:
    """name -> (model, peak lr, frozen norms) for each width (0: the shipped weights at ``init``, fine-tuned)."""
    out = {}
    for w in widths:
        model = build_model(w or 1.0)
        if w == 0:
            load_onnx(model, init)
            freeze_norms(model)
        out[f"w{w:g}"] = (model.to(device), 1e-3 if w == 0 else 3e-3, w == 0)
    return out


def train(seconds: float, widths: list[float], out: Path, workers: int, batch: int, seed: int, crossing: float,
          save_every: float, init: Path, val: int = 6000, max_steps: int | None = None) -> None:
    """Train a model per width of ``widths`` on the same stream for ``seconds`` (wall clock; ``max_steps`` stops
    sooner); ``val`` crops drawn apart (another seed, no crossing lines) report each model's exact reads before
    training and at every save."""
    import torch

    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    val_crops, val_texts = dataset(seed + 1, val, workers=max(1, workers))
    cuda = torch.cuda.is_available()
    loader = iter(torch.utils.data.DataLoader(_stream_class()(seed, batch, crossing), batch_size=None,
                                              num_workers=workers, prefetch_factor=4 if workers else None,
                                              persistent_workers=workers > 0, timeout=180 if workers else 0,
                                              pin_memory=cuda))
    device = "cuda" if cuda else "cpu"
    cap_threads()
    torch.manual_seed(seed)
    models = _models(widths, init, device)
    opts = {n: torch.optim.AdamW(m.parameters(), lr=lr, weight_decay=1e-4) for n, (m, lr, _) in models.items()}
    print(f"{len(training_fonts())} fonts, {len(val_texts)} validation crops, {device}, {workers} workers, "
          f"models {list(models)}; ready in {time.time() - t0:.0f} s", flush=True)

    def report(step: int) -> None:
        for name, (model, _, _) in models.items():
            acc = accuracy(model, val_crops, val_texts)
            torch.save(model.state_dict(), out / f"label_reader_{name}.pt")
            print(f"  {name}: step {step}, validation exact {acc:.4f}", flush=True)

    report(0)
    start, last, step, losses = time.time(), time.time(), 0, {}
    while time.time() - start < seconds and (max_steps is None or step < max_steps):
        x, texts = next(loader)
        done = (time.time() - start) / seconds
        x = x.to(device, non_blocking=True)
        for name, (model, peak, frozen) in models.items():
            model.train()
            if frozen:
                freeze_norms(model)
            for g in opts[name].param_groups:
                g["lr"] = _lr(peak, done)
            losses[name] = ctc_step(model, opts[name], x, texts)
        step += 1
        if time.time() - last > save_every:
            last = time.time()
            print(f"{time.time() - start:.0f} s, step {step} ({step * batch / (time.time() - start):.0f} "
                  f"samples/s), losses " + ", ".join(f"{n} {v:.3f}" for n, v in losses.items()), flush=True)
            report(step)
    report(step)
    print(f"done: {step} steps of {batch} in {time.time() - t0:.0f} s", flush=True)


def export(pt: Path, width: float, path: Path = OUT) -> None:
    """Write the ONNX file the reader loads from a state saved by :func:`train`."""
    import torch

    model = build_model(width)
    model.load_state_dict(torch.load(pt, map_location="cpu"))
    export_onnx(model, path)
    print(f"wrote {path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=420.0, help="wall-clock training time")
    ap.add_argument("--widths", default="1", help="comma-separated model widths; 0 = fine-tune the shipped weights")
    ap.add_argument("--out", type=Path, default=Path("label_reader_runs"))
    ap.add_argument("--workers", type=int, default=2, help="processes drawing samples")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--crossing", type=float, default=0.3,
                    help="share of scenes with lines run through labels (label_reader_train --crossing)")
    ap.add_argument("--save-every", type=float, default=90.0, help="seconds between saves and validation reports")
    ap.add_argument("--init", type=Path, default=OUT, help="the shipped weights, for width 0")
    ap.add_argument("--export", type=Path, default=None, help="write the ONNX weights from this saved state and stop")
    ap.add_argument("--width", type=float, default=1.0, help="the saved state's width (with --export)")
    ap.add_argument("--onnx", type=Path, default=OUT, help="where --export writes")
    args = ap.parse_args()
    if args.export:
        export(args.export, args.width or 1.0, args.onnx)
        return
    train(args.seconds, [float(w) for w in args.widths.split(",")], args.out, args.workers, args.batch, args.seed,
          args.crossing, args.save_every, args.init)


if __name__ == "__main__":
    main()
