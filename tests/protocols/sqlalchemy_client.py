#!/usr/bin/python3
"""SQLAlchemy 1.4 over psycopg2 (Debian's python3-sqlalchemy, python3-psycopg2) and pandas
against Strata's PostgreSQL port: the Inspector's reflection (schemas, tables, columns with
their types), a table reflected and queried through SQLAlchemy's Core, and pandas reading a
table whole and a query with a parameter. Exits non-zero with the first mismatch.
Usage: sqlalchemy_client.py PORT   (the server holds mydb.cpu: pg_wire_e2e_test.cc's rows)
"""
import sys

import pandas
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

port = int(sys.argv[1])


def check(what, got, want):
    if got != want:
        sys.exit(f"{what}: got {got!r}, want {want!r}")
    print(f"ok {what}")


# The connection's database is a Strata database: the default schema.
engine = sa.create_engine(f"postgresql+psycopg2://grafana@127.0.0.1:{port}/mydb",
                          connect_args={"connect_timeout": 10})
inspector = sa.inspect(engine)
check("default schema", inspector.default_schema_name, "mydb")
check("schemas", "mydb" in inspector.get_schema_names(), True)
check("tables", inspector.get_table_names(), ["cpu"])
check("tables of a schema", inspector.get_table_names(schema="mydb"), ["cpu"])
check("has_table", inspector.has_table("cpu"), True)
check("has_table in a schema", inspector.has_table("cpu", schema="mydb"), True)
check("has_table of none", inspector.has_table("nope"), False)

columns = {c["name"]: c for c in inspector.get_columns("cpu")}
check("column names", sorted(columns), ["host", "measure_name", "procs", "time", "up", "usage"])
check("time's type", (type(columns["time"]["type"]), columns["time"]["type"].timezone),
      (postgresql.TIMESTAMP, True))
check("types", {n: type(c["type"]) for n, c in columns.items() if n != "time"},
      {"host": postgresql.TEXT, "measure_name": postgresql.TEXT, "procs": postgresql.BIGINT,
       "up": postgresql.BOOLEAN, "usage": postgresql.DOUBLE_PRECISION})
check("time is never NULL", (columns["time"]["nullable"], columns["usage"]["nullable"]),
      (False, True))

cpu = sa.Table("cpu", sa.MetaData(), autoload_with=engine)
with engine.connect() as conn:
    rows = conn.execute(
        sa.select(cpu.c.host, cpu.c.usage).where(cpu.c.host == "a").order_by(cpu.c.time)).all()
    check("a reflected table's select", [tuple(r) for r in rows], [("a", 1.5), ("a", 4.0)])
    count = conn.execute(sa.select(sa.func.count()).select_from(cpu)).scalar()
    check("count through Core", count, 3)

    frame = pandas.read_sql_table("cpu", conn)
    check("read_sql_table", (len(frame), sorted(frame.columns)),
          (3, ["host", "measure_name", "procs", "time", "up", "usage"]))
    frame = pandas.read_sql_query(
        sa.text("SELECT host, avg(usage) AS mean FROM cpu WHERE usage > :low GROUP BY host "
                "ORDER BY host"), conn, params={"low": 1.0})
    check("read_sql_query", frame.to_dict("list"), {"host": ["a", "b"], "mean": [2.75, 2.5]})
print("all checks passed")
