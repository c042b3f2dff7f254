#!/usr/bin/python3
"""report_checks.py - checks of ehelf-stats' HTML report as a browser shows
it, for tests/stats/run-stats-figures-test.sh.  Debian's python3 (PIL from
python3-pil).

    report_checks.py static REPORT.html
        the report stands without JavaScript: no <script>, no event handler
        attribute, no javascript: URL; it has tables and plots (<svg>)
    report_checks.py probe REPORT.html OUT.html
        OUT: a copy of the report with a script appended that measures the
        layout after load and writes the results, as JSON, into
        <pre id="ehelf-probe-results"> (read back from chromium --dump-dom)
    report_checks.py layout DOM.html
        the measurements of a dumped probe: every <svg> has a box and drawn
        marks, no table cell's content overflows it, no table is wider than
        its container (unless that scrolls) or the window; prints the page's
        height on stdout
    report_checks.py screenshot REPORT.html DOM.html SHOT.png
        the screenshot is not blank and shows every fill colour the page
        declares for its plots (CSS fill declarations and fill attributes,
        read from the HTML) that the browser drew on a mark
    report_checks.py pdf REPORT.html REPORT.pdf PDF.txt
        the printed PDF is a PDF with pages, and its text (pdftotext)
        carries the report's table titles

Each prints "  ok: ..." or "  FAIL: ..." lines (tests/common/checks.sh
style) and exits with the number of failures.
"""
import html
import json
import re
import sys
from html.parser import HTMLParser

fails = 0


def ok(msg):
    print("  ok: %s" % msg)


def bad(msg):
    global fails
    print("  FAIL: %s" % msg, file=sys.stderr)
    fails += 1


# ---- static -------------------------------------------------------------------

