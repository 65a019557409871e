"""Sparrow's server: the Starlette application where people play Chinese Classical Mahjong in their
browsers, the storage that keeps every game, and the ``sparrow`` command. It never re-implements a
rule: it asks `game`.

- `app`: the application (routes, the lobby's life span); `api`, `pages`: the JSON API and the pages.
- `lobby`, `tables/`: the live tables, one actor per table, and what each connection is sent.
- `ws`, `protocol`, `statediff`: the socket endpoint, its messages, and the diffs it carries; `wire`: how
  uvicorn serves them (its h11 and wsproto protocols).
- `store/`: the database (models, migrations, the journal every action is committed to first).
- `club/`: member accounts, invitations and the club mode; `history/`: the review of stored games.
- `origins`: which pages may use the server; `collector`: the garbage collector (start-up frozen, pauses
  measured); `rulebook`: `/rules`.
- `cli/`: the entry points of the ``sparrow`` sub-commands; `loadtest/`: the load-test client.
"""
