"""The connection to a stratad: catalog calls, writes, queries."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Sequence

import grpc

from strata.errors import StrataError
from strata.query import QueryResult, parameters_of
from strata.v1 import (catalog_pb2, catalog_pb2_grpc, query_pb2, query_pb2_grpc, write_pb2_grpc)


@dataclass
class Table:
    database: str
    name: str
    memory_store_retention_hours: int
    magnetic_store_retention_days: int
    magnetic_store_writes: bool


def _read(path: Optional[str]) -> Optional[bytes]:
    if path is None:
        return None
    with open(path, "rb") as f:
        return f.read()


class Client:
    """A connection to stratad.

    Plaintext on loopback by default. For a server with TLS and tokens
    (docs/security.md): `tls=True` with `ca_file` (the server's CA; the
    system's CAs otherwise), `token` (sent as `authorization: Bearer`), and
    `cert_file`/`key_file` when the server asks for a client certificate.
    `database`: the database of unqualified table names in queries (`FROM cpu`).
    Use it as a context manager, or call close().
    """

    def __init__(self, target: str = "127.0.0.1:7878", *, tls: bool = False,
                 ca_file: Optional[str] = None, cert_file: Optional[str] = None,
                 key_file: Optional[str] = None, server_name: Optional[str] = None,
                 token: Optional[str] = None, timeout: float = 30.0,
                 database: str = ""):
        options = [("grpc.max_receive_message_length", 64 << 20)]
        if server_name:
            options.append(("grpc.ssl_target_name_override", server_name))
        if tls or ca_file or cert_file:
            credentials = grpc.ssl_channel_credentials(
                root_certificates=_read(ca_file), private_key=_read(key_file),
                certificate_chain=_read(cert_file))
            self._channel = grpc.secure_channel(target, credentials, options)
        else:
            self._channel = grpc.insecure_channel(target, options)
        self._metadata = (("authorization", f"Bearer {token}"),) if token else ()
        self.timeout = timeout
        self.database = database  # of table names written without one, in queries
        self._catalog = catalog_pb2_grpc.CatalogServiceStub(self._channel)
        self._query = query_pb2_grpc.QueryServiceStub(self._channel)
        self._write = write_pb2_grpc.WriteServiceStub(self._channel)

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self._channel.close()

    def _call(self, method, request):
        try:
            return method(request, metadata=self._metadata, timeout=self.timeout)
        except grpc.RpcError as error:
            raise StrataError.from_rpc(error) from None

    # ---------------------------------------------------------------- catalog

    def create_database(self, name: str, *, if_not_exists: bool = False) -> None:
        try:
            self._call(self._catalog.CreateDatabase, catalog_pb2.CreateDatabaseRequest(database_name=name))
        except StrataError as e:
            if not (if_not_exists and e.code == "ALREADY_EXISTS"):
                raise

    def list_databases(self) -> List[str]:
        names, token = [], ""
        while True:
            page = self._call(self._catalog.ListDatabases,
                              catalog_pb2.ListDatabasesRequest(next_token=token))
            names += [d.database_name for d in page.databases]
            token = page.next_token
            if not token:
                return names

    def delete_database(self, name: str) -> None:
        self._call(self._catalog.DeleteDatabase, catalog_pb2.DeleteDatabaseRequest(database_name=name))

    def create_table(self, database: str, table: str, *, memory_hours: Optional[int] = None,
                     magnetic_days: Optional[int] = None, magnetic_writes: bool = False,
                     if_not_exists: bool = False) -> None:
        request = catalog_pb2.CreateTableRequest(database_name=database, table_name=table)
        if memory_hours is not None or magnetic_days is not None:
            request.retention_properties.memory_store_retention_hours = memory_hours or 6
            request.retention_properties.magnetic_store_retention_days = magnetic_days or 73000
        request.magnetic_store_write_properties.enable_magnetic_store_writes = magnetic_writes
        try:
            self._call(self._catalog.CreateTable, request)
        except StrataError as e:
            if not (if_not_exists and e.code == "ALREADY_EXISTS"):
                raise

    def describe_table(self, database: str, table: str) -> Table:
        t = self._call(self._catalog.DescribeTable,
                       catalog_pb2.DescribeTableRequest(database_name=database, table_name=table)).table
        return Table(t.database_name, t.table_name, t.retention_properties.memory_store_retention_hours,
                     t.retention_properties.magnetic_store_retention_days,
                     t.magnetic_store_write_properties.enable_magnetic_store_writes)

    def list_tables(self, database: str = "") -> List[str]:
        names, token = [], ""
        while True:
            page = self._call(self._catalog.ListTables,
                              catalog_pb2.ListTablesRequest(database_name=database, next_token=token))
            names += [t.table_name for t in page.tables]
            token = page.next_token
            if not token:
                return names

    def delete_table(self, database: str, table: str) -> None:
        self._call(self._catalog.DeleteTable,
                   catalog_pb2.DeleteTableRequest(database_name=database, table_name=table))

    # ---------------------------------------------------------------- writes

    def writer(self, database: str, table: str, **options: Any) -> "Writer":
        """A batching Writer for one table (see strata.writer.Writer)."""
        from strata.writer import Writer

        return Writer(self, database, table, **options)

    def write(self, database: str, table: str, records, **options: Any):
        """Writes `records` (Records, dicts or a DataFrame with `dataframe=`
        options) and returns the WriteSummary."""
        with self.writer(database, table, **options) as w:
            w.add_all(records)
        return w.summary

    # ---------------------------------------------------------------- queries

    def query(self, sql: str, parameters: Optional[Sequence[Any] | dict] = None, *,
              page_size: int = 1000, timeout: Optional[float] = None,
              timestamps: str = "datetime", database: Optional[str] = None) -> QueryResult:
        """Runs `sql`. `parameters`: a sequence for `?` placeholders or a dict
        for `@name` ones. `timestamps`: "datetime" (UTC, microseconds), "ns"
        (int nanoseconds) or "pandas" (pandas.Timestamp, nanoseconds)."""
        request = query_pb2.QueryRequest(query_string=sql, page_size=page_size,
                                         parameters=parameters_of(parameters),
                                         database=self.database if database is None else database,
                                         columnar=True)
        if timeout is not None:
            request.timeout_millis = int(timeout * 1000)
        responses = self._query.Query(request, metadata=self._metadata)
        return QueryResult(responses, self.cancel, timestamps)

    def cancel(self, query_id: str) -> str:
        """Cancels a running query; the server's message says whether it was."""
        return self._call(self._query.CancelQuery,
                          query_pb2.CancelQueryRequest(query_id=query_id)).cancellation_message
