// selftest.js — with #selftest in the URL the page drives itself as a
// reader would and records what it finds in #ckpt-selftest, so a
// headless browser's --dump-dom shows whether the page is readable:
// lane names whole, distinct and uncovered, before and after a pan; no
// two labels overlapping; no text under 12 px; the overview strip with
// every failure; the lanes as high as the window lets them, as loaded; a
// deep link landing on its event; search finding a
// message; hover, violations, zoom, fit, the axis switch, collapsing and
// hiding lanes. Each result is "ok" or "broken: why".

function rectOK(r) { return r.width > 0 && r.height > 0; }
function overlap(a, b) { return a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5; }

// laneCheck: every lane name is shown whole (or shortened, with an
// ellipsis, the whole name as its tooltip), the shown names are
// distinct, and the
// topmost element at the name's left, middle and right is the name.
function laneCheck(full) {
  var problems = [];
  views.forEach(function (V) {
    var shown = {}, heads = V.heads.querySelectorAll(".lane-head");
    var visible = V.lanes.getBoundingClientRect();
    if (heads.length !== V.L.lanes) { problems.push(heads.length + " heads for " + V.L.lanes + " lanes"); }
    heads.forEach(function (h) {
      var name = h.getAttribute("data-p"), text = h.querySelector(".name").textContent;
      if (h.title !== name) { problems.push("tooltip of " + name + " is " + h.title); }
      if (full && text !== name) { problems.push(name + " shown as " + text); }
      if (text !== name && text.indexOf("…") < 0) { problems.push(name + " cut without an ellipsis: " + text); }
      if (shown[text]) { problems.push("two lanes read " + text); }
      shown[text] = true;
      var r = h.querySelector(".name").getBoundingClientRect();
      if (r.top < Math.max(visible.top, 0) || r.bottom > Math.min(visible.bottom, window.innerHeight)) { return; } // scrolled (partly) out of view
      if (r.right > V.heads.getBoundingClientRect().right + 0.5) { problems.push(name + " overflows its column"); }
      [r.left + 2, (r.left + r.right) / 2, r.right - 2].forEach(function (x) {
        var top = document.elementFromPoint(x, (r.top + r.bottom) / 2);
        if (!top || !h.contains(top)) { problems.push(name + " covered at x=" + Math.round(x) + " by " + (top ? top.tagName + "." + (top.getAttribute("class") || "") : "nothing")); }
      });
    });
  });
  return problems.length ? "broken: " + problems.slice(0, 4).join("; ") : "ok";
}

// distinctCheck: the lane labels a reader sees at once — those in view,
// in every panel — read pairwise differently, so that no two lanes can
// be taken for each other (issue 18: hosts whose names differed only in
// a number all read "a-very-long-proce…uster.example.org").
function distinctCheck() {
  var problems = [];
  views.forEach(function (V) {
    var seen = {}, visible = V.lanes.getBoundingClientRect();
    V.heads.querySelectorAll(".lane-head").forEach(function (h) {
      var r = h.getBoundingClientRect(), text = h.querySelector(".name").textContent;
      if (r.bottom < visible.top || r.top > visible.bottom || r.height === 0) { return; }
      if (seen[text] !== undefined) { problems.push(seen[text] + " and " + h.getAttribute("data-p") + " both read " + text); }
      seen[text] = h.getAttribute("data-p");
    });
  });
  return problems.length ? "broken: " + problems.slice(0, 3).join("; ") : "ok";
}

// texts are every text a reader sees — lane names, axis, labels — each
// with the box that clips it (a panel's lanes scroll).
function texts() {
  var out = [];
  views.forEach(function (V) {
    var lanes = V.lanes.getBoundingClientRect(), axis = V.axisSvg.getBoundingClientRect();
    V.heads.querySelectorAll(".lane-head .name").forEach(function (e) { out.push([e, lanes]); });
    V.axisSvg.querySelectorAll("text").forEach(function (e) { out.push([e, axis]); });
    V.layer.querySelectorAll("text").forEach(function (e) { out.push([e, lanes]); });
  });
  return out;
}

function clip(r, c) {
  var l = Math.max(r.left, c.left), t = Math.max(r.top, c.top), rr = Math.min(r.right, c.right), b = Math.min(r.bottom, c.bottom);
  return { left: l, top: t, right: rr, bottom: b, width: Math.max(rr - l, 0), height: Math.max(b - t, 0) };
}

function overlapCheck() {
  var ts = texts(), boxes = [], bad = [];
  ts.forEach(function (p) { var r = clip(p[0].getBoundingClientRect(), p[1]); if (rectOK(r)) { boxes.push([r, p[0]]); } });
  boxes.sort(function (a, b) { return a[0].left - b[0].left; });
  for (var i = 0; i < boxes.length; i++) {
    for (var j = i + 1; j < boxes.length && boxes[j][0].left < boxes[i][0].right; j++) {
      if (overlap(boxes[i][0], boxes[j][0])) { bad.push(JSON.stringify(boxes[i][1].textContent) + " × " + JSON.stringify(boxes[j][1].textContent)); }
    }
  }
  return { n: boxes.length, result: bad.length ? "broken: " + bad.length + " overlaps, e.g. " + bad.slice(0, 3).join("; ") : "ok" };
}

