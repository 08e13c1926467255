// controls.js — the toolbar: zoom, fit, start, failure navigation, the
// axis switch (logical order / real time), collapsing local events, the
// lane filter and search by message, process, event number or kind.

var UI = {};

function button(parent, id, text, title, onclick) {
  var b = el("button", "", parent);
  b.type = "button";
  b.id = id;
  b.textContent = text;
  b.title = title;
  b.addEventListener("click", onclick);
  return b;
}

function buildControls(bar) {
  var g = el("span", "group", bar);
  button(g, "zoom-out", "−", "zoom out (or wheel down)", function () { zoomAt(1 / 1.5); redraw(); });
  button(g, "zoom-in", "+", "zoom in (or wheel up)", function () { zoomAt(1.5); redraw(); });
  button(g, "fit", "fit", "show as much of the run as stays readable", function () { fit(); redraw(); });
  button(g, "start", "start", "back to the start of the run at zoom 1", function () { start(); redraw(); });
  var fails = allFailures();
  if (fails.length > 0) {
    // Only a run with failures gets failure navigation.
    g = el("span", "group", bar);
    button(g, "fail-prev", "◂", "previous failure", function () { stepFailure(-1); });
    UI.failPos = el("span", "fail-pos", g);
    UI.failPos.id = "fail-pos";
    button(g, "fail-next", "failure ▸", "next failure", function () { stepFailure(1); });
  }
  g = el("span", "group", bar);
  el("span", "", g).textContent = "x:";
  UI.axisLogical = button(g, "axis-logical", "logical order", "happened-before order, not to scale", function () { setAxis("logical"); });
  UI.axisTime = button(g, "axis-time", "real time", "real time, to scale", function () { setAxis("time"); });
  g = el("label", "group", bar);
  UI.collapse = el("input", "", g);
  UI.collapse.type = "checkbox";
  UI.collapse.id = "collapse";
  UI.collapse.addEventListener("change", function () { keepCentre(function () { S.collapse = UI.collapse.checked; }); });
  g.appendChild(document.createTextNode(" collapse local events"));
  g.title = "merge each run of internal events (and skipped ticks) on a lane into one mark";
  g = el("span", "group", bar);
  UI.lanesBtn = button(g, "lanes-btn", "lanes ▾", "show or hide lanes", toggleLaneMenu);
  g = el("span", "group", bar);
  UI.search = el("input", "", g);
  UI.search.id = "ckpt-search";
  UI.search.type = "search";
  UI.search.placeholder = "search message, process, #event, kind";
  UI.search.title = "a message id (or part), a process name, #N for event N, or a kind such as rollback, forced, orphan; Enter for the next";
  UI.search.addEventListener("input", function () { runSearch(UI.search.value); redraw(); });
  UI.search.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter") { stepMatch(ev.shiftKey ? -1 : 1); }
  });
  button(g, "search-prev", "◂", "previous match", function () { stepMatch(-1); });
  button(g, "search-next", "▸", "next match", function () { stepMatch(1); });
  UI.count = el("span", "match-count", g);
  UI.count.id = "match-count";
  UI.only = button(g, "only-lanes", "only these lanes", "hide every lane the search does not name", onlyMatchingLanes);
  UI.only.hidden = true;
  UI.status = el("span", "status", bar);
  UI.status.id = "ckpt-status";
  var hint = el("span", "hint", bar);
  hint.textContent = "wheel: zoom · shift+wheel or drag: pan · click an event to link to it";
}

function updateControls() {
  UI.axisLogical.className = S.axis === "time" ? "" : "on";
  UI.axisTime.className = S.axis === "time" ? "on" : "";
  var names = laneNames(), shown = 0;
  for (var i = 0; i < names.length; i++) { if (!S.hidden[names[i]]) { shown++; } }
  UI.lanesBtn.textContent = "lanes " + shown + "/" + names.length + " ▾";
  UI.status.textContent = S.status;
  if (UI.failPos) {
    var f = allFailures();
    // Compared runs replay the same failures: count them once.
    var each = views.length > 1 && views.every(function (V) { return V.P.fails.length === views[0].P.fails.length; });
    var n = each ? views[0].P.fails.length : f.length;
    UI.failPos.textContent = UI.failAt >= 0 ? "failure " + (UI.failAt + 1) + "/" + f.length :
      (n === 1 ? "1 failure" : n + " failures") + (each ? " in each run" : "");
  }
}

// laneNames are the processes of every panel, each once.
function laneNames() {
  var out = [], seen = {};
  views.forEach(function (V) {
    V.P.procs.forEach(function (p) { if (!seen[p]) { seen[p] = true; out.push(p); } });
  });
  return out;
}

