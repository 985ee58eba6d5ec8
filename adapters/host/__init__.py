"""The host room: what the machine and the operator give every process, each said once.

The wall clock (``clock``: UTC epoch milliseconds, the one helper every adapter
reads it through) and the public delay (``public_delay``: FIDE fair play, one
setting that the gateway, the DGT feed and its correction policy read)."""
