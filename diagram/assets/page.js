// page.js — builds the page from the embedded data: one panel per run
// (lane names in a column that never scrolls away, the axis above, the
// plot), the overview strip and the toolbar; handles zoom, pan, hover,
// selection, deep links (#seq=N, #pk:seq=N) and the violation list.

var headW = 80;

function makeView(P, parent, titled) {
  var V = { P: P, lit: null };
  V.root = el("div", "panel", parent);
  V.root.setAttribute("data-panel", P.id);
  if (titled) { el("div", "panel-title", V.root).textContent = P.title + " — " + P.summary; }
  var ax = el("div", "axis-row", V.root);
  V.corner = el("div", "axis-corner", ax);
  V.axisSvg = svgEl("svg", "ckpt-plot axis", ax);
  V.lanes = el("div", "lanes", V.root);
  V.inner = el("div", "lanes-inner", V.lanes);
  V.heads = el("div", "heads", V.inner);
  V.plot = svgEl("svg", "ckpt-plot plot", V.inner);
  V.layer = svgEl("g", "layer", V.plot);
  var idx = new Int32Array(P.n).fill(-1);
  for (var i = 0; i < P.seq.length; i++) { idx[P.seq[i]] = i; }
  V.idxOf = function (seq) { return seq >= 0 && seq < idx.length ? idx[seq] : -1; };
  V.jumpOf = {};
  for (var j = 0; j < P.jumps.length; j += 2) { V.jumpOf[P.jumps[j]] = j / 2; }
  return V;
}

// placeHeads writes the lane names: each shortened, if too long for the
// column, around what tells it from the other lanes (fitLanes; the full
// name is its tooltip), with a button to hide the lane.
function placeHeads(V) {
  var P = V.P, L = V.L, out = [];
  var labels = fitLanes(P.procs, HEAD_FONT, headW - 16);
  for (var p = 0; p < P.procs.length; p++) {
    if (L.rank[p] < 0) { continue; }
    var name = P.procs[p], shown = labels[p];
    out.push('<div class="lane-head" data-p="' + esc(name) + '" title="' + esc(name) + '" style="top:' + L.y[p] + 'px">' +
      '<span class="name">' + esc(shown) + '</span><button type="button" class="hide-lane" title="hide this lane">×</button></div>');
  }
  V.heads.innerHTML = out.join("");
  V.heads.querySelectorAll(".hide-lane").forEach(function (b) {
    b.addEventListener("click", function (ev) {
      ev.stopPropagation();
      var h = {};
      for (var k in S.hidden) { if (S.hidden[k]) { h[k] = true; } }
      h[b.parentNode.getAttribute("data-p")] = true;
      setHidden(h);
    });
  });
}

// laneHeight is the most a panel's lanes may take: its share of the
// window below the top of the panels, but a few lanes are always shown
// whole; more scroll.
function laneHeight(V) {
  var avail = window.innerHeight - document.getElementById("panels").getBoundingClientRect().top - 12;
  var titled = views.length > 1 ? 52 : 32;
  return Math.round(Math.max(Math.min(V.L.height, 300), avail / views.length - titled));
}

// sizes fits each panel to the window: the plot takes the width beside
// the lane names; the lanes scroll vertically when there are many. What
// sits above the panels (the overview strip) must have its height first.
function sizes() {
  views.forEach(function (V) {
    var L = V.L;
    V.lanes.style.maxHeight = laneHeight(V) + "px";
    V.inner.style.height = L.height + "px";
    V.heads.style.width = headW + "px";
    V.heads.style.height = L.height + "px";
    V.corner.style.width = headW + "px";
    V.plotW = Math.max(V.lanes.clientWidth - headW, 100);
    V.plot.style.left = headW + "px";
    V.plot.setAttribute("width", V.plotW);
    V.plot.setAttribute("height", L.height);
    V.axisSvg.setAttribute("width", V.plotW);
  });
}

function relayout() {
  views.forEach(function (V) { V.L = layout(V.P, S.axis); placeHeads(V); });
  // The overview first: until it is drawn its canvas is 300×150 scaled to
  // the page's width, hundreds of pixels that would push the panels
  // down and leave the lanes their 300 px floor (issue 31).
  if (OV.box) { overviewDraw(); }
  sizes();
  if (UI.search && UI.search.value) { runSearch(UI.search.value); }
}

