// overview.js — the strip above the diagram that shows the whole run:
// where events are on every lane, the failures (red), recovery lines
// (cyan) and violation witnesses (magenta), and the part in view (blue
// box). Click or drag on it to go anywhere.

var OV = { box: null, canvas: null, svg: null, w: 0, h: 0, rows: [], lo: 0, hi: 1 };

function overviewInit(parent) {
  OV.box = parent;
  OV.canvas = el("canvas", "", parent);
  OV.svg = svgEl("svg", "", parent);
  OV.svg.setAttribute("id", "overview-marks");
  var drag = false;
  function go(ev) {
    var r = OV.box.getBoundingClientRect();
    var u = OV.lo + (ev.clientX - r.left) / Math.max(r.width, 1) * (OV.hi - OV.lo);
    centreOn(u, 0.5);
    redraw();
  }
  parent.addEventListener("mousedown", function (ev) { drag = true; go(ev); ev.preventDefault(); });
  window.addEventListener("mousemove", function (ev) { if (drag) { go(ev); } });
  window.addEventListener("mouseup", function () { drag = false; });
  parent.title = "overview of the whole run: click or drag to go there";
}

// overviewDraw repaints the strip for the current layout (call after a
// layout change; overviewView moves only the box).
function overviewDraw() {
  var lanes = 0, v, i;
  for (v = 0; v < views.length; v++) { lanes += Math.max(views[v].L.lanes, 1); }
  var rowH = Math.max(2, Math.min(7, Math.floor(70 / Math.max(lanes, 1))));
  var sepH = 5;
  var h = lanes * rowH + (views.length - 1) * sepH + 6;
  var w = Math.max(OV.box.clientWidth, 50);
  var dpr = window.devicePixelRatio || 1;
  OV.w = w; OV.h = h;
  OV.box.style.height = h + "px";
  OV.canvas.width = Math.round(w * dpr);
  OV.canvas.height = Math.round(h * dpr);
  OV.canvas.style.height = h + "px";
  var lo = 0, hi = 1e-9;
  for (v = 0; v < views.length; v++) { hi = Math.max(hi, views[v].L.maxB); }
  hi += (hi - lo) * 0.01 + 1e-9;
  OV.lo = lo; OV.hi = hi;
  var ctx = OV.canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  var marks = [], top = 3;
  OV.rows = [];
  var X = function (b) { return (b - lo) / (hi - lo) * (w - 2) + 1; };
  for (v = 0; v < views.length; v++) {
    var V = views[v], P = V.P, L = V.L;
    var rowY = function (p) { return top + L.rank[p] * rowH; };
    OV.rows.push(top);
    ctx.fillStyle = "rgba(60,60,60,0.55)";
    for (i = 0; i < P.p.length; i++) {
      if (!L.vis[i] || !slotted(P.k[i])) { continue; }
      ctx.fillRect(Math.floor(X(L.base[i])), rowY(P.p[i]), 1, Math.max(rowH - 1, 1));
    }
    var panelH = Math.max(L.lanes, 1) * rowH;
    for (i = 0; i < P.lines.length; i++) {
      var ln = P.lines[i], pts = [];
      for (var j = 0; j < ln.pts.length; j += 3) {
        var p = ln.pts[j], e = ln.pts[j + 1];
        if (L.rank[p] < 0 || (e >= 0 && !L.vis[e])) { continue; }
        pts.push(X(e >= 0 ? L.base[e] : 0).toFixed(1) + "," + (rowY(p) + rowH / 2).toFixed(1));
      }
      if (pts.length > 1) { marks.push('<polyline class="ov-line" points="' + pts.join(" ") + '"/>'); }
    }
    for (i = 0; i < P.fails.length; i++) {
      var f = P.fails[i];
      if (!L.vis[f]) { continue; }
      var fx = X(L.base[f]).toFixed(1);
      marks.push('<line class="ov-fail" data-v="' + v + '" data-i="' + f + '" x1="' + fx + '" x2="' + fx + '" y1="' + (top - 2) + '" y2="' + (top + panelH + 1) + '"/>');
    }
    for (i = 0; i < P.viol.length; i++) {
      for (var q = 0; q < P.viol[i].ev.length; q++) {
        var ve = P.viol[i].ev[q];
        if (ve >= 0 && L.vis[L.head[ve]]) { marks.push('<circle class="ov-viol" cx="' + X(L.base[L.head[ve]]).toFixed(1) + '" cy="' + (rowY(P.p[ve]) + rowH / 2).toFixed(1) + '" r="2.5"/>'); }
      }
    }
    top += panelH;
    if (v < views.length - 1) {
      marks.push('<line class="ov-sep" x1="0" x2="' + w + '" y1="' + (top + sepH / 2) + '" y2="' + (top + sepH / 2) + '"/>');
      top += sepH;
    }
  }
  marks.push('<rect class="ov-view" id="overview-view" x="0" y="0" width="0" height="' + h + '"/>');
  OV.svg.setAttribute("viewBox", "0 0 " + w + " " + h);
  OV.svg.innerHTML = marks.join("");
  OV.view = OV.svg.querySelector("#overview-view");
  overviewView();
}

// overviewView moves the box that shows what is in view.
function overviewView() {
  if (!OV.view || !views.length || !views[0].plotW) { return; } // not sized yet
  var V = views[0];
  var u0 = S.x0 - PADL / S.scale, u1 = S.x0 + (V.plotW - PADL) / S.scale;
  var X = function (b) { return (b - OV.lo) / (OV.hi - OV.lo) * (OV.w - 2) + 1; };
  var a = Math.max(X(u0), 0), b = Math.min(X(u1), OV.w);
  OV.view.setAttribute("x", a.toFixed(1));
  OV.view.setAttribute("width", Math.max(b - a, 3).toFixed(1));
}