function fontCheck() {
  var small = [];
  texts().forEach(function (p) {
    var e = p[0], fs = parseFloat(getComputedStyle(e).fontSize);
    if (fs < 12) { small.push(e.textContent + " " + fs + "px"); }
  });
  return small.length ? "broken: " + small.slice(0, 3).join("; ") : "ok";
}

// inPlot: the element is drawn within the visible part of its plot.
function inPlot(V, e) {
  if (!e) { return false; }
  var r = e.getBoundingClientRect(), p = V.lanes.getBoundingClientRect(), q = V.plot.getBoundingClientRect();
  return r.left >= q.left - 1 && r.right <= p.right + 1 && r.top >= p.top - 1 && r.bottom <= p.bottom + 1;
}

function selftest(h) {
  var out = el("div", "", document.body);
  out.id = "ckpt-selftest";
  out.hidden = true;
  function rec(name, fn) {
    var r;
    try { r = fn(); } catch (e) { r = "broken: " + (e && e.message ? e.message : String(e)); }
    out.setAttribute("data-" + name, r);
  }
  var V = views[0];
  readingChecks(h, V, out, rec);
  movingChecks(V, out, rec);
  controlChecks(V, out, rec);
  linkChecks(h, out, rec);
  document.body.appendChild(out);
}

// readingChecks: what a reader sees first.
function readingChecks(h, V, out, rec) {
  if (h.seq !== undefined) {
    rec("deeplink", function () {
        var W = views[S.sel ? S.sel.v : 0], s = W.layer.querySelector(".sel[data-seq=\"" + h.seq + "\"]");
      if (!s) { return "broken: no ring around #" + h.seq; }
      if (!inPlot(W, s)) { return "broken: #" + h.seq + " is not in view"; }
      return detailsEl.textContent.indexOf('"seq":' + h.seq + ",") >= 0 ? "ok" : "broken: details show " + detailsEl.textContent.slice(0, 40);
    });
  }
  rec("first-view", function () {
    if (!UI.firstFail || h.seq !== undefined) { return "ok"; }
    var f = UI.firstFail, W = views[f.v], x = px(W, f.i);
    return x >= 0 && x <= W.plotW ? "ok" : "broken: first failure at x=" + Math.round(x);
  });
  // The lanes take the window's height as loaded, not only once resized.
  rec("fits-window", function () {
    var bad = [];
    views.forEach(function (W) {
      if (W.lanes.style.maxHeight !== laneHeight(W) + "px") { bad.push("lanes " + W.lanes.style.maxHeight + " high, the window gives " + laneHeight(W) + "px"); }
    });
    return bad.length ? "broken: " + bad.join("; ") : "ok";
  });
  rec("lanes", function () { return laneCheck(h.full !== undefined); });
  rec("lanes-distinct", distinctCheck);
  var ov = overlapCheck();
  out.setAttribute("data-labels", String(ov.n));
  rec("no-overlap", function () { return ov.result; });
  rec("font", fontCheck);
  rec("overview", function () {
    var c = OV.canvas, marks = OV.svg.querySelectorAll(".ov-fail").length, want = 0;
    views.forEach(function (W) { want += W.P.fails.length; });
    if (!c || c.width < 50 || c.height < 5) { return "broken: no overview canvas"; }
    if (!OV.svg.querySelector("#overview-view")) { return "broken: no view box"; }
    out.setAttribute("data-overview-failures", String(marks));
    return marks === want ? "ok" : "broken: " + marks + " failure marks for " + want + " failures";
  });
}

// movingChecks: hover, and the names staying put while the view moves.
function movingChecks(V, out, rec) {
  rec("hover", function () {
    var m = V.layer.querySelector("[data-h^=\"e:\"]"), before = detailsEl.textContent;
    if (!m) { return V.P.p.length === 0 ? "ok" : "broken: no mark to hover"; }
    m.dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
    return detailsEl.textContent !== before && /"seq":\d+,/.test(detailsEl.textContent) ? "ok" : "broken: details " + detailsEl.textContent.slice(0, 40);
  });
  // Pan to the end: the lane names must stay in view and uncovered.
  rec("pan", function () {
    var x0 = S.x0;
    S.x0 = V.L.maxB;
    clampX();
    S.x0 -= (plotW() * 0.7) / S.scale;
    redraw();
    if (S.x0 === x0) { return "broken: the view did not move"; }
    var r = laneCheck(false);
    var o = overlapCheck().result;
    return r !== "ok" ? r : o !== "ok" ? "after the pan " + o : "ok";
  });
  rec("overview-jump", function () {
    var r = OV.box.getBoundingClientRect(), x0 = S.x0;
    OV.box.dispatchEvent(new MouseEvent("mousedown", { bubbles: true, clientX: r.left + r.width * 0.1, clientY: r.top + 3 }));
    window.dispatchEvent(new MouseEvent("mouseup", { bubbles: true }));
    return S.x0 !== x0 ? "ok" : "broken: clicking the overview did not move the view";
  });
}