var pending = false;
function schedule() {
  if (pending) { return; }
  pending = true;
  window.requestAnimationFrame(function () { pending = false; redraw(); });
}

function redraw() {
  views.forEach(function (V) { render(V); renderAxis(V); });
  overviewView();
  updateControls();
}

function unit() { return views[0].L.unit; }
function plotW() { return views[0].plotW; }

function centreOn(u, frac) {
  S.x0 = u - (plotW() * frac - PADL) / S.scale;
  clampX();
}

function clampX() {
  var hi = 0;
  views.forEach(function (V) { hi = Math.max(hi, V.L.maxB); });
  var lo = -plotW() * 0.5 / S.scale;
  S.x0 = Math.min(Math.max(S.x0, lo), hi);
}

// countInView counts the marks a view at (scale, x0) would draw.
function countInView(scale, x0) {
  var c = 0;
  views.forEach(function (V) {
    var u0 = x0 - (PADL + MARGIN) / scale, u1 = x0 + (V.plotW + MARGIN) / scale, L = V.L;
    for (var i = 0; i < L.base.length; i++) { if (L.vis[i] && L.base[i] >= u0 && L.base[i] <= u1) { c++; } }
  });
  return c;
}

// zoomAt zooms x by f around screen x sx (the plot's middle by
// default). Type never shrinks: only distances do. Zooming out stops
// where the view would hold more than BUDGET marks.
function zoomAt(f, sx) {
  if (sx === undefined) { sx = plotW() / 2; }
  var ns = Math.min(Math.max(S.scale * f, unit() * 0.01), unit() * ZOOM_MAX);
  var u = S.x0 + (sx - PADL) / S.scale;
  var nx = u - (sx - PADL) / ns;
  if (f < 1 && countInView(ns, nx) > BUDGET) { S.status = "zoomed out as far as stays quick: use the overview strip to go further"; return; }
  S.status = "";
  S.scale = ns;
  S.x0 = nx;
  clampX();
}

// fit shows the whole run when it stays readable, else as much as does.
function fit() {
  var hi = 0;
  views.forEach(function (V) { hi = Math.max(hi, V.L.maxB); });
  var want = (plotW() - PADL - 40) / Math.max(hi, 1e-9);
  var floor = unit() * FIT_MIN;
  S.scale = Math.min(Math.max(want, floor), unit() * ZOOM_MAX);
  S.x0 = 0;
  while (countInView(S.scale, S.x0) > BUDGET && S.scale < unit()) { S.scale *= 1.25; }
  S.status = S.scale > want * 1.001 ?
    "the whole run needs " + Math.ceil(hi * S.scale / plotW()) + " screens at a readable zoom: showing its start; the overview strip goes anywhere" : "";
}

function start() {
  S.scale = unit();
  S.x0 = 0;
  S.status = "";
}

// keepCentre applies change (axis, collapse, hidden lanes) and keeps the
// event nearest the middle of the view in the middle.
function keepCentre(change) {
  var V = views[0], L = V.L, mid = S.x0 + (plotW() / 2 - PADL) / S.scale, best = -1, bd = Infinity;
  for (var i = 0; i < L.base.length; i++) {
    if (L.vis[i] && Math.abs(L.base[i] - mid) < bd) { bd = Math.abs(L.base[i] - mid); best = i; }
  }
  var zoom = S.scale / unit();
  change();
  relayout();
  S.scale = zoom * unit();
  if (best >= 0) { centreOn(views[0].L.base[views[0].L.head[best]], 0.5); }
  redraw();
}

function setAxis(a) {
  if (a === S.axis) { return; }
  keepCentre(function () { S.axis = a; });
}

// goTo pans to event i of panel v, shows its lane, selects it and shows
// its details: what a deep link, a search result or a failure step does.
function goTo(v, i) {
  var V = views[v], name = V.P.procs[V.P.p[i]];
  if (S.hidden[name]) {
    var h = {};
    for (var k in S.hidden) { if (S.hidden[k] && k !== name) { h[k] = true; } }
    S.hidden = h;
    relayout();
  }
  var L = V.L, hd = L.head[i], x = px(V, hd);
  if (x < V.plotW * 0.1 || x > V.plotW * 0.9) { centreOn(L.base[hd], 0.4); }
  var y = L.y[V.P.p[i]], box = V.lanes;
  if (y < box.scrollTop + 30 || y > box.scrollTop + box.clientHeight - 30) { box.scrollTop = Math.max(y - box.clientHeight / 2, 0); }
  S.sel = { v: v, i: i };
  showDetails(V, "e:" + i);
  redraw();
  var r = V.root.getBoundingClientRect();
  if (r.top < 0 || r.top > window.innerHeight - 100) { V.root.scrollIntoView({ block: "nearest" }); }
}

