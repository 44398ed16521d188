"""A rating written by another program while `team publish` uploads is not taken for
uploaded: the sync that follows the publish sends it (issue 22, part 6)."""

from __future__ import annotations

import subprocess
import sys

from simrate.core.project import Project
from simrate.hub.team import publish as publish_module
from tests.hub.hubs import ROOT, make_project


def test_a_rating_made_during_the_upload_reaches_the_hub(hub, tmp_path, monkeypatch):
    project = make_project(tmp_path / "organizer.simrate", 6)
    project.rate("d:1", "ana", 2.0)
    real_link = publish_module._link

    def another_program_rates_then_link(*args, **kwargs):
        # after the upload's transaction, before the link: a real second process writes
        code = (f"from simrate.core.project import Project\n"
                f"with Project.open({str(project.path)!r}) as p:\n"
                f"    p.rate('d:2', 'ben', 4.0)\n"
                f"    p.rate('d:1', 'ana', 3.0)\n")
        subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT,
                       env={**hub.env(), "PYTHONPATH": str(ROOT)})
        return real_link(*args, **kwargs)

    monkeypatch.setattr(publish_module, "_link", another_program_rates_then_link)
    publish_module.publish(project, hub.url())
    with hub.admin() as admin:
        on_hub = dict(((item, who), code) for item, who, code in admin.execute(
            "SELECT item_id, annotator, code FROM simrate.ratings"))
    scale = project.scale
    assert on_hub[("d:2", "ben")] == scale.to_code(4.0)
    assert on_hub[("d:1", "ana")] == scale.to_code(3.0)
    project.close()
    with Project.open(tmp_path / "organizer.simrate") as again:
        assert again.rating("d:1", "ana") == 3.0
