"""Unit tests of the client's value conversions and request building (no server)."""
import datetime as dt
import math
import unittest

import grpc

import strata
from strata import values
from strata.v1 import query_pb2, records_pb2
from strata.errors import is_retryable_write
from strata.writer import Writer

UTC = dt.timezone.utc


class TimesTest(unittest.TestCase):
    def test_every_time_form(self):
        cases = [
            (dt.datetime(2024, 3, 1, 12, 0, 0, 500000, tzinfo=UTC), 1709294400_500000000),
            (dt.datetime(2024, 3, 1, 12, 0, 0), 1709294400_000000000),  # naive is UTC
            (dt.datetime(2024, 3, 1, 13, 0, tzinfo=dt.timezone(dt.timedelta(hours=1))), 1709294400_000000000),
            (dt.date(2024, 3, 1), 1709251200_000000000),
            (1709294400_000000001, 1709294400_000000001),  # int: nanoseconds
            (1709294400.25, 1709294400_250000000),  # float: seconds
        ]
        for given, nanos in cases:
            with self.subTest(given=given):
                self.assertEqual(values.to_nanos(given), nanos)

    def test_not_a_time(self):
        for bad in ["2024-03-01", True, None]:
            with self.subTest(bad=bad), self.assertRaises(TypeError):
                values.to_nanos(bad)


class MeasureValuesTest(unittest.TestCase):
    def test_types(self):
        cases = [
            (True, records_pb2.MEASURE_VALUE_TYPE_BOOLEAN, "boolean_value", True),
            (7, records_pb2.MEASURE_VALUE_TYPE_BIGINT, "bigint_value", 7),
            (2**63 - 1, records_pb2.MEASURE_VALUE_TYPE_BIGINT, "bigint_value", 2**63 - 1),
            (1.5, records_pb2.MEASURE_VALUE_TYPE_DOUBLE, "double_value", 1.5),
            ("x", records_pb2.MEASURE_VALUE_TYPE_VARCHAR, "varchar_value", "x"),
            (dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC), records_pb2.MEASURE_VALUE_TYPE_TIMESTAMP,
             "timestamp_value", 1_000_000_000),
        ]
        for given, kind, field, wire in cases:
            with self.subTest(given=given):
                got_kind, got = values.measure_value(given)
                self.assertEqual(got_kind, kind)
                self.assertEqual(got.WhichOneof("value"), field)
                self.assertEqual(getattr(got, field), wire)

    def test_missing(self):
        for missing in [None, math.nan, float("nan")]:
            self.assertTrue(values.is_missing(missing))
        for present in [0, 0.0, "", False]:
            self.assertFalse(values.is_missing(present))

    def test_unsupported(self):
        with self.assertRaises(TypeError):
            values.measure_value(b"bytes")


class DatumTest(unittest.TestCase):
    def test_round_trip(self):
        for given in [None, True, 5, 2.5, "s", dt.timedelta(seconds=90), dt.date(2024, 3, 15)]:
            with self.subTest(given=given):
                self.assertEqual(values.from_datum(values.to_datum(given)), given)

    def test_timestamps_keep_nanoseconds_when_asked(self):
        datum = query_pb2.Datum(timestamp_value=1709294400_000000123)
        self.assertEqual(values.from_datum(datum, "ns"), 1709294400_000000123)
        self.assertEqual(values.from_datum(datum), dt.datetime(2024, 3, 1, 12, tzinfo=UTC))


