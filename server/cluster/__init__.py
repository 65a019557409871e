"""Several server processes on one PostgreSQL database and one Redis: each table runs in one process
at a time, held through a lease (`leases`); requests and sockets reach it over Redis (`bus`) from
whichever process they arrive at; a process that dies has its tables taken over (`node`).
"""
