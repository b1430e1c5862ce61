/**
 * The live view's one script (/ui/static/live.js, same origin as the CSP requires): rows from the SSE
 * stream, built with textContent only (a name never becomes markup); the counts of the last five minutes,
 * starting from the events the page was made with (`data-recent` on #counts, see liveCounts.ts) and going
 * on with each event the stream brings. Lists are counted apart from the allow/deny/hidden bars.
 */
export const LIVE_SCRIPT = `"use strict";
(function () {
  var table = document.getElementById("live");
  var counts = document.getElementById("counts");
  if (!table || !counts) return;
  var body = table.tBodies[0];
  var columns = ["time", "server", "tool", "client", "verdict", "code", "rule", "args"];
  var WINDOW = 300000;
  var loaded = Date.now();
  var seen = (counts.getAttribute("data-recent") || "").split(" ").filter(Boolean).map(function (word) {
    var part = word.split(":");
    return { at: loaded - Number(part[0]), kind: part[1], hid: Number(part[2]) || 0 };
  });
  function draw() {
    var since = Date.now() - WINDOW;
    seen = seen.filter(function (s) { return s.at >= since; });
    var n = { allow: 0, deny: 0, hidden: 0, list: 0 };
    var listHidden = 0;
    seen.forEach(function (s) {
      if (n[s.kind] === undefined) return;
      n[s.kind]++;
      if (s.kind === "list") listHidden += s.hid;
    });
    var total = Math.max(1, n.allow + n.deny + n.hidden);
    counts.textContent = "";
    ["allow", "deny", "hidden"].forEach(function (k) {
      var bar = document.createElement("div");
      bar.className = "bar bar-" + k;
      bar.style.width = Math.round((100 * n[k]) / total) + "%";
      bar.textContent = k + " " + n[k];
      counts.appendChild(bar);
    });
    var lists = document.createElement("div");
    lists.className = "lists";
    lists.textContent = "tools/list " + n.list + " (" + listHidden + (listHidden === 1 ? " tool" : " tools") + " hidden)";
    counts.appendChild(lists);
  }
  function cell(column, value) {
    var td = document.createElement("td");
    if (column === "args" && value) {
      var digest = document.createElement("span");
      var code = document.createElement("code");
      digest.className = "digest";
      code.title = value;
      code.textContent = value;
      digest.appendChild(code);
      td.appendChild(digest);
    } else td.textContent = value;
    return td;
  }
  var source = new EventSource("/ui/live/events?" + table.getAttribute("data-query"));
  source.onmessage = function (message) {
    var row = JSON.parse(message.data);
    var tr = document.createElement("tr");
    tr.className = "verdict-" + row.verdict;
    columns.forEach(function (c) { tr.appendChild(cell(c, row[c])); });
    body.insertBefore(tr, body.firstChild);
    while (body.rows.length > 200) body.deleteRow(body.rows.length - 1);
    seen.push({ at: Date.now(), kind: row.kind, hid: Number(row.hid) || 0 });
    draw();
  };
  draw();
  // Events age out of the window even when none arrive.
  setInterval(draw, 10000);
})();
`;
