// side.js — what the side panel derives from the panels' data: the list
// of violations and, when two runs of one trace are drawn, the table
// comparing them.

function plural(n, what) { return n === 1 ? "1 " + what : n + " " + what + "s"; }

// violationList writes every panel's violations in turn (wireViolations
// makes them clickable), or says there are none, or that nothing was
// checked.
function violationList(box) {
  var out = [], checked = false;
  views.forEach(function (V, v) {
    checked = checked || V.P.stats !== null;
    V.P.viol.forEach(function (x, k) {
      out.push('<li class="violation" data-panel="' + v + '" data-v="' + k + '" tabindex="0">' +
        (views.length > 1 ? '<span class="algo">' + esc(V.P.title) + "</span> " : "") + "<b>" + esc(x.prop) + "</b>: " + esc(x.msg) +
        (x.because ? '<div class="because">because ' + esc(x.because) + "</div>" : "") +
        (x.missing ? '<div class="missing">' + x.missing + " witness event(s) outside the drawn window</div>" : "") + "</li>");
    });
  });
  box.innerHTML = out.length ? '<ol id="violations">' + out.join("") + "</ol>" :
    '<p class="no-violations" id="violations">' + (checked ? "No violations: every property the checker could judge holds." : "Not checked.") + "</p>";
}

// compareTables writes the side-by-side summary of two runs: one row per
// figure of their reports, one column per run; then, failure by failure
// (the k-th fail of each run is the trace's k-th failure), what each
// process did under each algorithm.
function compareTables(box) {
  var Ps = views.map(function (V) { return V.P; });
  var head = "<tr><th></th>" + Ps.map(function (P) { return "<th>" + esc(P.title) + "</th>"; }).join("") + "</tr>";
  var row = function (name, cells) { return "<tr><th>" + esc(name) + "</th>" + cells.map(function (c) { return "<td>" + esc(c) + "</td>"; }).join("") + "</tr>"; };
  var fig = function (name, f) { return row(name, Ps.map(function (P) { return P.stats ? f(P.stats, P) : "—"; })); };
  var out = ["<h2>" + esc(Ps[0].title) + " and " + esc(Ps[1].title) + ' compared</h2><table class="compare" id="compare">' + head,
    fig("verdict", function (s, P) { return P.valid ? "valid" : "INVALID (" + plural(P.viol.length, "violation") + ")"; }),
    fig("checkpoints basic / forced / recovery", function (s) { return s.checkpoints.basic + " / " + s.checkpoints.forced + " / " + s.checkpoints.recovery; }),
    fig("rollbacks", function (s) { return String(s.rollbacks); }),
    fig("ops undone", function (s) { return String(s.undone); }),
    fig("logged / replayed", function (s) { return s.logged + " / " + s.replayed; }),
    fig("resent", function (s) { return String(s.resent); }),
    fig("discarded", function (s) { return String(s.discarded); }),
    fig("control messages", function (s) { return String(s.control_messages); }),
    fig("piggyback bytes", function (s) { return String(s.piggyback_bytes); }),
    row("ops run a different number of times (outlined)", Ps.map(function (P) { return String(P.diff.length); })), "</table>"];
  for (var k = 0; ; k++) {
    var title = "", byP = new Map(); // keyed by process names: no Object member may collide
    Ps.forEach(function (P, pi) {
      var rc = (P.recoveries || [])[k];
      if (!rc) { return; }
      title = title || "failure " + (k + 1) + ": " + rc.failure.p + " at t=" + rc.failure.t + "s";
      rc.line.forEach(function (l) {
        if (!byP.has(l.p)) { byP.set(l.p, Ps.map(function () { return "—"; })); }
        byP.get(l.p)[pi] = lineWords(l);
      });
    });
    if (!title) { break; }
    out.push("<h3>" + esc(title) + '</h3><table class="compare compare-failure">' + head);
    Ps[0].procs.forEach(function (p) { if (byP.has(p)) { out.push(row(p, byP.get(p))); } });
    out.push("</table>");
  }
  box.innerHTML = out.join("");
}

// lineWords says what one process did for one failure.
function lineWords(l) {
  if (l.restore === null) { return l.resent > 0 ? "kept its state, resent " + l.resent : "kept its state"; }
  var s = "back to ckpt " + l.restore + ", undid " + l.undone;
  if (l.replayed > 0) { s += ", replayed " + l.replayed; }
  if (l.resent > 0) { s += ", resent " + l.resent; }
  if (l.cause && l.cause !== "none") { s += " (" + l.cause + ")"; }
  return s;
}
