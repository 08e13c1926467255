// render.js — draws what is in view of one panel into its plot SVG, as
// markup (fast for thousands of elements), and its axis. Only events
// whose x falls in the view (plus a margin) are drawn, so a run of 10^5
// events costs no more to pan than one of a hundred.

function px(V, i) {
  var x = (V.L.base[i] - S.x0) * S.scale + PADL;
  return S.axis === "time" ? x + V.L.slot[i] * TIE : x;
}
function pxOf(b) { return (b - S.x0) * S.scale + PADL; }
function yOf(V, i) { return V.L.y[V.P.p[i]]; }

var MARGIN = 60;
function inView(V, x) { return x >= -MARGIN && x <= V.plotW + MARGIN; }
function spanInView(V, a, b) { return Math.max(a, b) >= -MARGIN && Math.min(a, b) <= V.plotW + MARGIN; }

function attrs(h, seq) { return ' data-h="' + h + '"' + (seq >= 0 ? ' data-seq="' + seq + '"' : ""); }

// mark is the markup of event i's mark at (x, y).
function mark(V, i, x, y, extra) {
  var P = V.P, k = P.k[i], cls = P.cls[P.c[i]] + extra, a = attrs("e:" + i, P.seq[i]);
  var f = function (v) { return Math.round(v * 10) / 10; };
  x = f(x);
  var c = ' class="' + cls + '"' + a;
  if (k === K.send || k === K.recv) { return "<circle" + c + ' cx="' + x + '" cy="' + y + '" r="4.5"/>'; }
  if (k === K.internal) {
    if (V.L.grp[i] > 1) {
      return '<rect class="' + cls + ' collapsed"' + a + ' x="' + (x - 9) + '" y="' + (y - 7) + '" width="18" height="14" rx="7"/>';
    }
    return "<circle" + c + ' cx="' + x + '" cy="' + y + '" r="4"/>';
  }
  if (k === K.unconsumed) { return "<circle" + c + ' cx="' + x + '" cy="' + y + '" r="3.5"/>'; }
  if (k === K.checkpoint) { return "<rect" + c + ' x="' + (x - 4) + '" y="' + (y - 8) + '" width="8" height="16"/>'; }
  var d;
  switch (k) {
    case K.checkpoint_skipped: d = "M" + x + " " + (y - 7) + " V" + (y + 7); break;
    case K.discard: d = "M" + (x - 4.5) + " " + (y - 4.5) + " l9 9 m0 -9 l-9 9"; break;
    case K.hold: d = "M" + x + " " + (y - 5) + " l5 5 l-5 5 l-5 -5 z"; break;
    case K.fail: d = "M" + (x - 6) + " " + (y - 6) + " l12 12 m0 -12 l-12 12"; break;
    case K.restart: case K.rollback: d = "M" + x + " " + (y - 10) + " V" + (y + 10); break;
    case K.resume: d = "M" + (x - 3) + " " + (y - 5) + " l7 5 l-7 5 z"; break;
    case K.end: d = "M" + x + " " + (y - 8) + " V" + (y + 8); break;
    default: d = "M" + (x - 2.5) + " " + y + " h5";
  }
  return "<path" + c + ' d="' + d + '"/>';
}

function line(cls, h, seq, x1, y1, x2, y2, marker) {
  return '<line class="' + cls + '"' + attrs(h, seq) + ' x1="' + x1.toFixed(1) + '" y1="' + y1 + '" x2="' + x2.toFixed(1) + '" y2="' + y2 + '"' +
    (marker ? ' marker-end="url(#ah-' + marker + ')"' : "") + "/>";
}

// labelSpot is where a message's name goes on its arrow: halfway
// between the two lanes nearest the arrow's middle, never on a lane.
function labelSpot(V, p1, p2, x1, x2) {
  var r1 = V.L.rank[p1], r2 = V.L.rank[p2];
  var lo = Math.min(r1, r2), hi = Math.max(r1, r2);
  var k = (lo + hi - 1) >> 1;
  var y1 = V.L.y[p1], y2 = V.L.y[p2], ly = LANE_TOP + k * LANE_H + LANE_H / 2;
  var t = (ly - y1) / (y2 - y1), dx = (x2 - x1) / (hi - lo);
  return { x: x1 + t * (x2 - x1), y: ly, room: Math.sqrt(dx * dx + LANE_H * LANE_H) };
}