var detailsEl;
function showDetails(V, h) {
  detailsEl.textContent = detailsText(V, h);
}

// detailsText is the hover text of a drawn element, by its data-h.
function detailsText(V, h) {
  var P = V.P, a = h.split(":"), k = +a[1], f, t;
  switch (a[0]) {
    case "e":
      // A rollback's jump explains more than its mark.
      if (V.jumpOf[k] !== undefined) { return detailsText(V, "j:" + V.jumpOf[k]); }
      var s = P.d[k];
      if (V.L.grp[k] > 1) { s += "\n\n(" + (V.L.grp[k] - 1) + " more local events collapsed into this mark)"; }
      return s;
    case "a":
      f = P.ar[k]; t = P.ar[k + 1];
      return P.msgs[P.ar[k + 4]] + ": " + fate(P, P.styles[P.ar[k + 2]], t) + "\n" + P.d[f] + "\n→ " + P.d[t];
    case "x":
      f = P.lost[k]; t = P.lost[k + 1];
      return (P.lost[k + 4] >= 0 ? P.msgs[P.lost[k + 4]] : "?") + ": lost — the receive waits forever" +
        (f >= 0 ? "; the arrow starts at the message's last send\n" + P.d[f] + "\n→ " : "; no copy was ever sent\n") + P.d[t];
    case "c": return P.d[P.ctl[k]] + "\n→ " + P.d[P.ctl[k + 1]];
    case "j": return P.jt[k] + "\n\n" + P.d[P.jumps[2 * k]];
    case "l": return P.lines[k].d;
    case "d": return P.procs[P.down[k]] + " down from t=" + P.t[P.down[k + 1]] + "s to t=" + P.t[P.down[k + 2]] + "s";
    case "h": return P.d[P.held[k + 1]] + "\n\n" + P.d[P.held[k + 2]];
    case "v": return P.viol[k].prop + ": " + P.viol[k].msg;
    case "i": return P.procs[k] + " initial checkpoint 0 (t=0, pos 0" + (P.ms ? ", sn 0" : "") + ")";
    case "b":
      var b = V.L.bands[k];
      return b.omitted + " events left out, t=" + b.t0 + "s to " + b.t1 + "s";
  }
  return "";
}

var FATES = {
  normal: "delivered", replayed: "delivered again from the message log", resent: "a resend, delivered",
  discarded: "discarded (stale or duplicate)", lost: "lost: never received (left in the mailbox)"
};
function fate(P, style, to) {
  if (style === "orphan") { return P.k[to] === K.recv ? "orphan: received, then its send was undone" : "orphan: discarded as an orphan"; }
  return FATES[style] || style;
}

// wire connects a panel's mouse handling: wheel zooms (shift+wheel
// pans), drag pans, hover shows details, click selects.
function wire(V) {
  V.lanes.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    if (Math.abs(ev.deltaX) > Math.abs(ev.deltaY) || ev.shiftKey) {
      S.x0 += (ev.deltaX || ev.deltaY) / S.scale;
      clampX();
    } else {
      zoomAt(ev.deltaY > 0 ? 1 / 1.15 : 1.15, ev.clientX - V.plot.getBoundingClientRect().left);
    }
    schedule();
  }, { passive: false });
  var drag = null;
  V.lanes.addEventListener("mousedown", function (ev) {
    if (ev.button !== 0 || V.heads.contains(ev.target)) { return; }
    drag = { x: ev.clientX, y: ev.clientY, x0: S.x0, top: V.lanes.scrollTop, moved: false };
    V.lanes.classList.add("dragging");
    ev.preventDefault();
  });
  window.addEventListener("mousemove", function (ev) {
    if (!drag) { return; }
    var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; }
    S.x0 = drag.x0 - dx / S.scale;
    clampX();
    V.lanes.scrollTop = drag.top - dy;
    schedule();
  });
  window.addEventListener("mouseup", function (ev) {
    if (!drag) { return; }
    var moved = drag.moved;
    drag = null;
    V.lanes.classList.remove("dragging");
    if (!moved) { clickAt(V, ev.target); }
  });
  V.plot.addEventListener("mouseover", function (ev) {
    var t = ev.target.closest ? ev.target.closest("[data-h]") : null;
    if (!t) { return; }
    if (UI.hovered) { UI.hovered.classList.remove("hover"); }
    UI.hovered = t;
    t.classList.add("hover");
    showDetails(V, t.getAttribute("data-h"));
  });
}

