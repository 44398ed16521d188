"""The web page in a real browser: Debian's chromium driven by Selenium, headless.

Two workers rate a whole task with the keyboard only (one of them reloads midway, one on a
phone-wide window of 360 px); the ratings are then read from the project file. In CI (CI
set) a missing chromium or chromium-driver fails the test instead of skipping it.
"""

from __future__ import annotations

import os
import shutil
import time

import pytest

from simrate.core.project import Project
from simrate.core.team import web_study as web
from tests.web.projects import make_project
from tests.web.servers import Server, free_port

HOSTILE = '<script>document.title="owned"</script>'


def _browser_paths() -> tuple[str, str]:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not (chromium and driver):
        message = "chromium and chromium-driver are needed (apt-get install chromium chromium-driver)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return chromium, driver


@pytest.fixture
def browser_factory():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver_path = _browser_paths()
    made = []

    def make(width: int = 1100, height: int = 900):
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", f"--window-size={width},{height}"):
            options.add_argument(argument)
        driver = webdriver.Chrome(service=Service(driver_path), options=options)
        driver.set_page_load_timeout(30)
        made.append(driver)
        return driver

    yield make
    for driver in made:
        driver.quit()


def wait_for(condition, timeout: float = 15.0):
    deadline = time.monotonic() + timeout
    while True:
        try:
            found = condition()
            if found:
                return found
        except Exception:  # noqa: BLE001 - a page between two loads
            if time.monotonic() > deadline:
                raise
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting in the browser")
        time.sleep(0.05)


def progress(driver) -> str:
    from selenium.webdriver.common.by import By

    found = driver.find_elements(By.ID, "progress")
    return found[0].text if found else ""


def rate_by_keys(driver, keys: str) -> None:
    """Type into the focused element (the score field) and press Enter; wait for the next."""
    from selenium.webdriver.common.keys import Keys

    before = progress(driver)
    focused = driver.switch_to.active_element
    assert focused.get_attribute("id") == "score"
    focused.send_keys(keys)
    typed = focused.get_attribute("value")
    focused.send_keys(Keys.ENTER)
    wait_for(lambda: progress(driver) != before or "completion-code" in driver.page_source)
    return typed


def test_two_workers_rate_a_whole_task_by_keyboard_with_a_reload_and_on_a_phone(
        tmp_path, browser_factory):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    port = free_port()
    path = make_project(tmp_path / "p.simrate", items=8, checks=2, texts=(HOSTILE, "b & c"))
    with Project.open(path) as project:
        web.set_study(project, "s", per_task=3, checks=1, per_item=2,
                      completion_url=f"http://127.0.0.1:{port}/?finished")
        code = web.get_study(project, "s").code
    with Server(path, port) as server:
        typed: dict[str, list[str]] = {"P1": [], "P2": []}
        for worker, width in (("P1", 1100), ("P2", 360)):
            driver = browser_factory(width, 800)
            driver.get(f"{server.url}/study/s?PROLIFIC_PID={worker}&STUDY_ID=x&SESSION_ID=y")
            start = driver.find_element(By.ID, "start")
            assert driver.switch_to.active_element == start
            start.send_keys(Keys.ENTER)
            wait_for(lambda d=driver: progress(d) == "Pair 1 of 4")
            assert driver.title != "owned"
            assert driver.find_element(By.ID, "left").text == HOSTILE
            if width == 360:  # usable on a phone: nothing wider than the screen
                inner = driver.execute_script("return window.innerWidth")
                assert driver.execute_script(
                    "return document.documentElement.scrollWidth") <= inner
                for name in ("score", "save", "left", "right"):
                    box = driver.find_element(By.ID, name).rect
                    assert box["x"] >= 0 and box["x"] + box["width"] <= inner, name
            # digits set the score, + and - move by the step, Enter saves
            typed[worker].append(rate_by_keys(driver, "3+"))       # 3.25
            typed[worker].append(rate_by_keys(driver, "2--"))      # 1.5
            driver.refresh()  # resumes at the first unrated item
            wait_for(lambda d=driver: progress(d) == "Pair 3 of 4")
            typed[worker].append(rate_by_keys(driver, "+"))        # from empty: the bottom
            typed[worker].append(rate_by_keys(driver, "9-4"))      # 9 is off the scale: 4
            assert driver.find_element(By.ID, "completion-code").text == code
            driver.refresh()
            assert driver.find_element(By.ID, "completion-code").text == code
            wait_for(lambda d=driver: d.current_url.endswith("/?finished"), 10)
        assert server.stop()[0] == 0
    assert typed == {"P1": ["3.25", "1.5", "0", "4"], "P2": ["3.25", "1.5", "0", "4"]}
    with Project.open(path) as project:
        ratings = project.ratings()
        for worker in ("P1", "P2"):
            mine = ratings[ratings["annotator"] == worker]
            order = project.team_tables.read(
                "SELECT i.id FROM web_slots s JOIN web_tasks t ON t.study = s.study AND "
                "t.task = s.task JOIN items i ON i.ord = s.item_ord WHERE t.worker = ? "
                "ORDER BY s.slot", (worker,))
            scores = mine.set_index("item_id").loc[[i for (i,) in order], "score"].tolist()
            assert scores == [3.25, 1.5, 0.0, 4.0]
            assert mine["seconds"].notna().all()
        kinds = project.team_tables.read("SELECT name, kind FROM annotators WHERE name "
                                         "LIKE 'P%' ORDER BY name")
    assert kinds == [("P1", "crowd"), ("P2", "crowd")]
