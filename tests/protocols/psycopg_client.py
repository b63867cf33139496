#!/usr/bin/python3
"""psycopg 3 (Debian's python3-psycopg) against Strata's PostgreSQL port.

Server-side parameters (the extended protocol; lists too), typed values back, errors
with SQLSTATE and position, a prepared statement, COPY both ways, Grafana's statements
replayed (grafana_statements.py), and a session's time zone set through libpq's options. Exits non-zero with the first mismatch.
Usage: psycopg_client.py PORT [PASSWORD]
"""
import datetime
import sys

import psycopg
from psycopg.types.json import Json

import grafana_statements

port = int(sys.argv[1])
password = sys.argv[2] if len(sys.argv) > 2 else None
UTC = datetime.timezone.utc


def check(what, got, want):
    if got != want:
        sys.exit(f"{what}: got {got!r}, want {want!r}")
    print(f"ok {what}")


conninfo = f"host=127.0.0.1 port={port} user=grafana dbname=strata connect_timeout=10"
if password:
    conninfo += f" password={password}"
with psycopg.connect(conninfo) as conn:
    with conn.cursor() as cur:
        cur.execute(
            "SELECT host, usage, procs, up, time FROM mydb.cpu "
            "WHERE host = %s AND usage > %s AND time >= %s ORDER BY time",
            ("a", 1.0, datetime.datetime(2020, 1, 1, tzinfo=UTC)))
        rows = cur.fetchall()
        check("typed row count", len(rows), 2)
        host, usage, procs, up, time = rows[0]
        check("varchar", host, "a")
        check("double", usage, 1.5)
        check("bigint", procs, 3)
        check("boolean", up, True)
        check("timestamp is an aware datetime", (type(time), time.tzinfo), (datetime.datetime, UTC))
        check("NULL", rows[1][2], None)
        check("column types", [c.type_code for c in cur.description], [25, 701, 20, 16, 1184])

        # The session's id as tools read it (the BackendKeyData psycopg keeps), and no standby.
        cur.execute("SELECT pg_backend_pid()")
        check("pg_backend_pid", cur.fetchone()[0], conn.info.backend_pid)
        cur.execute("SELECT pg_catalog.pg_is_in_recovery()")
        check("pg_is_in_recovery", cur.fetchone(), (False,))
        # A day and a time of day make a timestamp, as in PostgreSQL.
        cur.execute("SELECT DATE '2024-03-01' + TIME '10:30:00'")
        check("date + time", cur.fetchone()[0].replace(tzinfo=None),
              datetime.datetime(2024, 3, 1, 10, 30))

        # JSON: the constructors' values arrive as json (OID 114), which psycopg loads into
        # Python objects; a Json parameter is JSON, nested as it is, in text and binary.
        cur.execute("SELECT json_build_object('host', 'a', 'usage', 1.5, 'tags', ARRAY['x'])")
        check("json_build_object", cur.fetchone()[0], {"host": "a", "usage": 1.5, "tags": ["x"]})
        check("json column type", cur.description[0].type_code, 114)
        cur.execute("SELECT json_build_object('p', %s), json_build_object('p', %b)",
                    (Json({"k": [1, 2]}), Json({"k": 3})))
        check("Json parameters", cur.fetchone(), ({"p": {"k": [1, 2]}}, {"p": {"k": 3}}))
        cur.execute("SELECT json_agg(t ORDER BY x) FROM (VALUES (1, 'a'), (2, 'b')) AS t(x, y)")
        check("json_agg of rows", cur.fetchone()[0], [{"x": 1, "y": "a"}, {"x": 2, "y": "b"}])

        # The same in binary: results (binary=True) and parameters (%b).
        cur.execute(
            "SELECT host, usage, procs, up, time FROM mydb.cpu "
            "WHERE host = %b AND usage > %b AND time >= %b ORDER BY time",
            ("a", 1.0, datetime.datetime(2020, 1, 1, tzinfo=UTC)), binary=True)
        check("binary rows", cur.fetchall(), rows)
        cur.execute("SELECT %b::bigint + 1, %b, %b", (41, True, 2.5), binary=True)
        check("binary parameters", cur.fetchone(), (42, True, 2.5))

        # DATE, TIME and months: psycopg's own date, time and timedelta, in text and binary
        # (binary months are refused by psycopg: a month is no fixed timedelta).
        calendar = ("SELECT DATE '2024-02-28' + INTERVAL '1' DAY, TIME '01:02:03.5', "
                    "%s::date - INTERVAL '1' DAY")
        want = (datetime.date(2024, 2, 29), datetime.time(1, 2, 3, 500000),
                datetime.date(2024, 2, 29))
        for binary in (False, True):
            cur.execute(calendar, (datetime.date(2024, 3, 1),), binary=binary)
            check(f"calendar values (binary={binary})", cur.fetchone(), want)
        cur.execute("SELECT INTERVAL '14' MONTH")
        check("months interval", cur.fetchone()[0], datetime.timedelta(days=425))

        # Text of no declared type takes the column's type ('3' against BIGINT).
        cur.execute("SELECT count(*) FROM mydb.cpu WHERE procs = %s", ("3",))
        check("untyped parameter", cur.fetchone()[0], 1)
        cur.execute("SELECT %s::bigint * 2, %s, %s IS NULL", (21, "x", None))
        check("parameters in the select list", cur.fetchone(), (42, "x", True))

        # Python lists: strings as untyped array text, numbers as int2[] / float8[] arrays.
        cur.execute("SELECT count(*) FROM mydb.cpu WHERE host = ANY(%s)", (["a", "x"],))
        check("= ANY of a list of strings", cur.fetchone()[0], 2)
        cur.execute("SELECT count(*) FROM mydb.cpu WHERE host <> ALL(%s)", (["a", "x"],))
        check("<> ALL of a list of strings", cur.fetchone()[0], 1)
        cur.execute("SELECT count(*) FROM mydb.cpu WHERE procs = ANY(%s) OR usage = ANY(%s)",
                    ([3, 7], [2.5]))
        check("= ANY of lists of numbers", cur.fetchone()[0], 2)
        cur.execute("SELECT count(*) FROM mydb.cpu WHERE host = ANY(%s)", ([],))
        check("= ANY of an empty list", cur.fetchone()[0], 0)
        # A long list is one value of the plan (it was a syntax node per element: 240 MB of
        # the server for 100,000 strings, and 500,000 refused).
        hosts = [f"h{i}" for i in range(500_000)] + ["a"]
        cur.execute("SELECT count(*) FROM mydb.cpu WHERE host = ANY(%s)", (hosts,))
        check("= ANY of 500,001 strings", cur.fetchone()[0], 2)
        cur.execute("SELECT count(*) FROM mydb.cpu WHERE procs <> ALL(%s)", (list(range(4, 500_000)),))
        check("<> ALL of 499,996 numbers", cur.fetchone()[0], 1)
        # Pages: LIMIT and OFFSET take parameters (a NULL limit is none), prepared too.
        cur.execute("SELECT usage FROM mydb.cpu ORDER BY usage LIMIT %s OFFSET %s", (1, 1))
        check("LIMIT %s OFFSET %s", cur.fetchall(), [(2.5,)])
        for run in range(2):
            cur.execute("SELECT usage FROM mydb.cpu ORDER BY usage LIMIT %s", (2,), prepare=True)
            check(f"a prepared LIMIT %s, run {run}", cur.fetchall(), [(1.5,), (2.5,)])
        cur.execute("SELECT usage FROM mydb.cpu ORDER BY usage OFFSET %s ROWS FETCH NEXT %s ROWS ONLY",
                    (2, 1))
        check("OFFSET %s ROWS FETCH NEXT %s ROWS ONLY", cur.fetchall(), [(4.0,)])
        cur.execute("SELECT count(*) FROM (SELECT usage FROM mydb.cpu LIMIT %s) t", (None,))
        check("LIMIT NULL", cur.fetchone()[0], 3)
        try:
            cur.execute("SELECT usage FROM mydb.cpu LIMIT %s", (-1,))
            sys.exit("LIMIT -1: no error")
        except psycopg.errors.DatatypeMismatch as e:
            check("LIMIT -1", str(e).splitlines()[0],
                  "LIMIT needs a whole number >= 0; the parameter @p1 is -1")
        conn.rollback()
        cur.execute("SELECT cardinality(%s), %s::json ->> 'k'", ([1, None, 3], '{"k": "v"}'))
        check("a list parameter and JSON text", cur.fetchone(), (3, "v"))
        # Arrays of scalars come back as PostgreSQL's arrays, which psycopg makes lists of;
        # an array of arrays stays Strata's text.
        arrays = ("SELECT ARRAY[1, NULL], ARRAY['a b', '', 'NULL', 'x\"y,{}'], ARRAY[1.5], "
                  "ARRAY[]::bigint[], ARRAY[TIMESTAMP '2024-01-01 10:00:00'], ARRAY[true], "
                  "ARRAY[DATE '2024-01-02'], ARRAY[ARRAY[1]]")
        want = ([1, None], ["a b", "", "NULL", 'x"y,{}'], [1.5], [],
                [datetime.datetime(2024, 1, 1, 10, tzinfo=UTC)], [True],
                [datetime.date(2024, 1, 2)], "[[1]]")
        for binary in (False, True):
            cur.execute(arrays, binary=binary)
            check(f"arrays (binary={binary})", cur.fetchone(), want)
        check("array types", [c.type_code for c in cur.description],
              [1016, 1009, 1022, 1016, 1185, 1000, 1182, 25])

        # COPY ... TO STDOUT: psycopg reads the text format into rows of text.
        with cur.copy("COPY (SELECT host, usage, procs FROM mydb.cpu ORDER BY time) TO STDOUT") \
                as copy:
            copied = list(copy.rows())
        check("COPY TO STDOUT", copied, [("a", "1.5", "3"), ("b", "2.5", None), ("a", "4", None)])

        try:
            cur.execute("SELECT hots FROM mydb.cpu")
            sys.exit("an unknown column did not fail")
        except psycopg.errors.UndefinedColumn as e:
            check("undefined column SQLSTATE", e.sqlstate, "42703")
            check("error position", e.diag.statement_position, "8")
        conn.rollback()
        try:
            cur.execute("SELECT 1 FROM mydb.nope")
            sys.exit("an unknown table did not fail")
        except psycopg.errors.UndefinedTable as e:
            check("undefined table SQLSTATE", e.sqlstate, "42P01")
        conn.rollback()

        # A json parameter that is not JSON is refused, saying so (a text dumped as json).
        class BadJson(psycopg.adapt.Dumper):
            oid = 114

            def dump(self, obj):
                return obj.encode()

        with conn.cursor() as json_cur:
            json_cur.adapters.register_dumper(str, BadJson)
            try:
                json_cur.execute("SELECT json_build_object('a', %s)", ["not json"])
                sys.exit("a json parameter that is not JSON did not fail")
            except psycopg.errors.InvalidTextRepresentation as e:
                check("bad json parameter", "invalid input syntax for type json" in str(e), True)
        conn.rollback()

        # The catalog's changes answer their command tag and no rows (the extended protocol).
        for sql, tag in [
                ("CREATE DATABASE py_ddl", "CREATE DATABASE"),
                ("CREATE TABLE py_ddl.readings WITH (memory_store_retention_hours = 12)",
                 "CREATE TABLE"),
                ("ALTER TABLE py_ddl.readings SET (magnetic_store_writes = true)", "ALTER TABLE"),
                ("INSERT INTO py_ddl.readings (time, room, celsius) VALUES "
                 "('2024-03-01 11:00:00', 'hall', 19.5), ('2024-03-01 11:01:00', 'attic', 12.0)",
                 "INSERT 0 2"),
                ("DROP TABLE py_ddl.readings", "DROP TABLE"),
                ("DROP SCHEMA py_ddl", "DROP SCHEMA")]:
            cur.execute(sql)
            check(f"{tag} answers its tag", (cur.statusmessage, cur.description), (tag, None))
            if tag == "INSERT 0 2":
                # Parameters bound by the server, a datetime among them.
                cur.execute("INSERT INTO py_ddl.readings (time, room, celsius) VALUES (%s, %s, %s)",
                            (datetime.datetime(2024, 3, 1, 11, 2, tzinfo=UTC), "cellar", 8.25))
                check("INSERT with parameters", cur.rowcount, 1)
                cur.execute("SELECT room, celsius FROM py_ddl.readings ORDER BY time")
                check("inserted rows read back", cur.fetchall(),
                      [("hall", 19.5), ("attic", 12.0), ("cellar", 8.25)])
                # COPY FROM STDIN: psycopg's write_row sends the text format (a tab escaped).
                with cur.copy("COPY py_ddl.readings (time, room, celsius) FROM STDIN") as copy:
                    copy.write_row((datetime.datetime(2024, 3, 1, 11, 3, tzinfo=UTC),
                                    "loft\tnorth", 15.5))
                    copy.write_row(("2024-03-01 11:04:00", "porch", 2))
                check("COPY FROM STDIN", cur.statusmessage, "COPY 2")
                cur.execute("SELECT room, celsius FROM py_ddl.readings "
                            "WHERE time >= '2024-03-01 11:03:00' ORDER BY time")
                check("copied rows read back", cur.fetchall(),
                      [("loft\tnorth", 15.5), ("porch", 2.0)])
        conn.rollback()

        # A COPY block that raises sends CopyFail: the server ends the COPY with the client's
        # reason, and the connection goes on.
        try:
            with cur.copy("COPY mydb.cpu (time, host, usage) FROM STDIN") as copy:
                copy.write_row(("2024-03-01 11:50:00", "z", 1.0))
                raise RuntimeError("the client stops")
        except psycopg.errors.QueryCanceled as e:
            check("CopyFail's error", str(e),
                  "COPY from stdin failed: error from Python: RuntimeError - the client stops")
        conn.rollback()

        # Nested transactions are savepoints: an error inside the inner block is rolled back to
        # its savepoint (nothing is undone in Strata), and the outer block goes on.
        with conn.transaction():
            try:
                with conn.transaction():
                    cur.execute("SELECT 1 / 0")
            except psycopg.errors.DivisionByZero:
                pass
            cur.execute("SELECT 40 + 2")
            check("a statement after a failed savepoint block", cur.fetchone()[0], 42)
            with conn.transaction():
                cur.execute("SELECT 7")
                check("a savepoint block released", cur.fetchone()[0], 7)
        check("savepoint outside a block", conn.info.transaction_status.name, "IDLE")
        try:
            cur.execute("RELEASE SAVEPOINT never_set")  # in the transaction psycopg opened
        except psycopg.errors.InvalidSavepointSpecification as e:
            check("RELEASE of a savepoint never set", str(e),
                  'savepoint "never_set" does not exist')
        conn.rollback()

        # Prepared: psycopg prepares a statement it runs repeatedly.
        for i in range(3):
            cur.execute("SELECT count(*) FROM mydb.cpu WHERE host = %s", ("a",), prepare=True)
            check(f"prepared run {i}", cur.fetchone()[0], 2)
    conn.rollback()
    grafana_statements.replay(conn, check)