// clickAt selects the event under the pointer and links to it.
function clickAt(V, target) {
  var t = target.closest ? target.closest("[data-h]") : null;
  if (!t) { return; }
  var h = t.getAttribute("data-h");
  showDetails(V, h);
  if (h.charAt(0) !== "e") { return; }
  var i = +h.split(":")[1], v = views.indexOf(V);
  S.sel = { v: v, i: i };
  var link = "#" + (views.length > 1 ? V.P.id + ":" : "") + "seq=" + V.P.seq[i];
  if (history.replaceState) { history.replaceState(null, "", link); }
  redraw();
}

function scrollToLane(name) {
  views.forEach(function (V) {
    var p = V.P.procs.indexOf(name);
    if (p >= 0 && V.L.rank[p] >= 0) { V.lanes.scrollTop = Math.max(V.L.y[p] - V.lanes.clientHeight / 2, 0); }
  });
}

// Violations: a click lights the witness events and pans to the first.
function wireViolations() {
  var items = document.querySelectorAll("#violations li.violation");
  function toggle(li) {
    var v = +li.getAttribute("data-panel"), k = +li.getAttribute("data-v"), V = views[v];
    var was = li.classList.contains("active");
    for (var j = 0; j < items.length; j++) { items[j].classList.remove("active"); }
    views.forEach(function (W) { W.lit = null; });
    S.viol = null;
    if (!was) {
      li.classList.add("active");
      S.viol = { v: v, k: k };
      V.lit = {};
      var first = -1;
      V.P.viol[k].ev.forEach(function (i) {
        if (i >= 0) { V.lit[V.L.head[i]] = true; if (first < 0) { first = i; } }
      });
      if (first >= 0) {
        var x = px(V, V.L.head[first]);
        if (x < 0 || x > V.plotW) { centreOn(V.L.base[V.L.head[first]], 0.4); }
        detailsEl.textContent = V.P.viol[k].prop + ": " + V.P.viol[k].msg + "\n\n" + V.P.d[first];
      }
    }
    redraw();
  }
  for (var k = 0; k < items.length; k++) {
    items[k].addEventListener("click", function (ev) { toggle(ev.currentTarget); });
    items[k].addEventListener("keydown", function (ev) {
      if (ev.key === "Enter" || ev.key === " ") { toggle(ev.currentTarget); }
    });
    items[k].setAttribute("data-ckpt-click", "1");
  }
  return items;
}

