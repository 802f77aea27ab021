#!/usr/bin/env python3
"""The HTML report in a real browser (Debian's chromium, headless).

Simulates a 184-tile ring all-reduce (366 supersteps), writes its page with `s2p-sim run --html`
and checks that
  (a) the page loads with no console message at all (errors, uncaught exceptions, blocked
      fetches: the page's Content-Security-Policy reports any), seen both in chromium's log and
      by handlers a probe copy of the page installs before anything else runs;
  (b) a screenshot (1400 x 2000) is drawn: the whole picture has many colours, and the places
      where the browser laid out the totals, the timeline, the tile map and the memory chart hold
      their own colours (the three phase colours; tile squares; memory bars and the SRAM line;
      every tile's memory square);
  (c) the DOM holds the timeline's groups (two: reduce-scatter and all-gather) with a row for
      every superstep, one square per tile, the memory bars of the 32 fullest tiles, a memory
      square for every one of the 184 tiles and the memory map over time.
Exits 77 (CTest SKIP_RETURN_CODE) when no chromium is installed. Standard library only.
"""
import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import zlib

SKIP = 77
TILES = 184
SUPERSTEPS = 2 * (TILES - 1)
WIDTH, HEIGHT = 1400, 2000

# Phase colours of the page (sync, exchange, compute; compute's is also memory's data).
SYNC, EXCHANGE, COMPUTE = (0xBA, 0xB0, 0xAC), (0xF2, 0x8E, 0x2B), (0x4E, 0x79, 0xA7)

# Installed first in the probe copy, before the page's own policy: records errors, console
# errors and policy violations, and on load writes them with the sections' places and element
# counts into a <pre> at the end of the body (after everything drawn, so nothing moves).
PROBE = """<script>
window.s2pErrors = [];
addEventListener('error', e => s2pErrors.push('error: ' + e.message));
document.addEventListener('securitypolicyviolation',
  e => s2pErrors.push('blocked: ' + e.violatedDirective + ' ' + e.blockedURI));
for (const level of ['error', 'warn']) {
  const original = console[level];
  console[level] = (...args) => { s2pErrors.push(level + ': ' + args.join(' ')); original(...args); };
}
addEventListener('load', () => {
  const count = selector => document.querySelectorAll(selector).length;
  const probe = {errors: s2pErrors, sections: {},
    groups: count('#timeline details.group'),
    group_rows: count('#timeline details.group > summary'),
    step_rows: count('#timeline table.steps tr > td:first-child'),
    tile_squares: count('#tiles rect.tile'),
    memory_bars: count('#memory svg:not(#memory-all) rect:not(.mem-tile)'),
    memory_squares: count('#memory-all rect.mem-tile'),
    memory_map_stretches: count('#memory-time rect'),
    total_segments: count('#totals .bar i')};
  for (const id of ['totals', 'timeline', 'tiles', 'memory', 'memory-all']) {
    const element = document.getElementById(id);
    if (!element) continue;
    const r = element.getBoundingClientRect();
    probe.sections[id] = [r.left + scrollX, r.top + scrollY, r.width, r.height];
  }
  const pre = document.createElement('pre');
  pre.id = 's2p-probe';
  pre.textContent = JSON.stringify(probe);
  document.body.appendChild(pre);
});
</script>
"""


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run(command, timeout=120, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, **kwargs)
    if result.returncode != 0:
        raise Failure(f"{' '.join(command)} exited with {result.returncode}:\n{result.stderr}")
    return result


def chromium(browser, work, *arguments):
    """Runs headless chromium on its own profile; returns (stdout, console lines of its log)."""
    command = [browser, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
               "--hide-scrollbars", f"--user-data-dir={os.path.join(work, 'profile')}",
               "--enable-logging=stderr", "--v=0", f"--window-size={WIDTH},{HEIGHT}", *arguments]
    result = run(command)
    console = [line for line in result.stderr.splitlines()
               if ":CONSOLE" in line or "Uncaught" in line]
    return result.stdout, console


def png_pixels(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    check(data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG")
    at, idat, header = 8, b"", None
    while at < len(data):
        length = int.from_bytes(data[at:at + 4], "big")
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    width, height = int.from_bytes(header[0:4], "big"), int.from_bytes(header[4:8], "big")
    depth, colour_type, interlace = header[8], header[9], header[12]
    check(depth == 8 and colour_type in (2, 6) and interlace == 0,
          f"{path}: PNG depth {depth}, colour type {colour_type}, interlace {interlace} not read")
    channels = 3 if colour_type == 2 else 4
    raw, stride = zlib.decompress(idat), width * channels
    # Bytewise (a + b) mod 256 of whole rows at once, for the "up" filter most rows use:
    # the low seven bits of each byte add without reaching the next byte, the top bit by xor.
    low, high = int.from_bytes(b"\x7f" * stride, "big"), int.from_bytes(b"\x80" * stride, "big")

    def add_rows(a, b):
        x, y = int.from_bytes(a, "big"), int.from_bytes(b, "big")
        return bytearray((((x & low) + (y & low)) ^ ((x ^ y) & high)).to_bytes(stride, "big"))

    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        filter_type, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if filter_type == 2:
            line = add_rows(line, previous)
        for x in range(stride if filter_type in (1, 3, 4) else 0):
            left = line[x - channels] if x >= channels else 0
            up, up_left = previous[x], previous[x - channels] if x >= channels else 0
            if filter_type == 1:
                line[x] = (line[x] + left) & 0xFF
            elif filter_type == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif filter_type == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else up_left)) & 0xFF
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, channels)])
        previous = line
    return width, height, rows


