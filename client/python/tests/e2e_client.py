"""The installed package against a real stratad (run by tests/e2e/client_examples_e2e_test.cc).

Usage: e2e_client.py PORT [--restart-after-marker]
With --restart-after-marker it prints "writing while the server restarts" and keeps writing
while the test restarts the server: every record must arrive exactly once.
"""
import datetime as dt
import sys
import time

import strata

UTC = dt.timezone.utc
port = sys.argv[1]
client = strata.Client(f"127.0.0.1:{port}", timeout=10)


def check(what, got, want):
    if got != want:
        sys.exit(f"{what}: got {got!r}, want {want!r}")
    print(f"ok {what}", flush=True)


def scalar(sql, *parameters):
    return client.query(sql, list(parameters)).all()[0][0]


if len(sys.argv) > 2 and sys.argv[2] == "--restart-after-marker":
    client.create_database("pydb", if_not_exists=True)
    client.create_table("pydb", "restart", memory_hours=24, if_not_exists=True)
    base = time.time_ns() - 3_600_000_000_000
    # Requests of 100, so that many of them are on the way while the server restarts.
    with client.writer("pydb", "restart", batch_size=100, in_flight=2, max_retries=12,
                       backoff=0.2) as writer:
        for i in range(10_000):
            if i == 2_000:
                writer.flush()
                print("writing while the server restarts", flush=True)
            if i > 2_000 and i % 100 == 0:
                time.sleep(0.05)  # spread the rest over the restart
            writer.add(strata.Record({"host": f"h{i % 10}"}, "m", base + i, measures={"i": i}))
    check("all acknowledged", writer.summary.written, 10_000)
    check("nothing rejected", writer.summary.rejected, [])
    print(f"retries {writer.summary.retries}", flush=True)
    check("stored once each", client.query(
        "SELECT count(*), count(DISTINCT i), sum(i) FROM pydb.restart").all(),
        [(10_000, 10_000, sum(range(10_000)))])
    sys.exit(0)

client.create_database("pydb")
client.create_database("pydb", if_not_exists=True)
try:
    client.create_database("pydb")
    sys.exit("a second create_database did not fail")
except strata.StrataError as e:
    check("ALREADY_EXISTS", e.code, "ALREADY_EXISTS")
client.create_table("pydb", "cpu", memory_hours=24)
check("list_tables", client.list_tables("pydb"), ["cpu"])
check("describe_table", client.describe_table("pydb", "cpu").memory_store_retention_hours, 24)

# 10,000 records into BulkWriteRecords requests of 1,000 (the default), 4 in flight.
now = time.time_ns()
records = [strata.Record({"region": "eu", "host": f"h{i % 50}"}, "cpu", now - 10_000_000_000 + i * 1000,
                         measures={"usage": i / 10, "procs": i})
           for i in range(10_000)]
summary = client.write("pydb", "cpu", records)
check("written", summary.written, 10_000)
check("requests of 1,000", summary.requests, 10)
check("sum", scalar("SELECT sum(procs) FROM pydb.cpu WHERE region = ?", "eu"), sum(range(10_000)))

# Rejections come back with the record's own position.
with client.writer("pydb", "cpu", batch_size=7) as writer:
    writer.add(strata.Record({"host": "x"}, "cpu", now - 1_000_000_000, measures={"usage": 1.0}))
    writer.add(strata.Record({"host": "x"}, "cpu", now - 1_000_000_000, measures={"usage": 2.0}))  # same point, same version
    writer.add(strata.Record({"host": "y"}, "cpu", now - 1_000_000_000, measures={"usage": "text"}))  # usage is DOUBLE
positions = [(r.position, r.existing_version) for r in writer.summary.rejected]
check("rejected positions", positions, [(1, 1), (2, None)])
check("rejection reason", "DOUBLE" in writer.summary.rejected[1].reason, True)
# In a BulkWriteRecords request too (more than 100 records), each at its own position.
client.create_table("pydb", "bulk", memory_hours=24)
with client.writer("pydb", "bulk", batch_size=200) as writer:
    for i in range(150):
        writer.add(strata.Record({"host": "bulk"}, "cpu", now - 2_000_000_000 - i, measures={"usage": 1.0}))
    writer.add(strata.Record({"host": "bulk"}, "cpu", now - 2_000_000_000, measures={"usage": "text"}))
