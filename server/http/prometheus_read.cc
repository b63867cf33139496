#include "server/http/prometheus_read.h"

#include <snappy.h>

#include <algorithm>
#include <map>
#include <vector>

#include "common/status.h"
#include "common/strings.h"
#include "prometheus/remote.pb.h"
#include "re2/re2.h"

namespace strata {
namespace {

constexpr size_t kMaxUncompressedQueryBytes = 16 << 20;
// A read's samples are held until the answer is complete: past this, the
// reader is asked to narrow it.
constexpr int64_t kMaxResultBytes = 512 << 20;
constexpr char kValueColumn[] = "measure_value::double";

std::string QuotedIdentifier(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

// Rows of (labels..., time, value) into series keyed by their label values.
class SeriesCollector final : public query::ResultSink {
 public:
  explicit SeriesCollector(size_t labels) : labels_(labels) {}
  absl::Status Columns(const std::vector<query::ResultColumn>&) override {
    return absl::OkStatus();
  }
  absl::Status Rows(std::vector<query::Row> page) override {
    for (query::Row& row : page) {
      std::vector<std::string> key(labels_);
      for (size_t i = 0; i < labels_; ++i) {
        if (!row[i].null) key[i] = std::move(row[i].s);
      }
      const query::Datum& time = row[labels_];
      const query::Datum& value = row[labels_ + 1];
      if (value.null) continue;
      bytes_ += 16;
      auto [it, inserted] = series_.try_emplace(std::move(key));
      if (inserted) {
        for (const std::string& label : it->first) bytes_ += static_cast<int64_t>(label.size());
      }
      it->second.emplace_back(time.i / 1'000'000, value.d);
      if (bytes_ > kMaxResultBytes) {
        return absl::ResourceExhaustedError(StrCat(
            "the remote read's samples passed ", kMaxResultBytes >> 20,
            " MB; narrow its time range or matchers"));
      }
    }
    return absl::OkStatus();
  }
  size_t labels_;
  int64_t bytes_ = 0;
  std::map<std::vector<std::string>, std::vector<std::pair<int64_t, double>>> series_;
};

}  // namespace

absl::StatusOr<std::string> ReadRemoteSamples(StatementRunner& queries,
                                              std::shared_ptr<const Principal> caller,
                                              const RemoteReadOptions& options,
                                              std::string_view compressed_body) {
  size_t length = 0;
  std::string body;
  if (!snappy::GetUncompressedLength(compressed_body.data(), compressed_body.size(), &length) ||
      length > kMaxUncompressedQueryBytes ||
      !snappy::Uncompress(compressed_body.data(), compressed_body.size(), &body)) {
    return absl::InvalidArgumentError(
        "the body is not a snappy-compressed request (remote read sends Content-Encoding: snappy)");
  }
  prometheus::ReadRequest request;
  if (!request.ParseFromString(body)) {
    return absl::InvalidArgumentError("the body is not a prometheus.ReadRequest protobuf");
  }
  const std::string table =
      StrCat(QuotedIdentifier(options.database), ".", QuotedIdentifier(options.table));
  auto cancel = options.cancel ? options.cancel : std::make_shared<std::atomic<bool>>(false);

  // The table's label columns: its dimensions (VARCHAR, apart from measure_name).
  query::ColumnsSink described;
  RETURN_IF_ERROR(queries
                      .Run({.caller = caller, .sql = StrCat("SELECT * FROM ", table),
                                 .peer = options.peer, .cancel = cancel, .describe_only = true},
                                &described)
                      .status());
  std::vector<std::string> labels;
  bool has_value = false;
  for (const query::ResultColumn& c : described.columns()) {
    if (c.name == kValueColumn) has_value = true;
    if (c.type == query::DataType::kVarchar && c.name.find("::") == std::string::npos &&
        c.name != "measure_name") {
      labels.push_back(c.name);
    }
  }

  prometheus::ReadResponse response;
  for (const prometheus::Query& q : request.queries()) {
    prometheus::QueryResult* result = response.add_results();
    if (!has_value) continue;  // nothing written by remote write yet
    query::QueryParameters parameters;
    std::string where = "time BETWEEN from_milliseconds(@start) AND from_milliseconds(@end)";
    // Clamped to what a timestamp holds (Prometheus sends wide ranges freely).
    constexpr int64_t kMinMs = INT64_MIN / 1'000'000 + 1, kMaxMs = INT64_MAX / 1'000'000 - 1;
    parameters.named["start"] = query::Datum::Bigint(std::clamp(q.start_timestamp_ms(), kMinMs, kMaxMs));
    parameters.named["end"] = query::Datum::Bigint(std::clamp(q.end_timestamp_ms(), kMinMs, kMaxMs));
    bool impossible = false;
    for (int i = 0; i < q.matchers_size(); ++i) {
      const prometheus::LabelMatcher& m = q.matchers(i);
      const std::string column = m.name() == "__name__" ? "measure_name" : m.name();
      const bool present =
          column == "measure_name" || std::find(labels.begin(), labels.end(), column) != labels.end();
      const bool regex = m.type() == prometheus::LabelMatcher::RE ||
                         m.type() == prometheus::LabelMatcher::NRE;
      const bool negated = m.type() == prometheus::LabelMatcher::NEQ ||
                           m.type() == prometheus::LabelMatcher::NRE;
      // Prometheus: an absent label has the value "", and =~ is anchored.
      bool empty_matches = m.value().empty();
      std::string pattern;
      if (regex) {
        pattern = StrCat("^(?:", m.value(), ")$");
        RE2 re(pattern, RE2::Quiet);
        if (!re.ok()) {
          return absl::InvalidArgumentError(
              StrCat("matcher ", m.name(), "=~\"", m.value(), "\": ", re.error()));
        }
        empty_matches = RE2::FullMatch("", re);
      }
      if (!present) {  // the label is "" on every series
        if (empty_matches == negated) impossible = true;
        continue;
      }
      const std::string p = StrCat("m", i);
      parameters.named[p] = query::Datum::Varchar(regex ? pattern : m.value());
      const std::string col = QuotedIdentifier(column);
      std::string test = regex ? StrCat("coalesce(regexp_like(", col, ", @", p, "), false)")
                               : StrCat("coalesce(", col, " = @", p, ", false)");
      if (empty_matches) test = StrCat("(", col, " IS NULL OR ", test, ")");
      where += StrCat(" AND ", negated ? "NOT " : "", test);
    }
    if (impossible) continue;
    std::string select = "SELECT ";
    for (const std::string& label : labels) select += QuotedIdentifier(label) + ", ";
    select += StrCat("measure_name, time, ", QuotedIdentifier(kValueColumn), " FROM ", table,
                     " WHERE ", where);
    SeriesCollector collector(labels.size() + 1);
    RETURN_IF_ERROR(queries
                        .Run({.caller = caller, .sql = select, .parameters = parameters,
                                   .peer = options.peer, .cancel = cancel},
                                  &collector)
                        .status());
    for (auto& [key, samples] : collector.series_) {
      prometheus::TimeSeries* series = result->add_timeseries();
      // Labels sorted by name, as Prometheus keeps them.
      std::vector<std::pair<std::string, std::string>> named;
      named.emplace_back("__name__", key.back());
      for (size_t i = 0; i < labels.size(); ++i) {
        if (!key[i].empty()) named.emplace_back(labels[i], key[i]);
      }
      std::sort(named.begin(), named.end());
      for (auto& [name, value] : named) {
        prometheus::Label* label = series->add_labels();
        label->set_name(name);
        label->set_value(value);
      }
      std::sort(samples.begin(), samples.end());
      for (const auto& [ms, value] : samples) {
        prometheus::Sample* sample = series->add_samples();
        sample->set_timestamp(ms);
        sample->set_value(value);
      }
    }
  }
  const std::string bytes = response.SerializeAsString();
  std::string compressed;
  snappy::Compress(bytes.data(), bytes.size(), &compressed);
  return compressed;
}

}  // namespace strata
