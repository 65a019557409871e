"""Live tables: one actor per table owns its game, seats, timers and connections."""
