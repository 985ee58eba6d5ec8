"""The websockets gateway: live frames for commentators, the arbiters' channel, the page.

Modules: ``frames`` (the wire: encodings, batches), ``tokens`` (roles),
``follower`` (reading the store's notification log), ``deltas`` (events to
frames), ``hub`` (channels, clients, slow clients), ``server`` (the
websockets server, HTTP pages, ``serve_forever``). The protocol is in
``docs/protocol.md``.
"""
