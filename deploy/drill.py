"""The event-day drill: docs/operations.md run on this machine, with things broken on purpose.

``make drill`` (``python deploy/drill.py``) sets up a hall as the runbook says and
plays a round of London 2013 through it: a PostgreSQL cluster of its own (initdb
into a temporary directory, on a free port: the machine's server on 5432 is never
touched), two gateways and two board readers started from the unit files of
``deploy/systemd/`` with the hall's one configuration, four simulated DGT boards
playing the round's real games on pseudo-terminals through the real serial
stack, the arbiters acting through the desk's websocket channel, two
commentators, a public client and a broadcast poller on ``/pgn/round/N.pgn``.
Mid-round it kills (SIGKILL) a board reader, a gateway and the database's
postmaster, restarting each as the runbook says (the database after ``OUTAGE_S``,
the boards playing on); it takes a backup, restores it and audits it; at the end
of play it loses the machine (restores a backup taken then into a fresh store,
re-enters what the score sheets show since and points the hall at it), the
clients subscribe again on the restored copy and the arbiters end the games
there. Then it prints what every client saw against the restored copy (moves
lost, doubled, out of order, the longest gap), the audits, how long the
database was down and the moves no board sent (entered from the score sheets),
and exits 1 unless every count is 0, the outage lasted and every audit passes.

The commands it runs are the runbook's: every ``sh`` block of docs/operations.md
carries a ``<!-- drill: NAME -->`` line and the drill runs the blocks by name,
with the hall's paths moved under a temporary directory (``/etc/candidates`` ->
``TMP/etc/candidates`` ...), the database's host and port and the gateways'
ports replaced by the drill's. ``systemctl`` is played by the drill: it reads
the unit files the runbook installs and runs their ``ExecStart`` (``%i`` filled
in, ``Environment=`` honoured); ``postgresql`` is the drill's own cluster.

``--short``: fewer moves (the test of ``make test``), every step and every kill.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import chess.pgn

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # deploy/ and tools/ (the sample's sources): not installed

from deploy.clients import (  # noqa: E402
    ArbiterDesk,
    FeedClient,
    PgnPoller,
    ScoreSheets,
    Seen,
    judge,
)
from deploy.drill_round import (  # noqa: E402
    BOARDS,
    DRILL_TOKENS,
    GROUPS,
    PUBLIC_DELAY_S,
    ROUND,
    TIME_SCALE,
    edit_config,
    founding_commands,
    round_games,
)
from deploy.hall import BIN, Hall  # noqa: E402
from deploy.organisers_list import write_london_2013  # noqa: E402
from deploy.runbook import DrillError, runbook_blocks  # noqa: E402

OUTAGE_S = 22.0
"""How long the database stays down after its postmaster is killed, the boards playing
on (a ply every 3-5 s on each): longer than the four plies a board's dump reconciles."""


@dataclass
class Figures:
    rows: list[dict[str, Any]]
    audits: dict[str, tuple[bool, str]]
    events: dict[str, Any]


def store_moves(url: str) -> tuple[dict[str, list[str]], dict[int, tuple[str, int]], int]:
    """Per game the stored moves; per MovePlayed its seq -> (game, ply); the last seq."""
    from adapters.store import Store
    from engine.events import MovePlayed

    with Store(url) as store:
        reads = store.reads
        games = {g: list(game.moves) for g in reads.game_ids() if (game := reads.game(g))}
        seqs = {
            seq: (event.originator_id.removeprefix("game/"), event.ply)
            for seq, event in store.cache.events_since(0)
            if isinstance(event, MovePlayed)
        }
        return games, seqs, store.last_seq()


def entered_by_hand(url: str, since_ms: int = 0) -> int:
    """The moves in the store that no board sent (``by`` not ``dgt:...``): what the
    arbiters entered from the score sheets (from ``since_ms`` on)."""
    from adapters.store import Store
    from engine.events import MovePlayed

    with Store(url) as store:
        return sum(
            1
            for _, event in store.cache.events_since(0)
            if isinstance(event, MovePlayed)
            and not (event.by or "").startswith("dgt:")
            and event.at_ms >= since_ms
        )