# The session's zone set as SQLAlchemy and psycopg users set it, through libpq's options:
# timestamps come back in it, a naive datetime parameter is its wall clock, and date_trunc
# and casts to date work on it (mydb.cpu's rows are at 11:00 UTC, 06:00 in New York).
NEW_YORK = datetime.timezone(datetime.timedelta(hours=-5))
with psycopg.connect(conninfo, options="-c timezone=America/New_York") as conn:
    with conn.cursor() as cur:
        cur.execute("SHOW timezone")
        check("the zone from the options", cur.fetchone()[0], "America/New_York")
        cur.execute(
            "SELECT min(time), date_trunc('day', min(time)), min(time)::date FROM mydb.cpu "
            "WHERE time >= %s", (datetime.datetime(2024, 3, 1, 6, 1),))  # 11:01 UTC
        first, day, date = cur.fetchone()
        check("a time in the zone", (first.utcoffset(), first.astimezone(UTC)),
              (NEW_YORK.utcoffset(None), datetime.datetime(2024, 3, 1, 11, 1, 30, tzinfo=UTC)))
        check("the zone's day", day.astimezone(UTC), datetime.datetime(2024, 3, 1, 5, tzinfo=UTC))
        check("the zone's date", date, datetime.date(2024, 3, 1))
print("all checks passed")
