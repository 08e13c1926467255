// layout.js — where each event of a panel goes on the current axis,
// with hidden lanes and collapsed local events taken out. It mirrors
// the SVG writer's layout (layout.go): the logical axis puts each event
// one column right of the previous mark on its lane and of the event it
// depends on (the send it receives, the control message), so every arrow
// points right; the time axis puts it at its real time, to scale.

function slotted(k) {
  return k !== K.log && k !== K.control_send && k !== K.control_recv && k !== K.unhold;
}
function isLocal(k) { return k === K.internal || k === K.checkpoint_skipped; }

// layout returns, for panel data P: base (axis units), slot (rank among
// marks at one instant on one lane, time axis), vis (drawn), head (the
// mark an event is drawn at: itself, or its collapsed group's first),
// grp (events in a collapsed group), rank and y of each lane (-1 hidden),
// bands (left-out stretches) and the extent.
function layout(P, axis) {
  var n = P.p.length, np = P.procs.length, i;
  var L = {
    base: new Float64Array(n), slot: new Uint16Array(n), vis: new Uint8Array(n),
    head: new Int32Array(n), grp: new Int32Array(n),
    rank: new Int32Array(np), y: new Float64Array(np), lanes: 0, bands: [], segs: [],
    minB: 0, maxB: 1
  };
  for (i = 0; i < np; i++) {
    if (S.hidden[P.procs[i]]) { L.rank[i] = -1; L.y[i] = -1; continue; }
    L.rank[i] = L.lanes;
    L.y[i] = LANE_TOP + L.lanes * LANE_H;
    L.lanes++;
  }
  L.height = LANE_TOP + Math.max(L.lanes - 1, 0) * LANE_H + LANE_H / 2 + 8;
  if (axis === "time") { layoutTime(P, L); } else { layoutLogical(P, L); }
  var mx = 0;
  for (i = 0; i < n; i++) { if (L.vis[i] && L.base[i] > mx) { mx = L.base[i]; } }
  for (i = 0; i < L.bands.length; i++) { mx = Math.max(mx, L.bands[i].b1); }
  L.maxB = Math.max(mx, 1e-9);
  return L;
}

// collapsed decides whether event i of lane p joins the open group of
// local events; it keeps open[p] up to date.
function collapsed(P, L, open, i, p) {
  var k = P.k[i];
  if (S.collapse && isLocal(k)) {
    var h = open[p];
    if (h >= 0) { L.head[i] = h; L.grp[h]++; L.base[i] = L.base[h]; L.slot[i] = L.slot[h]; return true; }
    open[p] = i;
    L.grp[i] = 1;
  } else if (slotted(k)) {
    open[p] = -1;
  }
  return false;
}

function layoutLogical(P, L) {
  var n = P.p.length, np = P.procs.length, i, q;
  var next = new Int32Array(np), last = new Int32Array(np), open = new Int32Array(np);
  for (q = 0; q < np; q++) { next[q] = 1; open[q] = -1; }
  var top = 0, gi = 0, gaps = P.gaps;
  for (i = 0; i < n; i++) {
    L.head[i] = i;
    if (gi < gaps.length && gaps[gi] === i) {
      L.bands.push({ b0: top + 0.4, b1: top + 2.6, omitted: gaps[gi + 1], t0: gaps[gi + 2], t1: gaps[gi + 3] });
      for (q = 0; q < np; q++) { next[q] = top + 3; last[q] = top + 3; }
      gi += 4;
    }
    var p = P.p[i];
    if (L.rank[p] < 0 || collapsed(P, L, open, i, p)) { continue; }
    L.vis[i] = 1;
    var d = P.dep[i], c;
    var dc = d >= 0 && L.vis[d] ? L.base[d] + 1 : -1;
    if (slotted(P.k[i])) {
      c = Math.max(next[p], dc);
      last[p] = c;
      next[p] = c + 1;
    } else {
      c = last[p];
      if (dc > c) { c = dc; next[p] = Math.max(next[p], c); }
    }
    L.base[i] = c;
    if (c > top) { top = c; }
  }
  if (gi < gaps.length) {
    L.bands.push({ b0: top + 0.4, b1: top + 2.6, omitted: gaps[gi + 1], t0: gaps[gi + 2], t1: gaps[gi + 3] });
  }
  L.unit = COL;
}

// timeUnit is px per second at zoom 1: a lane's median gap between
// distinct times is COL px (the SVG writer's rule).
function timeUnit(P) {
  if (P._pps) { return P._pps; }
  var np = P.procs.length, last = [], gaps = [], i;
  for (i = 0; i < np; i++) { last.push(-1); }
  for (i = 0; i < P.p.length; i++) {
    if (!slotted(P.k[i])) { continue; }
    var p = P.p[i], t = P.t[i];
    if (last[p] >= 0 && t > last[p]) { gaps.push(t - last[p]); }
    last[p] = t;
  }
  gaps.sort(function (a, b) { return a - b; });
  P._pps = gaps.length ? COL / gaps[gaps.length >> 1] : COL;
  // At most 200,000 px for the whole run at zoom 1 (layout.go's maxTimeW).
  var span = P.t.length ? P.t[P.t.length - 1] : 0;
  if (span > 0) { P._pps = Math.min(P._pps, 200000 / span); }
  return P._pps;
}

function layoutTime(P, L) {
  var n = P.p.length, np = P.procs.length, i, q;
  var unit = timeUnit(P);
  var lastT = new Float64Array(np), slot = new Int32Array(np), open = new Int32Array(np);
  for (q = 0; q < np; q++) { lastT[q] = -1; open[q] = -1; }
  var shift = 0, gi = 0, gaps = P.gaps, band = 70 / unit, right = 0;
  L.segs.push({ b0: 0, shift: 0 });
  for (i = 0; i < n; i++) {
    L.head[i] = i;
    var t = P.t[i];
    if (gi < gaps.length && gaps[gi] === i) {
      // The band starts right of everything drawn so far; time resumes
      // a band's width further on (the SVG writer's rule).
      var from = Math.max(gaps[gi + 2] - shift, right + 0.5 * band);
      shift = t - (from + band);
      L.bands.push({ b0: from + 0.1 * band, b1: from + 0.9 * band, omitted: gaps[gi + 1], t0: gaps[gi + 2], t1: gaps[gi + 3] });
      L.segs.push({ b0: from + band, shift: shift });
      gi += 4;
    }
    var p = P.p[i];
    if (L.rank[p] < 0 || collapsed(P, L, open, i, p)) { continue; }
    L.vis[i] = 1;
    if (t !== lastT[p]) { lastT[p] = t; slot[p] = 0; }
    var r = Math.max(slot[p] - 1, 0);
    if (slotted(P.k[i])) { r = slot[p]; slot[p]++; }
    L.base[i] = t - shift;
    L.slot[i] = r;
    if (L.base[i] > right) { right = L.base[i]; }
  }
  if (gi < gaps.length) {
    var f = Math.max(gaps[gi + 2] - shift, right + 0.5 * band);
    L.bands.push({ b0: f + 0.1 * band, b1: f + 0.9 * band, omitted: gaps[gi + 1], t0: gaps[gi + 2], t1: gaps[gi + 3] });
  }
  L.unit = unit;
}

// timeAt is the real time of axis position b on the time axis.
function timeAt(L, b) {
  var s = 0;
  for (var i = 0; i < L.segs.length && L.segs[i].b0 <= b; i++) { s = L.segs[i].shift; }
  return b + s;
}
