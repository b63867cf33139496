"""The statements Grafana's PostgreSQL data source sends, replayed verbatim.

Where they come from (grafana/grafana, commit 12f912ab):
- public/app/plugins/datasource/grafana-postgresql-datasource/postgresMetaQuery.ts:
  getVersion, getTimescaleDBVersion, showSchemas, showTables (with and without a
  schema), getSchema (the column picker);
- pkg/tsdb/grafana-postgresql-datasource/macros.go: $__timeFilter(time) becomes
  `time BETWEEN '<from RFC3339>' AND '<to RFC3339>'`, $__timeGroupAlias(time, 1m)
  becomes `floor(extract(epoch from time)/60)*60 AS "time"`.
The data source runs them over the extended protocol (pgx); psycopg does too.
"""

SEARCH_PATH = """
          quote_ident(table_schema) IN (
          SELECT
            CASE WHEN trim(s[i]) = '"$user"' THEN user ELSE trim(s[i]) END
          FROM
            generate_series(
              array_lower(string_to_array(current_setting('search_path'),','),1),
              array_upper(string_to_array(current_setting('search_path'),','),1)
            ) as i,
            string_to_array(current_setting('search_path'),',') s
          )"""

STATEMENTS = [
    ("getVersion", "SELECT current_setting('server_version_num')::int/100 as version",
     [(1500,)]),
    ("getTimescaleDBVersion",
     "SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'", []),
    ("showSchemas", """SELECT schema_name AS "name"
    FROM information_schema.schemata
    WHERE schema_name NOT IN ('information_schema',
                              'pg_catalog',
                              'pg_toast',
                              '_timescaledb_cache',
                              '_timescaledb_catalog',
                              '_timescaledb_internal',
                              '_timescaledb_config',
                              'timescaledb_information',
                              'timescaledb_experimental')
    ORDER BY schema_name""", [("mydb",)]),
    ("showTables(mydb)", """SELECT quote_ident(table_name) AS "table"
      FROM information_schema.tables
      WHERE quote_ident(table_schema) = 'mydb'
      ORDER BY 1""", [("cpu",)]),
    ("showTables()", f"""SELECT
    CASE WHEN {SEARCH_PATH}
      THEN quote_ident(table_name)
      ELSE quote_ident(table_schema) || '.' || quote_ident(table_name)
    END AS "table"
    FROM information_schema.tables
    WHERE quote_ident(table_schema) NOT IN ('information_schema',
                             'pg_catalog',
                             '_timescaledb_cache',
                             '_timescaledb_catalog',
                             '_timescaledb_internal',
                             '_timescaledb_config',
                             'timescaledb_information',
                             'timescaledb_experimental')
    ORDER BY CASE WHEN {SEARCH_PATH} THEN 0 ELSE 1 END, 1""", [("mydb.cpu",)]),
    ("getSchema(mydb.cpu)", f"""SELECT quote_ident(column_name) AS "column", data_type AS "type"
    FROM information_schema.columns
    WHERE
      CASE WHEN array_length(parse_ident('mydb.cpu'),1) = 2
        THEN quote_ident(table_schema) = (parse_ident('mydb.cpu'))[1]
          AND quote_ident(table_name) = (parse_ident('mydb.cpu'))[2]
        ELSE quote_ident(table_name) = 'mydb.cpu'
          AND {SEARCH_PATH}
      END""", [("host", "text"), ("measure_name", "text"), ("time", "timestamp with time zone"),
               ("procs", "bigint"), ("up", "boolean"), ("usage", "double precision")]),
    # A time-series panel: SELECT $__timeGroupAlias(time, 1m), avg(usage) AS "usage"
    # FROM mydb.cpu WHERE $__timeFilter(time) GROUP BY 1 ORDER BY 1, macros expanded.
    ("time series panel", """SELECT floor(extract(epoch from time)/60)*60 AS "time", avg(usage) AS "usage"
FROM mydb.cpu
WHERE time BETWEEN '2024-03-01T11:00:00Z' AND '2024-03-01T12:00:00Z'
GROUP BY 1
ORDER BY 1""", [(1709290800.0, 2.0), (1709290860.0, 4.0)]),
]


def replay(conn, check):
    with conn.cursor() as cur:
        for name, sql, want in STATEMENTS:
            cur.execute(sql)
            rows = [tuple(r) for r in cur.fetchall()]
            check(f"grafana {name}", rows, want)
            if name == "time series panel":
                check("grafana panel columns", [c.name for c in cur.description], ["time", "usage"])
