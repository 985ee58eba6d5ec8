"""The formats room: files in and out of a store.

PGN in (``pgn_import``, with the players' names and ratings: ``pgn_players``)
and out (``event_export``), replay logs written and read (``replay_log``) and
replayed at a pace (``replay``), and JSON text from outside read defensively
(``jsontext``)."""
