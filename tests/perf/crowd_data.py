"""The crowd shape of issue 17: items rated K times each by distinct workers of a skewed pool.

Worker activity follows a power law (a few workers do much of the work, as on crowd
platforms); each worker has a bias and a noise level, so agreement is realistic and some
workers are careless.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

CHUNK = 10_000


def crowd_ratings(items: int = 200_000, per_item: int = 5, workers: int = 500,
                  seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(item index, worker index, score on 0-5 in 0.25 steps), K distinct workers per item."""
    rng = np.random.default_rng(seed)
    log_weight = -0.8 * np.log(np.arange(1, workers + 1))
    rng.shuffle(log_weight)
    chosen = np.empty((items, per_item), dtype=np.int64)
    for start in range(0, items, CHUNK):
        size = min(CHUNK, items - start)
        # Gumbel top-k: K distinct workers drawn with probability proportional to weight
        keys = log_weight + rng.gumbel(size=(size, workers))
        chosen[start:start + size] = np.argpartition(-keys, per_item, axis=1)[:, :per_item]
    truth = rng.uniform(0, 5, items)
    bias = rng.normal(0, 0.3, workers)
    noise = np.where(rng.random(workers) < 0.05, 3.0, rng.uniform(0.3, 0.9, workers))
    raw = truth[:, None] + bias[chosen] + rng.normal(size=chosen.shape) * noise[chosen]
    score = np.clip(np.rint(raw * 4) / 4, 0, 5)
    item = np.repeat(np.arange(items), per_item)
    return item, chosen.ravel(), score.ravel()


def write_long_csv(path: Path, items: int = 200_000, per_item: int = 5, workers: int = 500,
                   seed: int = 0) -> Path:
    """A long ratings CSV (item_id, annotator, score) of the crowd shape."""
    import pandas as pd

    item, worker, score = crowd_ratings(items, per_item, workers, seed)
    frame = pd.DataFrame({"item_id": np.char.add("i", item.astype(str)),
                          "annotator": np.char.add("w", worker.astype(str)),
                          "score": score})
    frame.to_csv(path, index=False)
    return path
