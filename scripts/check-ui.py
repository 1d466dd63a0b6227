#!/usr/bin/env python3
"""The operator page in headless Chromium against a real Larder and a real origin (run by check-ui.sh).

The origin is an HTTP server in this process on 127.0.0.1: PNG images, a slow body of known length, a
stored SVG whose script would report to the origin if it ever ran, a text entry whose URL and headers
carry markup and quotes, and two entries tagged by the origin (Surrogate-Key, Cache-Tag). Larder runs with an admin token, so the page is reached through its login form.
"""

import argparse
import json
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from playwright.sync_api import sync_playwright

TOKEN = "check-ui-token-0123456789"
SLOW_LENGTH = 320 * 1024
SLOW_CHUNK = 8 * 1024
SLOW_EVERY = 0.2  # seconds: 40 chunks, about 8 s
HOSTILE = "<script>window.__pwned=1</script>\"'"
# Tagged entries, as origins tag them: Surrogate-Key (space-separated) and Cache-Tag (comma-separated).
TAGGED = {"/tagged/shirt.txt": ("Surrogate-Key", "check-ui-tag product-7"),
          "/tagged/socks.txt": ("Cache-Tag", "second-tag")}


def png(width, height, seed):
    """A valid RGB PNG with a gradient (zlib only: no imaging library needed)."""
    rows = bytearray()
    for y in range(height):
        rows.append(0)
        for x in range(width):
            rows += bytes(((x * 4 + seed * 60) % 256, (y * 4 + seed * 30) % 256, (128 + seed * 50) % 256))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(rows))) + chunk(b"IEND", b"")


