#include "cluster/read_leases.h"

namespace strata::cluster {

std::optional<ReadLeaseGrant> GrantedReadLeases::Grant(const std::string& node, int64_t epoch,
                                                       uint64_t sequence,
                                                       LeaseClock::time_point now) {
  if (last_write_.has_value() && now - *last_write_ < kQuiet) return std::nullopt;
  const ReadLeaseGrant grant{
      .epoch = epoch, .id = next_id_++, .sequence = sequence, .length = length_};
  live_[node] =
      ReadLeaseHolder{.node = node, .epoch = epoch, .id = grant.id, .until = now + length_};
  return grant;
}

std::vector<ReadLeaseHolder> GrantedReadLeases::TakeLive(LeaseClock::time_point now) {
  std::vector<ReadLeaseHolder> live;
  for (auto& [node, holder] : live_) {
    if (holder.until > now) live.push_back(std::move(holder));
  }
  live_.clear();
  return live;
}

void HeldReadLease::Hold(const ReadLeaseGrant& grant, LeaseClock::time_point asked) {
  absl::MutexLock lock(&mu_);
  if (std::make_pair(grant.epoch, grant.id) <= revoked_) return;
  if (held_.has_value() &&
      std::make_pair(held_->epoch, held_->id) > std::make_pair(grant.epoch, grant.id)) {
    return;  // a later grant's answer came first
  }
  held_ = grant;
  until_ = asked + grant.length - kMargin;
}

void HeldReadLease::Revoke(int64_t epoch, uint64_t id) {
  absl::MutexLock lock(&mu_);
  revoked_ = std::max(revoked_, std::make_pair(epoch, id));
  if (held_.has_value() && std::make_pair(held_->epoch, held_->id) <= revoked_) held_.reset();
}

bool HeldReadLease::Covers(uint64_t applied, LeaseClock::time_point now) const {
  absl::MutexLock lock(&mu_);
  return held_.has_value() && now < until_ && applied >= held_->sequence;
}

}  // namespace strata::cluster