function textMarkup(cls, x, y, s, h) {
  return '<text class="' + cls + '"' + (h ? ' data-h="' + h + '"' : "") + ' x="' + x.toFixed(1) + '" y="' + y.toFixed(1) + '">' + esc(s) + "</text>";
}

// render redraws panel V's plot.
function render(V) {
  var P = V.P, L = V.L, out = [], i, k, x1, x2, y1, y2;
  var pl = new Placer(), labels = [];
  // Left-out stretches.
  for (k = 0; k < L.bands.length; k++) {
    var bd = L.bands[k];
    x1 = pxOf(bd.b0); x2 = pxOf(bd.b1);
    if (!spanInView(V, x1, x2)) { continue; }
    out.push('<rect class="band" x="' + x1.toFixed(1) + '" y="8" width="' + Math.max(x2 - x1, 4).toFixed(1) + '" height="' + (L.height - 16) + '" data-h="b:' + k + '"/>');
  }
  // Down time and holds.
  for (k = 0; k < P.down.length; k += 3) {
    var dp = P.down[k];
    if (L.rank[dp] < 0) { continue; }
    x1 = px(V, P.down[k + 1]); x2 = px(V, P.down[k + 2]);
    if (!spanInView(V, x1, x2)) { continue; }
    out.push('<rect class="down" data-h="d:' + k + '" data-seq="' + P.seq[P.down[k + 1]] + '" x="' + x1.toFixed(1) + '" y="' + (L.y[dp] - 12) + '" width="' + Math.max(x2 - x1, 2).toFixed(1) + '" height="24"/>');
  }
  for (k = 0; k < P.held.length; k += 3) {
    var hp = P.held[k];
    if (L.rank[hp] < 0) { continue; }
    x1 = px(V, P.held[k + 1]); x2 = px(V, P.held[k + 2]);
    if (spanInView(V, x1, x2)) { out.push(line("held", "h:" + k, P.seq[P.held[k + 1]], x1, L.y[hp], x2, L.y[hp])); }
  }
  renderLines(V, out);
  renderArrows(V, out, labels);
  // Jumps back to the restored checkpoint.
  for (k = 0; k < P.jumps.length; k += 2) {
    var je = P.jumps[k], jc = P.jumps[k + 1];
    if (!L.vis[je]) { continue; }
    x1 = px(V, je); x2 = jc >= 0 ? px(V, jc) : pxOf(0);
    if (!spanInView(V, x1, x2)) { continue; }
    var y = yOf(V, je), lift = Math.min(24 + (x1 - x2) / 12, 38);
    out.push('<path class="jump jump-' + (P.k[je] === K.restart ? "restart" : "rollback") + '"' + attrs("j:" + (k / 2), P.seq[je]) +
      ' d="M' + x1.toFixed(1) + " " + (y - 4) + " C" + x1.toFixed(1) + " " + (y - lift) + " " + x2.toFixed(1) + " " + (y - lift) + " " + x2.toFixed(1) + " " + (y - 9) + '" marker-end="url(#ah-jump)"/>');
  }
  renderMarks(V, out, pl, labels);
  renderRings(V, out);
  // Labels last: lost receives, checkpoint numbers, then message names.
  labels.sort(function (a, b) { return a.pri - b.pri; });
  for (k = 0; k < labels.length; k++) {
    var lb = labels[k], w = textW(lb.s, lb.font || LABEL_FONT);
    var bx0 = lb.centre ? lb.x - w / 2 : lb.x;
    if (pl.place(bx0 - 2, lb.y - 12, bx0 + w + 2, lb.y + 3)) { out.push(textMarkup(lb.cls, lb.x, lb.y, lb.s, lb.h)); }
  }
  V.layer.innerHTML = out.join("");
  V.drawnLabels = labels.length;
}

function renderLines(V, out) {
  var P = V.P, L = V.L;
  for (var k = 0; k < P.lines.length; k++) {
    var ln = P.lines[k], pts = [], lo = Infinity, hi = -Infinity;
    for (var j = 0; j < ln.pts.length; j += 3) {
      var p = ln.pts[j], e = ln.pts[j + 1];
      if (L.rank[p] < 0 || (e >= 0 && !L.vis[e])) { continue; }
      var x = e >= 0 ? px(V, e) : pxOf(0);
      lo = Math.min(lo, x); hi = Math.max(hi, x);
      pts.push(x.toFixed(1) + "," + L.y[p]);
    }
    if (pts.length === 0 || !spanInView(V, lo, hi)) { continue; }
    if (pts.length === 1) { pts.push(pts[0]); }
    out.push('<polyline class="rline" data-h="l:' + k + '" data-seq="' + (ln.fail >= 0 ? P.seq[ln.fail] : -1) + '" points="' + pts.join(" ") + '"/>');
  }
}

