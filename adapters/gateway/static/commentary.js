// The commentators' board on the live page: evaluation bars, best lines, the opening's name,
// mistakes marked on the move list, and a game's time chart. Plain browser JavaScript; the
// page script (app.js) calls these. Evaluations come as "analysis" frames (docs/protocol.md):
// commentators get them at once, the public with the delay of the moves.
"use strict";

window.Commentary = (() => {
  const evaluations = new Map(); // game key -> Map(ply -> analysis frame)
  const timeUse = new Map(); // game key -> {ply, status, data}
  const SVG = "http://www.w3.org/2000/svg";

  const keyOf = (f, first) => (f.tournament && f.tournament !== first ? `${f.tournament}/${f.game}` : f.game);

  function take(frame, first) {
    const key = keyOf(frame, first);
    if (!evaluations.has(key)) evaluations.set(key, new Map());
    evaluations.get(key).set(frame.ply, frame);
  }

  // The evaluation to show for a game: its position's own, else the newest before it.
  function current(key, game) {
    const byPly = evaluations.get(key);
    if (!byPly) return null;
    const own = byPly.get(game.ply);
    if (own && own.fen === game.fen) return { frame: own, stale: false };
    const older = [...byPly.keys()].filter((p) => p < game.ply);
    if (!older.length) return null;
    return { frame: byPly.get(Math.max(...older)), stale: true };
  }

  // White's share of the bar: its expected score from the engine's win/draw/loss chances.
  function whiteShare(frame) {
    if (frame.score && frame.score.mate != null) return frame.score.mate > 0 ? 1 : 0;
    const [w, d, l] = frame.wdl || [0, 1000, 0];
    return (w + d / 2) / Math.max(1, w + d + l);
  }

  function evalLabel(frame) {
    if (frame.score && frame.score.mate != null) return `#${frame.score.mate}`;
    const pawns = (frame.score ? frame.score.cp : 0) / 100;
    return (pawns > 0 ? "+" : "") + pawns.toFixed(2);
  }

  function node(tag, attrs = {}, ...children) {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "class") n.className = v;
      else n.setAttribute(k, v);
    }
    for (const c of children) n.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return n;
  }

  function evalBar(key, game) {
    const found = current(key, game);
    const share = found ? whiteShare(found.frame) : 0.5;
    const label = found ? evalLabel(found.frame) : "";
    const bar = node("div", {
      class: `evalbar${found ? "" : " empty"}${found && found.stale ? " stale" : ""}`,
      "data-game": key, "data-ply": found ? found.frame.ply : "",
      title: found ? `engine: ${label} (depth ${found.frame.depth}, ${plyText(game, found.frame.ply)}${found.stale ? ", an older position" : ""})` : "no evaluation yet",
    });
    const white = node("div", { class: "white-share" });
    white.style.height = `${(share * 100).toFixed(1)}%`;
    bar.append(white, node("span", { class: `eval-label ${share >= 0.5 ? "low" : "high"}` }, label));
    return bar;
  }

  // The best line with move numbers, from the evaluated position's side and move number.
  function lineText(frame) {
    const parts = (frame.fen || "").split(" ");
    let white = parts[1] !== "b";
    let number = Number(parts[5] || 1);
    const out = [];
    (frame.pv || []).forEach((san, i) => {
      if (white) out.push(`${number}. ${san}`);
      else out.push(i === 0 ? `${number}… ${san}` : san);
      if (!white) number += 1;
      white = !white;
    });
    return out.join(" ");
  }

  // Where an evaluation is for: "after 14. Bxc4" (the ply it carries, in the game's moves).
  function plyText(game, ply) {
    if (!ply) return "the start";
    const san = (game.moves || [])[ply - 1] || "";
    return `after ${Math.ceil(ply / 2)}${ply % 2 ? "." : "…"} ${san}`;
  }

  // The best line of the shown position; an older position's is never shown as the current
  // one: it says which move it is for and how far behind the board it is.
  function bestLine(key, game) {
    const found = current(key, game);
    if (!found) return null;
    const f = found.frame;
    const age = found.stale
      ? node("span", { class: "age", "data-ply": f.ply },
        `for the position ${plyText(game, f.ply)}, ${game.ply - f.ply} ${game.ply - f.ply === 1 ? "ply" : "plies"} behind the board · `)
      : null;
    return node("div", { class: `bestline${found.stale ? " stale" : ""}`, "data-game": key, "data-ply": f.ply },
      ...(age ? [age] : []), node("b", {}, evalLabel(f)), " ", lineText(f), node("span", { class: "depth" }, ` · depth ${f.depth}`));
  }

  function opening(game) {
    const o = game.opening;
    if (!o) return null;
    return node("div", { class: "opening", title: `reached at ply ${o.ply}` }, `${o.eco} ${o.name}`);
  }

  // "?" after a mistake, "??" after a blunder (a drop of the mover's expected score of at
  // least 10 or 20 points, docs/analysis.md).
  function mark(key, ply) {
    const byPly = evaluations.get(key);
    const f = byPly && byPly.get(ply);
    return f && f.swing ? f.swing : null;
  }

  function markMove(span, key, ply) {
    const swing = mark(key, ply);
    if (!swing) return span;
    span.classList.add(swing.kind);
    span.title = `${swing.kind}: ${Math.round(swing.drop * 100)} points of expected score lost`;
    span.append(swing.kind === "blunder" ? "??" : "?");
    return span;
  }

  // --- the time chart ------------------------------------------------------------------------
  async function loadTimeUse(key, game, path, token, render) {
    const known = timeUse.get(key);
    if (known && known.ply === game.ply && known.status === game.status) return;
    timeUse.set(key, { ply: game.ply, status: game.status, data: known ? known.data : null });
    try {
      const answer = await fetch(path, token ? { headers: { Authorization: `Bearer ${token}` } } : {});
      if (!answer.ok) return;
      const body = await answer.json();
      timeUse.set(key, { ply: game.ply, status: game.status, data: body.time_use || null });
      render();
    } catch (error) {
      timeUse.delete(key); // tried again at the next change
    }
  }

  function clock(ms) {
    if (ms == null) return "?";
    const s = Math.round(ms / 1000);
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), x = s % 60;
    return (h ? `${h}:${String(m).padStart(2, "0")}` : String(m)) + `:${String(x).padStart(2, "0")}`;
  }

  function svg(tag, attrs, text) {
    const n = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text != null) n.textContent = text;
    return n;
  }

  // Both players' clocks after each of their moves (lines) and the time each move took
  // (bars), by move number; the controls (moves 40 and 60 under 3.5.1) marked.
  function timeChart(key) {
    const known = timeUse.get(key);
    const data = known && known.data;
    const box = node("div", { class: "timechart", "data-game": key });
    if (!data || !data.moves.length) {
      box.append(node("p", { class: "muted" }, "The time chart appears after the first moves."));
      return box;
    }
    const W = 640, H = 240, L = 44, R = 10, T = 14, B = 28;
    const moves = data.moves;
    const lastMove = Math.max(...moves.map((m) => Math.ceil(m.ply / 2)), ...(data.controls_at_moves || []).filter((c) => c <= 80), 10);
    const minutes = (ms) => (ms || 0) / 60000;
    // the minutes' axis in round steps (120′, 90′, 60′, 30′), never 122′/92′/61′/31′
    const most = Math.max(1, ...moves.map((m) => minutes(m.left_ms)));
    const step = [1, 2, 5, 10, 15, 20, 30, 60].find((s) => most / s <= 5) || 60;
    const top = Math.ceil(most / step) * step;
    const longest = Math.max(0.1, ...moves.map((m) => minutes(m.spent_ms)));
    const span = lastMove + 2;
    const x = (n) => L + ((W - L - R) * n) / span;
    const y = (min) => T + (H - T - B) * (1 - min / top);
    // the bars have a scale of their own: the longest think fills a third of the height
    const barHeight = (min) => ((H - T - B) / 3) * (min / longest);
    const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "time use chart" });
    for (let v = 0; v <= top; v += step) {
      chart.append(svg("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid" }),
        svg("text", { x: L - 4, y: y(v) + 4, class: "axis", "text-anchor": "end" }, `${Math.round(v)}′`));
    }
    for (const c of data.controls_at_moves || []) {
      if (c > lastMove) continue;
      chart.append(svg("line", { x1: x(c), x2: x(c), y1: T, y2: H - B, class: "control" }),
        svg("text", { x: x(c), y: H - 8, class: "axis control-label", "text-anchor": "middle" }, `move ${c}`));
    }
    const width = Math.max(1.5, (W - L - R) / span / 2 - 1);
    for (const m of moves) {
      if (m.spent_ms == null) continue;
      const n = Math.ceil(m.ply / 2);
      const left = m.side === "white" ? x(n) - width : x(n);
      const h = barHeight(minutes(m.spent_ms));
      const bar = svg("rect", { x: left, y: H - B - h, width, height: h, class: `spent ${m.side}` });
      bar.append(svg("title", {}, `${n}${m.side === "white" ? "." : "…"} ${m.san}: ${clock(m.spent_ms)} spent, ${clock(m.left_ms)} left`));
      chart.append(bar);
    }
    for (const side of ["white", "black"]) {
      const points = moves.filter((m) => m.side === side && m.left_ms != null)
        .map((m) => `${x(Math.ceil(m.ply / 2)).toFixed(1)},${y(minutes(m.left_ms)).toFixed(1)}`);
      if (points.length) chart.append(svg("polyline", { points: points.join(" "), class: `left ${side}` }));
    }
    chart.append(svg("text", { x: x(1), y: H - 8, class: "axis", "text-anchor": "middle" }, "1"));
    box.append(chart, node("p", { class: "legend muted" },
      node("span", { class: "key white" }, ""), "White ", node("span", { class: "key black" }, ""), "Black: ",
      `lines, the clock left after each move (minutes); bars, the time each move took (the longest, ${clock(longest * 60000)}).`));
    return box;
  }

  return { take, evalBar, bestLine, opening, markMove, loadTimeUse, timeChart };
})();