function toggleLaneMenu() {
  if (UI.menu) { UI.menu.remove(); UI.menu = null; return; }
  var m = UI.menu = el("div", "lane-menu", document.body);
  m.id = "lane-menu";
  var r = UI.lanesBtn.getBoundingClientRect();
  m.style.left = (r.left + window.scrollX) + "px";
  m.style.top = (r.bottom + window.scrollY + 2) + "px";
  var all = button(m, "lanes-all", "show all", "show every lane", function () { setHidden({}); toggleLaneMenu(); });
  all.style.marginBottom = "4px";
  laneNames().forEach(function (name) {
    var l = el("label", "", m), c = el("input", "", l);
    c.type = "checkbox";
    c.checked = !S.hidden[name];
    c.setAttribute("data-p", name);
    c.addEventListener("change", function () {
      var h = {};
      for (var k in S.hidden) { if (S.hidden[k]) { h[k] = true; } }
      if (c.checked) { delete h[name]; } else { h[name] = true; }
      setHidden(h);
    });
    l.appendChild(document.createTextNode(" " + name));
  });
}

// A click outside the lane menu closes it.
document.addEventListener("mousedown", function (ev) {
  if (UI.menu && !UI.menu.contains(ev.target) && ev.target !== UI.lanesBtn) { toggleLaneMenu(); }
});

function setHidden(h) {
  var names = laneNames(), any = false;
  for (var i = 0; i < names.length; i++) { if (!h[names[i]]) { any = true; } }
  if (!any) { S.status = "at least one lane stays shown"; updateControls(); return; }
  keepCentre(function () { S.hidden = h; });
}

// runSearch finds events by message id, number or kind, and lanes by
// process name.
function runSearch(q) {
  q = q.trim().toLowerCase();
  S.matches = [];
  S.match = -1;
  UI.laneHits = [];
  views.forEach(function (V) { V.heads.querySelectorAll(".lane-head").forEach(function (h) { h.classList.remove("match"); }); });
  if (q === "") { UI.count.textContent = ""; UI.only.hidden = true; return; }
  var num = /^#?(\d+)$/.exec(q);
  views.forEach(function (V, v) {
    var P = V.P, i;
    if (num) {
      i = V.idxOf(+num[1]);
      if (i >= 0) { S.matches.push({ v: v, i: i }); }
      return;
    }
    var msgHit = {};
    for (i = 0; i < P.msgs.length; i++) { if (P.msgs[i].toLowerCase().indexOf(q) >= 0) { msgHit[i] = true; } }
    var words = {};
    for (i = 0; i < P.cls.length; i++) {
      var ws = P.cls[i].split(" ");
      for (var j = 0; j < ws.length; j++) {
        var w = ws[j].replace(/^(ev|ckpt|reason|state)-/, "");
        if (w === q || ws[j] === q) { words[i] = true; }
      }
    }
    for (i = 0; i < P.p.length; i++) {
      if ((P.m[i] >= 0 && msgHit[P.m[i]]) || words[P.c[i]] || P.kinds[P.k[i]] === q) { S.matches.push({ v: v, i: i }); }
    }
    P.procs.forEach(function (name) {
      if (name.toLowerCase().indexOf(q) >= 0 && UI.laneHits.indexOf(name) < 0) { UI.laneHits.push(name); }
    });
  });
  views.forEach(function (V) {
    V.heads.querySelectorAll(".lane-head").forEach(function (h) {
      if (UI.laneHits.indexOf(h.getAttribute("data-p")) >= 0) { h.classList.add("match"); }
    });
  });
  var parts = [S.matches.length + (S.matches.length === 1 ? " event" : " events")];
  if (UI.laneHits.length) { parts.push(UI.laneHits.length + (UI.laneHits.length === 1 ? " lane" : " lanes")); }
  UI.count.textContent = parts.join(", ");
  UI.only.hidden = UI.laneHits.length === 0;
}

function stepMatch(dir) {
  if (S.matches.length === 0) {
    if (UI.laneHits && UI.laneHits.length) { scrollToLane(UI.laneHits[0]); }
    return;
  }
  S.match = (S.match + dir + S.matches.length) % S.matches.length;
  var m = S.matches[S.match];
  UI.count.textContent = (S.match + 1) + " of " + S.matches.length + " events";
  goTo(m.v, m.i);
}

function onlyMatchingLanes() {
  var h = {};
  laneNames().forEach(function (n) { if (UI.laneHits.indexOf(n) < 0) { h[n] = true; } });
  setHidden(h);
}

// allFailures lists the drawn failures of every panel in x order.
function allFailures() {
  var out = [];
  views.forEach(function (V, v) {
    V.P.fails.forEach(function (i) { out.push({ v: v, i: i }); });
  });
  out.sort(function (a, b) { return views[a.v].P.t[a.i] - views[b.v].P.t[b.i] || a.v - b.v; });
  return out;
}
UI.failAt = -1;

function stepFailure(dir) {
  var f = allFailures();
  if (!f.length) { return; }
  UI.failAt = (UI.failAt + dir + f.length) % f.length;
  goTo(f[UI.failAt].v, f[UI.failAt].i);
}
