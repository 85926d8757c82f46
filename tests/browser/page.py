"""What the browser tests share: a headless Chromium driven by WebDriver (selenium) on the page
that `rajapasu serve` answers at ADDRESS, and the reads every script makes of it."""

import json
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

SIZES = {"laptop": (1280, 800, False), "phone": (390, 844, True)}


def browser():
    options = webdriver.ChromeOptions()
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1100", "--disable-dev-shm-usage"]:
        options.add_argument(arg)
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(60)
    return driver


class Page:
    """The served page in one browser; `patience` is how long a wait lasts unless told."""

    def __init__(self, address, patience=60):
        self.address = address
        self.patience = patience
        self.driver = browser()

    def wait(self, condition, what, seconds=None):
        end = time.time() + (seconds or self.patience)
        while time.time() < end:
            value = condition()
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError("timed out waiting for " + (what() if callable(what) else what))

    def body(self, name):
        return self.driver.find_element(By.TAG_NAME, "body").get_attribute("data-" + name)

    def ready(self):
        return self.body("ready") == "true"

    def open_state(self, fragment):
        self.driver.get("about:blank")
        self.driver.get("http://" + self.address + "/#" + fragment)
        self.wait(self.ready, "the page of " + fragment)

    def text(self, element_id):
        return self.driver.find_element(By.ID, element_id).text

    def api(self, path):
        with urllib.request.urlopen("http://" + self.address + path) as r:
            return json.loads(r.read())

    def console_errors(self):
        return [e["message"] for e in self.driver.get_log("browser") if e["level"] == "SEVERE"]

    def viewport(self, name):
        """The page's viewport exactly at the named size (the window's own bars aside)."""
        width, height, mobile = SIZES[name]
        self.driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
        )