// hashParts reads #seq=N, #pk:seq=N, &search=Q and &selftest.
function hashParts() {
  var h = decodeURIComponent(location.hash.replace(/^#/, "")), out = {};
  h.split("&").forEach(function (part) {
    var m = /^(?:([\w.-]+):)?seq=(\d+)$/.exec(part);
    if (m) { out.panel = m[1] || ""; out.seq = +m[2]; return; }
    var kv = part.split("=");
    if (kv[0]) { out[kv[0]] = kv.length > 1 ? kv.slice(1).join("=") : true; }
  });
  return out;
}

// followLink goes to the event a #seq=N link names, if any.
function followLink() {
  var h = hashParts();
  if (h.seq === undefined) { return false; }
  var v = 0;
  views.forEach(function (V, k) { if (V.P.id === h.panel) { v = k; } });
  var i = views[v].idxOf(h.seq);
  if (i < 0) {
    S.status = "event #" + h.seq + " is not drawn (outside the drawn window or not in this run)";
    return false;
  }
  goTo(v, i);
  return true;
}

// firstView shows the start of the run, or its first failure when the
// start would not: the first view of a large run shows what matters.
function firstView(zoom) {
  start();
  // A short run is spread over the width (up to twice zoom 1): room for
  // message names.
  var hi = 0;
  views.forEach(function (V) { hi = Math.max(hi, V.L.maxB); });
  var fill = (plotW() - PADL - 60) / Math.max(hi, 1e-9) / unit();
  S.scale = unit() * (zoom !== 1 ? zoom : Math.min(Math.max(fill, 1), 2));
  var f = allFailures();
  if (!f.length) { return; }
  var V = views[f[0].v], i = f[0].i;
  if (px(V, i) > plotW() * 0.8) { centreOn(V.L.base[i], 0.33); }
  UI.firstFail = f[0];
}

// eventDetails gives each event of a panel its details: its line as the
// run file writes it and what the diagram worked out about it.
function eventDetails(P, lines) {
  // The page wrote each '<' of a string as \u003c (eventsHTML); an
  // escaped backslash before one is text, not an escape.
  P.d = lines.replace(/(?<!\\)((?:\\\\)*)\\u003c/g, "$1<").split("\n");
  P.d.length = P.c.length;
  for (var i = 0; i < P.f.length; i++) { if (P.f[i]) { P.d[i] += P.f[i]; } }
  P.fails = [];
  P.k.forEach(function (k, i) { if (k === K.fail) { P.fails.push(i); } });
}

function init() {
  var dataEl = document.getElementById("ckpt-data");
  var data = JSON.parse(dataEl.textContent);
  dataEl.textContent = ""; // the DOM need not hold it twice
  data.kinds.forEach(function (n, i) { K[n] = i; });
  S.axis = data.axis === "time" ? "time" : "logical";
  detailsEl = document.getElementById("details");
  var longest = 0;
  var lines = document.querySelectorAll("script.ckpt-events");
  data.panels.forEach(function (P, v) {
    P.kinds = data.kinds;
    P.ms = P.algorithm.indexOf("ms") === 0;
    eventDetails(P, lines[v].textContent);
    lines[v].textContent = "";
    P.procs.forEach(function (p) { longest = Math.max(longest, textW(p, HEAD_FONT)); });
  });
  headW = Math.round(Math.min(Math.max(longest + 26, 96), Math.max(160, Math.min(300, window.innerWidth * 0.25))));
  var panels = document.getElementById("panels");
  data.panels.forEach(function (P) { views.push(makeView(P, panels, data.panels.length > 1)); });
  violationList(document.getElementById("violations-box"));
  if (views.length === 2) { compareTables(document.getElementById("compare-box")); }
  overviewInit(document.getElementById("overview"));
  buildControls(document.getElementById("ckpt-controls"));
  relayout();
  views.forEach(wire);
  var items = wireViolations();
  var h0 = hashParts();
  if (h0.axis === "time" || h0.axis === "logical") { S.axis = h0.axis; relayout(); }
  if (h0.collapse) { S.collapse = UI.collapse.checked = true; relayout(); }
  firstView(+h0.zoom > 0 ? Math.min(+h0.zoom, ZOOM_MAX) : 1);
  if (!followLink()) { redraw(); }
  window.addEventListener("hashchange", followLink);
  window.addEventListener("resize", function () { overviewDraw(); sizes(); redraw(); });
  document.addEventListener("keydown", function (ev) {
    if (ev.target && (ev.target.tagName === "INPUT" || ev.target.tagName === "TEXTAREA")) { return; }
    var w = plotW() / 4 / S.scale;
    if (ev.key === "/") { UI.search.focus(); ev.preventDefault(); } else if (ev.key === "ArrowRight") { S.x0 += w; clampX(); schedule(); } else if (ev.key === "ArrowLeft") { S.x0 -= w; clampX(); schedule(); } else if (ev.key === "+" || ev.key === "=") { zoomAt(1.5); schedule(); } else if (ev.key === "-") { zoomAt(1 / 1.5); schedule(); }
  });
  var ready = el("div", "", document.body);
  ready.id = "ckpt-ready";
  ready.hidden = true;
  var events = 0;
  views.forEach(function (V) { events += V.P.n; });
  ready.setAttribute("data-events", String(events));
  ready.setAttribute("data-violations", String(items.length));
  ready.setAttribute("data-load-ms", String(Math.round(performance.now())));
  document.documentElement.setAttribute("data-ckpt-ready", "1");
  var h = hashParts();
  if (h.selftest) { selftest(h); }
}

try {
  init();
} catch (e) {
  fail(e && e.message ? e.message + (e.stack ? " @ " + String(e.stack).split("\n")[1] : "") : String(e));
}
