"""Strata's Python client.

    import strata

    with strata.Client("127.0.0.1:7878") as client:
        client.create_database("demo", if_not_exists=True)
        client.create_table("demo", "cpu", if_not_exists=True)
        with client.writer("demo", "cpu") as writer:
            writer.add(strata.Record(dimensions={"host": "a"}, measure_name="cpu",
                                     time=datetime.now(timezone.utc), measures={"usage": 1.5}))
        for row in client.query("SELECT host, usage FROM demo.cpu WHERE host = ?", ["a"]):
            print(row)

Depends only on grpcio and protobuf (Debian's python3-grpcio and
python3-protobuf); pandas is optional (DataFrames in and out).
"""
from strata.client import Client, Table
from strata.errors import StrataError
from strata.query import QueryResult
from strata.writer import Record, RejectedRecord, WriteSummary, Writer

__all__ = ["Client", "Table", "StrataError", "QueryResult", "Record", "RejectedRecord",
           "WriteSummary", "Writer"]
__version__ = "0.1.0"