class Scan(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = {}
        self.handlers = []
        self.js_urls = []
        self.styles = []
        self.fill_attrs = []
        self.in_style = False
        self.h2 = []
        self.in_h = None

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        for k, v in attrs:
            if k.lower().startswith("on"):
                self.handlers.append("<%s %s=...>" % (tag, k))
            if v and k.lower() in ("href", "src", "action", "xlink:href") and \
                    v.strip().lower().startswith("javascript:"):
                self.js_urls.append("<%s %s=%r>" % (tag, k, v))
            if k.lower() == "fill" and v:
                self.fill_attrs.append(v)
            if k.lower() == "style" and v:
                self.styles.append(v)
        if tag == "style":
            self.in_style = True
        if tag in ("h1", "h2", "h3", "caption"):
            self.in_h = tag
            self.h2.append("")

    def handle_endtag(self, tag):
        if tag == "style":
            self.in_style = False
        if tag == self.in_h:
            self.in_h = None

    def handle_data(self, data):
        if self.in_style:
            self.styles.append(data)
        if self.in_h:
            self.h2[-1] += data


def scan(path):
    s = Scan()
    s.feed(open(path, encoding="utf-8").read())
    s.close()
    return s


def cmd_static(report):
    s = scan(report)
    if s.tags.get("script"):
        bad("the report has %d <script> element(s): it must need no JavaScript"
            % s.tags["script"])
    else:
        ok("the report has no <script>")
    if s.handlers or s.js_urls:
        bad("the report has event handlers or javascript: URLs: %s"
            % ", ".join((s.handlers + s.js_urls)[:5]))
    else:
        ok("no event handler attribute, no javascript: URL")
    for tag, what in (("table", "tables"), ("svg", "plots (<svg>)")):
        if s.tags.get(tag):
            ok("the report has %d %s" % (s.tags[tag], what))
        else:
            bad("the report has no %s" % what)


# ---- probe ------------------------------------------------------------------------

PROBE = r"""
<script>
window.addEventListener('load', function () {
  function name(el) {
    var s = el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    if (el.getAttribute('class')) s += '.' + el.getAttribute('class').trim().split(/\s+/).join('.');
    var sec = el.closest('section, figure, [id]');
    if (sec && sec !== el) s += ' in ' + sec.tagName.toLowerCase() + (sec.id ? '#' + sec.id : '');
    var t = el.closest('table');
    if (t && t !== el) {
      var cap = t.querySelector('caption');
      if (cap) s += ' (table "' + cap.textContent.trim().slice(0, 60) + '")';
    }
    return s;
  }
  function scrolls(el) {
    var o = getComputedStyle(el).overflowX;
    return o === 'auto' || o === 'scroll';
  }
  var vw = document.documentElement.clientWidth;
  var res = { viewport: vw, height: Math.ceil(document.documentElement.scrollHeight),
              svgs: [], cells: [], tables: [], fills: {} };
  document.querySelectorAll('svg').forEach(function (svg, i) {
    var r = svg.getBoundingClientRect();
    var marks = 0, total = 0;
    svg.querySelectorAll('rect, path, line, polyline, polygon, circle').forEach(function (m) {
      total++;
      var b = m.getBBox();
      var line = m.tagName.toLowerCase() === 'line' || m.tagName.toLowerCase() === 'polyline';
      if ((b.width > 0 && b.height > 0) || (line && (b.width > 0 || b.height > 0))) {
        marks++;
        var cs = getComputedStyle(m);
        if (!line && cs.fill && cs.fill !== 'none') {
          var k = cs.fill + ' opacity=' + cs.fillOpacity + '/' + cs.opacity;
          res.fills[k] = (res.fills[k] || 0) + 1;
        }
      }
    });
    var label = svg.getAttribute('aria-label') || '';
    var by = svg.getAttribute('aria-labelledby');
    if (!label && by && document.getElementById(by))
      label = document.getElementById(by).textContent.trim();
    var t = svg.querySelector('title');
    if (!label && t) label = t.textContent;
    res.svgs.push({ i: i, name: name(svg), label: label.slice(0, 80),
                    w: r.width, h: r.height, right: r.right, marks: marks, elements: total });
  });
  document.querySelectorAll('td, th').forEach(function (c) {
    if (c.scrollWidth > c.clientWidth + 1) {
      var tr = c.parentElement;
      res.cells.push({ name: name(c), row: tr ? tr.rowIndex : -1, col: c.cellIndex,
                       text: c.textContent.trim().slice(0, 60),
                       scrollWidth: c.scrollWidth, clientWidth: c.clientWidth });
    }
  });
  document.querySelectorAll('table').forEach(function (t, i) {
    var r = t.getBoundingClientRect();
    var p = t.parentElement, scroller = null;
    for (var a = p; a && a !== document.body; a = a.parentElement)
      if (scrolls(a)) { scroller = a; break; }
    res.tables.push({ i: i, name: name(t), w: r.width, right: r.right,
                      container: p.clientWidth, containerName: name(p),
                      scrolls: scroller ? name(scroller) : null,
                      scrolled: scroller ? scroller.scrollWidth > scroller.clientWidth + 1 : false });
  });
  var pre = document.createElement('pre');
  pre.id = 'ehelf-probe-results';
  pre.textContent = JSON.stringify(res);
  document.body.appendChild(pre);
});
</script>
"""


def cmd_probe(report, out):
    text = open(report, encoding="utf-8").read()
    i = text.lower().rfind("</body>")
    text = text[:i] + PROBE + text[i:] if i >= 0 else text + PROBE
    open(out, "w", encoding="utf-8").write(text)


def probe_results(dom):
    text = open(dom, encoding="utf-8").read()
    m = re.search(r'<pre id="ehelf-probe-results">(.*?)</pre>', text, re.S)
    if not m:
        return None
    return json.loads(html.unescape(m.group(1)))


# ---- layout -------------------------------------------------------------------------

def cmd_layout(dom):
    res = probe_results(dom)
    if res is None:
        bad("the probe script's results are not in the dumped DOM (did the "
            "page load, and the script run?)")
        return
    svgs = res["svgs"]
    empty = [s for s in svgs if not (s["w"] > 0 and s["h"] > 0)]
    blank = [s for s in svgs if s["marks"] == 0]
    if not svgs:
        bad("no <svg> in the page")
    for s in empty:
        bad("plot %d (%s %r) has an empty box: %gx%g px" % (s["i"], s["name"], s["label"], s["w"], s["h"]))
    for s in blank:
        bad("plot %d (%s %r) draws no mark: %d rect/path/line elements, none "
            "with a non-empty box" % (s["i"], s["name"], s["label"], s["elements"]))
    if svgs and not empty and not blank:
        ok("%d plots, each with a box and drawn marks (%d marks)"
           % (len(svgs), sum(s["marks"] for s in svgs)))
    wide = [s for s in svgs if s["right"] > res["viewport"] + 1]
    for s in wide:
        bad("plot %d (%s) ends at %g px, past the %d px window" % (s["i"], s["name"], s["right"], res["viewport"]))
    if res["cells"]:
        for c in res["cells"][:20]:
            bad("table cell %s (row %d, column %d, %r) overflows: content %d px "
                "in %d px" % (c["name"], c["row"], c["col"], c["text"], c["scrollWidth"], c["clientWidth"]))
    else:
        ok("no table cell's content overflows it")
    n = 0
    for t in res["tables"]:
        if t["scrolls"]:
            continue
        if t["w"] > t["container"] + 1:
            bad("table %d (%s) is %g px wide in its %d px container %s, which does "
                "not scroll" % (t["i"], t["name"], t["w"], t["container"], t["containerName"]))
            n += 1
        elif t["right"] > res["viewport"] + 1:
            bad("table %d (%s) ends at %g px, past the %d px window" % (t["i"], t["name"], t["right"], res["viewport"]))
            n += 1
    if not res["tables"]:
        bad("no table in the page")
    elif not n:
        ok("%d tables, none wider than its container or the %d px window (%d in "
           "scroll containers)" % (len(res["tables"]), res["viewport"],
                                   sum(1 for t in res["tables"] if t["scrolls"])))
    scrolled = [t["name"] for t in res["tables"] if t.get("scrolled")]
    if scrolled:
        print("  note: %d tables are wider than the page at this width and scroll "
              "sideways: %s" % (len(scrolled), ", ".join(scrolled)))
    print("HEIGHT %d" % res["height"])


# ---- screenshot ------------------------------------------------------------------------

NAMED = {"black": (0, 0, 0), "white": (255, 255, 255), "red": (255, 0, 0),
         "green": (0, 128, 0), "blue": (0, 0, 255), "gray": (128, 128, 128),
         "grey": (128, 128, 128), "orange": (255, 165, 0), "steelblue": (70, 130, 180)}


def parse_colour(v, variables):
    v = v.strip().rstrip(";").strip()
    m = re.match(r"^var\(\s*(--[\w-]+)\s*(?:,\s*(.*))?\)$", v)
    if m:
        if m.group(1) in variables:
            return parse_colour(variables[m.group(1)], variables)
        return parse_colour(m.group(2), variables) if m.group(2) else None
    m = re.match(r"^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$", v)
    if m:
        h = m.group(1)
        if len(h) == 3:
            h = "".join(c * 2 for c in h)
        return tuple(int(h[i:i + 2], 16) for i in (0, 2, 4))
    m = re.match(r"^rgb\(\s*(\d+)[\s,]+(\d+)[\s,]+(\d+)\s*\)$", v)
    if m:
        return tuple(int(x) for x in m.groups())
    return NAMED.get(v.lower())


def declared_fills(report):
    """The fill colours the HTML declares: CSS `fill:` declarations (custom
    properties resolved) and fill="" attributes."""
    s = scan(report)
    css = "\n".join(s.styles)
    variables = dict(re.findall(r"(--[\w-]+)\s*:\s*([^;}]+)", css))
    fills = {}
    for v in re.findall(r"(?<![-\w])fill\s*:\s*([^;}\"]+)", css) + s.fill_attrs:
        c = parse_colour(v, variables)
        if c is not None:
            fills[c] = v.strip()
    return fills


def cmd_screenshot(report, dom, png):
    from PIL import Image
    im = Image.open(png).convert("RGB")
    w, h = im.size
    if w < 1000 or h < 200:
        bad("the screenshot is %dx%d px" % (w, h))
        return
    counts = im.getcolors(maxcolors=1 << 24)
    counts.sort(reverse=True)
    bg_n, bg = counts[0]
    other = w * h - bg_n
    if len(counts) < 16 or other < w * h // 100:
        bad("the screenshot is blank: %d colours, %d px not background %s"
            % (len(counts), other, bg))
    else:
        ok("the screenshot (%dx%d) is not blank: %d colours, %.1f%% not background"
           % (w, h, len(counts), 100.0 * other / (w * h)))
    fills = declared_fills(report)
    res = probe_results(dom)
    drawn = set()
    for k in (res or {}).get("fills", {}):
        c = parse_colour(k.split(" opacity=")[0], {})
        if c is not None:
            drawn.add(c)
    have = dict((c, n) for n, c in counts)
    want = [c for c in fills if c in drawn]
    if not want:
        bad("no plot colour to look for: the HTML declares fills %s, the browser "
            "drew marks in %s" % (sorted(fills.values()), sorted(drawn)))
    for c in want:
        # solid fills of marks several pixels wide: exact pixels of the
        # colour, however anti-aliasing blends their edges
        n = sum(have.get((c[0] + a, c[1] + b, c[2] + d), 0)
                for a in (-1, 0, 1) for b in (-1, 0, 1) for d in (-1, 0, 1))
        if n >= 20:
            ok("plot colour %s (#%02x%02x%02x) in the screenshot: %d px"
               % (fills[c], c[0], c[1], c[2], n))
        else:
            bad("plot colour %s (#%02x%02x%02x), declared in the HTML and drawn "
                "on marks, is not in the screenshot (%d px)" % (fills[c], c[0], c[1], c[2], n))
    unused = [v for c, v in fills.items() if c not in drawn]
    if unused:
        print("  note: fills declared but on no drawn mark: %s" % ", ".join(unused))


# ---- pdf -------------------------------------------------------------------------------

def cmd_pdf(report, pdf, txt):
    data = open(pdf, "rb").read()
    if not data.startswith(b"%PDF-") or len(data) < 2000:
        bad("%s is not a PDF, or nearly empty (%d bytes)" % (pdf, len(data)))
        return
    pages = len(re.findall(rb"/Type\s*/Page(?![s\w])", data))
    if pages < 1:
        bad("the PDF has no page")
    else:
        ok("the printed PDF: %d bytes, %d pages" % (len(data), pages))
    text = re.sub(r"\s+", " ", open(txt, encoding="utf-8", errors="replace").read())
    titles = [re.sub(r"\s+", " ", t).strip() for t in scan(report).h2 if t.strip()]
    missing = [t for t in titles if t[:40] not in text]
    if not titles:
        bad("the report has no heading or caption to look for in the PDF")
    elif missing:
        bad("%d of %d headings of the report are not in the PDF's text, e.g. %r"
            % (len(missing), len(titles), missing[0]))
    else:
        ok("the PDF's text has all %d headings of the report" % len(titles))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    {"static": cmd_static, "probe": cmd_probe, "layout": cmd_layout,
     "screenshot": cmd_screenshot, "pdf": cmd_pdf}[cmd](*args)
    sys.exit(min(fails, 100))


if __name__ == "__main__":
    main()
