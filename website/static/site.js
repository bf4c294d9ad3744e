/* Federation Ratings publication site: list filtering and the charts (drawn by Chart.js).
   The pages read without this script: the tables are plain HTML. Nothing is fetched. */
(function () {
  "use strict";

  function fold(text) {
    return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  }

  function setupFilter(form) {
    var table = document.getElementById(form.getAttribute("data-table"));
    if (!table) { return; }
    var rows = Array.prototype.slice.call(table.querySelectorAll("tbody tr[data-s]"));
    // Name and id cells: after the rank, or first where the table has no rank (an edition's changes).
    var at = Number(table.getAttribute("data-name-cell") || 1);
    var keys = rows.map(function (tr) { return fold(tr.cells[at].textContent + " " + tr.cells[at + 1].textContent); });
    var sections = Array.prototype.slice.call(table.querySelectorAll("tbody.section"));
    var query = form.querySelector("input[type=search]");
    var status = form.querySelector("select[name=status]");
    var category = form.querySelector("select[name=category]");
    var output = form.querySelector("output");
    function apply() {
      var needle = fold(query.value.trim());
      var s = status.value;
      var c = category ? category.value : "";
      var shown = 0;
      for (var i = 0; i < rows.length; i++) {
        var tr = rows[i];
        var ok = (!needle || keys[i].indexOf(needle) !== -1) &&
          (!s || tr.getAttribute("data-s") === s) && (!c || tr.getAttribute("data-c") === c);
        tr.hidden = !ok;
        if (ok) { shown++; }
      }
      sections.forEach(function (tbody) {
        tbody.hidden = !tbody.querySelector("tr[data-s]:not([hidden])");
      });
      output.value = shown + " of " + rows.length + " players";
    }
    form.addEventListener("input", apply);
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    var initial = new URLSearchParams(window.location.search).get("q");
    if (initial) { query.value = initial; }
    form.hidden = false;
    apply();
  }

  var INK = "#1f5fae";
  var SOFT = "rgba(31, 95, 174, 0.25)";

  function config(spec) {
    var base = { animation: false, responsive: true, maintainAspectRatio: false };
    if (spec.kind === "history") {
      return {
        type: "line",
        data: { labels: spec.labels.map(String), datasets: [{
          label: "Rating", data: spec.ratings, borderColor: INK, backgroundColor: INK,
          pointRadius: 3, pointHoverRadius: 5, spanGaps: true, tension: 0
        }] },
        options: Object.assign(base, {
          plugins: { legend: { display: false }, tooltip: { callbacks: {
            title: function (items) {
              var i = items[0].dataIndex;
              return "Edition " + spec.labels[i] + " (" + spec.dates[i] + ")";
            }
          } } },
          scales: { x: { title: { display: true, text: "Edition" } },
                    y: { title: { display: true, text: "Rating" } } }
        })
      };
    }
    if (spec.kind === "histogram") {
      return {
        type: "bar",
        data: { labels: spec.labels, datasets: [{ label: "Players", data: spec.counts, backgroundColor: INK,
                                                  categoryPercentage: 1.0, barPercentage: 0.95 }] },
        options: Object.assign(base, {
          plugins: { legend: { display: false }, tooltip: { callbacks: {
            title: function (items) {
              var low = Number(items[0].label);
              return low + " – " + (low + spec.width - 1);
            }
          } } },
          scales: { x: { title: { display: true, text: "Rating (bin start)" } },
                    y: { title: { display: true, text: "Players" }, beginAtZero: true } }
        })
      };
    }
    if (spec.kind === "activity") {
      return {
        type: "bar",
        data: { labels: spec.labels, datasets: [
          { type: "bar", label: "Rated games", data: spec.games, backgroundColor: SOFT, borderColor: INK,
            borderWidth: 1, yAxisID: "y" },
          { type: "line", label: "Players rated", data: spec.players, borderColor: "#b45309",
            backgroundColor: "#b45309", yAxisID: "y1", tension: 0 }
        ] },
        options: Object.assign(base, {
          scales: { y: { beginAtZero: true, title: { display: true, text: "Games" } },
                    y1: { beginAtZero: true, position: "right", grid: { drawOnChartArea: false },
                          title: { display: true, text: "Players" } } }
        })
      };
    }
    return null;
  }

  function setupChart(block) {
    var spec = JSON.parse(block.textContent);
    var holder = document.getElementById(spec.target);
    if (!holder || typeof window.Chart === "undefined") { return; }
    var settings = config(spec);
    if (!settings) { return; }
    var canvas = document.createElement("canvas");
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", spec.label);
    holder.appendChild(canvas);
    new window.Chart(canvas, settings);
  }

  // A card of a large archive: the player's rank on the current edition, from <fed>/ranks.js
  // (one file a night, so the card itself changes only when the player's own lines do).
  function setupRank(span) {
    var current = window.ratingsCurrent;
    if (!current) { return; }
    var id = span.getAttribute("data-player");
    var edition = "the current edition " + current.edition + " (" + current.as_of + ")";
    if (!Object.prototype.hasOwnProperty.call(current.ranks, id)) {
      span.textContent = "Not on " + edition + ".";
    } else if (current.ranks[id] === null) {
      span.textContent = "On " + edition + ", without a rank.";
    } else {
      span.textContent = "Rank " + current.ranks[id] + " on " + edition + ".";
    }
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll("form.filter"), setupFilter);
    Array.prototype.forEach.call(document.querySelectorAll("script.chart-data"), setupChart);
    Array.prototype.forEach.call(document.querySelectorAll("span.current-rank[data-player]"), setupRank);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
}());