check("bulk rejected position", [r.position for r in writer.summary.rejected], [150])
check("bulk requests", (writer.summary.requests, writer.summary.written), (1, 150))

# Every type round trip, NULLs, and nanoseconds.
t_ns = 1709294400_123456789 + (now // 1_000_000_000 - 1709294400) * 1_000_000_000 - 60_000_000_000
client.create_table("pydb", "types", memory_hours=24)
client.write("pydb", "types", [
    {"dimensions": {"k": "full"}, "measure_name": "m", "time": t_ns,
     "measures": {"d": 1.25, "b": -(2**63), "s": "é€", "f": True, "ts": t_ns + 1}},
    {"dimensions": {"k": "sparse"}, "measure_name": "m", "time": t_ns, "measures": {"d": 2.5}},
])
rows = client.query("SELECT k, time, d, b, s, f, ts FROM pydb.types ORDER BY k", timestamps="ns").all()
check("typed row", rows[0], ("full", t_ns, 1.25, -(2**63), "é€", True, t_ns + 1))
check("NULLs", rows[1], ("sparse", t_ns, 2.5, None, None, None, None))
# Arrays, rows and time series: lists, tuples, and lists of (time, value).
nested = client.query("SELECT ARRAY[1, 2], row('a', 2.5), create_time_series(time, d), "
                      "CAST(NULL AS ARRAY(BIGINT)) FROM pydb.types WHERE k = 'full'",
                      timestamps="ns").all()
check("nested values", nested, [([1, 2], ("a", 2.5), [(t_ns, 1.25)], None)])
# DATE is a datetime.date both ways; INTERVAL YEAR TO MONTH an int of months.
calendar = client.query("SELECT @day + INTERVAL '1' DAY, INTERVAL '14' MONTH, TIME '01:00:00'",
                        {"day": dt.date(2024, 2, 28)}).all()
check("calendar values", calendar, [(dt.date(2024, 2, 29), 14, dt.timedelta(hours=1))])
as_datetime = client.query("SELECT time FROM pydb.types WHERE k = @k", {"k": "full"}).all()[0][0]
check("datetime", as_datetime, dt.datetime.fromtimestamp(t_ns // 1000 / 1e6, UTC).replace(
    microsecond=(t_ns // 1000) % 1_000_000))
import pandas  # noqa: E402  (Debian's python3-pandas)

as_pandas = client.query("SELECT time FROM pydb.types WHERE k = ?", ["full"], timestamps="pandas").all()[0][0]
check("pandas.Timestamp keeps ns", as_pandas.value, t_ns)

# DataFrame round trip.
frame = pandas.DataFrame({
    "time": pandas.to_datetime([t_ns, t_ns + 1_000, t_ns + 2_000], unit="ns", utc=True),
    "host": ["a", "b", "a"], "load": [0.5, float("nan"), 2.0], "n": [1, 2, 3]})
client.create_table("pydb", "frame", memory_hours=24)
with client.writer("pydb", "frame") as writer:
    writer.add_dataframe(frame, time="time", dimensions=["host"], measure_name="sys")
back = client.query("SELECT time, host, load, n FROM pydb.frame ORDER BY time").to_pandas()
check("frame times", list(back["time"]), list(frame["time"]))
check("frame values", back[["host", "n"]].values.tolist(), [["a", 1], ["b", 2], ["a", 3]])
check("frame NaN is NULL", pandas.isna(back["load"][1]), True)

# Pages, and cancel.
result = client.query("SELECT procs FROM pydb.cpu ORDER BY procs", page_size=1000)
pages = result.pages()
check("first page", len(next(pages)), 1000)
result.cancel()
try:
    for _ in pages:
        pass
    print("ok cancelled (stream ended)")
except strata.StrataError as e:
    check("cancelled", e.code, "CANCELLED")

# A default database for unqualified names.
check("database=", client.query("SELECT count(*) FROM cpu", database="pydb").all(), [(10_001,)])

try:
    client.query("SELECT nope FROM pydb.cpu").all()
    sys.exit("a bad query did not fail")
except strata.StrataError as e:
    check("error code", e.code, "INVALID_ARGUMENT")
print("all checks passed")
