"""3.2 schedule of the event: 22 days for 14 rounds, as a query and an iCalendar file."""

from __future__ import annotations

from adapters.cli import main
from adapters.store import Store
from adapters.store.queries import schedule_object
from engine.tournament.schedule import schedule, to_ical
from tests.helpers import paired_tournament
from tests.tournament_helpers import event


class TestArt3_2Schedule:
    def test_3_2_twenty_two_days_for_fourteen_rounds(self) -> None:
        days = schedule("2013-03-13", 14)
        assert len(days) == 22
        assert [d.title for d in days[:6]] == [
            "Arrivals",
            "Opening Ceremony & Players Meeting",
            "Round 1",
            "Round 2",
            "Round 3",
            "Free day",
        ]
        free_after = [days[i - 1].round for i, d in enumerate(days) if d.kind == "free"]
        assert free_after == [3, 6, 9, 12]
        assert [d.title for d in days[-3:]] == [
            "Round 14",
            "Tiebreaks / Closing ceremony",
            "Departures",
        ]
        # London 2013: round 1 on 15 March, round 14 on 1 April
        assert str(days[2].date) == "2013-03-15"
        assert str(days[-3].date) == "2013-04-01"

    def test_3_2_other_round_robins_keep_the_pattern(self) -> None:
        days = schedule("2020-01-01", 18)  # ten players, two cycles
        assert sum(d.kind == "round" for d in days) == 18
        assert [days[i - 1].round for i, d in enumerate(days) if d.kind == "free"] == [
            3,
            6,
            9,
            12,
            15,
        ]
        assert len(schedule("2020-01-01", 3)) == 7  # no free day after the last round

    def test_3_2_query_of_a_tournament(self, sqlite_store: Store) -> None:
        paired_tournament(sqlite_store)
        view = schedule_object(sqlite_store.reads)
        assert view["total_days"] == 22
        assert view["days"][2] == {
            "day": 3,
            "date": "2013-03-15",
            "kind": "round",
            "round": 1,
            "title": "Round 1",
        }

    def test_3_2_icalendar_file(self, sqlite_store: Store, tmp_path, capsys) -> None:
        event(sqlite_store, ["a", "b", "c", "d"])
        sqlite_store.close()
        path = tmp_path / "schedule.ics"
        store = str(tmp_path / "store.sqlite")
        assert main(["--store", store, "schedule", "--ical", str(path)]) == 0
        assert "iCalendar written to" in capsys.readouterr().out
        text = path.read_bytes().decode()
        assert text.startswith("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n")
        assert text.endswith("END:VCALENDAR\r\n")
        assert text.count("BEGIN:VEVENT") == len(schedule("2013-03-13", 6))
        assert "DTSTART;VALUE=DATE:20130315\r\nDTEND;VALUE=DATE:20130316\r\n" in text
        assert "SUMMARY:Test round robin: Round 1\r\n" in text
        assert all(len(line.encode()) <= 75 for line in text.split("\r\n"))

    def test_3_2_icalendar_escapes_and_folds_text(self, sqlite_store: Store) -> None:
        from dataclasses import replace

        paired_tournament(sqlite_store)
        tournament = replace(
            sqlite_store.reads.tournament(), name="London; Candidates, " + "x" * 80
        )
        text = to_ical(tournament, schedule(tournament.start_date, 14))
        assert "London\\; Candidates\\, " in text
        assert "\r\n " in text  # a folded line
        assert all(len(line.encode()) <= 75 for line in text.split("\r\n"))
