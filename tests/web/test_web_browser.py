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


def rate_by_keys(driver, keys: str) -> str:
    """Type into the focused element (the score field) and press Enter; wait for the next
    page; returns what the field held when Enter was pressed."""
    from selenium.webdriver.common.keys import Keys

    before = driver.current_url
    focused = driver.switch_to.active_element
    assert focused.get_attribute("id") == "score"
    focused.send_keys(keys)
    typed = focused.get_attribute("value")
    focused.send_keys(Keys.ENTER)
    # the rating's answer is the next page; its own address replaces the POST's, so a
    # reload or Back asks for that page and never sends the rating again
    wait_for(lambda: driver.current_url != before and "/task" in driver.current_url)
    assert not driver.current_url.endswith("/rate")
    return typed


def landing_at_top(driver, url: str) -> None:
    """The landing page opens at its top, its title in view, Start focused."""
    from selenium.webdriver.common.by import By

    driver.get(url)
    start = driver.find_element(By.ID, "start")
    wait_for(lambda: driver.switch_to.active_element == start)
    assert driver.execute_script("return window.scrollY") == 0
    assert driver.find_element(By.ID, "title").rect["y"] >= 0


def no_wider_than_the_screen(driver) -> None:
    from selenium.webdriver.common.by import By

    inner = driver.execute_script("return window.innerWidth")
    assert driver.execute_script("return document.documentElement.scrollWidth") <= inner
    for name in ("score", "save", "left", "right"):
        box = driver.find_element(By.ID, name).rect
        assert box["x"] >= 0 and box["x"] + box["width"] <= inner, name


