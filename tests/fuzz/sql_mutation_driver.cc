// The SQL target's driver without libFuzzer (driver.h): deterministic
// mutations of every statement of the SQL-logic golden files: spans deleted,
// repeated or spliced, and tokens from a dictionary of the constructs that
// once crashed the server (deep nesting, extreme integers, multi-byte text,
// regular expressions) inserted.
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "tests/fuzz/driver.h"

namespace {

// The SQL of every `query` and `error` block in the golden files.
std::vector<std::string> Seeds(const std::filesystem::path& dir) {
  std::vector<std::string> seeds;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".test") continue;
    std::ifstream file(entry.path());
    std::string line, sql;
    bool in_sql = false;
    while (std::getline(file, line)) {
      if (line.rfind("query", 0) == 0 || line == "error") {
        in_sql = true;
        sql.clear();
      } else if (in_sql && line == "----") {
        in_sql = false;
        if (sql.size() < 4096) seeds.push_back(sql);
      } else if (in_sql) {
        sql += line + "\n";
      }
    }
  }
  seeds.push_back("SELECT n, d, s, b, host FROM mydb.tbl WHERE n > 0 OR d < 0 ORDER BY time");
  // Joins, set operations, windows and subqueries over the fixture's table.
  seeds.push_back("SELECT a.n, b.d FROM mydb.tbl a LEFT JOIN mydb.tbl b ON a.host = b.host AND a.n < b.n");
  seeds.push_back("SELECT host, n FROM mydb.tbl UNION SELECT s, n FROM mydb.tbl EXCEPT SELECT s, 1");
  seeds.push_back("SELECT host, sum(d) OVER (PARTITION BY host ORDER BY time ROWS 2 PRECEDING), "
                  "rank() OVER (ORDER BY n DESC), lag(s, 1, 'x') OVER (ORDER BY time) FROM mydb.tbl");
  seeds.push_back("SELECT * FROM mydb.tbl WHERE n > (SELECT avg(d) FROM mydb.tbl) AND host IN "
                  "(SELECT host FROM mydb.tbl) AND EXISTS (SELECT 1)");
  return seeds;
}

const char* const kDictionary[] = {"(",
                                   " JOIN mydb.tbl x ON ",
                                   " FULL JOIN mydb.tbl y USING (host) ",
                                   " UNION ALL ",
                                   " INTERSECT ",
                                   " OVER (PARTITION BY host ORDER BY n) ",
                                   " ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
                                   "(SELECT n FROM mydb.tbl)",
                                   "(VALUES (1, 'a'), (NULL, 2.5)) AS v(a, b)",
                                   " VALUES ",
                                   " WITH (partition_key = 'host', magnetic_store_writes = TRUE)",
                                   " SET (memory_store_retention_hours = 12)",
                                   "INSERT INTO mydb.tbl (time, host, n) ",
                                   ")",
                                   "((",
                                   "))",
                                   "+",
                                   "-",
                                   "*",
                                   "/",
                                   "%",
                                   "||",
                                   "NOT ",
                                   " AND ",
                                   " OR ",
                                   ",",
                                   "=",
                                   "<>",
                                   "<",
                                   "-9223372036854775808",
                                   "9223372036854775807",
                                   "-1",
                                   "0",
                                   "1e308",
                                   "NULL",
                                   "'é€'",
                                   "'x'",
                                   "''",
                                   "n",
                                   "d",
                                   "s",
                                   "b",
                                   "host",
                                   "time",
                                   "measure_name",
                                   "abs(",
                                   "mod(",
                                   "sum(",
                                   "avg(",
                                   "count(*)",
                                   "substr(",
                                   "length(",
                                   "strpos(",
                                   "regexp_like(",
                                   "json_parse(",
                                   "json_extract_scalar(",
                                   "json_array_get(",
                                   "url_extract_parameter(",
                                   "'http://u:p@[::1]:80/p%20q?a=1&b#f'",
                                   "'{\"a\": [1, {\"b\": \"\\u00e9\"}], \"a\": 2.50}'",
                                   "'$.a[1][\"b\"]'",
                                   "'(a|a)*b'",
                                   "'('",
                                   "bin(",
                                   "ago(",
                                   "1h",
                                   "CASE WHEN ",
                                   " THEN ",
                                   " ELSE ",
                                   " END",
                                   "CAST(",
                                   " AS ",
                                   "bigint",
                                   "try_cast(",
                                   " WHERE ",
                                   " GROUP BY ",
                                   " HAVING ",
                                   " ORDER BY ",
                                   " LIMIT ",
                                   "SELECT ",
                                   " FROM mydb.tbl",
                                   " FROM (",
                                   " IN (",
                                   " BETWEEN ",
                                   " LIKE ",
                                   " IS NULL",
                                   "WITH q AS (",
                                   "nan()",
                                   "infinity()",
                                   "from_milliseconds(",
                                   "date_add('year', ",
                                   "max_by(",
                                   "DISTINCT ",
                                   "EXPLAIN "};

std::string Mutate(std::string input, std::mt19937_64& random,
                   const std::vector<std::string>& seeds) {
  const int mutations = 1 + static_cast<int>(random() % 5);
  for (int m = 0; m < mutations; ++m) {
    const size_t at = input.empty() ? 0 : random() % (input.size() + 1);
    switch (random() % 6) {
      case 0: {  // delete a span
        if (at < input.size()) input.erase(at, 1 + random() % 8);
        break;
      }
      case 1: {  // repeat a span many times: deep nesting, long chains
        if (input.empty()) break;
        const size_t from = random() % input.size();
        const std::string span = input.substr(from, 1 + random() % 12);
        const int copies = 1 + static_cast<int>(random() % 300);
        std::string repeated;
        for (int c = 0; c < copies; ++c) repeated += span;
        input.insert(from, repeated);
        break;
      }
      case 2: {  // a span of another statement
        const std::string& other = seeds[random() % seeds.size()];
        if (other.empty()) break;
        const size_t from = random() % other.size();
        input.insert(at, other.substr(from, 1 + random() % 40));
        break;
      }
      case 3:
        input.insert(at, kDictionary[random() % std::size(kDictionary)]);
        break;
      case 4:  // an arbitrary byte, possibly breaking UTF-8
        input.insert(at, 1, static_cast<char>(random()));
        break;
      default: {  // replace a span with a dictionary token
        if (at < input.size()) {
          input.replace(at, 1 + random() % 6, kDictionary[random() % std::size(kDictionary)]);
        }
        break;
      }
    }
  }
  return input;
}

}  // namespace

// 50,000 inputs take ~20 s of CPU on the 2-core CI machine (after ~11 s for the seeds, a
// few of which build large arrays and JSON), so ctest's run ends by this count, the same
// inputs on every machine, and its 60 s bound only caps a slow one. (At 200,000 the bound
// ended every run, after however many inputs the machine's speed allowed.)
int main(int argc, char** argv) {
  return strata::fuzz::RunDriver(argc, argv, "sql", Seeds(STRATA_SQL_TEST_DIR), Mutate, 50'000);
}
