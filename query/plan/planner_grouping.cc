// grouping() and the keys of grouping sets, for the SELECT planner (planner_select.cc).
#include <algorithm>
#include <functional>

#include "common/status.h"
#include "common/strings.h"
#include "query/parse/grouping_sets.h"
#include "query/plan/planner_internal.h"

namespace strata::query {

absl::Status MergeRepeatedKeys(SelectStmt& select, std::vector<const Expr*>* keys,
                               std::vector<std::string>* texts, std::string_view sql) {
  std::vector<uint32_t> position(keys->size());
  std::vector<const Expr*> kept;
  std::vector<std::string> kept_texts;
  for (size_t k = 0; k < keys->size(); ++k) {
    auto at = std::find(kept_texts.begin(), kept_texts.end(), (*texts)[k]);
    if (at == kept_texts.end()) {
      kept_texts.push_back((*texts)[k]);
      kept.push_back((*keys)[k]);
      at = kept_texts.end() - 1;
    }
    position[k] = static_cast<uint32_t>(at - kept_texts.begin());
  }
  if (kept.size() > kMaxGroupingKeys) {
    return SqlError(sql, select.group_by[kMaxGroupingKeys]->pos,
                    StrCat("grouping sets take at most ", kMaxGroupingKeys, " keys"));
  }
  for (std::vector<uint32_t>& set : select.grouping_sets) {
    std::vector<uint32_t> unique;
    for (uint32_t k : set) {
      if (std::find(unique.begin(), unique.end(), position[k]) == unique.end()) {
        unique.push_back(position[k]);
      }
    }
    set = std::move(unique);
  }
  *keys = std::move(kept);
  *texts = std::move(kept_texts);
  return absl::OkStatus();
}

absl::Status RefuseGroupingCalls(const SelectStmt& select, const std::vector<ExprPtr>& windows,
                                 std::string_view sql) {
  std::function<absl::Status(const Expr&)> check = [&](const Expr& e) -> absl::Status {
    if (IsGroupingCall(e)) {
      return SqlError(sql, e.pos, "grouping() takes GROUP BY's keys; the query has no GROUP BY");
    }
    if (e.kind == ExprKind::kSubquery || e.kind == ExprKind::kExists) return absl::OkStatus();
    for (const ExprPtr& a : e.args) RETURN_IF_ERROR(check(*a));
    return absl::OkStatus();
  };
  for (const SelectItem& item : select.items) RETURN_IF_ERROR(check(*item.expr));
  for (const OrderItem& o : select.order_by) RETURN_IF_ERROR(check(*o.expr));
  for (const ExprPtr& w : windows) RETURN_IF_ERROR(check(*w));
  return absl::OkStatus();
}

// grouping(k1, ..., kn) has bit n-i set when key ki is outside the group's set; the mask has
// bit k set for key k outside it: the sum over i of (mask / 2^k) % 2 * 2^(n-i).
absl::Status GroupingCalls::Answer(ExprPtr& e) const {
  if (e->kind == ExprKind::kSubquery || e->kind == ExprKind::kExists ||
      e->kind == ExprKind::kLambda) {
    return absl::OkStatus();
  }
  if (!IsGroupingCall(*e)) {
    for (ExprPtr& a : e->args) RETURN_IF_ERROR(Answer(a));
    return absl::OkStatus();
  }
  const size_t n = e->args.size();
  if (n == 0 || n > kMaxGroupingKeys) {
    return SqlError(sql, e->pos,
                    StrCat("grouping() takes 1 to ", kMaxGroupingKeys, " of GROUP BY's keys"));
  }
  const Position pos = e->pos;
  auto literal = [pos](int64_t v) {
    auto out = std::make_unique<Expr>();
    out->kind = ExprKind::kLiteral;
    out->pos = pos;
    out->literal = Datum::Bigint(v);
    return out;
  };
  auto binary = [pos](const char* op, ExprPtr left, ExprPtr right) {
    auto out = std::make_unique<Expr>();
    out->kind = ExprKind::kBinary;
    out->pos = pos;
    out->name = op;
    out->args.push_back(std::move(left));
    out->args.push_back(std::move(right));
    return out;
  };
  ExprPtr answer;
  for (size_t i = 0; i < n; ++i) {
    const std::string text = e->args[i]->ToString();
    auto at = std::find(key_text.begin(), key_text.end(), text);
    if (at == key_text.end()) {
      return SqlError(sql, e->args[i]->pos,
                      StrCat("grouping() takes GROUP BY's keys; ", text, " is not one"));
    }
    if (mask_column < 0) continue;
    auto mask = std::make_unique<Expr>();
    mask->kind = ExprKind::kColumn;
    mask->pos = pos;
    mask->name = "grouping set";
    mask->bound.column = mask_column;
    mask->bound.type = DataType::kBigint;
    masks->insert(mask.get());
    const int64_t key_bit = int64_t{1} << (at - key_text.begin());
    ExprPtr bit = binary("%", binary("/", std::move(mask), literal(key_bit)), literal(2));
    bit = binary("*", std::move(bit), literal(int64_t{1} << (n - 1 - i)));
    answer = answer ? binary("+", std::move(answer), std::move(bit)) : std::move(bit);
  }
  e = answer ? std::move(answer) : literal(0);
  return absl::OkStatus();
}

}  // namespace strata::query