class ColumnTest(unittest.TestCase):
    def test_values_and_nulls(self):
        column = query_pb2.ColumnValues(string_data=b"ab", string_ends=[1, 1, 2], nulls=b"\x02")
        varchar = query_pb2.ScalarType.Value("SCALAR_TYPE_VARCHAR")
        self.assertEqual(values.from_column(column, varchar, 3), ["a", None, "b"])
        unknown = query_pb2.ScalarType.Value("SCALAR_TYPE_UNKNOWN")
        self.assertEqual(values.from_column(query_pb2.ColumnValues(), unknown, 2), [None, None])

    def test_calendar_columns(self):
        def scalar(name):
            return query_pb2.ScalarType.Value(name)
        days = query_pb2.ColumnValues(ints=[19797, 0], nulls=b"\x02")
        self.assertEqual(values.from_column(days, scalar("SCALAR_TYPE_DATE"), 2),
                         [dt.date(2024, 3, 15), None])
        months = query_pb2.ColumnValues(ints=[14])
        self.assertEqual(
            values.from_column(months, scalar("SCALAR_TYPE_INTERVAL_YEAR_TO_MONTH"), 1), [14])
        time = query_pb2.ColumnValues(ints=[3_600_000_000_000])
        self.assertEqual(values.from_column(time, scalar("SCALAR_TYPE_TIME"), 1),
                         [dt.timedelta(hours=1)])

    def test_nested_columns_hold_a_datum_per_row(self):
        column = query_pb2.ColumnValues(nulls=b"\x02")
        column.values.add().array_value.values.add().bigint_value = 7
        column.values.add().null_value = True
        self.assertEqual(values.from_column(column, None, 2), [[7], None])
        point = query_pb2.Datum()
        p = point.time_series_value.points.add()
        p.time = 5
        p.value.double_value = 1.5
        self.assertEqual(values.from_datum(point, "ns"), [(5, 1.5)])

    def test_a_page_that_does_not_match_is_an_error(self):
        double = query_pb2.ScalarType.Value("SCALAR_TYPE_DOUBLE")
        unspecified = query_pb2.ScalarType.Value("SCALAR_TYPE_UNSPECIFIED")
        cases = [
            (query_pb2.ColumnValues(doubles=[1.0]), double, "holds 1 values for 2 rows"),
            (query_pb2.ColumnValues(doubles=[1.0, 2.0], nulls=b"\x01\x00"), double,
             "null map of 2 bytes"),
            (query_pb2.ColumnValues(), unspecified, r"does not carry \(SCALAR_TYPE_UNSPECIFIED\)"),
        ]
        for column, scalar_type, message in cases:
            with self.subTest(message=message):
                with self.assertRaisesRegex(ValueError, message):
                    values.from_column(column, scalar_type, 2)


class RequestTest(unittest.TestCase):
    def test_shared_dimensions_and_names_go_to_common_attributes(self):
        writer = Writer(client=None, database="mydb", table="tbl")
        batch = [
            strata.Record({"region": "eu", "host": f"h{i}"}, "cpu", 1_000 + i, measures={"u": i, "skip": None})
            for i in range(3)
        ]
        request = writer._request(batch)
        self.assertEqual([(d.name, d.value) for d in request.common_attributes.dimensions], [("region", "eu")])
        self.assertEqual(request.common_attributes.measure_name, "cpu")
        self.assertEqual(request.common_attributes.time_unit, records_pb2.TIME_UNIT_NANOSECONDS)
        self.assertEqual([[(d.name, d.value) for d in r.dimensions] for r in request.records],
                         [[("host", "h0")], [("host", "h1")], [("host", "h2")]])
        self.assertFalse(request.records[0].HasField("measure_name"))
        self.assertEqual([m.name for m in request.records[2].measure_values], ["u"])  # None left out

    def test_mixed_measure_names_stay_per_record(self):
        writer = Writer(client=None, database="mydb", table="tbl")
        request = writer._request([strata.Record({"h": "a"}, "cpu", 1, value=1.0),
                                   strata.Record({"h": "a"}, "mem", 1, value=2)])
        self.assertFalse(request.common_attributes.HasField("measure_name"))
        self.assertEqual([r.measure_name for r in request.records], ["cpu", "mem"])
        self.assertEqual(request.records[1].measure_value_type, records_pb2.MEASURE_VALUE_TYPE_BIGINT)

    def test_batch_size_is_bounded(self):
        with self.assertRaises(ValueError):
            Writer(client=None, database="mydb", table="tbl", batch_size=10_001)
        with self.assertRaises(ValueError):
            Writer(client=None, database="mydb", table="tbl", batch_size=0)
        Writer(client=None, database="mydb", table="tbl", batch_size=10_000)


if __name__ == "__main__":
    unittest.main()


class _RpcError(grpc.RpcError):
    def __init__(self, code, details):
        super().__init__()
        self._code, self._details = code, details

    def code(self):
        return self._code

    def details(self):
        return self._details


class RetryableWriteTest(unittest.TestCase):
    def test_which_failures_a_write_is_sent_again_after(self):
        internal = grpc.StatusCode.INTERNAL
        cases = [
            (grpc.StatusCode.UNAVAILABLE, "failed to connect", True),
            (grpc.StatusCode.CANCELLED, "the server is stopping", True),
            # A stream the connection reset, as C-core and grpc-js word it.
            (internal, "Received RST_STREAM with error code 2", True),
            (internal, "Received RST_STREAM with code 2 (Internal server error)", True),
            # The server's own INTERNAL, and a client's mistake: sending again would not help.
            (internal, "a bug", False),
            (internal, "", False),
            (grpc.StatusCode.INVALID_ARGUMENT, "Received RST_STREAM with error code 2", False),
        ]
        for code, details, retried in cases:
            with self.subTest(code=code, details=details):
                self.assertEqual(is_retryable_write(_RpcError(code, details)), retried)