// controlChecks: the toolbar's buttons do what they say.
function controlChecks(V, out, rec) {
  rec("zoom", function () {
    var s = S.scale;
    document.getElementById("zoom-in").click();
    return S.scale > s ? "ok" : "broken";
  });
  rec("labels-zoomed", function () {
    start();
    zoomAt(3, PADL);
    redraw();
    var n = V.layer.querySelectorAll(".msg-label").length, arrows = V.P.ar.length;
    out.setAttribute("data-msg-labels", String(n));
    var o = overlapCheck().result;
    if (o !== "ok") { return "zoomed in: " + o; }
    return arrows === 0 || n > 0 ? "ok" : "broken: no message names when zoomed in";
  });
  rec("fit", function () {
    document.getElementById("fit").click();
    var n = V.layer.querySelectorAll("[data-h^=\"e:\"]").length;
    out.setAttribute("data-fit-marks", String(n));
    if (S.scale < unit() * FIT_MIN - 1e-9) { return "broken: fit shrank below the readable floor"; }
    return fontCheck();
  });
  rec("axis", function () {
    document.getElementById("axis-time").click();
    var t = V.axisSvg.querySelectorAll("text.tick").length, c = V.corner.textContent;
    document.getElementById("axis-logical").click();
    var l = V.corner.textContent;
    return t > 0 && /time/.test(c) && /logical/.test(l) ? "ok" : "broken: ticks " + t + ", captions " + c + " / " + l;
  });
  // Collapsing merges runs of local events: fewer marks exactly when a
  // lane has two local events in a row.
  rec("collapse", function () {
    var count = function () { var c = 0; for (var i = 0; i < V.L.vis.length; i++) { c += V.L.vis[i]; } return c; };
    var before = count(), runs = false, prev = {};
    for (var i = 0; i < V.P.p.length; i++) {
      var k = V.P.k[i], p = V.P.p[i];
      if (!slotted(k)) { continue; }
      if (isLocal(k) && prev[p]) { runs = true; }
      prev[p] = isLocal(k);
    }
    UI.collapse.click();
    var after = count();
    UI.collapse.click();
    var back = count();
    if (back !== before) { return "broken: " + before + " marks, " + back + " after collapsing and expanding"; }
    return (runs ? after < before : after === before) ? "ok" : "broken: " + before + " marks before, " + after + " collapsed";
  });
  rec("hide-lane", function () {
    var n = V.heads.querySelectorAll(".lane-head").length;
    if (n < 2) { return "ok"; }
    V.heads.querySelector(".hide-lane").click();
    var m = V.heads.querySelectorAll(".lane-head").length;
    setHidden({});
    var back = V.heads.querySelectorAll(".lane-head").length;
    if (m !== n - 1 || back !== n) { return "broken: " + n + " → " + m + " → " + back; }
    // The lanes menu: untick the last lane, then click outside.
    UI.lanesBtn.click();
    var boxes = document.querySelectorAll("#lane-menu input[type=checkbox]");
    boxes[boxes.length - 1].click();
    var viaMenu = V.heads.querySelectorAll(".lane-head").length;
    document.body.dispatchEvent(new MouseEvent("mousedown", { bubbles: true }));
    var open = document.querySelectorAll("#lane-menu").length;
    setHidden({});
    return viaMenu === n - 1 && open === 0 ? "ok" : "broken: the lanes menu left " + viaMenu + " of " + n + " lanes, " + open + " menus open";
  });
  rec("failure-nav", function () {
    var f = allFailures(), btn = document.getElementById("fail-next");
    if (!f.length) { return btn ? "broken: failure navigation without failures" : "ok"; }
    btn.click();
    var W = views[S.sel.v], m = W.layer.querySelector(".sel");
    return inPlot(W, m) && /fail/.test(detailsEl.textContent) ? "ok" : "broken: the failure is not in view";
  });
}

// linkChecks: violations light up and clear; search finds its match.
function linkChecks(h, out, rec) {
  var items = document.querySelectorAll("#violations li.violation");
  if (items.length > 0) {
    S.sel = null;
    items[0].click();
    out.setAttribute("data-highlighted", String(document.querySelectorAll(".layer .hl").length));
    items[0].click();
    out.setAttribute("data-unhighlighted", String(document.querySelectorAll(".layer .hl").length));
  }
  if (h.search) {
    rec("search", function () {
      UI.search.value = h.search;
      UI.search.dispatchEvent(new Event("input"));
      UI.search.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
      var m = S.matches[S.match];
      if (!m) { return "broken: no match for " + h.search; }
      var W = views[m.v], ring = W.layer.querySelector(".sel");
      out.setAttribute("data-search-matches", String(S.matches.length));
      return inPlot(W, ring) ? "ok" : "broken: the match is not in view";
    });
  }
}
