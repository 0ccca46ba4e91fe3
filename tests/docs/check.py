#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the rendered docs site as a reader's browser sees it.

For every HTML page of SITE: headless Chromium loads it and the page has
its main content; every diagram (a graphviz SVG) exists, is well-formed SVG
and draws nodes, and Chromium loads it; every internal link leads to a page
that exists and, with a #fragment, to an element with that id.  Screenshots
of the front page and one lab page go to SHOTS.

Usage: check.py SITE SHOTS [PAGE...]   (PAGE: only these pages)
Prints one line per problem and "N pages, N problems"; exits 1 on any.
"""
import html.parser
import os
import subprocess
import sys
import urllib.parse
import xml.etree.ElementTree as ET

CHROMIUM = ["chromium", "--headless", "--no-sandbox", "--disable-gpu",
            "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"]


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids = set()
        self.links = []
        self.diagrams = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        if tag == "object" and (a.get("data") or "").endswith(".svg"):
            self.diagrams.append(a["data"])
        if tag == "img" and "graphviz" in (a.get("src") or ""):
            self.diagrams.append(a["src"])


def parse(path):
    p = Page()
    with open(path, encoding="utf-8") as f:
        p.feed(f.read())
    return p


def chromium(args, profile):
    return subprocess.run(CHROMIUM + ["--user-data-dir=" + profile] + args,
                          capture_output=True, text=True, timeout=90)


def main():
    site, shots = sys.argv[1], sys.argv[2]
    only = sys.argv[3:]
    profile = os.path.join(shots, ".chromium-profile")
    os.makedirs(shots, exist_ok=True)
    pages = []
    for root, dirs, files in os.walk(site):
        dirs[:] = [d for d in dirs if not d.startswith(("_static", "_sources", "."))]
        for f in files:
            if f.endswith(".html"):
                pages.append(os.path.relpath(os.path.join(root, f), site))
    pages.sort()
    if only:
        pages = [p for p in pages if p in only]
    problems = []
    parsed = {}

    def page_of(path):
        if path not in parsed:
            parsed[path] = parse(os.path.join(site, path))
        return parsed[path]

    checked_svg = set()
    for page in pages:
        url = "file://" + os.path.abspath(os.path.join(site, page))
        r = chromium(["--dump-dom", url], profile)
        if r.returncode != 0 or 'role="main"' not in r.stdout:
            problems.append("%s: does not load in Chromium (exit %d)%s" % (
                page, r.returncode, ": " + r.stderr.strip()[-200:] if r.returncode else ""))
            continue
        p = page_of(page)
        base = os.path.dirname(page)
        for d in p.diagrams:
            svg = os.path.normpath(os.path.join(base, urllib.parse.unquote(d)))
            if svg in checked_svg:
                continue
            checked_svg.add(svg)
            full = os.path.join(site, svg)
            try:
                root = ET.parse(full).getroot()
            except (OSError, ET.ParseError) as e:
                problems.append("%s: diagram %s does not render: %s" % (page, d, e))
                continue
            nodes = [g for g in root.iter("{http://www.w3.org/2000/svg}g")
                     if g.get("class") == "node"]
            if not root.tag.endswith("svg") or not nodes:
                problems.append("%s: diagram %s draws nothing" % (page, d))
                continue
            r = chromium(["--dump-dom", "file://" + os.path.abspath(full)], profile)
            if r.returncode != 0 or "<svg" not in r.stdout:
                problems.append("%s: Chromium cannot load diagram %s" % (page, d))
        for link in p.links:
            u = urllib.parse.urlparse(link)
            if u.scheme or link.startswith(("mailto:", "//")):
                continue
            target = page if not u.path else os.path.normpath(
                os.path.join(base, urllib.parse.unquote(u.path)))
            if not os.path.exists(os.path.join(site, target)):
                problems.append("%s: link %s leads nowhere" % (page, link))
                continue
            if u.fragment and target.endswith(".html") and \
                    u.fragment not in page_of(target).ids:
                problems.append("%s: link %s: no #%s in %s" % (
                    page, link, u.fragment, target))

    for page, name in (("index.html", "front-page.png"),
                       ("labs/01-direct-access/index.html", "lab-page.png")):
        if os.path.exists(os.path.join(site, page)) and (not only or page in only):
            chromium(["--window-size=1200,2400", "--screenshot=" +
                      os.path.join(os.path.abspath(shots), name),
                      "file://" + os.path.abspath(os.path.join(site, page))], profile)
    for line in problems:
        print(line)
    print("docs in the browser: %d pages, %d diagrams, %d problems" % (
        len(pages), len(checked_svg), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
