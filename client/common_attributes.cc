#include "client/common_attributes.h"

#include <algorithm>

namespace strata::cli {

void FactorCommonAttributes(v1::WriteRecordsRequest* request) {
  auto* records = request->mutable_records();
  if (records->size() < 2 || request->has_common_attributes()) return;
  v1::Record& common = *request->mutable_common_attributes();
  const v1::Record& first = records->Get(0);
  auto all = [&](auto same) {
    return std::all_of(records->begin(), records->end(), same);
  };
  if (first.has_measure_name() &&
      all([&](const v1::Record& r) { return r.has_measure_name() && r.measure_name() == first.measure_name(); })) {
    common.set_measure_name(first.measure_name());
    for (v1::Record& r : *records) r.clear_measure_name();
  }
  if (first.measure_value_type() != v1::MEASURE_VALUE_TYPE_UNSPECIFIED &&
      all([&](const v1::Record& r) { return r.measure_value_type() == first.measure_value_type(); })) {
    common.set_measure_value_type(first.measure_value_type());
    for (v1::Record& r : *records) r.clear_measure_value_type();
  }
  if (first.time_unit() != v1::TIME_UNIT_UNSPECIFIED &&
      all([&](const v1::Record& r) { return r.time_unit() == first.time_unit(); })) {
    common.set_time_unit(first.time_unit());
    for (v1::Record& r : *records) r.clear_time_unit();
  }
  for (const v1::Dimension& d : first.dimensions()) {
    auto holds = [&](const v1::Record& r) {
      return std::any_of(r.dimensions().begin(), r.dimensions().end(), [&](const v1::Dimension& e) {
        return e.name() == d.name() && e.value() == d.value();
      });
    };
    if (!all(holds)) continue;
    *common.add_dimensions() = d;
  }
  if (common.dimensions().empty()) return;
  for (v1::Record& r : *records) {
    auto* dims = r.mutable_dimensions();
    dims->erase(std::remove_if(dims->begin(), dims->end(),
                               [&](const v1::Dimension& e) {
                                 return std::any_of(common.dimensions().begin(),
                                                    common.dimensions().end(),
                                                    [&](const v1::Dimension& c) {
                                                      return c.name() == e.name();
                                                    });
                               }),
                dims->end());
  }
}

}  // namespace strata::cli
