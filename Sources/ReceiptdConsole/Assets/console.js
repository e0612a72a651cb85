// The console's only script, served from the binary: live refresh and charts. Every page works without it.
// On the overview it fetches /overview.json every 15 seconds, updates the figures and draws the two charts as
// SVG above their tables. It writes text with textContent only: nothing from the server becomes markup.
"use strict";
(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const OUTCOMES = ["full", "partial", "no_in_app", "unmatched", "invalid", "failed"];
  const BUCKET_MS = 600000;

  function element(name, attributes, text) {
    const node = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function place(figure, svg) {
    const old = figure.querySelector("svg");
    if (old) old.replaceWith(svg); else figure.prepend(svg);
  }

  function legend(svg, x, y) {
    OUTCOMES.forEach((outcome, i) => {
      svg.append(element("rect", { x: x + i * 90, y: y, width: 10, height: 10, class: "o-" + outcome }));
      svg.append(element("text", { x: x + i * 90 + 14, y: y + 9, class: "label" }, outcome));
    });
  }

  function drawSettled(figure, series) {
    const width = 760, height = 200, left = 40, top = 24, bottom = 20;
    const since = Date.parse(series.since), now = Date.parse(series.now);
    if (isNaN(since) || isNaN(now)) return;
    const count = Math.max(1, Math.ceil((now - since) / BUCKET_MS));
    const buckets = new Map();
    for (const row of series.settled) {
      const index = Math.floor((Date.parse(row.bucket) - since) / BUCKET_MS);
      if (index < 0 || index >= count) continue;
      const bucket = buckets.get(index) || {};
      bucket[row.outcome] = (bucket[row.outcome] || 0) + row.orders;
      buckets.set(index, bucket);
    }
    let max = 1;
    for (const bucket of buckets.values()) {
      max = Math.max(max, OUTCOMES.reduce((sum, o) => sum + (bucket[o] || 0), 0));
    }
    const plot = height - top - bottom, step = (width - left) / count;
    const svg = element("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "orders settled per 10 minutes by outcome" });
    svg.append(element("text", { x: 0, y: top + 8, class: "label" }, String(max)));
    svg.append(element("line", { x1: left, y1: top + plot, x2: width, y2: top + plot, class: "axis" }));
    for (const [index, bucket] of buckets) {
      let y = top + plot;
      for (const outcome of OUTCOMES) {
        const value = bucket[outcome] || 0;
        if (!value) continue;
        const h = (value / max) * plot;
        y -= h;
        const bar = element("rect", { x: left + index * step, y: y, width: Math.max(1, step - 1), height: h, class: "o-" + outcome });
        bar.append(element("title", {}, `${new Date(since + index * BUCKET_MS).toISOString().slice(11, 16)} ${outcome}: ${value}`));
        svg.append(bar);
      }
    }
    for (let index = 0; index < count; index += 24) {
      const label = new Date(since + index * BUCKET_MS).toISOString().slice(11, 16);
      svg.append(element("text", { x: left + index * step, y: height - 4, class: "label" }, label));
    }
    legend(svg, left, 4);
    place(figure, svg);
  }

  function drawRetries(figure, series) {
    const rows = series.retries.slice(0, 12);
    const width = 760, row = 20, left = 220;
    const height = Math.max(1, rows.length) * row + 8;
    const svg = element("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "retries by error class and store" });
    const max = Math.max(1, ...rows.map((r) => r.retries));
    if (rows.length === 0) svg.append(element("text", { x: 0, y: 16, class: "label" }, "no retries in the last 24 hours"));
    rows.forEach((r, i) => {
      const y = 4 + i * row;
      svg.append(element("text", { x: 0, y: y + 13, class: "label" }, `${r.errorClass} · ${r.store}`));
      const w = ((width - left - 60) * r.retries) / max;
      svg.append(element("rect", { x: left, y: y, width: Math.max(1, w), height: row - 6, class: "store-" + r.store }));
      svg.append(element("text", { x: left + w + 6, y: y + 13, class: "label" }, `${r.retries} (${r.jobs} jobs)`));
    });
    place(figure, svg);
  }

  function updateFigures(figures) {
    for (const figure of figures) {
      const value = document.querySelector(`[data-figure="${CSS.escape(figure.key)}"] b`);
      if (value) value.textContent = String(figure.value);
    }
  }

  async function refresh() {
    const settled = document.getElementById("chart-settled");
    const retries = document.getElementById("chart-retries");
    if (!settled || !retries) return;
    try {
      const answer = await fetch("/overview.json", { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (!answer.ok || !(answer.headers.get("content-type") || "").startsWith("application/json")) return;
      const document_ = await answer.json();
      updateFigures(document_.figures);
      drawSettled(settled, document_.series);
      drawRetries(retries, document_.series);
      settled.parentElement.setAttribute("data-refreshed", document_.series.now);
    } catch (error) {
      // The next refresh tries again; the tables below stay as they were.
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    if (!document.getElementById("chart-settled")) return;
    refresh();
    setInterval(refresh, 15000);
  });
})();
