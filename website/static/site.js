/* Federation Ratings publication site: list filtering, the player search and the charts (drawn by
   Chart.js). The pages read without this script: the tables are plain HTML. Nothing is fetched:
   the search index is loaded as scripts of the site's own folder. */
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

  // The player search of a federation's list (website/_search.py): the index is a folder of
  // scripts, loaded by a <script> element (file:// refuses fetch()), only the shards a query needs.
  // A name's search form and its shard are computed as _search.py computes them.
  var SHARD_CHARS = 2;
  var MAX_SHOWN = 50;

  function searchForm(text) {
    return text.normalize("NFKD").replace(/[^\p{L}\p{N}]/gu, "").toLowerCase();
  }

  function shardKey(form) {
    var head = Array.from(form).slice(0, SHARD_CHARS);
    while (head.length < SHARD_CHARS) { head.push("_"); }
    return head.map(function (c) { return /^[a-z0-9]$/.test(c) ? c : "_"; }).join("");
  }

  function setupSearch(form) {
    var base = form.getAttribute("data-index");
    var input = form.querySelector("input[type=search]");
    var output = form.querySelector("output");
    var list = form.querySelector("ul.search-results");
    var requested = {};
    var waiting = [];

    function load(name, done) {
      if (requested[name] === true) { done(); return; }
      if (requested[name]) { requested[name].push(done); return; }
      requested[name] = [done];
      var script = document.createElement("script");
      script.src = base + name + ".js";
      script.onload = script.onerror = function () {
        var callbacks = requested[name];
        requested[name] = true;
        callbacks.forEach(function (callback) { callback(); });
      };
      document.head.appendChild(script);
    }

    function show(found, query) {
      list.replaceChildren();
      found.slice(0, MAX_SHOWN).forEach(function (entry) {
        var item = document.createElement("li");
        var link = document.createElement("a");
        var name = document.createElement("bdi");
        link.href = entry[2];
        name.textContent = entry[0];
        link.appendChild(name);
        var id = document.createElement("span");
        id.className = "id";
        id.textContent = entry[1];
        var rating = document.createElement("span");
        rating.className = "num rating";
        rating.textContent = entry[3] === null ? "" : entry[3];
        item.append(link, " ", id, " ", rating);
        list.appendChild(item);
      });
      output.value = found.length > MAX_SHOWN ? "The first " + MAX_SHOWN + " of " + found.length + " players"
        : found.length + " player" + (found.length === 1 ? "" : "s") + " for “" + query + "”";
    }

    function search() {
      var query = input.value.trim();
      var needle = searchForm(query);
      if (Array.from(needle).length < SHARD_CHARS) {
        list.replaceChildren();
        output.value = query ? "Type " + SHARD_CHARS + " letters or digits or more" : "";
        return;
      }
      var key = shardKey(needle);
      var shards = (window.ratingsSearchShards || []).filter(function (s) {
        return s === "n-" + key || s === "i-" + key;
      });
      var left = shards.length;
      var asked = input.value;
      function ready() {
        left -= 1;
        if (left > 0 || input.value !== asked) { return; }
        var seen = {};
        var found = [];
        shards.forEach(function (shard) {
          ((window.ratingsSearch || {})[shard] || []).forEach(function (entry) {
            if (seen[entry[1]]) { return; }
            var hit = shard.charAt(0) === "n" ? searchForm(entry[0]) : searchForm(entry[1]);
            if (hit.indexOf(needle) === 0) { seen[entry[1]] = true; found.push(entry); }
          });
        });
        show(found, query);
      }
      if (!left) { left = 1; ready(); return; }
      shards.forEach(function (shard) { load(shard, ready); });
    }

    input.addEventListener("input", function () {
      if (requested.index === true) { search(); return; }
      waiting.push(search);
      load("index", function () { waiting.splice(0).forEach(function (run) { run(); }); });
    });
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.hidden = false;
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
    Array.prototype.forEach.call(document.querySelectorAll("form.search[data-index]"), setupSearch);
    Array.prototype.forEach.call(document.querySelectorAll("script.chart-data"), setupChart);
    Array.prototype.forEach.call(document.querySelectorAll("span.current-rank[data-player]"), setupRank);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
}());
