#include "server/runner/read_options.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "common/status.h"
#include "common/strings.h"
#include "common/utf8.h"

namespace strata {
namespace {

absl::StatusOr<int64_t> WholeNumber(std::string_view name, std::string_view value, int64_t most) {
  int64_t number = 0;
  if (!absl::SimpleAtoi(absl::string_view(value.data(), value.size()), &number) || number < 1 ||
      number > most) {
    return absl::InvalidArgumentError(StrCat(name, " is a whole number from 1 to ", most,
                                             ", not \"", Utf8Prefix(value, 40), "\""));
  }
  return number;
}

}  // namespace

bool IsReadOption(std::string_view name) {
  return std::find(kReadOptionNames.begin(), kReadOptionNames.end(), name) !=
         kReadOptionNames.end();
}

absl::Status SetReadOption(std::string_view name, std::string_view value,
                           StatementRunner::Request* request) {
  if (name == "read_consistency") {
    ASSIGN_OR_RETURN(request->read_consistency, query::ParseReadConsistency(value));
  } else if (name == "max_staleness_ms") {
    ASSIGN_OR_RETURN(const int64_t millis, WholeNumber(name, value, query::kMaxReadDelay.count()));
    request->max_staleness = std::chrono::milliseconds(millis);
  } else if (name == "max_fragments") {
    ASSIGN_OR_RETURN(const int64_t count, WholeNumber(name, value, query::kMaxFragmentsCap));
    request->max_fragments = static_cast<int>(count);
  } else if (name == "hedge_after_ms") {
    ASSIGN_OR_RETURN(const int64_t millis, WholeNumber(name, value, query::kMaxReadDelay.count()));
    request->hedge_after = std::chrono::milliseconds(millis);
  } else {
    return absl::InvalidArgumentError(StrCat("\"", Utf8Prefix(name, 40), "\" is no read option"));
  }
  return absl::OkStatus();
}

}  // namespace strata
