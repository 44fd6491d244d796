"""The journal and the matches: the tables' SQLite journals (and their in-memory twin), the
kinds of entry and the playback after a restart, the host's tables by id, the data dir."""
