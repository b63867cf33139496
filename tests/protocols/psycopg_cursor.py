#!/usr/bin/python3
"""A psycopg 3 named (server-side) cursor over a large result: DECLARE, then
FETCH FORWARD in steps of `itersize` rows, then CLOSE, as psycopg's
ServerCursor sends them. Prints the rows read and the sum of the values.
Usage: psycopg_cursor.py PORT SQL
"""
import sys

import psycopg

port, sql = int(sys.argv[1]), sys.argv[2]
conninfo = f"host=127.0.0.1 port={port} user=reader dbname=strata connect_timeout=10"
with psycopg.connect(conninfo) as conn:
    with conn.cursor("big") as cur:
        cur.itersize = 5000
        cur.execute(sql)
        rows = 0
        total = 0.0
        for row in cur:
            rows += 1
            total += row[-1]
        # A second batch of fetchmany on the ended cursor is empty.
        assert cur.fetchmany(10) == []
    print(f"rows {rows} sum {total:.1f}")
