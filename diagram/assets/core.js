// core.js — constants, helpers and the page state. The page's scripts
// are joined, in the order html.go lists them (core, layout, render,
// overview, controls, page, selftest), into one function scope: each
// file uses what the files before it define. Plain ES5-style code with
// typed arrays; nothing is loaded from the network.

var SVGNS = "http://www.w3.org/2000/svg";
var TIE = 14;       // px between events at one instant on one lane (time axis)
var PADL = 24;      // px from the lane names to column 0 / t = 0
var LANE_H = 64;    // px between lanes
var LANE_TOP = 46;  // px above the first lane: room for rollback arcs
var COL = 30;       // px per logical column at zoom 1
var BUDGET = 6000;  // most events drawn at once: zooming out stops there
var FIT_MIN = 0.2;  // "fit" never shrinks below a fifth of zoom 1
var ZOOM_MAX = 40;  // nor zooms in past 40 times zoom 1
var LABEL_FONT = "12px \"DejaVu Sans\", Helvetica, Arial, sans-serif";
var HEAD_FONT = "bold 13px \"DejaVu Sans\", Helvetica, Arial, sans-serif";

// S is the view shared by every panel: one x axis, one zoom.
var S = {
  axis: "logical",   // or "time"
  collapse: false,   // merge runs of local events into one mark
  hidden: {},        // lane name -> true when hidden
  x0: 0,             // axis units at PADL px from the plot's left edge
  scale: COL,        // px per axis unit
  sel: null,         // {v, i}: the selected event (deep link, click)
  viol: null,        // {v, k}: the highlighted violation
  matches: [],       // search results: [{v, i}]
  match: -1,         // the current search result
  status: ""         // a note for the toolbar
};
var views = [];      // one per panel: data, layout and DOM (page.js)
var K = {};          // kind name -> code (data.kinds)

function fail(msg) {
  var box = document.getElementById("ckpt-error");
  if (!box) {
    box = document.createElement("div");
    box.id = "ckpt-error";
    document.body.insertBefore(box, document.body.firstChild);
  }
  box.textContent = "diagram script error: " + msg;
}
window.addEventListener("error", function (e) { fail(e.message || String(e)); });

function esc(s) {
  return String(s).replace(/[&<>"]/g, function (c) {
    return c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&quot;";
  });
}

function el(tag, cls, parent) {
  var e = document.createElement(tag);
  if (cls) { e.className = cls; }
  if (parent) { parent.appendChild(e); }
  return e;
}

function svgEl(tag, cls, parent) {
  var e = document.createElementNS(SVGNS, tag);
  if (cls) { e.setAttribute("class", cls); }
  if (parent) { parent.appendChild(e); }
  return e;
}

// Text is measured, not guessed: lane names are cut to fit exactly.
var measureCtx = document.createElement("canvas").getContext("2d");
var widthCache = {};
function textW(s, font) {
  var key = font + "\u0000" + s;
  var w = widthCache[key];
  if (w === undefined) {
    measureCtx.font = font;
    w = widthCache[key] = measureCtx.measureText(s).width;
  }
  return w;
}

// fitMiddle cuts s in the middle to fit width px: names such as
// kv-node-10 and kv-node-30 differ at the end, so the end must stay.
function fitMiddle(s, font, width) {
  if (textW(s, font) <= width) { return s; }
  var lo = 0, hi = s.length;
  while (lo < hi) {
    var k = (lo + hi + 1) >> 1;
    var h = (k + 1) >> 1, t = k >> 1;
    if (textW(s.slice(0, h) + "…" + s.slice(s.length - t), font) <= width) { lo = k; } else { hi = k - 1; }
  }
  var hh = (lo + 1) >> 1, tt = lo >> 1;
  return s.slice(0, hh) + "…" + s.slice(s.length - tt);
}

// fitLanes shortens lane names too long for width px around what tells
// each from the others (issue 18): four lanes named
// a-very-long-process-name-number-0N-of-the-cluster.example.org, cut in
// the middle, all read "a-very-long-proce…uster.example.org", since what
// differs is what the cut takes out. The part after the longest prefix
// and before the longest suffix a name shares with another, widened to
// whole words (the "1" of kv-node-10 beside kv-node-30 reads "10"), is
// kept; the name's head and tail fill the rest, turn about, with "…"
// where text is left out: "a-very-long-proc…01…cluster.example.org".
// Labels that still read alike are cut in the middle instead. (The SVG
// writes names whole: docs/diagram.md, "Lane names".)
function fitLanes(names, font, width) {
  var fits = function (s) { return textW(s, font) <= width; };
  var pre = sharedPrefix(names), rev = names.map(function (s) { return Array.from(s).reverse().join(""); });
  var suf = sharedPrefix(rev), out = [], seen = {};
  names.forEach(function (s, i) {
    out[i] = fitAround(Array.from(s), pre[i], suf[i], fits);
    if (out[i] === null) { out[i] = fitMiddle(s, font, width); }
    seen[out[i]] = (seen[out[i]] || 0) + 1;
  });
  names.forEach(function (s, i) { if (seen[out[i]] > 1) { out[i] = fitMiddle(s, font, width); } });
  return out;
}

