#include "storage/catalog/names.h"

#include "absl/strings/match.h"
#include "common/status.h"
#include "common/strings.h"
#include "common/utf8.h"

namespace strata {
namespace {

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

absl::Status CheckColumnName(std::string_view kind, std::string_view name, size_t max_bytes) {
  if (name.empty()) {
    return absl::InvalidArgumentError(StrCat(kind, " name is empty; give it a name"));
  }
  if (name.size() > max_bytes) {
    return absl::InvalidArgumentError(StrCat(kind, " name \"", EchoInput(name, 40), "\" is ",
                                                   name.size(), " bytes; the limit is ",
                                                   max_bytes));
  }
  if (name.find('\0') != std::string_view::npos) {
    return absl::InvalidArgumentError(StrCat(kind, " name contains a NUL byte; remove it"));
  }
  if (IsReservedColumnName(name)) {
    return absl::InvalidArgumentError(StrCat(
        kind, " name \"", name,
        "\" is reserved (time, measure_name, measure_value, measure_value::* and ts_* are); "
        "rename it"));
  }
  return absl::OkStatus();
}

}  // namespace

bool IsReservedColumnName(std::string_view name) {
  // measure_value::<type> are the columns of single-measure values.
  return name == "time" || name == "measure_name" || name == "measure_value" ||
         name.starts_with("measure_value::") || name.starts_with("ts_");
}

absl::Status ValidateResourceName(std::string_view kind, std::string_view name) {
  if (name.empty()) {
    return absl::InvalidArgumentError(StrCat(kind, "_name is required"));
  }
  if (name.size() > kMaxResourceNameBytes) {
    return absl::InvalidArgumentError(StrCat(kind, " name is ", name.size(),
                                                   " bytes; the limit is ",
                                                   kMaxResourceNameBytes));
  }
  for (char c : name) {
    if (!IsNameChar(c)) {
      return absl::InvalidArgumentError(
          StrCat(kind, " name \"", EchoInput(name),
                       "\" may only contain letters, digits, '_', '.' and '-'"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateNewResourceName(std::string_view kind, std::string_view name) {
  RETURN_IF_ERROR(ValidateResourceName(kind, name));
  if (name.size() < kMinNewResourceNameBytes) {
    return absl::InvalidArgumentError(
        StrCat(kind, " name \"", name, "\" is too short: a new ", kind, "'s name needs ",
               kMinNewResourceNameBytes, "..", kMaxResourceNameBytes, " characters"));
  }
  return absl::OkStatus();
}

absl::Status ValidateDimensionName(std::string_view name) {
  return CheckColumnName("dimension", name, kMaxDimensionNameBytes);
}

absl::Status ValidateMeasureName(std::string_view kind, std::string_view name) {
  return CheckColumnName(kind, name, kMaxMeasureNameBytes);
}

}  // namespace strata
