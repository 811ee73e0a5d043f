"""An image pipeline in samples/s: minispore.dataset beside PyTorch's DataLoader.

    python -m benchmarks.data_pipeline [--repeat 3] [--images 1024] [--size 64]
                                       [--torch-python /path/to/python] [--output table.md]

The pipeline, as each framework's tutorials write it, over `--images` PNG files (size x size
RGB, 4 classes) written to a temporary ImageFolder: decode, random crop to 7/8 of the side,
random horizontal flip, normalize, HWC -> CHW, batch 64 (the last batch kept), labels along.

* minispore: ImageFolderDataset -> map([Decode, RandomCrop, RandomHorizontalFlip, Normalize,
  HWC2CHW], num_parallel_workers=w, python_multiprocessing=threads|processes) -> batch(64),
  iterated as Tensors (what Model.train gets);
* torchvision: datasets.ImageFolder with transforms.Compose([RandomCrop, RandomHorizontalFlip,
  ToTensor, Normalize]) in a DataLoader(batch_size=64, num_workers=w), iterated as tensors;
* torch_plain: the same DataLoader with the transforms written in PIL and numpy, for machines
  where torchvision does not import beside torch (`--torch-python` can name an interpreter
  that has torch and torchvision, e.g. a second virtual environment).

Each configuration runs `--repeat` times in a fresh process, round-robin, all pinned with
taskset to the same cores (both of this machine's); a figure is the median of the
processes' samples/s over 3 epochs after one warm-up epoch (worker start-up included: both
frameworks start their workers per epoch). Ratios compare minispore with torchvision (else
torch_plain) at the same worker count, measured in the same run.
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

RESULT_MARKER = "DATA_BENCH "
BATCH = 64
EPOCHS = 3
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)  # the ImageNet statistics, in [0, 1]
CONFIGS = [("minispore", 1, False), ("minispore", 2, False), ("minispore", 2, True),
           ("torchvision", 0, None), ("torchvision", 1, None), ("torchvision", 2, None),
           ("torch_plain", 0, None), ("torch_plain", 1, None), ("torch_plain", 2, None)]


# ***** the pipelines (run in the child) *****

def minispore_epochs(root, size, workers, processes):
    import minispore.dataset as ds
    import minispore.dataset.vision as vision
    crop = size * 7 // 8
    data = ds.ImageFolderDataset(root, shuffle=False)
    data = data.map([vision.Decode(), vision.RandomCrop(crop), vision.RandomHorizontalFlip(),
                     vision.Normalize([m * 255 for m in MEAN], [s * 255 for s in STD]),
                     vision.HWC2CHW()], "image", num_parallel_workers=workers,
                    python_multiprocessing=processes)
    data = data.batch(BATCH)
    return lambda: [(image.shape, image.dtype.name) for image, _ in data.create_tuple_iterator()]


def torch_epochs(root, size, workers, plain):
    import torch
    torch.set_num_threads(1)
    crop = size * 7 // 8
    if plain:
        dataset = _PlainFolder(root, crop)
    else:
        from torchvision import datasets, transforms
        dataset = datasets.ImageFolder(root, transform=transforms.Compose([
            transforms.RandomCrop(crop), transforms.RandomHorizontalFlip(), transforms.ToTensor(),
            transforms.Normalize(MEAN, STD)]))
    loader = torch.utils.data.DataLoader(dataset, batch_size=BATCH, num_workers=workers)
    return lambda: [(tuple(image.shape), str(image.dtype)) for image, _ in loader]


class _PlainFolder:
    """ImageFolder with PIL decoding and numpy crop / flip / normalize / transpose."""

    def __init__(self, root, crop):
        self.files = [(os.path.join(root, c, f), i) for i, c in enumerate(sorted(os.listdir(root)))
                      for f in sorted(os.listdir(os.path.join(root, c)))]
        self.crop = crop
        self.mean = np.array(MEAN, np.float32) * 255
        self.scale = 1 / (np.array(STD, np.float32) * 255)

    def __len__(self):
        return len(self.files)

    def __getitem__(self, index):
        import torch
        from PIL import Image
        path, label = self.files[index]
        with Image.open(path) as image:
            array = np.asarray(image.convert("RGB"))
        top = np.random.randint(array.shape[0] - self.crop + 1)
        left = np.random.randint(array.shape[1] - self.crop + 1)
        array = array[top:top + self.crop, left:left + self.crop]
        if np.random.random() < 0.5:
            array = array[:, ::-1]
        normalized = (array - self.mean) * self.scale
        return torch.from_numpy(np.ascontiguousarray(normalized.transpose(2, 0, 1))), label


def child(framework, workers, processes, root, size, images):
    if framework == "minispore":
        epoch = minispore_epochs(root, size, workers, processes)
    else:
        epoch = torch_epochs(root, size, workers, plain=framework == "torch_plain")
    first = epoch()  # warm-up: imports, caches, first fork
    crop = size * 7 // 8
    batches = -(-images // BATCH)
    ok = len(first) == batches and first[0][0] == (BATCH, 3, crop, crop) and "float32" in \
        first[0][1].lower()
    start = time.perf_counter()
    for _ in range(EPOCHS):
        epoch()
    seconds = time.perf_counter() - start
    return {"samples_per_s": EPOCHS * images / seconds, "check": ok, "first_batch": str(first[0])}


# ***** the runner *****

def write_images(root, count, size, seed=0):
    """`count` PNGs of smooth random colors plus noise (a realistic compression ratio)."""
    from PIL import Image
    rng = np.random.default_rng(seed)
    for c in range(4):
        os.makedirs(os.path.join(root, f"class{c}"), exist_ok=True)
    for i in range(count):
        coarse = rng.integers(0, 256, (size // 8, size // 8, 3)).repeat(8, 0).repeat(8, 1)
        pixels = np.clip(coarse + rng.integers(-12, 13, coarse.shape), 0, 255).astype(np.uint8)
        Image.fromarray(pixels).save(os.path.join(root, f"class{i % 4}", f"{i:05d}.png"))


def available(python, module):
    done = subprocess.run([python, "-c", f"import {module}"], capture_output=True)
    return done.returncode == 0


# every core: importing `benchmarks` pinned this runner to one (see benchmarks/__init__.py)
CORES = list(range(os.cpu_count() or 1))


def run_child(python, config, root, args):
    framework, workers, processes = config
    cores = ",".join(str(c) for c in CORES)
    argv = [python, "-m", "benchmarks.data_pipeline", "--child", framework, "--workers",
            str(workers), "--root", root, "--size", str(args.size), "--images", str(args.images)]
    argv += ["--processes"] if processes else []
    if shutil.which("taskset"):
        argv = ["taskset", "-c", cores] + argv
    env = dict(os.environ, MINISPORE_BENCH_PIN="0", PYTHONUNBUFFERED="1")
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith(RESULT_MARKER)]
    if not lines:
        return {"error": (done.stderr.strip().splitlines() or ["no output"])[-1][:200]}
    return json.loads(lines[-1][len(RESULT_MARKER):])


def label(config):
    framework, workers, processes = config
    if framework == "minispore":
        kind = "processes" if processes else ("threads" if workers > 1 else "pipeline thread")
        return f"minispore, {workers} worker(s), {kind}"
    return f"{framework} DataLoader, num_workers={workers}"


def table(results, configs):
    baseline = "torchvision" if any(c[0] == "torchvision" for c in configs) else "torch_plain"
    medians = {c: statistics.median(r["samples_per_s"] for r in results[c]) for c in configs
               if results[c] and all("samples_per_s" in r for r in results[c])}
    best = max((v for c, v in medians.items() if c[0] == baseline), default=None)
    lines = [f"| configuration | samples/s (median) | min - max | × {baseline}, same workers "
             f"| × {baseline}'s best | checks |", "|---|---|---|---|---|---|"]
    for config in configs:
        runs = results[config]
        if config not in medians:
            errors = "; ".join(r.get("error", "?") for r in runs if "error" in r)
            lines.append(f"| {label(config)} | — | — | — | — | {errors} |")
            continue
        values = [r["samples_per_s"] for r in runs]
        same, overall = "", ""
        if config[0] == "minispore":
            reference = medians.get((baseline, config[1], None))
            same = f"{medians[config] / reference:.2f}" if reference else ""
            overall = f"{medians[config] / best:.2f}" if best else ""
        ok = "ok" if all(r["check"] for r in runs) else "FAIL"
        lines.append(f"| {label(config)} | {medians[config]:.0f} | {min(values):.0f} - "
                     f"{max(values):.0f} | {same} | {overall} | {ok} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--images", type=int, default=1024)
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--torch-python", default=sys.executable,
                        help="the interpreter for the torch configurations")
    parser.add_argument("--output", default=None, help="also write the table here")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--workers", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--processes", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--root", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        record = child(args.child, args.workers, args.processes, args.root, args.size,
                       args.images)
        print(RESULT_MARKER + json.dumps(record), flush=True)
        return 0

    configs = [c for c in CONFIGS if c[0] == "minispore"]
    pythons = {"minispore": sys.executable}
    if available(args.torch_python, "torch"):
        configs += [c for c in CONFIGS if c[0] == "torch_plain"]
        pythons["torch_plain"] = args.torch_python
        if available(args.torch_python, "torchvision"):
            configs += [c for c in CONFIGS if c[0] == "torchvision"]
            pythons["torchvision"] = args.torch_python
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="minispore-data-bench-") as root:
        write_images(root, args.images, args.size)
        results = {c: [] for c in configs}
        for _ in range(args.repeat):  # round-robin: a load change hits every configuration
            for config in configs:
                results[config].append(run_child(pythons[config[0]], config, root, args))
    versions = subprocess.run([args.torch_python, "-c", "import torch; print(torch.__version__)"
                               "; import torchvision; print(torchvision.__version__)"],
                              capture_output=True, text=True).stdout.split()
    header = (f"`python -m benchmarks.data_pipeline --repeat {args.repeat} --images "
              f"{args.images} --size {args.size}` — {args.images} PNGs of {args.size}x"
              f"{args.size}, crop {args.size * 7 // 8}, batch {BATCH}; {args.repeat} process(es) "
              f"per configuration, median; cores {CORES} "
              f"(taskset); {platform.processor() or platform.machine()}, "
              f"{os.cpu_count()} cores; Python {platform.python_version()}; torch / "
              f"torchvision {' / '.join(versions) or 'not installed'}. Load average "
              f"before/after: {load_before:.1f} / {os.getloadavg()[0]:.1f}; wall time "
              f"{(time.perf_counter() - start) / 60:.1f} min.")
    text = header + "\n\n" + table(results, configs)
    print(text)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
