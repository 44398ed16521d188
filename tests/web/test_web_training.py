"""crowd study --training N --pass RULE --screen-out-code CODE on a real simrate serve:
practice pairs with feedback, then the real pairs or the screen-out page; the practice
never reaches the ratings. Over HTTP, and by keyboard in headless Chromium at 360 and
1366 px."""

from __future__ import annotations

import re

import httpx

from simrate.core.project import Project
from tests.cli.helpers import simrate
from tests.web.client import completion_code, form_of, item_page, start
from tests.web.projects import make_project
from tests.web.servers import Server, free_port
from tests.web.test_web_browser import (  # noqa: F401 (browser_factory: a fixture)
    browser_factory,
    landing_at_top,
    no_wider_than_the_screen,
    progress,
    wait_for,
)

#: make_project's check items with checks=6: c1..c6 known n % 5.
KNOWN = {f"c{n}": float(n % 5) for n in range(1, 7)}


def study(path, *more) -> None:
    made = simrate_quiet("crowd", "study", path, "s", "--per-task", 3, "--checks", 1,
                         "--training", 3, "--pass", "3@1", "--screen-out-code", "SCREENED7",
                         "--completion-code", "FULLCODE", *more)
    assert made.returncode == 0, made.stderr


def simrate_quiet(*args):
    import subprocess
    import sys

    from tests.web.servers import ROOT
    return subprocess.run([sys.executable, "-m", "simrate", *map(str, args)], text=True,
                          capture_output=True, timeout=120, env={"PYTHONPATH": str(ROOT),
                                                                 "PATH": "/usr/bin:/bin"})


def left_id(text: str) -> str:
    return re.search(r'id="left">left text ([^<]*)<', text).group(1)


def practise(client, off: float) -> list[str]:
    """Answer the three practice pairs `off` from their reference; the feedback lines."""
    lines = []
    for n in range(1, 4):
        page = item_page(client, "s")
        assert f"Practice pair {n} of 3" in page.text and 'id="practice"' in page.text
        known = KNOWN[left_id(page.text)]
        score = f"{min(4.0, known + off) if known < 2 else known - off:g}"
        form = form_of(page.text)
        form["score"] = score
        answer = client.post("/study/s/rate", data=form, follow_redirects=True)
        assert answer.status_code == 200 and 'id="feedback"' in answer.text
        lines.append(re.search(r'id="feedback"[^>]*>([^<]*)<', answer.text).group(1))
        assert ("Go on" if n == 3 else "Next practice pair") in answer.text
    return lines


def test_practice_then_real_pairs_or_the_screen_out_code(tmp_path, capsys):
    path = make_project(tmp_path / "p.simrate", items=30, checks=6)
    study(path)
    with Server(path) as server:
        with httpx.Client(base_url=server.url) as client:
            assert start(client, "s", "KEEN").status_code == 303
            lines = practise(client, off=0.5)
            assert all(re.fullmatch(r"The reference score is \d\. You gave [\d.]+: 0\.5 "
                                    r"points (above|below) the reference\.", line) for line in lines)
            page = item_page(client, "s")  # passed: the real pairs
            assert "Pair 4 of 7" in page.text and 'id="practice"' not in page.text
            for _ in range(4):
                form = form_of(page.text)
                form["score"] = "2"
                page = client.post("/study/s/rate", data=form, follow_redirects=True)
            assert completion_code(page.text) == "FULLCODE"
        with httpx.Client(base_url=server.url) as client:
            assert start(client, "s", "WILD").status_code == 303
            practise(client, off=2.0)
            page = item_page(client, "s")
            assert completion_code(page.text) == "SCREENED7" and "practice answers" in page.text
        with httpx.Client(base_url=server.url) as other:  # the link again: that code
            again = start(other, "s", "WILD")
            assert completion_code(again.text) == "SCREENED7"
        review = simrate(capsys, "crowd", "review", path, "s", "--json").json()
        assert server.stop()[0] == 0
    assert {w["worker"]: w["decision"] for w in review["workers"]} == {
        "KEEN": "approve", "WILD": "screened_out"}
    keen = next(w for w in review["workers"] if w["worker"] == "KEEN")
    assert keen["ratings"] == 4 and keen["checks"] == 1
    with Project.open(path) as project:  # practice never reaches the ratings
        practice = {i for (i,) in project.team_tables.read(
            "SELECT i.id FROM web_slots s JOIN items i ON i.ord = s.item_ord JOIN web_tasks t "
            "ON t.study = s.study AND t.task = s.task WHERE s.is_check = 2 AND t.worker = 'KEEN'")}
        ratings = project.ratings()
        mine = set(ratings.loc[ratings["annotator"] == "KEEN", "item_id"])
        assert len(practice) == 3 and not practice & mine and len(mine) == 4
        assert "WILD" not in project.annotators()  # screened out before a real rating
        answers = project.team_tables.read("SELECT COUNT(*) FROM web_training")[0][0]
        assert answers == 6