def stored_games(url: str, game_ids: Iterable[str]) -> dict[str, list[str]]:
    """The stored moves of the games named (each game's own stream, not the whole log:
    the drill's waits look several times a second while the clocks' readings pile up)."""
    from adapters.store import Store

    with Store(url) as store:
        return {g: list(game.moves) for g in game_ids if (game := store.reads.game(g)) is not None}


class Drill:
    def __init__(self, short: bool, keep: bool, out: Callable[[str], None] = print) -> None:
        self.short = short
        self.keep = keep
        self.out = out
        self.plies = 24 if short else None
        self.game_ids = [f"{ROUND}.{board}" for board in BOARDS]
        """The round's games: the only ones the drill plays."""
        self.tmp = Path(tempfile.mkdtemp(prefix="candidates-drill-"))
        os.chmod(self.tmp, 0o755)
        self.hall = Hall(self.tmp, out)
        self.blocks = runbook_blocks()
        self.sims: dict[str, subprocess.Popen[bytes]] = {}
        self.clients: list[FeedClient] = []
        self.events: dict[str, Any] = {}
        self.database_killed_ms = 0
        """When the drill killed the database (UTC epoch ms)."""
        self.started = time.monotonic()
        self.summary: dict[str, Any] = {}

    def say(self, text: str) -> None:
        self.out(f"[{time.monotonic() - self.started:6.1f}s] {text}")

    def step(self, name: str) -> list[str]:
        self.say(f"runbook: {name}")
        return self.hall.run_block(name, self.blocks)

    @property
    def url(self) -> str:
        return self.hall.cluster.url()

    def ply_count(self) -> int:
        return sum(len(m) for m in stored_games(self.url, self.game_ids).values())

    def wait_for(self, what: str, done: Callable[[], bool], timeout_s: float = 300) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                if done():
                    return
            except Exception:
                pass
            if time.monotonic() > deadline:
                state: dict[str, object]
                try:
                    state = {g: len(m) for g, m in stored_games(self.url, self.game_ids).items()}
                except Exception as exc:
                    state = {"store": repr(exc)}
                raise DrillError(f"timed out waiting for {what} (plies stored: {state})")
            time.sleep(0.3)

    def gateway_up(self, port: str) -> bool:
        try:
            with urllib.request.urlopen(self.hall.gateway_url(port, "/status"), timeout=2):
                return True
        except OSError:
            return False

    def run(self) -> int:
        try:
            return self._run()
        finally:
            for client in self.clients:
                client.stop.set()
            for sim in self.sims.values():
                if sim.poll() is None:
                    sim.kill()
            self.hall.stop_all()
            self.hall.cluster.stop()
            if self.keep:
                self.out(f"kept: {self.tmp}")
            else:
                shutil.rmtree(self.tmp, ignore_errors=True)

    def _run(self) -> int:
        hall = self.hall
        games = round_games(self.plies)
        total_plies = sum(len(list(g.mainline_moves())) for g in games.values())
        self.say(f"round {ROUND}: {len(games)} boards, {total_plies} plies; directory {self.tmp}")
        self.step("install")
        hall.cluster.init()
        hall.cluster.start()
        self.say(f"PostgreSQL of the drill on 127.0.0.1:{hall.cluster.port} ({hall.cluster.dir})")
        self.step("database")
        self.step("configure")
        edit_config(hall, self.url)
        self.step("check-config")
        write_london_2013(Path(hall.here("/etc/candidates/players.csv")))
        self.step("founding")  # the organisers' list into the founding file, as written
        # ... replaced by London 2013's whole founding: its rounds' order, its boards
        founding = Path(hall.here("/etc/candidates/london-2013.jsonl"))
        founding.write_text("".join(json.dumps(c) + "\n" for c in founding_commands()))
        self.step("tournament")
        self.step("units")
        self.step("start-gateways")

        # the clients: two commentators, the public, the desk, a broadcast
        a, b = hall.ws_url("8765"), hall.ws_url("8766")
        seen = {
            "commentator@A": Seen("commentator@A", "deltas"),
            "commentator@B": Seen("commentator@B", "deltas"),
            "public@A": Seen("public@A", "views"),
            "desk@A": Seen("desk@A", "deltas"),
            "broadcast PGN": Seen("broadcast PGN", "views"),
        }
        token = DRILL_TOKENS["commentator"]
        self.clients = [
            FeedClient(seen["commentator@A"], [a, b], token),
            FeedClient(seen["commentator@B"], [b, a], token),
            FeedClient(seen["public@A"], [a, b], None),
        ]
        desk = ArbiterDesk(seen["desk@A"], [a, b], DRILL_TOKENS["arbiter"])
        self.clients.append(desk)
        poller = PgnPoller(
            seen["broadcast PGN"],
            [hall.gateway_url(p, f"/pgn/round/{ROUND}.pgn") for p in ("8765", "8766")],
        )
        sheets = ScoreSheets(desk, games)
        workers: list[FeedClient | PgnPoller | ScoreSheets] = [*self.clients, poller, sheets]
        for worker in workers:
            worker.start()
        for client in self.clients:
            if not client.connected.wait(30):
                raise DrillError(f"{client.name} could not connect")

        # the round: the arbiters start the games at the desk, the boards are switched on
        for board in BOARDS:
            desk.command({"cmd": "start_game", "game": f"{ROUND}.{board}"})
        self.say("desk: the round's four games started")
        pgn_dir = self.tmp / "games"
        pgn_dir.mkdir()
        for board in BOARDS:
            game_id = f"{ROUND}.{board}"
            path = pgn_dir / f"{game_id}.pgn"
            path.write_text(str(games[game_id]) + "\n", encoding="utf-8")
            log = (hall.logs / f"board-{board}.log").open("ab")
            self.sims[board] = subprocess.Popen(
                [
                    str(BIN / "candidates"), "dgt", "simulate", "--pgn", str(path),
                    "--serial", f"{20130 + int(board)}", "--seed", str(2013 + int(board)),
                    "--pty", str(hall.dev / f"ttyDGT{board}"),
                    "--time-scale", str(TIME_SCALE), "--no-transients", "--stay-on",
                ],
                stdout=log, stderr=subprocess.STDOUT, env=hall.env(),
            )  # fmt: skip
        self.wait_for(
            "the boards' pseudo-terminals",
            lambda: all((hall.dev / f"ttyDGT{b}").exists() for b in BOARDS),
            30,
        )
        play_from = time.monotonic()
        self.step("start-boards")
        self.step("backup-timer")

        def at_share(share: float) -> Callable[[], bool]:
            return lambda: self.ply_count() >= share * total_plies

        # a board reader dies, right after one of its boards' moves was stored
        self.wait_for("the first moves", at_share(0.1))
        self.step("during-play")
        group_a = [f"{ROUND}.{b}" for b in GROUPS["a"]]

        def plies_a() -> int:
            return sum(len(m) for m in stored_games(self.url, group_a).values())

        seen_a = plies_a()
        self.wait_for("a move of group a", lambda: plies_a() > seen_a, 60)
        pid = hall.kill("candidates-boards@a")
        self.say(f"SIGKILL board reader a (pid {pid}) at {self.ply_count()} plies")
        self.events["board reader killed"] = pid
        self.step("board-reader-died")

        # the arbiter adjusts a clock while play goes on
        desk.command(
            {
                "cmd": "adjust_clock",
                "game": f"{ROUND}.1",
                "side": "white",
                "delta_ms": 120_000,
                "reason": "the clock was set wrongly at the start",
            }
        )
        self.say("desk: adjust_clock on 2.1 (+2 min to White)")

        # a gateway dies
        self.wait_for("a fifth of the moves", at_share(0.2))
        pid = hall.kill(f"candidates-gateway@{hall.ports['8765']}")
        self.say(f"SIGKILL gateway A (pid {pid}) at {self.ply_count()} plies")
        self.events["gateway killed"] = pid
        time.sleep(1.5)
        self.step("gateway-died")
        self.wait_for("gateway A back", lambda: self.gateway_up("8765"), 60)

        # the database dies and stays down while the boards play on
        self.wait_for("a third of the moves", at_share(0.3))
        before = self.ply_count()
        self.events["plies stored when the database was killed"] = f"{before} of {total_plies}"
        pid = hall.cluster.kill()
        killed = time.monotonic()
        self.database_killed_ms = time.time_ns() // 1_000_000
        self.say(f"SIGKILL PostgreSQL's postmaster (pid {pid}) at {before} plies")
        self.events["database killed"] = pid
        time.sleep(OUTAGE_S)
        self.step("database-restarted")
        down_s = time.monotonic() - killed
        self.events["database down"] = f"{down_s:.0f} s"
        after = self.ply_count()
        self.say(f"PostgreSQL answers again after {down_s:.1f} s; {after} plies stored")
        self.events["plies stored when the database answered again"] = f"{after} of {total_plies}"

        # a backup while play goes on, restored and audited
        self.wait_for(
            "moves after the restart",
            lambda: self.ply_count() > min(before + 4, total_plies - 1),
            120,
        )
        backup_at = time.time_ns() // 1_000_000
        backup_out = self.step("backup-now")
        self.say(f"backup: {backup_out[-1].strip()}")
        self.step("restore-database")
        self.step("restore")  # its diff fails the step unless both audits say the same
        restored = self.audit(hall.cluster.url("candidates_restore"))
        in_backup = store_moves(hall.cluster.url("candidates_restore"))[0]
        self.say(f"restored: {restored[1]}; {sum(map(len, in_backup.values()))} plies")

        # the end of play: every board done
        expected = {g: [m.uci() for m in games[g].mainline_moves()] for g in games}
        self.wait_for(
            "every move of the round in the store",
            lambda: stored_games(self.url, expected) == expected,
            600,
        )
        play_to = time.monotonic()
        played_games, _, _ = store_moves(self.url)
        by_hand = entered_by_hand(self.url)

        # a backup at the end of play, and then the machine is lost: the backup restored
        # into a new database with what the score sheets show since, the hall pointed at
        # it; the clients resume on the restored copy, where the arbiters end the games
        backup_at = time.time_ns() // 1_000_000
        self.step("backup-now")
        self.write_score_sheets(played_games, backup_at, desk)
        resumed_before = {c.name: c.seen.resumed + c.seen.snapshots for c in self.clients}
        self.step("machine-lost-database")
        self.step("machine-lost")
        restored_url = self.hall.cluster.url("candidates_new")
        self.wait_for(
            "the gateways on the restored copy",
            lambda: self.gateway_up("8765") and self.gateway_up("8766"),
        )
        self.wait_for(
            "the clients back on the restored copy",
            lambda: all(
                c.seen.resumed + c.seen.snapshots > resumed_before[c.name] for c in self.clients
            ),
            60,
        )
        self.say("the clients subscribed again on the restored copy")
        for game_id, game in games.items():
            self.end_game(desk, game_id, game)
        self.say("desk: every game ended on the restored copy (resignations, claims ruled)")
        time.sleep(PUBLIC_DELAY_S + 3)  # the public sees the end after its delay
        final_games, final_seqs, final_seq = store_moves(restored_url)
        self.wait_for(
            "every result on the restored copy at the clients of the live feed",
            lambda: all(
                c.seen.results >= set(games) for c in self.clients if c.seen.kind == "deltas"
            ),
            60,
        )
        time.sleep(2)
        for worker in workers:
            worker.stop.set()
        by_hand = max(by_hand, entered_by_hand(restored_url))
        # A board reader killed while its boards play on misses the plies played until
        # it is back; its board's dump places them, or, where they fit in two orders, the
        # arbiters enter them (docs/operations.md, "A board reader dies"). Through the
        # database outage a reader misses nothing: it holds what it reads.
        through_outage = entered_by_hand(restored_url, self.database_killed_ms)

        rows = [judge(s, final_games, (play_from, play_to)) for s in seen.values()]
        audits = {
            "store": self.audit(self.url),
            "restored backup": (restored[0], f"{restored[1]}; the same as the backup log's"),
            "machine-lost copy": self.audit(restored_url),
        }
        record = {"boards vs score sheets": played_games == expected}
        record["machine-lost copy vs store"] = final_games == played_games
        self.events["store events (the restored copy)"] = final_seq
        self.events["moves"] = len(final_seqs)
        self.events["runbook commands run"] = len(hall.ran)
        self.events["desk: moves entered for boards shown lost"] = sheets.entered
        self.events["boards shown lost"] = "; ".join(sheets.lost) or "none"
        self.events["moves the arbiters entered from the score sheets"] = by_hand
        self.events["of them, since the database was killed"] = through_outage
        self.events["broadcast polls"] = f"{poller.polls} ({poller.not_modified} not modified)"
        return self.report(Figures(rows, audits, self.events), record)

    def audit(self, url: str) -> tuple[bool, str]:
        done = subprocess.run(
            [str(BIN / "candidates"), "--store", url, "audit"],
            capture_output=True,
            text=True,
            env=self.hall.env(),
            check=False,
        )
        summary = (done.stdout.strip().splitlines() or ["(no output)"])[0]
        return done.returncode == 0, summary

    def end_game(self, desk: ArbiterDesk, game_id: str, game: chess.pgn.Game) -> None:
        """The arbiters end the game at the desk: a resignation for a decisive result, else
        the draw claim the player on move makes (3.9.2 b), advised and ruled."""
        from adapters.formats.pgn_players import player_id
        from tools import sample

        board = game.end().board()
        result = game.headers.get("Result", "*")
        white = player_id(game.headers["White"])
        black = player_id(game.headers["Black"])
        if result in ("1-0", "0-1"):
            desk.command(
                {"cmd": "resign", "game": game_id, "by": "black" if result == "1-0" else "white"}
            )
            return
        kind, intended = sample.draw_claim(board)
        claim: dict[str, Any] = {
            "cmd": "claim_draw",
            "game": game_id,
            "by": white if board.turn == chess.WHITE else black,
            "kind": kind,
        }
        if intended:
            claim["intended_move"] = intended
        answer = desk.command(claim)
        number = next((e.get("claim") for e in answer.get("events", []) if e.get("claim")), "1")
        if kind == "theoretical_draw":
            desk.command(
                {
                    "cmd": "advise_claim",
                    "game": game_id,
                    "claim": str(number),
                    "opinion": "draw",
                    "advisor": "advisor",
                }
            )
        desk.command(
            {"cmd": "rule_claim", "game": game_id, "claim": str(number), "decision": "accepted"}
        )

    def write_score_sheets(
        self, in_backup: dict[str, list[str]], backup_at: int, desk: ArbiterDesk
    ) -> None:
        """What the arbiters enter after losing the machine: from the score sheets, every
        move after those of the backup (the store's own, as the sheets show them); from
        the desk's book, every command since."""
        from adapters.store import Store
        from engine.events import MovePlayed
        from engine.timefmt import format_instant

        lines: list[tuple[int, dict[str, Any]]] = []
        with Store(self.url) as store:
            for _, event in store.cache.events_since(0):
                game_id = event.originator_id.removeprefix("game/")
                if isinstance(event, MovePlayed) and event.ply > len(in_backup.get(game_id, [])):
                    lines.append(
                        (
                            event.at_ms,
                            {
                                "cmd": "play_move",
                                "game": game_id,
                                "move": event.san,
                                "ply": event.ply,
                                "at": format_instant(event.at_ms),
                                "by": "score-sheet",
                            },
                        )
                    )
        from engine.commands import REGISTRY
        from engine.timefmt import parse_instant

        for command in desk.sent:
            at_ms = parse_instant(command["at"])
            if at_ms >= backup_at and command["cmd"] != "start_game":
                entry = {k: v for k, v in command.items() if k != "command_id"}
                spec = REGISTRY.get(command["cmd"])
                if spec is not None and spec.field("arbiter") is not None:
                    entry.setdefault("arbiter", "chief")  # the desk's token filled it in
                lines.append((at_ms, entry))
        lines.sort(key=lambda item: item[0])
        path = Path(self.hall.here("/var/lib/candidates/score-sheets.jsonl"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(c) + "\n" for _, c in lines), encoding="utf-8")

    def report(self, figures: Figures, record: dict[str, bool]) -> int:
        out = self.out
        out("")
        out(f"{'client':<16} {'moves':>6} {'lost':>5} {'doubled':>8} {'out of order':>13} "
            f"{'longest gap':>12} {'failovers':>10} {'resumed':>8}")  # fmt: skip
        for row in figures.rows:
            out(
                f"{row['client']:<16} {row['moves']:>6} {row['lost']:>5} {row['doubled']:>8} "
                f"{row['out_of_order']:>13} {row['gap_s']:>11.1f}s {row['failovers']:>10} "
                f"{row['resumed']:>8}"
            )
        out("")
        for name, value in figures.events.items():
            out(f"{name}: {value}")
        for name, agrees in record.items():
            out(f"{name}: {'equal' if agrees else 'DIFFERENT'}")
        for name, (ok, summary) in figures.audits.items():
            out(f"audit of the {name}: {'passed' if ok else 'FAILED'} ({summary})")
        lost = sum(r["lost"] for r in figures.rows)
        doubled = sum(r["doubled"] for r in figures.rows)
        disorder = sum(r["out_of_order"] for r in figures.rows)
        gaps = ", ".join(f"{r['client']} {r['gap_s']:.1f} s" for r in figures.rows)
        by_hand = int(figures.events.get("moves the arbiters entered from the score sheets", 0))
        through_outage = int(figures.events.get("of them, since the database was killed", 0))
        down = figures.events.get("database down", "0 s")
        failed = (
            lost or doubled or disorder or through_outage
            or float(down.split()[0]) < OUTAGE_S - 1
            or not all(ok for ok, _ in figures.audits.values())
            or not all(record.values())
        )  # fmt: skip
        out(f"longest gaps: {gaps}")
        last = (
            f"database down {down}; moves the arbiters entered from the score sheets: "
            f"{by_hand} ({through_outage} since the database was killed); {lost} lost, "
            f"{doubled} doubled, {disorder} out of order"
        )
        self.summary = {
            "clients": figures.rows,
            "audits": {k: {"passed": ok, "summary": v} for k, (ok, v) in figures.audits.items()},
            "record": record,
            "events": {k: str(v) for k, v in figures.events.items()},
            "ran": [list(item) for item in self.hall.ran],
            "last_line": last,
        }
        out(last)
        return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="fewer moves, every step and kill")
    parser.add_argument("--keep", action="store_true", help="keep the drill's directory")
    parser.add_argument(
        "--summary", metavar="FILE", help="also write the figures and the commands run as JSON"
    )
    args = parser.parse_args(argv)
    drill = Drill(args.short, args.keep)
    try:
        status = drill.run()
    except DrillError as error:
        print(f"drill: {error}", file=sys.stderr)
        return 2
    if args.summary:
        Path(args.summary).write_text(json.dumps(drill.summary, indent=2), encoding="utf-8")
    return status


if __name__ == "__main__":
    sys.exit(main())