// sharedPrefix gives each name the length (in code points) of the
// longest prefix it shares with another: in sorted order, a neighbour's.
function sharedPrefix(names) {
  var cps = names.map(function (s) { return Array.from(s); });
  var idx = names.map(function (_, i) { return i; }), best = names.map(function () { return 0; });
  var cmp = function (a, b) {
    var x = cps[a], y = cps[b];
    for (var k = 0; k < x.length && k < y.length; k++) {
      if (x[k] !== y[k]) { return x[k].codePointAt(0) - y[k].codePointAt(0); }
    }
    return x.length - y.length;
  };
  idx.sort(cmp);
  for (var k = 1; k < idx.length; k++) {
    var a = cps[idx[k - 1]], b = cps[idx[k]], n = 0;
    while (n < a.length && n < b.length && a[n] === b[n]) { n++; }
    best[idx[k - 1]] = Math.max(best[idx[k - 1]], n);
    best[idx[k]] = Math.max(best[idx[k]], n);
  }
  return best;
}

// fitAround: the name r (code points) kept around its distinguishing
// spans, widened to words if that fits, else as they are; null if even
// they do not fit.
function fitAround(r, pre, suf, fits) {
  if (fits(r.join(""))) { return r.join(""); }
  var narrow = distinctSpans(r, pre, suf);
  var wide = mergeSpans(narrow.map(function (sp) { return wordSpan(r, sp); }));
  var l = fillAround(r, wide, fits);
  return l !== null ? l : fillAround(r, narrow, fits);
}

function distinctSpans(r, pre, suf) {
  var a = Math.min(pre, r.length), b = Math.max(r.length - suf, 0), last = r.length - 1;
  if (a < b) { return [[a, b]]; }
  var d1 = Math.max(Math.min(b - 1, last), 0), d2 = Math.max(Math.min(a, last), 0);
  return d1 >= d2 ? [[d2, d1 + 1]] : [[d1, d1 + 1], [d2, d2 + 1]];
}

function wordSpan(r, sp) {
  var w = function (c) { return /[\p{L}\p{N}]/u.test(c); }, a = sp[0], b = sp[1];
  while (a > 0 && w(r[a - 1]) && w(r[a])) { a--; }
  while (b < r.length && w(r[b]) && w(r[b - 1])) { b++; }
  return [a, b];
}

function mergeSpans(spans) {
  var out = [spans[0].slice()];
  for (var i = 1; i < spans.length; i++) {
    var last = out[out.length - 1];
    if (spans[i][0] <= last[1]) { last[1] = Math.max(last[1], spans[i][1]); } else { out.push(spans[i].slice()); }
  }
  return out;
}

function fillAround(r, spans, fits) {
  var first = spans[0][0], last = spans[spans.length - 1][1];
  var label = function (h, t) {
    var s = r.slice(0, h).join(""), end = h;
    spans.forEach(function (sp) {
      if (sp[0] > end) { s += "…"; }
      s += r.slice(sp[0], sp[1]).join("");
      end = sp[1];
    });
    if (t < r.length - last) { s += "…"; }
    return s + r.slice(r.length - t).join("");
  };
  var h = 0, t = 0;
  if (!fits(label(0, 0))) { return null; }
  for (;;) {
    var gh = h < first && fits(label(h + 1, t));
    if (gh) { h++; }
    var gt = t < r.length - last && fits(label(h, t + 1));
    if (gt) { t++; }
    if (!gh && !gt) { return label(h, t); }
  }
}

function niceStep(s) {
  if (!(s > 0) || !isFinite(s)) { return 1; }
  var p = Math.pow(10, Math.floor(Math.log(s) / Math.LN10));
  var fs = [1, 2, 5, 10];
  for (var i = 0; i < fs.length; i++) { if (fs[i] * p >= s) { return fs[i] * p; } }
  return 10 * p;
}

function fmtT(t, step) {
  var dec = Math.max(0, -Math.floor(Math.log(step) / Math.LN10 + 1e-9));
  return t.toFixed(Math.min(dec, 9));
}

// Placer hands out room for labels first come, first served; a label
// that would overlap one already placed is left out (hover still shows
// it). Boxes are bucketed by x so a check looks only at neighbours.
function Placer() { this.b = {}; }
Placer.prototype.place = function (x0, y0, x1, y1) {
  var a = Math.floor(x0 / 100), z = Math.floor(x1 / 100), k, j, l, q;
  for (k = a; k <= z; k++) {
    l = this.b[k];
    if (!l) { continue; }
    for (j = 0; j < l.length; j++) {
      q = l[j];
      if (x0 < q[2] && q[0] < x1 && y0 < q[3] && q[1] < y1) { return false; }
    }
  }
  for (k = a; k <= z; k++) { (this.b[k] = this.b[k] || []).push([x0, y0, x1, y1]); }
  return true;
};
