"""The published folder's metadata: SPDX licences, Croissant 1.1 with its Responsible-AI
fields, creators, citation, url and version, read back by `mlcroissant` and
`huggingface_hub`'s DatasetCard."""

from __future__ import annotations

import json

import mlcroissant as mlc
import pytest
from huggingface_hub import DatasetCard

from tests.cli.helpers import simrate
from tests.services.dataset_fixtures import build_project


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    from tests.services.test_dataset_export import _Capture

    return build_project(_Capture(), tmp_path_factory.mktemp("metadata"))


def _one_line_refusal(result, *words: str) -> None:
    assert result.status == 2, result.err
    assert result.err.count("\n") == 1 and result.err.startswith("simrate: error: ")
    assert "Traceback" not in result.err
    for word in words:
        assert word in result.err


@pytest.mark.parametrize("licence", ["foo", "MIT-9", "CC-BY-SA-5.0", "CC BY 4.0", "MIT OR",
                                     "(MIT", ""])
def test_a_licence_that_is_not_spdx_is_refused_in_one_line(project, tmp_path, capsys,
                                                            licence):
    out = tmp_path / "out"
    done = simrate(capsys, "export", project, out, "--format", "dataset", "--license", licence)
    _one_line_refusal(done, "--license")
    assert not out.exists()


@pytest.mark.parametrize(("given", "card", "details", "urls"), [
    ("cc-by-4.0", "cc-by-4.0", None, "https://spdx.org/licenses/CC-BY-4.0.html"),
    ("MIT OR Apache-2.0", "other", "MIT OR Apache-2.0",
     ["https://spdx.org/licenses/MIT.html", "https://spdx.org/licenses/Apache-2.0.html"]),
    ("GPL-2.0+", "gpl-2.0-or-later", None, "https://spdx.org/licenses/GPL-2.0-or-later.html"),
])
def test_an_spdx_licence_reaches_card_and_croissant(project, tmp_path, capsys, given, card,
                                                    details, urls):
    out = tmp_path / "out"
    done = simrate(capsys, "export", project, out, "--format", "dataset", "--license", given)
    assert done.status == 0, done.err
    data = DatasetCard.load(out / "README.md").data.to_dict()
    assert data["license"] == card and data.get("license_details") == details
    document = json.loads((out / "croissant.json").read_text(encoding="utf-8"))
    assert document["license"] == urls
    issues = mlc.Dataset(jsonld=out / "croissant.json").metadata.ctx.issues
    assert not issues.errors and not issues.warnings, issues.report()
