SELECT host, sum(CASE WHEN usage_user > 90 THEN 1 ELSE 0 END) FROM bench.cpu GROUP BY host ORDER BY host LIMIT 5
SELECT host, sum(CASE WHEN usage_user > 90 AND now() > from_milliseconds(0) THEN 1 ELSE 0 END) FROM bench.cpu GROUP BY host ORDER BY host LIMIT 5
SELECT host, count_if(usage_user > 90) FROM bench.cpu GROUP BY host ORDER BY host LIMIT 5
