#!/usr/bin/python3
"""Python write throughput: the `strata` package's Writer against hand-built requests over the
raw generated stubs (what client/python/strata_example.py does), on TSBS-like devops rows
(1,000 hosts, 2 dimensions, 10 double measures), 4 requests in flight each, fsync server.

Usage (a running stratad; its table is created):
  PYTHONPATH=client/python bench/python_writer_bench.py --port 7878 --rows 200000
Prints rows/s and client CPU per row for both.
"""
import argparse
import random
import time

import strata
from strata.v1 import records_pb2, write_pb2, write_pb2_grpc

FIELDS = [f"usage_{n}" for n in ("user", "system", "idle", "nice", "iowait", "irq", "softirq",
                                   "steal", "guest", "guest_nice")]


def rows(count, start_ns):
    rnd = random.Random(1)
    for i in range(count):
        host = i % 1000
        yield (f"host_{host}", f"region_{host % 10}", start_ns + (i // 1000) * 10_000_000_000 + host,
               [round(rnd.random() * 100, 2) for _ in FIELDS])


def with_writer(client, table, count, start_ns):
    with client.writer("bench", table, in_flight=4) as writer:
        for host, region, t, values in rows(count, start_ns):
            writer.add(strata.Record({"host": host, "region": region}, "cpu", t,
                                     measures=dict(zip(FIELDS, values))))
    assert writer.summary.written == count, writer.summary


def with_raw_stubs(client, table, count, start_ns):
    stub = write_pb2_grpc.WriteServiceStub(client._channel)
    pending = []
    request = None
    for host, region, t, values in rows(count, start_ns):
        if request is None:
            request = write_pb2.WriteRecordsRequest(database_name="bench", table_name=table)
            request.common_attributes.measure_name = "cpu"
            request.common_attributes.measure_value_type = records_pb2.MEASURE_VALUE_TYPE_MULTI
            request.common_attributes.time_unit = records_pb2.TIME_UNIT_NANOSECONDS
        record = request.records.add(time=t)
        record.dimensions.add(name="host", value=host)
        record.dimensions.add(name="region", value=region)
        for name, value in zip(FIELDS, values):
            record.measure_values.add(name=name, type=records_pb2.MEASURE_VALUE_TYPE_DOUBLE,
                                      value=records_pb2.MeasureValue(double_value=value))
        if len(request.records) == 100:
            if len(pending) == 4:
                pending.pop(0).result()
            pending.append(stub.WriteRecords.future(request))
            request = None
    if request is not None:
        pending.append(stub.WriteRecords.future(request))
    for future in pending:
        future.result()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", default="7878")
    parser.add_argument("--rows", type=int, default=200_000)
    args = parser.parse_args()
    client = strata.Client(f"127.0.0.1:{args.port}", timeout=60)
    client.create_database("bench", if_not_exists=True)
    start_ns = time.time_ns() - 20 * 3600 * 1_000_000_000
    for name, run in (("raw stubs", with_raw_stubs), ("strata.Writer", with_writer)):
        table = "raw" if run is with_raw_stubs else "writer"
        client.create_table("bench", table, memory_hours=24, if_not_exists=True)
        wall, cpu = time.perf_counter(), time.process_time()
        run(client, table, args.rows, start_ns)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"{name:14} {args.rows / wall:9.0f} rows/s, client CPU {cpu / args.rows * 1e6:5.1f} µs/row")


if __name__ == "__main__":
    main()
