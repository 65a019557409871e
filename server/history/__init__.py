"""Hand histories: the exported event log, and the pages that review stored games."""
