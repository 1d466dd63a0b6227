#!/usr/bin/env python3
"""Keeps Larder's operator page open in headless Chromium for Benchmarks/ui/run.sh.

Logs in through the page's form with the admin token, opens the in-flight view (the view whose refresh
asks the most: /metrics and /fetches every 2 s), prints "ready" once the first refresh is answered, and
stays open, the page refreshing itself, until the stop file exists. Then it prints how many refreshes the
page made (answers to /metrics it received) and exits.
"""

import argparse
import os
import sys
import time

from playwright.sync_api import sync_playwright


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True, help="http://127.0.0.1:PORT")
    parser.add_argument("--token", required=True)
    parser.add_argument("--chromium", required=True)
    parser.add_argument("--stop", required=True, help="a path; the page closes once it exists")
    args = parser.parse_args()
    refreshes = {"metrics": 0, "fetches": 0, "failed": 0}

    def on_response(response):
        path = response.url.split("?")[0]
        if response.status != 200:
            refreshes["failed"] += 1
        elif path.endswith("/metrics"):
            refreshes["metrics"] += 1
        elif path.endswith("/fetches"):
            refreshes["fetches"] += 1

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=args.chromium, headless=True, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        page.goto(args.base + "/ui/")
        page.fill("input[name=token]", args.token)
        page.click("button[type=submit]")
        page.wait_for_selector("#view-overview")
        page.on("response", on_response)
        page.click("a[href='#inflight']")
        deadline = time.time() + 15
        while refreshes["metrics"] == 0 and time.time() < deadline:
            page.wait_for_timeout(100)
        if refreshes["metrics"] == 0:
            sys.exit("page.py: the page made no refresh in 15 s")
        print("ready", flush=True)
        while not os.path.exists(args.stop):
            # Playwright's own wait: the page's timers and requests go on meanwhile.
            page.wait_for_timeout(200)
        browser.close()
    print(f"refreshes {refreshes['metrics']} fetches {refreshes['fetches']} failed {refreshes['failed']}", flush=True)


if __name__ == "__main__":
    main()
