#!/usr/bin/python3
"""Strata from Python: create a database and table, write one batch of records
that share common attributes, and stream a query's pages as they arrive.

Uses Debian's python3-grpcio and the stubs generated from proto/ at build time
(build/gen-python; see README.md). Run:

    PYTHONPATH=build/gen-python client/python/strata_example.py --port 7878

Against a server with TLS and tokens (docs/security.md), add --tls-ca CA.pem
and --token TOKEN (or set STRATA_TLS_CA and STRATA_TOKEN).
"""
import argparse
import os
import sys
import time

import grpc

from strata.v1 import catalog_pb2, catalog_pb2_grpc
from strata.v1 import query_pb2, query_pb2_grpc
from strata.v1 import records_pb2, write_pb2, write_pb2_grpc


def create_if_missing(call, request, metadata):
    """Creates a database or table; one that already exists is fine."""
    try:
        call(request, metadata=metadata)
    except grpc.RpcError as error:
        if error.code() != grpc.StatusCode.ALREADY_EXISTS:
            raise


def datum_value(datum):
    """The Python value of a result Datum (None for NULL)."""
    kind = datum.WhichOneof("value")
    if kind in (None, "null_value"):
        return None
    return getattr(datum, kind)


def column_values(column, scalar_type, rows):
    """The Python values of one column of a columnar page (None for NULL)."""
    name = query_pb2.ScalarType.Name(scalar_type)
    if name == "SCALAR_TYPE_VARCHAR":
        ends = list(column.string_ends)
        starts = [0] + ends[:-1]
        values = [column.string_data[a:b].decode() for a, b in zip(starts, ends)]
    elif name == "SCALAR_TYPE_DOUBLE":
        values = list(column.doubles)
    elif name == "SCALAR_TYPE_BOOLEAN":
        values = list(column.booleans)
    elif name in ("SCALAR_TYPE_BIGINT", "SCALAR_TYPE_TIMESTAMP", "SCALAR_TYPE_INTERVAL_DAY_TO_SECOND"):
        values = list(column.ints)  # timestamps and intervals: nanoseconds
    else:
        values = [None] * rows
    for i in range(rows):  # bit i % 8 of byte i // 8 marks a NULL
        if column.nulls and column.nulls[i // 8] >> (i % 8) & 1:
            values[i] = None
    return values


def write_batch(channel, metadata, database, table, hosts):
    """One WriteRecords call: the region, measure name, type and time unit are
    common attributes; each record adds its host, time and values."""
    now_ms = int(time.time() * 1000)
    common = records_pb2.Record(
        dimensions=[records_pb2.Dimension(name="region", value="eu-west")],
        measure_name="cpu",
        measure_value_type=records_pb2.MEASURE_VALUE_TYPE_MULTI,
        time_unit=records_pb2.TIME_UNIT_MILLISECONDS,
    )
    records = []
    for i in range(hosts):
        records.append(records_pb2.Record(
            dimensions=[records_pb2.Dimension(name="host", value=f"web-{i}")],
            time=now_ms - i * 1000,
            measure_values=[
                records_pb2.MultiMeasureValue(
                    name="usage", value=records_pb2.MeasureValue(double_value=10.0 + i)),
                records_pb2.MultiMeasureValue(
                    name="procs", value=records_pb2.MeasureValue(bigint_value=100 + i)),
            ],
        ))
    write = write_pb2_grpc.WriteServiceStub(channel)
    response = write.WriteRecords(write_pb2.WriteRecordsRequest(
        database_name=database, table_name=table, common_attributes=common, records=records),
        metadata=metadata)
    print(f"ingested {response.records_ingested.total} records, "
          f"{len(response.rejected_records)} rejected")
    for rejected in response.rejected_records:
        print(f"  record {rejected.record_index}: {rejected.reason}")
    return len(response.rejected_records) == 0


def stream_query(channel, metadata, sql):
    """Prints each page as it arrives; returns the number of rows."""
    query = query_pb2_grpc.QueryServiceStub(channel)
    columns, types = [], []
    rows = 0
    # columnar=True: each page is a typed array per column (ColumnPage),
    # smaller and cheaper to decode than a Datum per cell.
    request = query_pb2.QueryRequest(query_string=sql, page_size=4, columnar=True)
    for response in query.Query(request, metadata=metadata):
        payload = response.WhichOneof("payload")
        if payload == "metadata":
            columns = [column.name for column in response.metadata.columns]
            types = [column.type.scalar_type for column in response.metadata.columns]
            print(f"query {response.metadata.query_id}: columns {', '.join(columns)}")
        elif payload == "column_page":
            page = response.column_page
            print(f"page of {page.row_count} rows")
            values = [column_values(c, t, page.row_count) for c, t in zip(page.columns, types)]
            for row in zip(*values):
                print("  " + " ".join(f"{c}={v}" for c, v in zip(columns, row)))
                rows += 1
        elif payload == "page":
            print(f"page of {len(response.page.rows)} rows")
            for row in response.page.rows:
                values = [datum_value(d) for d in row.data]
                print("  " + " ".join(f"{c}={v}" for c, v in zip(columns, values)))
                rows += 1
        elif payload == "statistics":
            stats = response.statistics
            print(f"rows returned: {stats.rows_returned}, scanned: {stats.rows_scanned}")
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=7878)
    parser.add_argument("--database", default="example")
    parser.add_argument("--table", default="cpu")
    parser.add_argument("--hosts", type=int, default=10)
    parser.add_argument("--tls-ca", default=os.environ.get("STRATA_TLS_CA"),
                        help="PEM CA bundle to trust: connect over TLS")
    parser.add_argument("--token", default=os.environ.get("STRATA_TOKEN"),
                        help="bearer token, for servers with authentication")
    args = parser.parse_args()

    address = f"{args.host}:{args.port}"
    if args.tls_ca:
        with open(args.tls_ca, "rb") as ca:
            channel = grpc.secure_channel(address, grpc.ssl_channel_credentials(ca.read()))
    else:
        channel = grpc.insecure_channel(address)
    # Sent with every call (also over plaintext on loopback, where gRPC's
    # call credentials would refuse to).
    metadata = [("authorization", f"Bearer {args.token}")] if args.token else []
    with channel:
        catalog = catalog_pb2_grpc.CatalogServiceStub(channel)
        create_if_missing(catalog.CreateDatabase,
                          catalog_pb2.CreateDatabaseRequest(database_name=args.database), metadata)
        create_if_missing(catalog.CreateTable, catalog_pb2.CreateTableRequest(
            database_name=args.database, table_name=args.table,
            retention_properties=catalog_pb2.RetentionProperties(
                memory_store_retention_hours=24, magnetic_store_retention_days=365)), metadata)
        if not write_batch(channel, metadata, args.database, args.table, args.hosts):
            return 1
        rows = stream_query(
            channel, metadata,
            f"SELECT host, region, usage, procs FROM {args.database}.{args.table} "
            f"WHERE time > ago(1h) ORDER BY host")
        return 0 if rows >= args.hosts else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except grpc.RpcError as error:
        print(f"error: {error.code().name}: {error.details()}", file=sys.stderr)
        sys.exit(1)
