// The "needs" panel of the live page: a bar per player of the chance of finishing first,
// and what each needs, in words (the gateway's "needs" frame: docs/needs.md). app.js calls
// window.candidatesNeeds(box, needs) with the shown tournament's needs object.
"use strict";

window.candidatesNeeds = (box, needs) => {
  if (!box) return;
  const SUPERSCRIPT = "⁰¹²³⁴⁵⁶⁷⁸⁹";
  /** A count as people read it: 6,561; beyond what a number holds exactly (3^56 results of
   * 56 games), its order of magnitude, 5.2 × 10²⁶, never JavaScript's 5.233476330273606e+26. */
  const count = (n) => {
    const value = Number(n);
    if (!Number.isFinite(value)) return String(n);
    if (Number.isSafeInteger(value)) return value.toLocaleString("en");
    const [mantissa, exponent] = value.toExponential(1).split("e");
    const power = [...String(Number(exponent))].map((d) => SUPERSCRIPT[Number(d)] ?? d).join("");
    return `${mantissa} × 10${power}`;
  };
  const el = (tag, attrs = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return node;
  };
  if (!needs || !needs.players) {
    box.replaceChildren(el("p", { class: "muted" }, "What each player needs is being worked out (every remaining game's results are scored; with many games left this takes a moment)."));
    return;
  }
  const rows = Object.entries(needs.players).sort((a, b) => b[1].chance - a[1].chance || a[0].localeCompare(b[0]));
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  const bars = rows.map(([id, p]) => el("div", { class: "need", "data-player": id },
    el("span", { class: "name", title: p.name }, p.display || p.name),
    el("span", { class: "bar", title: `outright ${pct(p.chance_outright)}, playoff ${pct(p.chance_playoff)}` },
      el("span", { class: "fill", style: `width: ${(100 * p.chance).toFixed(1)}%` })),
    el("span", { class: "pct" }, pct(p.chance))));
  const m = needs.method || {};
  const left = needs.games || [];
  const rounds = [...new Set(left.map((g) => g.round))];
  const toPlay = left.length
    ? `${left.length} game${left.length === 1 ? "" : "s"} to play (round${rounds.length === 1 ? "" : "s"} ${rounds.join(", ")})`
    : "Every game played";
  const how = m.kind === "sample"
    ? `a sample of ${count(m.scenarios)} of the ${count(m.combinations)} combinations (seed ${m.seed})`
    : `every combination of their results (${m.scenarios})`;
  // the sentence for the air; the scenario counts behind it as detail (a tooltip)
  const wordsList = el("ul", { class: "needs-words" },
    ...rows.filter(([, p]) => p.outright || p.playoff).map(([id, p]) =>
      el("li", { "data-player": id, ...(p.detail ? { title: p.detail } : {}) }, p.needs)));
  const c = needs.chances || {};
  box.replaceChildren(
    el("p", { class: "muted" }, left.length ? `${toPlay}: ${how}.` : `${toPlay}.`),
    el("div", { class: "needs-bars" }, ...bars),
    wordsList,
    ...(needs.tiebreak ? [el("p", { class: "tiebreak small" }, needs.tiebreak)] : []),
    ...(needs.warning ? [el("p", { class: "warning small" }, `Note: ${needs.warning}`)] : []),
    el("p", { class: "muted small" },
      `Chances: ${c.exact ? "exact over the scenarios" : `${c.simulations} simulations`}; ` +
      `FIDE expectancy, draw rate ${Number(c.draw_rate).toFixed(2)}; playoff simulated (3.7.1-3.7.3).`));
};
