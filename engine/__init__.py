"""The domain of the Candidates Tournament: events, commands, decisions.

Pure: no sockets, files, threads or wall clock. Time comes in on commands.
All durations are integer milliseconds; instants are UTC epoch milliseconds.
"""
