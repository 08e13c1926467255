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
