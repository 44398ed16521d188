"""Reproduce published alt-test results with our implementation (app/core/machine/alt_test.py).

Run: python tests/perf/alt_test_reproduction.py PATH_TO_ALTTEST_CHECKOUT
The authors' data are in their public repository nitaytech/AltTest (folder data/); clone it
and give its path. For the four graded-scale datasets (neg-RMSE alignment) and each LLM, the
script prints our winning rate and advantage probability beside the published ones (the
authors' example notebook, with the epsilon they chose per dataset) and exits 1 on any
difference at two decimals.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from simrate.core.machine.alt_test import alt_test  # noqa: E402

EPSILON = {"cebab_stars": 0.1, "10k_prompts": 0.15, "summeval": 0.2, "lesion": 0.15}
#: (winning rate, advantage probability) as published, per dataset and LLM.
PUBLISHED = {
    "cebab_stars": {"gemini_flash": (0.60, 0.82), "gemini_pro": (0.80, 0.87),
                    "gpt-4o": (0.90, 0.90), "llama-31": (0.60, 0.85),
                    "gpt-4o-mini": (0.90, 0.89), "mistral-v03": (0.50, 0.83)},
    "10k_prompts": {"gemini_flash": (0.31, 0.67), "gemini_pro": (0.08, 0.63),
                    "gpt-4o": (0.69, 0.76), "llama-31": (0.15, 0.67),
                    "gpt-4o-mini": (0.92, 0.80), "mistral-v03": (0.15, 0.67)},
    "summeval": {"gemini_flash": (0.00, 0.46), "gemini_pro": (0.00, 0.44),
                 "gpt-4o": (0.00, 0.48), "llama-31": (0.00, 0.58),
                 "gpt-4o-mini": (0.00, 0.54), "mistral-v03": (0.00, 0.62)},
    "lesion": {"gemini_flash": (0.17, 0.71), "gemini_pro": (1.00, 0.81),
               "gpt-4o": (0.00, 0.62), "gpt-4o-mini": (0.67, 0.73)},
}


def reproduce(folder: Path) -> list[tuple[str, str, tuple, tuple]]:
    """(dataset, llm, ours, published) for every published figure."""
    out = []
    for dataset, published in PUBLISHED.items():
        humans = json.loads((folder / "data" / dataset / "human_annotations.json").read_text())
        llms = json.loads((folder / "data" / dataset / "llm_annotations.json").read_text())
        frame = pd.DataFrame([(h, str(i), float(v)) for h, given in humans.items()
                              for i, v in given.items() if v is not None],
                             columns=["human", "item", "score"])
        for llm, expected in published.items():
            scores = {str(i): float(v) for i, v in llms[llm].items() if v is not None}
            result = alt_test(frame, scores, EPSILON[dataset])
            ours = (round(result.winning_rate, 2), round(result.advantage_probability, 2))
            out.append((dataset, llm, ours, expected))
    return out


def main() -> int:
    import stages  # tests/perf/stages.py, beside this script

    checkout = stages.positionals(__doc__, ("checkout", Path, None,
                                            "a checkout of the authors' AltTest repository"))
    rows = reproduce(checkout.checkout)
    print(f"{'dataset':<13}{'LLM':<14}{'ours (w, rho)':>16}{'published':>16}")
    for dataset, llm, ours, expected in rows:
        print(f"{dataset:<13}{llm:<14}{str(ours):>16}{str(expected):>16}"
              f"{'' if ours == expected else '  DIFFERENT'}")
    same = sum(ours == expected for _, _, ours, expected in rows)
    print(f"{same} of {len(rows)} published results reproduced")
    return 0 if same == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