def worker_journey(driver, base: str, worker: str) -> list[str]:
    """A worker's whole task by keyboard: decimals typed, a value off the grid refused on
    the page, a pair corrected through "Previous pair", a reload, an error page and the
    way back from it (and Back after it), the code at the end. Returns the scores typed."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    link = f"{base}/study/s?PROLIFIC_PID={worker}&STUDY_ID=x&SESSION_ID=y"
    landing_at_top(driver, link)
    instructions = driver.find_element(By.ID, "instructions")
    assert "<img src=x" in instructions.text
    assert not instructions.find_elements(By.TAG_NAME, "img")
    assert len(instructions.find_elements(By.TAG_NAME, "strong")) == 30
    assert len(driver.find_elements(By.CSS_SELECTOR, "#consent li")) == 2
    start = driver.find_element(By.ID, "start")
    assert start.rect["y"] > driver.execute_script("return window.innerHeight")  # below the fold
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    wait_for(lambda: progress(driver) == "Pair 1 of 4")
    assert driver.title != "owned"
    assert driver.find_element(By.ID, "left").text == HOSTILE
    no_wider_than_the_screen(driver)
    typed = [rate_by_keys(driver, "3.25")]  # a decimal, key by key, stays as typed
    wait_for(lambda: progress(driver) == "Pair 2 of 4")
    field = driver.switch_to.active_element
    field.send_keys("2.3" + Keys.ENTER)  # off the grid: refused here, the field kept
    error = driver.find_element(By.ID, "score-error")
    wait_for(lambda: error.is_displayed())
    assert progress(driver) == "Pair 2 of 4"
    assert driver.switch_to.active_element.get_attribute("value") == "2.3"
    assert driver.switch_to.active_element.get_attribute("id") == "score"
    field.send_keys(Keys.BACKSPACE * 3)
    typed.append(rate_by_keys(driver, "2.5"))
    wait_for(lambda: progress(driver) == "Pair 3 of 4")
    driver.find_element(By.ID, "previous").click()  # correct pair 2
    wait_for(lambda: progress(driver) == "Pair 2 of 4")
    assert driver.find_element(By.ID, "saved").text.startswith("Saved: 2.5")
    assert driver.switch_to.active_element.get_attribute("value") == "2.5"
    typed.append(rate_by_keys(driver, "1.75"))  # the saved value is selected: replaced
    wait_for(lambda: progress(driver) == "Pair 3 of 4")
    assert driver.current_url.endswith("/study/s/task/3")
    driver.refresh()  # a reload asks for the pair's own page (a GET): it resumes here
    wait_for(lambda: progress(driver) == "Pair 3 of 4")
    driver.get(f"{base}/study/s/task/99")  # an error page has a way back
    back = driver.find_element(By.ID, "back")
    driver.back()  # and Back after it leaves a working form
    wait_for(lambda: progress(driver) == "Pair 3 of 4")
    typed.append(rate_by_keys(driver, "++"))  # from the middle (2), two steps up
    wait_for(lambda: progress(driver) == "Pair 4 of 4")
    driver.get(f"{base}/study/s/task/99")
    driver.find_element(By.ID, "back").click()
    wait_for(lambda: progress(driver) == "Pair 4 of 4")
    assert back is not None
    typed.append(rate_by_keys(driver, "-"))  # from the middle: one step down
    wait_for(lambda: driver.find_elements(By.ID, "completion-code"))
    code = driver.find_element(By.ID, "completion-code").text
    driver.get(link)  # reopening the link after finishing: the code again
    wait_for(lambda: driver.find_elements(By.ID, "completion-code"))
    assert driver.find_element(By.ID, "completion-code").text == code
    return typed


def stored_in_slot_order(project, worker: str) -> list[float]:
    ratings = project.ratings()
    mine = ratings[ratings["annotator"] == worker]
    order = project.team_tables.read(
        "SELECT i.id FROM web_slots s JOIN web_tasks t ON t.study = s.study AND "
        "t.task = s.task JOIN items i ON i.ord = s.item_ord WHERE t.worker = ? "
        "ORDER BY s.slot", (worker,))
    assert mine["seconds"].notna().all()
    return mine.set_index("item_id").loc[[i for (i,) in order], "score"].tolist()


#: Long enough that Start is below the fold on both windows; raw HTML in it stays text.
OPTIONS = {"instructions": "## How to rate\n\n" + "Read **both** texts first.\n\n" * 30 +
           "<img src=x onerror=alert(1)>",
           "consent": "- I am 18 or older\n- I agree to take part"}

TYPED = ["3.25", "2.5", "1.75", "2.5", "1.75"]
STORED = [3.25, 1.75, 2.5, 1.75]


def test_workers_type_decimals_correct_a_pair_and_get_the_code_on_a_phone_and_a_laptop(
        tmp_path, browser_factory):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    path = make_project(tmp_path / "p.simrate", items=8, checks=2, texts=(HOSTILE, "b & c"))
    with Project.open(path) as project:
        web.set_study(project, "s", per_task=3, checks=1, per_item=2,
                      completion_url="https://example.org/done?cc={code}&p={worker}",
                      completion_code="REQ-CODE-7", options=OPTIONS)
    with Server(path, free_port()) as server:
        typed = {}
        for worker, (width, height) in (("P1", (1366, 768)), ("P2", (360, 640))):
            typed[worker] = worker_journey(browser_factory(width, height), server.url, worker)
        # another browser with P1's link: not P1's task, but P1's code (P1 finished)
        fresh = browser_factory(360, 640)
        landing_at_top(fresh, f"{server.url}/study/s?PROLIFIC_PID=P1&STUDY_ID=x")
        fresh.switch_to.active_element.send_keys(Keys.ENTER)
        wait_for(lambda: fresh.find_elements(By.ID, "completion-code"))
        assert fresh.find_element(By.ID, "completion-code").text == "REQ-CODE-7"
        link = fresh.find_element(By.ID, "completion-link").get_attribute("href")
        assert link == "https://example.org/done?cc=REQ-CODE-7&p=P1"
        assert fresh.find_elements(By.ID, "copy-code")[0].is_displayed()
        assert server.stop()[0] == 0
    assert typed == {"P1": TYPED, "P2": TYPED}
    with Project.open(path) as project:
        for worker in ("P1", "P2"):
            assert stored_in_slot_order(project, worker) == STORED
        kinds = project.team_tables.read("SELECT name, kind FROM annotators WHERE name "
                                         "LIKE 'P%' ORDER BY name")
    assert kinds == [("P1", "crowd"), ("P2", "crowd")]