def near(pixel, colour, tolerance=8):
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour))


def region(rows, box, scale):
    """The pixels of a section's box [left, top, width, height] (CSS pixels) on the screenshot."""
    left, top, width, height = (round(v * scale) for v in box)
    check(top < len(rows), f"section at y={top} lies below the {len(rows)}-pixel screenshot")
    return [pixel for row in rows[max(top, 0):min(top + height, len(rows))]
            for pixel in row[max(left, 0):left + width]]


def count_near(pixels, colour):
    return sum(1 for p in pixels if near(p, colour))


def check_drawn(rows, sections, scale):
    colours = set()
    for row in rows:
        colours.update(row)
    check(len(colours) >= 20, f"screenshot looks blank: {len(colours)} colours")
    for name in ("totals", "timeline", "tiles", "memory", "memory-all"):
        check(name in sections, f"no #{name} section on the page")
    totals, timeline = region(rows, sections["totals"], scale), region(rows, sections["timeline"], scale)
    for colour, phase in ((SYNC, "sync"), (EXCHANGE, "exchange"), (COMPUTE, "compute")):
        check(count_near(totals, colour) >= 200, f"totals: the {phase} share is not drawn")
        check(count_near(timeline, colour) >= 50, f"timeline: {phase} is not drawn in the group bars")
    tiles = region(rows, sections["tiles"], scale)
    squares = sum(1 for p in tiles if p != (255, 255, 255) and p[2] > p[0])  # busy colours are blue-ish
    check(squares >= TILES * 9, f"tile map: {squares} bluish pixels for {TILES} tiles")
    memory = region(rows, sections["memory"], scale)
    check(count_near(memory, COMPUTE) >= 32 * 20, "memory: the bars are not drawn")
    # The 1-pixel line falls between pixels and is drawn blended: count reddish pixels.
    line = sum(1 for p in memory if p[0] - p[1] > 40 and p[0] - p[2] > 40)
    check(line >= 20, "memory: the SRAM line is not drawn")
    every = region(rows, sections["memory-all"], scale)
    squares = sum(1 for p in every if p != (255, 255, 255) and p[2] > p[0])  # fill is blue-ish
    check(squares >= TILES * 9, f"memory of every tile: {squares} bluish pixels for {TILES} tiles")


def check_dom(dom):
    match = re.search(r'<pre id="s2p-probe">(.*?)</pre>', dom, re.S)
    check(match, "the probe found no loaded page (no load event?)")
    probe = json.loads(html.unescape(match.group(1)))
    check(not probe["errors"], "the page reported errors:\n" + "\n".join(probe["errors"]))
    expected = {"groups": 2, "group_rows": 2, "step_rows": SUPERSTEPS, "tile_squares": TILES,
                "memory_squares": TILES, "total_segments": 3}
    for key, value in expected.items():
        check(probe[key] == value, f"DOM: {key} is {probe[key]}, expected {value}")
    check(probe["memory_bars"] >= 32, f"DOM: {probe['memory_bars']} memory bars, expected 32 or more")
    # The memory map over time: a row for each of the 32 fullest tiles, one stretch each (a ring's
    # buffers are live throughout).
    check(probe["memory_map_stretches"] == 32,
          f"DOM: {probe['memory_map_stretches']} stretches in the memory map over time, expected 32")
    return probe["sections"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sim", required=True, help="the s2p-sim executable")
    parser.add_argument("--work", required=True, help="a scratch folder (emptied)")
    parser.add_argument("--browser", default=os.environ.get("S2P_CHROMIUM", "chromium"))
    arguments = parser.parse_args()
    browser = shutil.which(arguments.browser)
    if browser is None:
        print(f"SKIP: {arguments.browser} is not installed (apt-get install chromium)")
        return SKIP
    work = os.path.abspath(arguments.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    schedule, report, page = (os.path.join(work, name) for name in ("s.json", "r.json", "r.html"))
    try:
        run([arguments.sim, "gen", "allreduce", "--tiles", str(TILES), "--bytes", "64K", "-o", schedule])
        run([arguments.sim, "run", schedule, "--report", report, "--html", page, "--quiet"])
        with open(page, encoding="utf-8") as f:
            text = f.read()
        check("<head>" in text, "the page has no <head>")
        probe_page = os.path.join(work, "probe.html")
        with open(probe_page, "w", encoding="utf-8") as f:
            f.write(text.replace("<head>", "<head>\n" + PROBE, 1))
        dom, console = chromium(browser, work, "--dump-dom", "file://" + probe_page)
        check(not console, "console messages while loading the page:\n" + "\n".join(console))
        sections = check_dom(dom)
        shot = os.path.join(work, "r.png")
        _, console = chromium(browser, work, f"--screenshot={shot}", "file://" + page)
        check(not console, "console messages while drawing the page:\n" + "\n".join(console))
        check(os.path.exists(shot), "chromium wrote no screenshot")
        width, _, rows = png_pixels(shot)
        check_drawn(rows, sections, width / WIDTH)
    except (Failure, subprocess.TimeoutExpired) as failure:
        print(f"FAIL: {failure}")
        return 1
    print(f"ok: {SUPERSTEPS} supersteps in 2 groups, {TILES} tiles, drawn in {shot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
