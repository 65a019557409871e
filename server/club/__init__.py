"""The club: member accounts (argon2id passwords, signed session cookies), invitations, the club
mode that decides who may come in, the admin's powers, and the audit log of what admins did.

`Club` (club.py) is the service the routes and the socket use; store.py holds its SQL, gate.py the
ASGI middleware that turns away whoever the club mode does not let in.
"""
