SELECT count(*), max(a) FROM (SELECT region, host, avg(usage_user) a FROM bench.cpu GROUP BY region, host)
SELECT count(*), max(a) FROM (SELECT region, host, avg(usage_user) a FROM bench.cpu GROUP BY ROLLUP (region, host))
SELECT count(*), max(m) FROM (SELECT region, host, date_trunc('hour', time) h, max(usage_user) m FROM bench.cpu GROUP BY CUBE (region, host, date_trunc('hour', time)))
SELECT count(*), max(s) FROM (SELECT host, region, sum(usage_system) s FROM bench.cpu GROUP BY GROUPING SETS ((host), (region), ()))
