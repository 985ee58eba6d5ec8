// The live page: boards, clocks counting down locally, standings, one game, the arbiters' desk.
// Plain browser JavaScript, no build step. Speaks the gateway protocol (docs/protocol.md)
// with JSON text frames (the "json" subprotocol).
"use strict";

(() => {
  const view = document.body.dataset.view;
  // Evaluation bars, best lines, openings, marks and the time chart (commentary.js)
  const C = window.Commentary || null;
  const $ = (id) => document.getElementById(id);
  const PENDING = new Set(["pending"]);
  const state = {
    ws: null, seq: null, games: new Map(), standings: null, offset: 0, delay: 0,
    role: null, token: null, arbiter: null, clocks: new Map(), alerts: new Map(), notices: [],
    results: [], round: null, reconnect: true, nextId: 1,
    // Several tournaments in one store: the one shown ("*": all boards), each one's
    // standings, players and (arbiters) incident book, and the store's first (its games
    // and frames carry no "tournament"; the HTTP outputs answer for it without one).
    tournament: new URLSearchParams(location.search).get("tournament") || "*",
    tournaments: [], standingsBy: new Map(), first: null, playersBy: new Map(), books: new Map(),
    needsBy: new Map(),
    arbitersBy: new Map(),
    // Commands sent and not yet answered, by frame id: sent again, with the same
    // command_id, after a reconnection (the store answers a repeat as the first time).
    unanswered: new Map(),
  };
  const tidOf = (g) => g.tournament || state.first;
  const keyOf = (g) => (g.tournament && g.tournament !== state.first ? `${g.tournament}/${g.game}` : g.game);
  const several = () => state.tournaments.length > 1;
  const nameOfTournament = (tid) => (state.tournaments.find((t) => t.id === tid) || {}).name || tid;
  // Lines of the desk name their tournament when it shows several.
  const named = (tid) => (several() && state.tournament === "*" ? `${nameOfTournament(tid)} ` : "");
  // The tournament the page shows: the chosen one, else the store's first.
  const shownTournament = () => (state.tournament === "*" ? state.first : state.tournament);
  // A command of the desk names its tournament when the store holds several (else it is refused).
  const where = (tid) => (several() && tid ? { tournament: tid } : {});
  // The HTTP outputs answer for the store's first tournament without ?tournament=.
  const outputQuery = (tid) => (tid && tid !== state.first ? `?tournament=${encodeURIComponent(tid)}` : "");

  // --- words, not codes ---------------------------------------------------------------
  // How a game ended, as a reader says it (the engine's termination names -> words).
  const TERMINATIONS = {
    checkmate: "checkmate",
    resignation: "resignation",
    stalemate: "stalemate",
    insufficient_material: "draw: insufficient material",
    time_forfeit: "lost on time",
    flag_fall_draw: "draw: flag fell, no mating material (6.9)",
    threefold_repetition: "draw by threefold repetition, claimed",
    fifty_moves: "draw by the fifty-move rule, claimed",
    perpetual_check: "draw by perpetual check, claimed",
    theoretical_draw: "theoretical draw, claimed (3.9.2 b)",
    illegal_moves: "third illegal move",
    incorrect_claims: "third incorrect claim",
    arbiter_decision: "the arbiter's decision",
    default: "default",
    imported: "from the score sheet",
  };
  const words = (name) => TERMINATIONS[name] || String(name || "").replaceAll("_", " ");
  const CLAIM_KINDS = {
    threefold_repetition: "threefold repetition", fifty_moves: "fifty-move rule",
    perpetual_check: "perpetual check", stalemate: "stalemate",
    insufficient_material: "insufficient material", theoretical_draw: "theoretical draw",
  };
  const claimWords = (kind) => CLAIM_KINDS[kind] || String(kind || "").replaceAll("_", " ");

  function resultText(game) {
    if (game.status === "finished") {
      return game.termination ? `${game.result} · ${words(game.termination)}` : game.result;
    }
    return game.status === "in_progress" ? "in progress" : "not started";
  }

  function delayText(ms) {
    if (ms < 60000) return `${Math.round(ms / 1000)} s`;
    const min = ms / 60000;
    return `${Number.isInteger(min) ? min : min.toFixed(1)} min`;
  }

  // --- time ------------------------------------------------------------------
  // The server's "now" (snapshot) is the instant its view is at: the wall clock,
  // minus the public delay for public clients. Clocks count down against it.
  const viewNow = () => Date.now() - state.offset;
  const instant = (text) => (text ? Date.parse(text) : null);

  function setClock(game) {
    const c = game.clock || {};
    if (c.white_ms == null || c.black_ms == null) { state.clocks.delete(keyOf(game)); return; }
    const running = game.status === "in_progress" ? c.running : null;
    const received = viewNow();
    let start = received;
    const at = instant(c.at);
    if (running && at != null) {
      // A reading of long ago (a replay of a past event) is counted from now.
      const elapsed = received - at;
      if (elapsed >= 0 && elapsed <= c[running + "_ms"]) start = at;
    }
    state.clocks.set(keyOf(game), { white: c.white_ms, black: c.black_ms, running, start });
  }

  function remaining(gid, side) {
    const c = state.clocks.get(gid);
    if (!c) return null;
    let ms = c[side];
    if (c.running === side) ms -= viewNow() - c.start;
    return Math.max(0, ms);
  }

  function clockText(ms) {
    if (ms == null) return "–:––";
    const s = Math.ceil(ms / 1000);
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), x = s % 60;
    const mm = h ? `${h}:${String(m).padStart(2, "0")}` : String(m);
    return `${mm}:${String(x).padStart(2, "0")}`;
  }

  function tickClocks() {
    for (const el of document.querySelectorAll(".clock[data-game]")) {
      const gid = el.dataset.game, side = el.dataset.side;
      const ms = remaining(gid, side);
      el.textContent = clockText(ms);
      const c = state.clocks.get(gid);
      el.classList.toggle("running", !!c && c.running === side);
      el.classList.toggle("low", ms != null && ms < 60000);
    }
  }

  // --- the socket ---------------------------------------------------------------
  function status(text, cls) {
    const el = $("status");
    if (el) { el.textContent = text; el.className = "status " + (cls || ""); }
  }

  function wanted() {
    if (view === "game") return [gameId()];
    return "*";
  }

  function connect() {
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
    const ws = new WebSocket(url, ["json"]);
    state.ws = ws;
    ws.onopen = () => {
      const frame = { op: "subscribe", games: wanted(), needs: view === "boards" || view === "display" };
      if (state.tournament !== "*") frame.tournament = state.tournament;
      if (state.seq != null) frame.since = state.seq;
      if (state.token) frame.token = state.token;
      ws.send(JSON.stringify(frame));
    };
    ws.onmessage = (event) => {
      const data = JSON.parse(event.data);
      for (const frame of Array.isArray(data) ? data : [data]) handle(frame);
      render();
    };
    ws.onclose = (event) => {
      if (ws !== state.ws) return;
      status("disconnected" + (event.reason ? `: ${event.reason}` : "") + "; reconnecting…", "bad");
      if (state.reconnect) setTimeout(connect, 1000);
    };
  }

  function send(frame) {
    if (state.ws && state.ws.readyState === WebSocket.OPEN) state.ws.send(JSON.stringify(frame));
  }

  function handle(f) {
    switch (f.op) {
      case "subscribed": {
        state.role = f.role;
        state.delay = f.delay_ms || 0;
        const delay = state.delay ? `, ${delayText(state.delay)} behind (fair play)` : "";
        status(`${f.role === "public" ? "public view" : f.role + " " + f.name}: live${delay}`, "ok");
        // every alert still open, and each subscribed tournament's incident book, comes
        // again after this frame: start from none
        state.alerts = new Map();
        state.books = new Map();
        state.tournaments = f.tournaments || [];
        state.first = state.tournaments.length ? state.tournaments[0].id : null;
        state.tournaments.forEach((t) => loadPlayers(t.id));
        state.unanswered.forEach((frame) => send(frame));
        break;
      }
      case "snapshot":
        state.offset = Date.now() - instant(f.now);
        state.games = new Map(f.games.map((g) => [keyOf(g), g]));
        state.games.forEach(setClock);
        state.standings = f.standings;
        state.standingsBy = new Map((f.tournaments || []).map((t) => [t.id, t.standings]));
        state.seq = f.seq;
        break;
      case "delta":
        state.seq = f.seq;
        if (f.object) { state.games.set(keyOf(f.object), f.object); setClock(f.object); }
        for (const g of f.games || []) { state.games.set(keyOf(g), g); setClock(g); }
        if ("standings" in f) {
          const tid = f.tournament || state.first;
          state.standingsBy.set(tid, f.standings);
          if (state.tournament === "*" ? tid === state.first : tid === state.tournament) state.standings = f.standings;
        }
        break;
      case "analysis":
        if (C) C.take(f, state.first);
        break;
      case "needs":
        state.needsBy.set(f.tournament || state.first, f.needs);
        break;
      case "incidents":
        state.books.set(f.tournament || (f.book && f.book.tournament) || state.first, f.book);
        break;
      case "alert":
        if (f.key && f.closed) state.alerts.delete(f.key);
        else if (f.key) state.alerts.set(f.key, f);
        else {
          state.notices.unshift(f);
          state.notices.length = Math.min(state.notices.length, 100);
        }
        break;
      case "result":
        state.unanswered.delete(f.id);
        state.results.unshift(f);
        break;
      case "error":
        if (f.id) state.unanswered.delete(f.id);
        if (f.code === "invalid_token") {
          state.reconnect = false;
          state.token = null;
          sessionStorage.removeItem("candidates-token");
          status("unknown token: not signed in", "bad");
          if (state.ws) state.ws.close();
        } else {
          state.results.unshift({ id: f.id, ok: false, error: { code: f.code, message: f.message } });
        }
        break;
      default:
        break;
    }
  }

  // --- drawing ---------------------------------------------------------------------
  const el = (tag, attrs = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "class") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return node;
  };

  function boardOf(game) {
    const placement = (game.fen || "8/8/8/8/8/8/8/8").split(" ")[0];
    const last = (game.uci || []).at(-1) || "";
    const marked = new Set([last.slice(0, 2), last.slice(2, 4)]);
    const board = el("div", { class: "board", "data-fen": placement });
    placement.split("/").forEach((row, r) => {
      let file = 0;
      for (const ch of row) {
        if (/\d/.test(ch)) {
          for (let i = 0; i < Number(ch); i++) board.append(square(r, file++, null, marked));
        } else {
          board.append(square(r, file++, ch, marked));
        }
      }
    });
    return board;
  }

  function square(r, f, piece, marked) {
    const name = "abcdefgh"[f] + (8 - r);
    const cls = ["sq", (r + f) % 2 ? "dark" : "light"];
    if (marked.has(name)) cls.push("last");
    const node = el("div", { class: cls.join(" "), "data-square": name });
    if (piece) {
      const color = piece === piece.toUpperCase() ? "w" : "b";
      node.append(el("img", { src: `/pieces/${color}${piece.toUpperCase()}.svg`, alt: piece, "data-piece": piece }));
    }
    return node;
  }

  function lastMove(game) {
    const n = (game.moves || []).length;
    if (!n) return "";
    const san = game.moves[n - 1];
    const number = Math.ceil(n / 2);
    return n % 2 ? `${number}. ${san}` : `${number}… ${san}`;
  }

  function names(tid) {
    const t = tid || state.first;
    const s = (t && state.standingsBy.get(t)) || state.standings;
    const rows = (s && s.rows) || [];
    const found = new Map(rows.filter((r) => r.name).map((r) => [r.player, r.name]));
    for (const [id, p] of state.playersBy.get(t) || []) found.set(id, p.name || id);
    return found;
  }

  const nameOf = (id, tid) => names(tid).get(id) || id;
  // Where a person reads: a player by the name the tournament registered, an arbiter by his
  // office and name ("Chief Arbiter Geurt Gijssen"); a side by the game's player.
  const OFFICES = { chief: "Chief Arbiter", deputy: "Deputy Chief Arbiter", advisor: "Technical Advisor" };
  const arbiterName = (id, tid) => {
    const a = (state.arbitersBy.get(tid || state.first) || new Map()).get(id);
    if (!a) return id;
    const [surname, given] = a.name.split(",").map((x) => x.trim());
    const name = given ? `${given} ${surname}` : a.name;
    return /Arbiter|Advisor/.test(name) ? name : `${OFFICES[a.role] || "Arbiter"} ${name}`;
  };
  const sideName = (game, who) =>
    (who === "white" || who === "black" ? nameOf(game[who], tidOf(game)) : who === "both" ? "both players" : nameOf(who, tidOf(game)));

  async function loadPlayers(tid) {
    // Names, titles and ratings of a tournament's players (the tournament object of the
    // HTTP outputs), once per tournament.
    if (state.playersBy.has(tid)) return;
    state.playersBy.set(tid, new Map());
    try {
      const answer = await fetch(`/api/tournament?tournament=${encodeURIComponent(tid)}`);
      if (!answer.ok) { state.playersBy.delete(tid); return; }
      const t = await answer.json();
      state.playersBy.set(tid, new Map((t.players || []).map((p) => [p.id, p])));
      state.arbitersBy.set(tid, new Map((t.arbiters || []).map((a) => [a.id, a])));
      render();
    } catch (error) {
      state.playersBy.delete(tid); // names fall back to the standings' and then to the ids
    }
  }

  // The moves, the last one marked ("last"); followMoves scrolls each list to it.
  function moveList(game, cls = "movelist") {
    const list = el("ol", { class: cls, "data-game": game.game });
    const moves = game.moves || [];
    const move = (i) => {
      const span = el("span", i === moves.length - 1 ? { class: "last" } : {}, moves[i] || "");
      return marked(game, i + 1, span);
    };
    for (let i = 0; i < moves.length; i += 2) {
      list.append(el("li", {}, move(i), " ", move(i + 1)));
    }
    return list;
  }

  // A list of moves follows the game: scrolled so that its last move shows.
  function followMoves(root) {
    for (const list of (root || document).querySelectorAll(".movelist, .moves")) {
      list.scrollTop = list.scrollHeight;
    }
  }

  // A move the engine judged a mistake or a blunder (analysis frames) carries its mark.
  const marked = (game, ply, span) => (C ? C.markMove(span, keyOf(game), ply) : span);

  function pgnLink(game) {
    const query = outputQuery(tidOf(game));
    return el("a", { class: "pgn", href: `/pgn/games/${encodeURIComponent(game.game)}.pgn${query}`,
      download: `${query ? `${game.tournament}-` : ""}${game.game}.pgn`, title: "download the game as PGN" }, "PGN");
  }

  function player(game, side) {
    const id = game[side] || "?";
    return el("div", { class: `player ${side}` },
      el("span", { class: "name", title: nameOf(id, tidOf(game)) }, nameOf(id, tidOf(game))),
      el("span", { class: "clock", "data-game": keyOf(game), "data-side": side }, ""));
  }

  // The arbiter corrected the record (correct_moves, correct_result): the object the
  // client holds is already the corrected one; say so, with what was replaced.
  function corrected(game) {
    const list = game.corrections || [];
    if (!list.length) return null;
    const what = list.map((c) => c.kind === "moves"
      ? `${c.at}: moves after ply ${c.from_ply} were ${(c.replaced_moves || []).join(" ") || "none"}, now ${(c.moves || []).join(" ") || "none"} (${c.arbiter}: ${c.reason})`
      : `${c.at}: result was ${c.replaced_result}, now ${c.result ?? "withdrawn"} (${c.arbiter}: ${c.reason})`);
    return el("div", { class: "corrected", title: what.join("\n") }, "corrected by the arbiter");
  }

  function card(game, link = true) {
    const title = `Round ${game.round ?? "?"} · board ${game.board ?? "?"}`;
    const head = link
      ? el("a", { class: "head", href: `/game/${encodeURIComponent(game.game)}${outputQuery(tidOf(game))}` }, title)
      : el("div", { class: "head" }, title);
    const body = [
      head,
      player(game, "black"),
      el("div", { class: "play" },
        C ? el("div", { class: "boardwrap" }, C.evalBar(keyOf(game), game), boardOf(game)) : boardOf(game),
        // the game page lists the moves once, beside the board (#moves)
        ...(link ? [moveList(game)] : [])),
      C && C.bestLine(keyOf(game), game),
      player(game, "white"),
      el("div", { class: "foot" },
        el("span", { class: "last-move" }, lastMove(game)),
        el("span", { class: `result ${game.status}` }, resultText(game)),
        game.status === "not_started" ? "" : pgnLink(game)),
      corrected(game),
      C && C.opening(game),
    ].filter(Boolean);
    const attrs = { class: "card", "data-game": keyOf(game) };
    if (game.tournament) attrs["data-tournament"] = game.tournament;
    return el("div", attrs, ...body);
  }

  function rounds() {
    const all = [...new Set([...state.games.values()].map((g) => g.round).filter((r) => r != null))];
    return all.sort((a, b) => a - b);
  }

  function currentRound() {
    const played = [...state.games.values()].filter((g) => g.status !== "not_started" && g.round != null);
    if (played.length) return Math.max(...played.map((g) => g.round));
    return rounds()[0] ?? null;
  }

  // The tournament switcher: one tournament's round, or every tournament's boards.
  function renderSwitcher() {
    const select = $("tournament");
    if (!select) return;
    select.hidden = state.tournaments.length < 2;
    const all = view === "arbiter" ? "All tournaments" : "All boards";
    const options = [["*", all], ...state.tournaments.map((t) => [t.id, t.name || t.id])];
    if (select.options.length !== options.length) {
      select.replaceChildren(...options.map(([v, label]) => el("option", { value: v }, label)));
      select.onchange = () => {
        state.tournament = select.value;
        const url = new URL(location.href);
        if (state.tournament === "*") url.searchParams.delete("tournament");
        else url.searchParams.set("tournament", state.tournament);
        history.replaceState(null, "", url);
        state.seq = null; state.round = null; state.games = new Map();
        if (state.ws) { const old = state.ws; state.ws = null; old.close(); }
        connect();
      };
    }
    select.value = state.tournament;
    const name = shownTournament() && nameOfTournament(shownTournament());
    if (view === "boards" && name) $("title").textContent = name;
  }

  // "All boards" over several tournaments: each tournament's games in play (else its
  // current round), under the tournament's name, and each one's standings.
  function renderAllBoards(container) {
    const groups = state.tournaments.map((t) => {
      const mine = [...state.games.values()].filter((g) => tidOf(g) === t.id);
      const playing = mine.filter((g) => g.status === "in_progress");
      const round = Math.max(0, ...mine.filter((g) => g.status !== "not_started").map((g) => g.round || 0)) || 1;
      const shown = playing.length ? playing : mine.filter((g) => g.round === round);
      return el("div", { class: "tournament-boards", "data-tournament": t.id },
        el("h3", {}, t.name || t.id), el("div", { class: "boards" }, ...shown.map((g) => card(g))));
    });
    container.replaceChildren(...groups);
    followMoves(container);
  }

  function renderBoards(container, all) {
    if (!container) return;
    if (!all && state.tournament === "*" && state.tournaments.length > 1) {
      const select = $("round");
      if (select) select.parentElement.hidden = true;
      renderAllBoards(container);
      return;
    }
    const roundTitle = $("round");
    if (roundTitle) roundTitle.parentElement.hidden = false;
    let games = [...state.games.values()];
    if (!all) {
      const select = $("round");
      const list = rounds();
      if (select && select.options.length !== list.length) {
        select.replaceChildren(...list.map((r) => el("option", { value: r }, r)));
        select.onchange = () => { state.round = Number(select.value); render(); };
      }
      const round = state.round ?? currentRound();
      if (select && round != null) select.value = round;
      games = games.filter((g) => g.round === round || g.round == null && g.status === "in_progress");
    } else {
      games = games.filter((g) => g.status === "in_progress");
    }
    container.replaceChildren(...games.map((g) => card(g)));
    followMoves(container);
    const link = $("round-pgn"), shown = state.round ?? currentRound();
    const query = outputQuery(shownTournament());
    if (link && shown != null) {
      link.href = `/pgn/round/${shown}.pgn${query}`;
      link.setAttribute("download", `round-${shown}.pgn`);
    }
    const every = $("all-pgn");
    if (every) every.href = `/pgn/all.pgn${query}`;
  }

  function renderStandings() {
    const box = $("standings");
    if (!box) return;
    if (state.tournament === "*" && state.tournaments.length > 1) {
      const parts = state.tournaments.map((t) => {
        const part = el("div", { class: "tournament-standings", "data-tournament": t.id });
        standingsInto(part, state.standingsBy.get(t.id), t.id);
        return el("div", {}, el("h3", {}, t.name || t.id), part);
      });
      box.replaceChildren(...parts);
      return;
    }
    standingsInto(box, state.standings, state.tournament === "*" ? state.first : state.tournament);
  }

  function standingsInto(box, s, tid) {
    if (!s) return;
    const columns = [["rank", "#"], ["player", "Player"], ["points", "Points"], ["games", "Games"],
      ["wins", "Wins (3.7 b)"], ["h2h", "H2H (3.7 a)"], ["sb", "SB (3.7 c)"]];
    const prizes = new Map((s.prizes || []).map((p) => [p.player, p.eur]));
    const rows = (s.rows || []).map((row) => ({
      ...row,
      player: row.name ? `${row.name}${row.withdrawn ? " (withdrew)" : ""}` : row.player,
      prize: prizes.has(row.player) ? `€${prizes.get(row.player).toLocaleString("en")}` : "",
    }));
    if (prizes.size) columns.push(["prize", "Prize (3.8.1)"]);
    const present = columns.filter(([k]) => rows.some((row) => k in row));
    const table = el("table", { class: "standings" },
      el("thead", {}, el("tr", {}, ...present.map(([, label]) => el("th", {}, label)))),
      el("tbody", {}, ...rows.map((row) =>
        el("tr", { "data-player": row.player }, ...present.map(([k]) => el("td", {}, row[k] ?? ""))))));
    const notes = [];
    const label = stateLabel(s, tid);
    if (label) notes.push(el("p", { class: "state", "data-state": label.state }, label.text));
    const who = (id) => nameOf(id, tid);
    if ((s.first_place_level || []).length) notes.push(el("p", { class: "level" },
      `First place level on points: ${s.first_place_level.map(who).join(", ")}; a playoff, if the event's regulations hold one, is the organiser's`));
    else if (s.winner) notes.push(el("p", { class: "winner" }, `Winner: ${who(s.winner.player)} (decided by ${s.winner.decided_by})`));
    else if (s.leader) notes.push(el("p", {}, `Leader: ${who(s.leader.player)} (by ${s.leader.decided_by})`));
    const p = s.playoff;
    if (p && p.needed) {
      notes.push(el("p", { class: "playoff" },
        `Playoff needed${p.stage ? ` (${p.stage})` : ""}: ${(p.players || []).map(who).join(", ")}` +
        (p.games && p.games.length ? `; games ${p.games.map((g) => g.game || g).join(", ")}` : "")));
    } else if (p && !s.final) {
      notes.push(el("p", { class: "muted" }, "No playoff needed so far."));
    }
    box.replaceChildren(table, ...notes);
  }

  // What the table is, as it is: "Final", "Playoff in progress", "Round 14 in progress" (with
  // what the points count), "After round 13" between rounds.
  function stateLabel(s, tid) {
    if (s.after_round == null) return null;
    const mine = [...state.games.values()].filter((g) => tidOf(g) === tid || (!g.tournament && tid === state.first));
    const playing = mine.filter((g) => g.status === "in_progress");
    const playoff = s.playoff && s.playoff.needed;
    if (s.final && !playoff) return { state: "final", text: `Final, after round ${s.after_round} of ${s.rounds}` };
    if (playoff) {
      const on = playing.some((g) => g.round == null || g.round > s.rounds);
      return { state: "playoff", text: `Playoff${on ? " in progress" : ""}${s.playoff.stage ? ` (${String(s.playoff.stage).replaceAll("_", " ")})` : ""}` };
    }
    const live = [...new Set(playing.map((g) => g.round).filter((r) => r != null))].sort((a, b) => a - b);
    if (live.length) {
      const r = live[live.length - 1];
      // the table counts every result so far: of round r, the games already finished
      const counted = s.after_round >= r ? `the points include the games of round ${r} already finished`
        : s.after_round ? `the points after round ${s.after_round}` : "no game has finished yet";
      return { state: "in_progress", text: `Round ${r} in progress; ${counted}` };
    }
    return { state: "between_rounds", text: `After round ${s.after_round} of ${s.rounds}` };
  }

  function gameId() {
    return decodeURIComponent(location.pathname.replace(/^\/game\//, ""));
  }

  function renderGame() {
    // /game/<id>?tournament=ID: a game of that tournament (else of the store's first)
    const tid = state.tournament === "*" ? state.first : state.tournament;
    const game = state.games.get(tid && tid !== state.first ? `${tid}/${gameId()}` : gameId());
    const box = $("game");
    if (!game) { box.replaceChildren(el("p", { class: "muted" }, `No game ${gameId()} yet.`)); return; }
    $("title").textContent = `${nameOf(game.white, tidOf(game))} – ${nameOf(game.black, tidOf(game))}, round ${game.round ?? "?"}`;
    box.replaceChildren(card(game, false));
    const moves = $("moves");
    moves.replaceChildren(...moveList(game, "moves").childNodes);
    followMoves(moves.parentElement);
    if (C && $("timechart")) {
      const key = keyOf(game);
      C.loadTimeUse(key, game, `/api/games/${encodeURIComponent(game.game)}${outputQuery(tidOf(game))}`, state.token, render);
      $("timechart").replaceChildren(C.timeChart(key));
    }
    const claims = game.claims || [];
    $("claims").replaceChildren(...(claims.length ? [el("h2", {}, "Claims"),
      el("ul", {}, ...claims.map((c) => el("li", {}, `${c.id}: ${c.by} claims a draw by ${claimWords(c.kind)} — ${c.status}`)))] : []));
  }

  function renderArbiter() {
    const rows = [];
    for (const game of state.games.values()) {
      for (const claim of game.claims || []) {
        if (!PENDING.has(claim.status)) continue;
        const rule = (decision) => () => command({
          cmd: "rule_claim", game: game.game, claim: claim.id, decision, ...where(tidOf(game)),
          arbiter: state.arbiter, at: new Date().toISOString(),
        });
        rows.push(el("tr", { "data-claim": `${keyOf(game)}/${claim.id}` },
          el("td", {}, keyOf(game)), el("td", {}, claim.id), el("td", { "data-by": claim.by }, sideName(game, claim.by)),
          el("td", {}, claimWords(claim.kind) + (claim.intended_move ? ` (writes ${claim.intended_move})` : "")),
          el("td", {}, claim.verified == null ? "arbiter's judgement" : claim.verified ? "verified" : "not verified"),
          el("td", {}, claim.advice ? `advisor: ${claim.advice.opinion}` : ""),
          el("td", {}, el("button", { onclick: rule("accepted") }, "Accept"), " ",
            el("button", { onclick: rule("rejected") }, "Reject"))));
      }
    }
    $("claims").tBodies[0].replaceChildren(...(rows.length ? rows
      : [el("tr", {}, el("td", { class: "muted" }, "No claim waits for a ruling."))]));
    // The incident book of the tournament chosen in the switcher, or of every subscribed one
    // (each line then names its tournament).
    const shown = [...state.books.entries()].filter(([tid]) => state.tournament === "*" || tid === state.tournament);
    const whose = (tid) => (named(tid) ? `${named(tid).trim()}: ` : "");
    const out = shown.flatMap(([tid, book]) => (book.out || []).map((o) => ({ ...o, tid })));
    const entries = shown.flatMap(([tid, book]) => (book.entries || []).map((e) => ({ ...e, tid })))
      .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    const back = (o) => () => command({ cmd: "returned", player: o.player, ...where(o.tid), at: new Date().toISOString() });
    $("out").tBodies[0].replaceChildren(...(out.length ? out.map((o) =>
      el("tr", { "data-out": o.player, "data-tournament": o.tid }, el("td", {}, whose(o.tid) + nameOf(o.player, o.tid)),
        el("td", {}, o.game || ""), el("td", {}, o.since), el("td", {}, arbiterName(o.accompanied_by, o.tid)),
        el("td", {}, el("button", { onclick: back(o) }, "Returned"))))
      : [el("tr", {}, el("td", { class: "muted" }, "Every player is in the playing area."))]));
    // A player seen out without a permit: the desk proposes the incident (3.9.2 c); the arbiter
    // reviews it in the command box and sends it.
    const propose = (game, player) => () => {
      $("command-text").value = JSON.stringify({
        cmd: "record_incident", ...where(tidOf(game)), game: game.game, player, kind: "left_playing_area",
        arbiter: state.arbiter, details: "left the playing area without the Chief Arbiter's permission",
        penalty: "warning", at: "now",
      });
    };
    const outNow = new Set(out.map((o) => `${o.tid}/${o.player}`));
    const playing = [...state.games.values()].filter((g) => g.status === "in_progress");
    $("propose").replaceChildren("Left without permission? ", ...playing.flatMap((g) =>
      [g.white, g.black].filter((p) => !outNow.has(`${tidOf(g)}/${p}`)).map((p) =>
        el("button", { onclick: propose(g, p), "data-propose": p, "data-tournament": tidOf(g) },
          `${nameOf(p, tidOf(g))} (${named(tidOf(g))}${g.game})`))));
    $("incidents").replaceChildren(...entries.reverse().map((e) =>
      el("li", { class: `incident ${e.category}`, "data-tournament": e.tid },
        `${e.at} ${whose(e.tid)}${e.game ? `[${e.game}] ` : ""}${e.article}: ${e.summary}`)));
    const open = [...state.alerts.values()].reverse();
    $("alerts").replaceChildren(...(open.length ? open.map((a) =>
      el("li", { class: `alert ${a.kind}`, "data-key": a.key },
        `${a.at || ""} ${a.game ? `[${named(a.tournament || state.first)}${a.game}] ` : ""}${a.kind}: ${a.message || ""}`))
      : [el("li", { class: "muted" }, "No alert is open.")]));
    $("notices").replaceChildren(...state.notices.map((a) =>
      el("li", { class: `alert ${a.kind}` }, `${a.at || ""} ${a.kind}: ${a.message || ""}`)));
    renderRulingGames();
    $("results").replaceChildren(...state.results.slice(0, 50).map((r) =>
      el("li", { class: r.ok ? "ok" : "bad" }, `${r.id}: ` + (r.ok ? `ok (${(r.events || []).map((e) => e.type).join(", ")})` : `${r.error.code}: ${r.error.message}`))));
    renderBoards($("boards"), true);
  }

  // --- the desk's rulings: each button builds its command into the box, to review and send --
  const now = () => new Date().toISOString();
  const form = () => ({
    // the chosen game (by its key: two tournaments may both have a game 1.1)
    game: (state.games.get($("ruling-game").value) || { game: $("ruling-game").value }).game,
    where: where(tidOf(state.games.get($("ruling-game").value) || {})),
    side: $("ruling-side").value,
    seconds: Number($("ruling-seconds").value || 0),
    result: $("ruling-result").value,
    reason: $("ruling-reason").value.trim(),
    ply: Number($("ruling-ply").value || 0),
    moves: $("ruling-moves").value.split(/\s+/).filter(Boolean),
    arbiter: state.arbiter,
  });
  const RULINGS = {
    // Laws 2009 6.6 a: the arbiter starts the game at the start of the round, now
    start_game: (f) => ({ cmd: "start_game", game: f.game, by: f.arbiter || "arbiter", at: now() }),
    // Laws 7.4: the arbiter records a completed illegal move; the engine applies the penalty.
    illegal_move: (f) => ({ cmd: "record_illegal_move", game: f.game, by: f.side, arbiter: f.arbiter, at: now() }),
    adjust_clock: (f) => ({ cmd: "adjust_clock", game: f.game, side: f.side, delta_ms: Math.round(f.seconds * 1000),
      reason: f.reason || "arbiter's adjustment", arbiter: f.arbiter, at: now() }),
    // Laws 6.8: the arbiter rules on a flag the engine reports (a flag_fall alert).
    flag_fallen: (f) => ({ cmd: "rule_flag", game: f.game, side: f.side, decision: "fallen",
      arbiter: f.arbiter, at: now(), ...(f.reason ? { reason: f.reason } : {}) }),
    flag_not_fallen: (f) => ({ cmd: "rule_flag", game: f.game, side: f.side, decision: "not_fallen",
      arbiter: f.arbiter, at: now(), reason: f.reason || "the flag had not fallen" }),
    declare_result: (f) => ({ cmd: "declare_result", game: f.game, result: f.result || "1/2-1/2",
      reason: f.reason || "arbiter's decision", arbiter: f.arbiter, at: now() }),
    // Laws 7.4 a: corrections keep what they replace (the record shows both).
    correct_result: (f) => ({ cmd: "correct_result", game: f.game, result: f.result || null,
      reason: f.reason || "result recorded by mistake", arbiter: f.arbiter, at: now() }),
    correct_moves: (f) => ({ cmd: "correct_moves", game: f.game, from_ply: f.ply, moves: f.moves,
      reason: f.reason || "moves recorded by mistake", arbiter: f.arbiter, at: now() }),
  };

  function renderRulingGames() {
    const select = $("ruling-game");
    if (!select) return;
    // the games being played, then those still to start (Start game needs them)
    const games = [...state.games.values()];
    const live = [
      ...games.filter((g) => g.status !== "not_started"),
      ...games.filter((g) => g.status === "not_started"),
    ];
    const ids = live.map(keyOf);
    if ([...select.options].map((o) => o.value).join() === ids.join()) return;
    const chosen = select.value;
    select.replaceChildren(...live.map((g) => el("option", { value: keyOf(g) },
      `${named(tidOf(g))}${g.game} ${nameOf(g.white, tidOf(g))} – ${nameOf(g.black, tidOf(g))}`)));
    if (ids.includes(chosen)) select.value = chosen;
  }

  function buildRuling(name) {
    const f = form();
    const cmd = { ...RULINGS[name](f), ...f.where };
    $("command-text").value = JSON.stringify(cmd, null, 1);
    $("command-note").textContent = `${cmd.cmd} for game ${cmd.game}: check it, then Send.`;
    $("command-text").focus();
  }

  function command(cmd) {
    const id = `c${state.nextId++}`;
    const commandId = cmd.command_id || `page-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}-${id}`;
    const frame = { op: "command", id, command: { ...cmd, command_id: commandId } };
    state.unanswered.set(id, frame);
    send(frame);
    return id;
  }

  // --- the hall display (/display): no controls; one board large, the round's boards, the
  // standings and the needs as a ticker. Always the public's delayed feed (no token). ------
  function displayPlayer(game, side, big) {
    return el("div", { class: `dplayer ${side}${big ? " big" : ""}` },
      el("span", { class: "name" }, nameOf(game[side] || "?", tidOf(game))),
      el("span", { class: "clock", "data-game": keyOf(game), "data-side": side }, ""));
  }

  // The last moves with their numbers ("23. Nf3 Nc6 24. Bb5"), the newest marked.
  function lastMoves(game, plies) {
    const moves = game.moves || [];
    const from = Math.max(0, moves.length - plies);
    const out = [];
    for (let i = from; i < moves.length; i++) {
      const number = Math.floor(i / 2) + 1;
      if (i % 2 === 0) out.push(el("span", { class: "num" }, `${number}.`));
      else if (i === from) out.push(el("span", { class: "num" }, `${number}…`));
      out.push(el("span", { class: i === moves.length - 1 ? "san last" : "san" }, moves[i]));
    }
    return el("div", { class: "lastmoves", "data-game": keyOf(game) }, ...out);
  }

  function renderDisplay() {
    const tid = shownTournament();
    const mine = [...state.games.values()].filter((g) => !tid || tidOf(g) === tid);
    const played = mine.filter((g) => g.status !== "not_started" && g.round != null);
    const round = played.length ? Math.max(...played.map((g) => g.round)) : (rounds()[0] ?? null);
    const boards = mine.filter((g) => g.round === round).sort((a, b) => (a.board ?? 0) - (b.board ?? 0));
    const wantedBoard = Number(new URLSearchParams(location.search).get("board"));
    const featured = boards.find((g) => g.board === wantedBoard)
      || boards.find((g) => g.status === "in_progress") || boards[0];
    const name = tid && nameOfTournament(tid);
    if (name) $("title").textContent = name;
    const s = state.standings;
    const label = s ? stateLabel(s, tid) : null;
    $("round-label").textContent = label ? label.text.split(";")[0] : (round != null ? `Round ${round}` : "");
    if (featured) {
      $("featured").replaceChildren(
        el("div", { class: "head" }, `Board ${featured.board ?? "?"}`),
        displayPlayer(featured, "black", true),
        el("div", { class: "boardwrap" }, ...(C ? [C.evalBar(keyOf(featured), featured)] : []), boardOf(featured)),
        displayPlayer(featured, "white", true),
        lastMoves(featured, 10),
        el("div", { class: `result ${featured.status}` }, resultText(featured)));
      $("featured").dataset.game = keyOf(featured);
    } else {
      $("featured").replaceChildren(el("p", { class: "muted" }, "The boards appear when the round is paired."));
    }
    $("four").replaceChildren(...boards.map((g) => el("div", { class: "mini", "data-game": keyOf(g) },
      el("div", { class: "head" }, `Board ${g.board ?? "?"}`),
      displayPlayer(g, "black", false), boardOf(g), displayPlayer(g, "white", false),
      el("div", { class: "foot" }, el("span", { class: "last-move" }, lastMove(g)),
        el("span", { class: `result ${g.status}` }, g.status === "finished" ? g.result : "")))));
    const rows = (s && s.rows) || [];
    $("display-standings").replaceChildren(el("table", { class: "standings" },
      el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, "Player"), el("th", {}, "Pts"), el("th", {}, "G"))),
      el("tbody", {}, ...rows.map((r) => el("tr", { "data-player": r.player },
        el("td", {}, r.rank), el("td", { class: "name" }, r.name || r.player), el("td", {}, r.points), el("td", {}, r.games))))));
    const needs = state.needsBy.get(tid);
    const said = needs && needs.players
      ? Object.values(needs.players).filter((p) => p.outright || p.playoff)
        .sort((a, b) => b.chance - a.chance).map((p) => p.needs)
      : [];
    const text = said.join("  ·  ");
    const ticker = $("ticker");
    if (ticker.dataset.text !== text) {  // a new text restarts the crawl; the same keeps it going
      ticker.dataset.text = text;
      ticker.replaceChildren(...(text ? [el("span", {}, text), el("span", { "aria-hidden": "true" }, text)] : []));
      ticker.style.animationDuration = `${Math.max(20, text.length / 8)}s`;
    }
  }

  function render() {
    if (view === "display") { renderDisplay(); tickClocks(); return; }
    if (view === "boards") {
      renderSwitcher(); renderBoards($("boards"), false); renderStandings();
      if (window.candidatesNeeds) window.candidatesNeeds($("needs"), state.needsBy.get(shownTournament()));
    }
    else if (view === "game") renderGame();
    else if (view === "arbiter") { renderSwitcher(); renderArbiter(); }
    tickClocks();
  }

  // --- start -----------------------------------------------------------------------
  const fragment = new URLSearchParams(location.hash.slice(1));
  // the hall display is for the public: it never takes a token, so it never shows more
  // than the public delay allows
  if (fragment.get("token") && view !== "display") state.token = fragment.get("token");
  if (view === "arbiter") {
    for (const button of document.querySelectorAll("[data-ruling]")) {
      button.addEventListener("click", () => buildRuling(button.dataset.ruling));
    }
    state.token = state.token || sessionStorage.getItem("candidates-token");
    state.arbiter = sessionStorage.getItem("candidates-arbiter") || "chief";
    $("arbiter").value = state.arbiter;
    $("signin").addEventListener("submit", (event) => {
      event.preventDefault();
      state.token = $("token").value;
      state.arbiter = $("arbiter").value || null;
      sessionStorage.setItem("candidates-token", state.token);
      sessionStorage.setItem("candidates-arbiter", state.arbiter || "");
      state.reconnect = true;
      state.seq = null;
      if (state.ws) { const old = state.ws; state.ws = null; old.close(); }
      connect();
    });
    $("command").addEventListener("submit", (event) => {
      event.preventDefault();
      try {
        const cmd = JSON.parse($("command-text").value);
        if (cmd.at === "now") cmd.at = new Date().toISOString();
        command(cmd);
        $("command-note").textContent = "";
      } catch (error) {
        state.results.unshift({ id: "-", ok: false, error: { code: "not_json", message: String(error) } });
        render();
      }
    });
    if (state.token) connect();
  } else {
    connect();
  }
  setInterval(tickClocks, 200);
})();