function renderArrows(V, out, labels) {
  var P = V.P, L = V.L, k, f, t, x1, x2, cls, st;
  // Names go on arrows long enough to carry them; zoomed in, on every
  // arrow the labels already placed leave room for.
  var zoomed = S.scale >= V.L.unit * 1.5;
  var count = 0;
  for (k = 0; k < P.ar.length; k += 5) {
    f = P.ar[k]; t = P.ar[k + 1];
    if (!L.vis[f] || !L.vis[t]) { continue; }
    x1 = px(V, f); x2 = px(V, t);
    if (!spanInView(V, x1, x2)) { continue; }
    st = P.styles[P.ar[k + 2]];
    cls = "msg msg-" + st + (P.ar[k + 3] ? " undone" : "");
    out.push(line(cls, "a:" + k, P.seq[f], x1, yOf(V, f), x2, yOf(V, t), st));
    count++;
    if (count < 1500) {
      var name = P.msgs[P.ar[k + 4]], sp = labelSpot(V, P.p[f], P.p[t], x1, x2);
      if ((zoomed || sp.room >= textW(name, LABEL_FONT) + 10) && sp.x > 0 && sp.x < V.plotW) {
        labels.push({ pri: 3, cls: "msg-label msg-label-" + st, s: name, x: sp.x, y: sp.y + 4, centre: true, h: "a:" + k });
      }
    }
  }
  for (k = 0; k < P.lost.length; k += 5) {
    f = P.lost[k]; t = P.lost[k + 1];
    if (!L.vis[t]) { continue; }
    x2 = px(V, t);
    var y2 = yOf(V, t), y1 = y2 - 30;
    x1 = x2 - 56;
    if (f >= 0 && L.vis[f]) { x1 = px(V, f); y1 = yOf(V, f); }
    if (!spanInView(V, x1, x2)) { continue; }
    out.push(line("msg msg-lost lost-receive" + (P.lost[k + 3] ? " undone" : ""), "x:" + k, f >= 0 ? P.seq[f] : -1, x1, y1, x2, y2, "lost"));
    out.push('<path class="lost-mark" data-h="x:' + k + '" data-seq="' + P.seq[t] + '" d="M' + (x2 - 8).toFixed(1) + " " + (y2 - 8) + ' l16 16 m0 -16 l-16 16"/>');
    labels.push({ pri: 0, cls: "lost-label", s: "✗ " + (P.lost[k + 4] >= 0 ? P.msgs[P.lost[k + 4]] : "?") + " lost", x: x2 + 12, y: y2 - 12, font: "bold 13px \"DejaVu Sans\", Helvetica, Arial, sans-serif", h: "x:" + k });
  }
  for (k = 0; k < P.ctl.length; k += 2) {
    f = P.ctl[k]; t = P.ctl[k + 1];
    if (!L.vis[f] || !L.vis[t]) { continue; }
    x1 = px(V, f); x2 = px(V, t);
    if (spanInView(V, x1, x2)) { out.push(line(P.ctlc[k / 2], "c:" + k, P.seq[f], x1, yOf(V, f), x2, yOf(V, t), "ctl")); }
  }
}

function renderMarks(V, out, pl, labels) {
  var P = V.P, L = V.L, n = P.p.length, i, x, y;
  var sel = S.sel && views[S.sel.v] === V ? L.head[S.sel.i] : -1;
  var lit = V.lit || {};
  for (var p = 0; p < P.procs.length; p++) {
    if (L.rank[p] < 0 || !P.init[p]) { continue; }
    x = pxOf(0);
    if (!inView(V, x)) { break; }
    out.push('<rect class="ckpt ckpt-initial" data-h="i:' + p + '" data-p="' + esc(P.procs[p]) + '" x="' + (x - 4).toFixed(1) + '" y="' + (L.y[p] - 8) + '" width="8" height="16"/>');
    if (P.ms) { labels.push({ pri: 1, cls: "sn", s: "0", x: x, y: L.y[p] + 24, centre: true }); }
  }
  for (i = 0; i < n; i++) {
    if (!L.vis[i] || !slotted(P.k[i])) { continue; }
    x = px(V, i);
    if (!inView(V, x)) { continue; }
    y = yOf(V, i);
    out.push(mark(V, i, x, y, i === sel || lit[i] ? " hl" : ""));
    if (P.sn[i] >= 0) { labels.push({ pri: 1, cls: "sn", s: String(P.sn[i]), x: x, y: y + 24, centre: true }); }
    if (L.grp[i] > 1) { labels.push({ pri: 2, cls: "grp-count", s: "×" + L.grp[i], x: x, y: y - 11, centre: true, h: "e:" + i }); }
  }
}

