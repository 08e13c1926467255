// ckpt diagram: hover details, zoom/pan and the violation list. Plain
// ES5-style code, no dependencies, nothing loaded from the network. When
// it has finished it marks the document with data-ckpt-ready and a
// #ckpt-ready element; any error goes into a visible #ckpt-error element,
// which the browser test checks is absent.
(function () {
  "use strict";
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

  function init() {
    var viewport = document.getElementById("viewport");
    var svg = viewport.querySelector("svg");
    var details = document.getElementById("details");
    var W = parseFloat(svg.getAttribute("width"));
    var H = parseFloat(svg.getAttribute("data-lanes-bottom")) || parseFloat(svg.getAttribute("height"));
    svg.setAttribute("preserveAspectRatio", "xMinYMin meet");

    // Zoom and pan move the viewBox; the initial view shows the start of
    // a long run at a readable scale instead of shrinking all of it.
    // Start at scale 1: a long run shows its beginning, readable, rather
    // than all of it shrunk; "fit" shows everything.
    function home() {
      var cw = viewport.clientWidth || W;
      return { x: 0, y: 0, w: W <= cw * 1.6 ? W : Math.max(cw, 200), h: H };
    }
    var vb = home();
    function apply() {
      svg.setAttribute("viewBox", vb.x + " " + vb.y + " " + vb.w + " " + vb.h);
    }
    function zoom(f, cx, cy) {
      var nw = Math.min(Math.max(vb.w * f, 60), W * 4);
      var nh = vb.h * (nw / vb.w);
      if (cx === undefined) { cx = vb.x + vb.w / 2; cy = vb.y + vb.h / 2; }
      vb.x = cx - (cx - vb.x) * (nw / vb.w);
      vb.y = cy - (cy - vb.y) * (nh / vb.h);
      vb.w = nw; vb.h = nh;
      apply();
    }
    function toSVG(ev) {
      var r = svg.getBoundingClientRect();
      var s = Math.max(vb.w / r.width, vb.h / r.height);
      return { x: vb.x + (ev.clientX - r.left) * s, y: vb.y + (ev.clientY - r.top) * s, s: s };
    }
    function reset() { vb = home(); apply(); }
    function fit() { vb = { x: 0, y: 0, w: W, h: H }; apply(); }
    // Long runs: step through the failures, where the recoveries are.
    var fails = svg.querySelectorAll(".events .ev-fail[data-seq]");
    var nextFail = 0;
    function nextFailure() {
      if (fails.length === 0) { return; }
      var el = fails[nextFail % fails.length];
      nextFail++;
      var box = el.getBBox();
      vb.x = Math.max(0, box.x - vb.w / 4);
      apply();
      show(el);
    }
    viewport.addEventListener("wheel", function (ev) {
      ev.preventDefault();
      var p = toSVG(ev);
      zoom(ev.deltaY > 0 ? 1.15 : 1 / 1.15, p.x, p.y);
    }, { passive: false });
    var drag = null;
    viewport.addEventListener("mousedown", function (ev) {
      drag = { x: ev.clientX, y: ev.clientY, vx: vb.x, vy: vb.y, s: toSVG(ev).s };
      viewport.classList.add("dragging");
    });
    window.addEventListener("mousemove", function (ev) {
      if (!drag) { return; }
      vb.x = drag.vx - (ev.clientX - drag.x) * drag.s;
      vb.y = drag.vy - (ev.clientY - drag.y) * drag.s;
      apply();
    });
    window.addEventListener("mouseup", function () { drag = null; viewport.classList.remove("dragging"); });

    var bar = document.createElement("div");
    bar.id = "ckpt-toolbar";
    [["+", "zoom in", function () { zoom(1 / 1.4); }],
     ["−", "zoom out", function () { zoom(1.4); }],
     ["start", "reset the view", reset],
     ["fit", "show the whole run", fit],
     ["failure ▸", "pan to the next failure", nextFailure]].forEach(function (b) {
      var btn = document.createElement("button");
      btn.type = "button";
      btn.textContent = b[0];
      btn.title = b[1];
      btn.className = "ckpt-zoom";
      btn.addEventListener("click", b[2]);
      bar.appendChild(btn);
    });
    var hint = document.createElement("span");
    hint.textContent = "wheel to zoom, drag to pan, hover for details, click a violation to highlight its events";
    bar.appendChild(hint);
    viewport.parentNode.parentNode.insertBefore(bar, viewport.parentNode);

    // Hover: every mark carries its details in its <title>.
    var marks = svg.querySelectorAll("[data-seq], .ckpt-initial");
    var hovered = null;
    function show(el) {
      var t = el.querySelector("title");
      details.textContent = t ? t.textContent : "";
      if (hovered) { hovered.classList.remove("hover"); }
      hovered = el;
      el.classList.add("hover");
    }
    for (var i = 0; i < marks.length; i++) {
      marks[i].addEventListener("mouseenter", function (ev) { show(ev.currentTarget); });
      marks[i].setAttribute("data-ckpt-hover", "1");
    }

    // Violations: highlight the witness events, their rings, and pan to
    // the first one.
    var items = document.querySelectorAll("#violations li.violation");
    var lit = [];
    function highlight(li) {
      lit.forEach(function (el) { el.classList.remove("hl"); });
      lit = [];
      var was = li.classList.contains("active");
      for (var k = 0; k < items.length; k++) { items[k].classList.remove("active"); }
      if (was) { return; }
      li.classList.add("active");
      var seqs = (li.getAttribute("data-seqs") || "").split(" ").filter(function (s) { return s !== ""; });
      var first = null;
      seqs.forEach(function (s) {
        var els = svg.querySelectorAll('[data-seq="' + s + '"]');
        for (var j = 0; j < els.length; j++) {
          els[j].classList.add("hl");
          lit.push(els[j]);
          if (!first && els[j].classList.contains("viol")) { first = els[j]; }
        }
      });
      if (first) {
        var cx = parseFloat(first.getAttribute("cx"));
        if (cx < vb.x || cx > vb.x + vb.w) { vb.x = Math.max(0, cx - vb.w / 3); apply(); }
        show(first);
      }
    }
    for (var k = 0; k < items.length; k++) {
      items[k].addEventListener("click", function (ev) { highlight(ev.currentTarget); });
      items[k].addEventListener("keydown", function (ev) {
        if (ev.key === "Enter" || ev.key === " ") { highlight(ev.currentTarget); }
      });
      items[k].setAttribute("data-ckpt-click", "1");
    }
    apply();
    // A short diagram should not sit in a tall empty box.
    var fitH = H * viewport.clientWidth / vb.w + 4;
    if (fitH > 0 && fitH < viewport.clientHeight) { viewport.style.height = Math.max(fitH, 200) + "px"; }

    var ready = document.createElement("div");
    ready.id = "ckpt-ready";
    ready.hidden = true;
    ready.setAttribute("data-marks", String(marks.length));
    ready.setAttribute("data-violations", String(items.length));
    document.body.appendChild(ready);
    document.documentElement.setAttribute("data-ckpt-ready", "1");
    if (location.hash === "#ckpt-selftest") { selftest(svg, marks, items, details); }
    // #seq=N links to an event: its details are shown and its marks lit.
    var link = /^#seq=(\d+)$/.exec(location.hash);
    if (link) {
      var els = svg.querySelectorAll('[data-seq="' + link[1] + '"]');
      for (var e = 0; e < els.length; e++) { els[e].classList.add("hl"); }
      // A rollback's jump explains more than its mark: prefer it.
      var best = svg.querySelector('.jump[data-seq="' + link[1] + '"]') || els[els.length - 1];
      if (best) { show(best); }
    }
  }

  // selftest drives the page as a user would — hover, click a violation,
  // zoom — and records what happened in #ckpt-selftest, so a headless
  // browser's --dump-dom can show that the interaction works.
  function selftest(svg, marks, items, details) {
    var out = document.createElement("div");
    out.id = "ckpt-selftest";
    out.hidden = true;
    var before = details.textContent;
    var ev = svg.querySelector(".events [data-seq]");
    if (ev) { ev.dispatchEvent(new MouseEvent("mouseenter")); }
    out.setAttribute("data-hover", details.textContent !== before && details.textContent.indexOf("#") === 0 ? "ok" : "broken");
    if (items.length > 0) {
      items[0].click();
      out.setAttribute("data-highlighted", String(svg.querySelectorAll(".hl").length));
      items[0].click();
      out.setAttribute("data-unhighlighted", String(svg.querySelectorAll(".hl").length));
    }
    var vb = svg.getAttribute("viewBox");
    var zoomIn = document.querySelector("#ckpt-toolbar button.ckpt-zoom");
    if (zoomIn) { zoomIn.click(); }
    out.setAttribute("data-zoom", svg.getAttribute("viewBox") !== vb ? "ok" : "broken");
    var buttons = document.querySelectorAll("#ckpt-toolbar button.ckpt-zoom");
    var next = buttons[buttons.length - 1];
    if (next) { next.click(); }
    out.setAttribute("data-next-failure", / fail\b/.test(details.textContent) ? "ok" : "broken");
    document.body.appendChild(out);
  }

  try {
    init();
  } catch (e) {
    fail(e && e.message ? e.message : String(e));
  }
})();
