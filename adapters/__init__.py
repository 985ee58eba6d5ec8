"""Everything that touches the world: the event store, files, the CLI, boards, sockets."""