class Origin(BaseHTTPRequestHandler):
    images = {f"/img/{name}.png": png(64, 64, seed) for seed, name in enumerate(["sunrise", "harbour", "meadow"])}
    seen = []
    lock = threading.Lock()

    def log_message(self, *args):
        pass

    def do_GET(self):
        with Origin.lock:
            Origin.seen.append(self.path)
        path = urllib.parse.urlsplit(self.path).path
        if path in Origin.images:
            return self.answer(200, Origin.images[path], "image/png")
        if path == "/slow.bin":
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(SLOW_LENGTH))
            self.send_header("Cache-Control", "max-age=3600")
            self.end_headers()
            for _ in range(SLOW_LENGTH // SLOW_CHUNK):
                self.wfile.write(b"s" * SLOW_CHUNK)
                self.wfile.flush()
                time.sleep(SLOW_EVERY)
            return None
        if path == "/unsized.bin":
            # No Content-Length: the body ends when the connection closes (HTTP/1.0), length unknown.
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Cache-Control", "max-age=3600")
            self.end_headers()
            for _ in range(20):
                self.wfile.write(b"u" * SLOW_CHUNK)
                self.wfile.flush()
                time.sleep(SLOW_EVERY)
            self.close_connection = True
            return None
        if path == "/evil.svg":
            # If this script ever runs, it tells the origin (and would try the page's own API).
            port = self.server.server_address[1]
            svg = (
                '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><script>'
                f"new Image().src='http://127.0.0.1:{port}/svg-ran';"
                "fetch('/cache',{method:'DELETE'});</script><rect width='40' height='40'/></svg>"
            )
            return self.answer(200, svg.encode(), "image/svg+xml")
        if path in TAGGED:
            return self.answer(200, b"tagged\n", "text/plain; charset=utf-8", [TAGGED[path]])
        if path == "/note.txt":
            return self.answer(200, b"a note\n", "text/plain; charset=utf-8", [("X-Note", HOSTILE)])
        if path == "/svg-ran":
            return self.answer(204, b"", "text/plain")
        # The background traffic's misses: answered, never stored, so the listing stays the test's own.
        return self.answer(200, b"fresh each time\n", "text/plain", cache_control="no-store")

    def answer(self, status, body, content_type, extra=(), cache_control="max-age=3600"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", cache_control)
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


def wait_until(page, expression, seconds):
    """Polls a JavaScript expression until it is truthy. Not Playwright's wait_for_function: that one
    evaluates its predicate with eval() inside the page, which the page's CSP refuses (and reports)."""
    deadline = time.time() + seconds
    while True:
        if page.evaluate(expression):
            return
        if time.time() > deadline:
            raise AssertionError(f"timed out after {seconds} s waiting for: {expression}")
        time.sleep(0.1)


class Check:
    def __init__(self, args):
        self.args = args
        self.failures = []
        self.work = tempfile.mkdtemp(prefix="check-ui-")
        self.origin = ThreadingHTTPServer(("127.0.0.1", 0), Origin)
        threading.Thread(target=self.origin.serve_forever, daemon=True).start()
        self.origin_base = f"http://127.0.0.1:{self.origin.server_address[1]}"
        self.log = open(f"{self.work}/larder.log", "w+")
        self.larder = subprocess.Popen(
            [args.larder, "serve", "--host", "127.0.0.1", "--port", "0", "--db", f"{self.work}/cache.db",
             "--admin-token", TOKEN, "--allow-network", "127.0.0.0/8", "--access-log", "false"],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.base = self.wait_for_port()

    def wait_for_port(self):
        deadline = time.time() + 20
        while time.time() < deadline:
            self.log.seek(0)
            for line in self.log.read().splitlines():
                if "listening on 127.0.0.1:" in line:
                    port = line.split("listening on 127.0.0.1:")[1].split()[0].strip('"\',}')
                    return f"http://127.0.0.1:{int(port)}"
            time.sleep(0.1)
        raise SystemExit("check-ui: larder did not start:\n" + open(f"{self.work}/larder.log").read())

    def close(self):
        self.larder.terminate()
        self.larder.wait(10)
        self.origin.shutdown()
        shutil.rmtree(self.work, ignore_errors=True)

    def expect(self, condition, what):
        print(("ok   " if condition else "FAIL ") + what, flush=True)
        if not condition:
            self.failures.append(what)

    def api(self, method, path, body=None, admin=True):
        request = urllib.request.Request(self.base + path, method=method, data=body)
        if admin:
            request.add_header("Authorization", f"Bearer {TOKEN}")
        if body is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read()

    def fetch(self, origin_path):
        # As a plain caller: a request with Authorization is never stored by a shared cache (RFC 9111 §3.5).
        url = "/fetch?url=" + urllib.parse.quote(self.origin_base + origin_path, safe="")
        status, headers, _ = self.api("GET", url, admin=False)
        return status, headers.get("X-Cache-Key"), headers.get("X-Cache")


def run(check, browser):
    # A filter before the default `images` one, owning PNGs only for WebKit user agents: explain must
    # name it for Safari and pass over it (with the reason) for curl.
    webkit = {"name": "webkit-png", "match": {"extensions": ["png"],
              "headers": {"User-Agent": {"contains": "AppleWebKit"}}}, "validate": "image"}
    status, _, body = check.api("POST", "/filters?before=images", json.dumps(webkit).encode())
    check.expect(status == 201, f"a filter is added before images ({status} {body[:120]!r})")

    keys = {}
    for path in list(Origin.images) + ["/evil.svg", "/note.txt"] + list(TAGGED):
        status, key, _ = check.fetch(path)
        check.expect(status == 200 and key, f"{path} is fetched through Larder")
        keys[path] = key
    # Hits, so that the overview's rates and chart have something to show.
    stop_traffic = threading.Event()

    def traffic():
        # Not meadow.png: the page purges it below, and a hit request right after would store it again.
        paths = ["/img/sunrise.png", "/img/harbour.png"]
        count = 0
        while not stop_traffic.is_set():
            try:
                check.fetch(paths[count % len(paths)])
                if count % 5 == 4:
                    check.fetch(f"/miss-{count}.txt")
            except OSError:
                return  # Larder stopped: the check is over.
            count += 1
            time.sleep(0.05)

    threading.Thread(target=traffic, daemon=True).start()

    context = browser.new_context(viewport={"width": 1280, "height": 860})
    # Every CSP violation, as the document reports it (an init script comes over DevTools, so the page's
    # own policy does not block it).
    context.add_init_script(
        "window.__csp = []; document.addEventListener('securitypolicyviolation',"
        " (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));")
    page = context.new_page()
    console_errors = []
    page.on("console", lambda message: console_errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: console_errors.append(f"uncaught: {error}"))
    failed_loads = []
    page.on("response", lambda r: failed_loads.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    dialogs = []
    answer = {"accept": True}

    def on_dialog(dialog):
        dialogs.append(dialog.message)
        if answer["accept"]:
            dialog.accept()
        else:
            dialog.dismiss()

    page.on("dialog", on_dialog)
    out = check.args.out

    # Login: the form, a wrong token, then the right one.
    page.goto(check.base + "/ui/")
    check.expect(page.locator("form[action='/ui/login']").count() == 1, "without a session /ui/ is the login form")
    page.fill("input[name=token]", "wrong")
    page.click("button[type=submit]")
    check.expect(page.locator(".failure").count() == 1, "a wrong token shows the failure line")
    page.fill("input[name=token]", TOKEN)
    page.click("button[type=submit]")
    page.wait_for_selector("#view-overview")
    # The wrong token's 401 is logged by the browser as a failed load, as it should be; from here on,
    # nothing may be.
    console_errors.clear()
    failed_loads.clear()
    cookies = {cookie["name"]: cookie for cookie in context.cookies()}
    session = cookies.get("larder_session", {})
    check.expect(session.get("httpOnly") is True and session.get("sameSite") == "Strict", "the cookie is HttpOnly, Strict")
    check.expect(page.evaluate("document.cookie") == "", "the page's script cannot read the session cookie")

    # Overview: figures and a chart after a few samples.
    wait_until(page, "document.getElementById('ov-entries').textContent !== '–'", 15)
    time.sleep(7)
    entries = page.text_content("#ov-entries")
    check.expect(
        entries is not None and int(entries.replace(",", "")) >= 5,
        f"overview counts the entries ({entries}; /metrics says "
        + str([line for line in urllib.request.urlopen(check.base + "/metrics").read().decode().splitlines()
               if line.startswith("larder_store_entries")]) + ")")
    check.expect("%" in (page.text_content("#ov-ratio") or ""), "overview shows a hit ratio")
    check.expect(page.locator("#ov-rates tr").count() == 5, "overview lists a rate per cache result")
    page.screenshot(path=f"{out}/overview.png", full_page=True)

    # In flight: a slow fetch shows a bar that advances, then goes when done.
    slow = threading.Thread(target=lambda: check.fetch("/slow.bin"), daemon=True)
    slow.start()
    unsized = threading.Thread(target=lambda: check.fetch("/unsized.bin"), daemon=True)
    unsized.start()
    page.click("a[href='#inflight']")
    # Other fetches come and go beside it (the background traffic's misses): find the slow one's row.
    slow_bar = ("[...document.querySelectorAll('#if-rows tr')].map((tr) => tr.querySelector('progress'))"
                ".find((p) => p && p.closest('tr').querySelector('td.url').textContent.endsWith('/slow.bin'))")
    wait_until(page, f"(() => {{ const p = {slow_bar}; return p && p.value > 0; }})()", 15)
    first = page.evaluate(f"(() => {{ const p = {slow_bar}; return [p.value, p.max]; }})()")
    check.expect(first[1] == SLOW_LENGTH, f"the bar's maximum is the body's length ({first[1]})")
    wait_until(page, f"(() => {{ const p = {slow_bar}; return p && p.value > {first[0]}; }})()", 15)
    second = page.evaluate(f"(() => {slow_bar})().value")
    check.expect(second > first[0], f"the progress bar advances ({first[0]} -> {second} of {SLOW_LENGTH})")
    unsized_bar = slow_bar.replace("/slow.bin", "/unsized.bin")
    wait_until(page, f"!!({unsized_bar})", 10)
    indeterminate = page.evaluate(f"(() => {{ const p = {unsized_bar}; return [p.hasAttribute('value'), p.position]; }})()")
    check.expect(indeterminate == [False, -1], f"a body of unknown length gets an indeterminate bar ({indeterminate})")
    page.screenshot(path=f"{out}/inflight.png", full_page=True)
    slow.join(30)
    unsized.join(30)
    wait_until(page, f"!({slow_bar})", 15)
    check.expect(True, "the row goes once the fetch completes")

    # Entries: thumbnails for the PNGs, none for the SVG, markup shown as text.
    page.click("a[href='#entries']")
    page.wait_for_selector("#en-rows tr")
    image_key = keys["/img/sunrise.png"]
    thumb = page.locator(f"#en-rows tr[data-key='{image_key}'] img")
    thumb.scroll_into_view_if_needed()
    wait_until(page, 
        f"(() => {{ const i = document.querySelector(\"#en-rows tr[data-key='{image_key}'] img\");"
        " return i && i.complete && i.naturalWidth > 0; })()", 15)
    check.expect(thumb.evaluate("i => i.naturalWidth") == 64, "the stored PNG's thumbnail is rendered (natural width 64)")
    svg_row = page.locator(f"#en-rows tr[data-key='{keys['/evil.svg']}']")
    check.expect(svg_row.locator("img").count() == 0, "the stored SVG gets no thumbnail")
    note_row = page.locator(f"#en-rows tr[data-key='{keys['/note.txt']}']")
    check.expect(note_row.count() == 1, "the text entry is listed")
    page.screenshot(path=f"{out}/entries.png", full_page=True)

    # The meta view of the text entry: its header's markup and quotes, as text.
    note_row.click()
    page.wait_for_selector("#meta[open]")
    cells = page.locator("#meta-headers tr")
    values = {cells.nth(i).locator("th").text_content(): cells.nth(i).locator("td").text_content()
              for i in range(cells.count())}
    check.expect(values.get("X-Note") == HOSTILE, f"a stored header with markup renders as text ({values.get('X-Note')!r})")
    check.expect(page.evaluate("window.__pwned") is None, "no stored markup ran")
    check.expect(page.locator("script").count() == 2, "the document holds only the page's own scripts")
    page.screenshot(path=f"{out}/meta.png")
    page.click("#meta-close")

    # Purge from the page: confirm, then the row and the entry are gone.
    purge_key = keys["/img/meadow.png"]
    page.click(f"#en-rows tr[data-key='{purge_key}']")
    page.wait_for_selector("#meta[open]")
    page.click("#meta-purge")
    wait_until(page, f"!document.querySelector(\"#en-rows tr[data-key='{purge_key}']\")", 10)
    check.expect(len(dialogs) == 1 and "meadow.png" in dialogs[0], "purge asks for confirmation first")
    status, _, _ = check.api("GET", f"/cache/{purge_key}/meta")
    check.expect(status == 404, f"the purged entry is gone from the store ({status})")

    check_tags(check, page, keys, dialogs, answer)

    # Filters: the chain in order, and explain naming the owner for each user agent.
    page.click("a[href='#filters']")
    page.wait_for_selector("#fi-chain li")
    names = page.locator("#fi-chain li strong").all_text_contents()
    check.expect(names == ["webkit-png", "images", "images-read-only"], f"the chain is listed in order ({names})")
    page.fill("#ex-form input[name=url]", check.origin_base + "/img/a.png")
    page.fill("#ex-form input[name=ua]", "Mozilla/5.0 (Macintosh) AppleWebKit/605.1.15 Safari/605.1.15")
    page.click("#ex-form button")
    wait_until(page, "document.getElementById('ex-owner').textContent === 'webkit-png'", 10)
    check.expect(True, "explain names webkit-png for a WebKit user agent")
    page.fill("#ex-form input[name=ua]", "curl/8.5")
    page.click("#ex-form button")
    wait_until(page, "document.getElementById('ex-owner').textContent === 'images'", 10)
    verdicts = page.locator("#ex-steps tr td:nth-child(2)").all_text_contents()
    check.expect(verdicts == ["header User-Agent", "owns", "not reached"],
                 f"explain says why webkit-png did not own it ({verdicts})")
    page.screenshot(path=f"{out}/filters.png", full_page=True)

    # The stored SVG, opened as a document from Larder's origin: its script must not run. The same SVG
    # from the origin itself does run, which shows that the check can fail.
    svg_page = context.new_page()
    svg_page.goto(f"{check.base}/cache/{keys['/evil.svg']}")
    time.sleep(1)
    check.expect("/svg-ran" not in Origin.seen, "the stored SVG opened from Larder runs nothing")
    svg_page.goto(check.origin_base + "/evil.svg")
    deadline = time.time() + 5
    while "/svg-ran" not in Origin.seen and time.time() < deadline:
        time.sleep(0.1)
    check.expect("/svg-ran" in Origin.seen, "the same SVG served by the origin does run (the check can fail)")
    svg_page.close()
    status, _, _ = check.api("GET", f"/cache/{keys['/img/sunrise.png']}/meta")
    check.expect(status == 200, "nothing was purged by the SVG's script")

    stop_traffic.set()
    violations = page.evaluate("window.__csp")
    check.expect(violations == [], f"the page violated no CSP rule ({violations})")
    check.expect(console_errors == [], f"the page logged no console error ({console_errors}; {failed_loads})")
    context.close()
    if check.args.docs:
        shutil.copyfile(f"{out}/entries.png", check.args.docs)
        print(f"copied the entries view to {check.args.docs}")


def check_tags(check, page, keys, dialogs, answer):
    """The tag filter lists by tags (several: a union), the meta view shows tags and staleSince, a soft
    purge marks an entry stale, and a tag purge, counted by a dry run before its confirmation, removes the
    tagged entry only."""
    shirt, socks, note = keys["/tagged/shirt.txt"], keys["/tagged/socks.txt"], keys["/note.txt"]

    def listed(tags=None, click="#en-form button[type=submit]"):
        # Empties the rows, fills the tags field, clicks what lists, and waits for the new listing.
        page.evaluate("document.getElementById('en-rows').replaceChildren()")
        if tags is not None:
            page.fill("#en-form input[name=tags]", tags)
        page.click(click)
        wait_until(page, "document.getElementById('en-rows').children.length > 0"
                   " || !document.getElementById('en-empty').hidden", 10)
        return set(page.evaluate("[...document.querySelectorAll('#en-rows tr')].map((tr) => tr.dataset.key)"))

    keys_listed = listed("check-ui-tag")
    check.expect(keys_listed == {shirt}, f"the tag filter lists the tagged entry only ({len(keys_listed)} rows)")
    check.expect(note not in keys_listed, "the tag filter hides an untagged entry")
    check.expect(listed("check-ui-tag, second-tag") == {shirt, socks}, "several tags list the union")
    check.expect(listed("no-such-tag") == set() and page.is_visible("#en-empty"), "an unknown tag lists nothing")
    listed("check-ui-tag second-tag")
    cell = page.text_content(f"#en-rows tr[data-key='{shirt}'] td.tags")
    check.expect(cell == "check-ui-tag product-7", f"the listing shows an entry's tags ({cell!r})")

    # The meta view: tags as buttons, no staleSince yet; a tag button lists that tag's entries.
    page.click(f"#en-rows tr[data-key='{shirt}']")
    page.wait_for_selector("#meta[open]")
    tags = page.locator("#meta-tags button").all_text_contents()
    check.expect(tags == ["check-ui-tag", "product-7"], f"the meta view shows the tags ({tags})")
    stale = page.evaluate("[...document.querySelectorAll('#meta-fields dt')].find((d) => d.textContent ==="
                          " 'stale since').nextElementSibling.textContent")
    check.expect(stale == "–", f"a fresh entry has no staleSince ({stale!r})")
    check.expect(listed(click="#meta-tags button:text-is('product-7')") == {shirt} and page.input_value("#en-form input[name=tags]") == "product-7",
                 "a tag in the meta view lists the entries carrying it")

    # A soft purge of one entry's URL from its meta view: counted, confirmed, then staleSince is set.
    listed("second-tag")
    page.click(f"#en-rows tr[data-key='{socks}']")
    page.wait_for_selector("#meta[open]")
    before = len(dialogs)
    page.click("#meta-stale")
    wait_until(page, "[...document.querySelectorAll('#meta-fields dt')].find((d) => d.textContent ==="
               " 'stale since').nextElementSibling.textContent.includes('soft purge')", 10)
    check.expect(dialogs[before:] and dialogs[before].startswith("Mark 1 entry of ") and "socks.txt" in dialogs[before],
                 f"a soft purge asks with the dry run's count first ({dialogs[before:]})")
    status, _, body = check.api("GET", f"/cache/{socks}/meta")
    check.expect(status == 200 and json.loads(body).get("staleSince"), "the soft-purged entry is kept, marked stale")
    page.click("#meta-close")

    # Both tags listed: the soft-purged entry is marked in its row.
    listed("check-ui-tag second-tag")
    marked = page.evaluate(f"getComputedStyle(document.querySelector(\"#en-rows tr[data-key='{socks}'] td.url\"),"
                           " '::after').content")
    check.expect("marked stale" in marked, f"the listing marks the soft-purged entry ({marked})")
    page.screenshot(path=f"{check.args.out}/entries-tags.png", full_page=True)

    # A tag purge from the listing: declined first (nothing changes), then accepted.
    listed("check-ui-tag")
    answer["accept"] = False
    before = len(dialogs)
    page.click("#en-purge")
    deadline = time.time() + 10
    while len(dialogs) == before and time.time() < deadline:
        # Playwright's sync API delivers events (the dialog) only inside its own calls: not time.sleep.
        page.wait_for_timeout(100)
    check.expect(dialogs[before:] == ["Purge 1 entry tagged check-ui-tag?"],
                 f"a tag purge asks with the dry run's count ({dialogs[before:]})")
    check.expect(check.api("GET", f"/cache/{shirt}/meta")[0] == 200, "a declined purge changes nothing")
    answer["accept"] = True
    page.click("#en-purge")
    # The page lists again once the purge is answered: the tag's listing is then empty.
    wait_until(page, "!document.getElementById('en-empty').hidden", 10)
    status = {name: check.api("GET", f"/cache/{key}/meta")[0] for name, key in
              [("shirt", shirt), ("socks", socks), ("note", note)]}
    check.expect(status == {"shirt": 404, "socks": 200, "note": 200},
                 f"the tag purge from the page removes the tagged entry only ({status})")
    check.expect(page.locator("#en-rows tr").count() == 0, "the listing is reloaded without the purged entry")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--larder", required=True)
    parser.add_argument("--chromium", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--docs")
    args = parser.parse_args()
    started = time.time()
    check = Check(args)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=args.chromium, headless=True, args=["--no-sandbox", "--disable-gpu"])
            try:
                run(check, browser)
            finally:
                browser.close()
    finally:
        check.close()
    print(f"screenshots in {args.out}/ (overview, inflight, entries, meta, entries-tags, filters); {time.time() - started:.0f} s")
    if check.failures:
        print(f"check-ui: {len(check.failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)
    print("check-ui: the operator page works in Chromium")


if __name__ == "__main__":
    main()