// renderRings circles violation witnesses, differences, search results
// and the selected event.
function renderRings(V, out) {
  var P = V.P, L = V.L, k, j, i, x;
  for (k = 0; k < P.viol.length; k++) {
    var on = S.viol && views[S.viol.v] === V && S.viol.k === k;
    for (j = 0; j < P.viol[k].ev.length; j++) {
      i = P.viol[k].ev[j];
      if (i < 0 || !L.vis[L.head[i]]) { continue; }
      x = px(V, L.head[i]);
      if (inView(V, x)) { out.push('<circle class="viol' + (on ? " hl" : "") + '" data-h="v:' + k + '" data-v="' + k + '" data-seq="' + P.seq[i] + '" cx="' + x.toFixed(1) + '" cy="' + yOf(V, i) + '" r="10"/>'); }
    }
  }
  for (k = 0; k < P.diff.length; k++) {
    i = P.diff[k];
    if (!L.vis[i]) { continue; }
    x = px(V, i);
    if (inView(V, x)) { out.push('<circle class="diff"' + attrs("e:" + i, P.seq[i]) + ' cx="' + x.toFixed(1) + '" cy="' + yOf(V, i) + '" r="8"/>'); }
  }
  for (k = 0; k < S.matches.length; k++) {
    var m = S.matches[k];
    if (views[m.v] !== V) { continue; }
    i = L.head[m.i];
    if (!L.vis[i]) { continue; }
    x = px(V, i);
    if (inView(V, x)) { out.push('<circle class="match-ring" data-h="e:' + i + '" cx="' + x.toFixed(1) + '" cy="' + yOf(V, i) + '" r="11"/>'); }
  }
  if (S.sel && views[S.sel.v] === V) {
    i = L.head[S.sel.i];
    if (L.vis[i]) {
      x = px(V, i);
      out.push('<circle class="sel" data-sel="1" data-seq="' + P.seq[S.sel.i] + '" cx="' + x.toFixed(1) + '" cy="' + yOf(V, i) + '" r="13"/>');
    }
  }
}

// renderAxis labels round times (time axis) or says that x is logical
// order (no scale to label).
function renderAxis(V) {
  var out = [], L = V.L;
  if (S.axis !== "time") {
    out.push(textMarkup("axis-caption", 8, 19, "logical order (happened-before): not a time scale — hover an event for its time, or switch to real time"));
  } else {
    var step = niceStep(90 / S.scale);
    var u0 = S.x0 - PADL / S.scale, u1 = S.x0 + (V.plotW - PADL) / S.scale;
    var last = -1e9;
    for (var b = Math.ceil(u0 / step) * step; b <= u1; b += step) {
      var x = pxOf(b);
      if (x - last < 80) { continue; }
      var inBand = false;
      for (var k = 0; k < L.bands.length; k++) { if (b > L.bands[k].b0 && b < L.bands[k].b1) { inBand = true; } }
      if (inBand || b < 0) { continue; }
      last = x;
      out.push('<line class="grid" x1="' + x.toFixed(1) + '" x2="' + x.toFixed(1) + '" y1="22" y2="30"/>');
      out.push(textMarkup("tick", x, 17, fmtT(timeAt(L, b), step) + " s"));
    }
  }
  V.axisSvg.innerHTML = out.join("");
  V.corner.textContent = S.axis === "time" ? "time (s)" : "logical";
  V.corner.title = S.axis === "time" ?
    "x is real time, to scale: 1 s = " + (S.scale).toPrecision(3) + " px now; events at one instant on a lane are spread " + TIE + " px apart" :
    "x is happened-before order: each event one column right of the one before it on its lane and of the send it receives. Not a time scale.";
}
