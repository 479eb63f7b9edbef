/* kistore site: optional conveniences. Every page reads the same without this script.
 * - fills "the date you read this" in a citation with today's date (the reader's clock);
 * - sorts a table.sortable by the column whose header is clicked;
 * - filters a table by the text typed in an input[data-filter="TABLE-ID"].
 * Nothing here writes HTML from data: only textContent and row order change. */
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  var today = new Date();
  var pad = function (n) { return (n < 10 ? "0" : "") + n; };
  var date = today.getFullYear() + "-" + pad(today.getMonth() + 1) + "-" + pad(today.getDate());
  document.querySelectorAll("[data-accessed]").forEach(function (el) {
    el.textContent = date + " (today: the date you read this)";
  });

  function cellValue(row, index, numeric) {
    var cell = row.children[index];
    if (!cell) return numeric ? NaN : "";
    var raw = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent;
    if (!numeric) return raw.trim().toLowerCase();
    var n = parseFloat(raw.replace(/,/g, ""));
    return isNaN(n) ? Infinity : n;
  }

  document.querySelectorAll("table.sortable").forEach(function (table) {
    var headers = table.querySelectorAll("thead th");
    headers.forEach(function (th, index) {
      th.setAttribute("tabindex", "0");
      var sort = function () {
        var numeric = th.getAttribute("data-sort") === "num";
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        headers.forEach(function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = cellValue(a, index, numeric), y = cellValue(b, index, numeric);
          var order = x < y ? -1 : x > y ? 1 : 0;
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      };
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") sort(); });
    });
  });

  document.querySelectorAll("input[data-filter]").forEach(function (input) {
    var table = document.getElementById(input.getAttribute("data-filter"));
    var row = input.closest(".filter-row");
    if (!table) return;
    if (row) row.hidden = false;
    input.addEventListener("input", function () {
      var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      Array.prototype.forEach.call(table.tBodies[0].rows, function (tr) {
        var text = tr.textContent.toLowerCase();
        tr.hidden = !words.every(function (w) { return text.indexOf(w) >= 0; });
      });
    });
  });
})();
