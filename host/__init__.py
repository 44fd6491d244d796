"""The host process: gRPC servers, lobby, table actors and the journal."""