def test_training_settings_are_checked(tmp_path):
    path = make_project(tmp_path / "p.simrate", items=6, checks=3)
    for args, words in ((("--training", 2), "--screen-out-code"),
                        (("--training", 3, "--checks", 1, "--screen-out-code", "X1"),
                         "need 4 check items"),
                        (("--training", 2, "--pass", "half", "--screen-out-code", "X1"),
                         "--pass"),
                        (("--training", 2, "--pass", "3@1", "--screen-out-code", "X1"),
                         "asks for 3 answers")):
        made = simrate_quiet("crowd", "study", path, "s", "--per-task", 2, *args)
        assert made.returncode == 2 and words in made.stderr, made.stderr
        assert made.stderr.count("\n") == 1


def keyboard_practice(driver, base: str, worker: str, off: float) -> str:
    """Practice by keyboard in the browser: type, Enter, read the feedback, Enter on
    Go on; returns the first page after the practice (its progress, or the code)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    landing_at_top(driver, f"{base}/study/s?PROLIFIC_PID={worker}&STUDY_ID=x&SESSION_ID=y")
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    for n in range(1, 4):
        wait_for(lambda n=n: progress(driver) == f"Practice pair {n} of 3")
        assert driver.find_element(By.ID, "practice").is_displayed()
        no_wider_than_the_screen(driver)
        known = KNOWN[driver.find_element(By.ID, "left").text.removeprefix("left text ")]
        field = driver.switch_to.active_element  # the feedback comes at the same address
        assert field.get_attribute("id") == "score"
        field.send_keys(f"{known - off if known >= 2 else known + off:g}" + Keys.ENTER)
        wait_for(lambda: driver.find_elements(By.ID, "feedback"))
        assert driver.find_element(By.ID, "feedback").text.startswith(
            f"The reference score is {known:g}.")
        go = driver.find_element(By.ID, "continue")
        inner = driver.execute_script("return window.innerWidth")
        assert go.rect["x"] + go.rect["width"] <= inner
        assert driver.execute_script("return document.documentElement.scrollWidth") <= inner
        wait_for(lambda go=go: driver.switch_to.active_element == go)  # Enter goes on
        before = driver.current_url
        driver.switch_to.active_element.send_keys(Keys.ENTER)
        wait_for(lambda before=before: driver.current_url != before)
    wait_for(lambda: progress(driver) or driver.find_elements(By.ID, "completion-code"))
    codes = driver.find_elements(By.ID, "completion-code")
    return codes[0].text if codes else progress(driver)


def test_practice_by_keyboard_on_a_phone_and_a_laptop(tmp_path, browser_factory):  # noqa: F811
    path = make_project(tmp_path / "p.simrate", items=20, checks=6)
    study(path)
    with Server(path, free_port()) as server:
        for worker, size, off, after in (("L1", (1366, 768), 0.25, "Pair 4 of 7"),
                                         ("S1", (360, 640), 0.25, "Pair 4 of 7"),
                                         ("S2", (360, 640), 2.0, "SCREENED7")):
            driver = browser_factory(*size)
            assert keyboard_practice(driver, server.url, worker, off) == after
        assert server.stop()[0] == 0
