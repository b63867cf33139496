#include "cluster/cluster_tables.h"

#include "absl/strings/str_cat.h"
#include "common/strings.h"

namespace strata::cluster {
namespace {

using query::DataType;
using query::Datum;

class ClusterTables final : public query::SystemTables {
 public:
  ClusterTables(ClusterNode* node, std::unique_ptr<query::SystemTables> others)
      : node_(*node), others_(std::move(others)) {}

  std::vector<std::string> Names() const override {
    std::vector<std::string> names = {"cluster_nodes", "cluster_shards"};
    if (others_ != nullptr) {
      for (std::string& name : others_->Names()) names.push_back(std::move(name));
    }
    return names;
  }

  absl::StatusOr<query::SystemTable> Read(std::string_view table) const override {
    if (table == "cluster_nodes") return Nodes();
    if (table == "cluster_shards") return Shards();
    if (others_ != nullptr) return others_->Read(table);
    return absl::NotFoundError(StrCat("there is no system table \"", table, "\""));
  }

 private:
  query::SystemTable Nodes() const {
    query::SystemTable out;
    out.columns = {{"node_id", DataType::kVarchar},
                   {"address", DataType::kVarchar},
                   {"this_node", DataType::kBoolean}};
    for (const NodeStatus& n : node_.Nodes()) {
      out.rows.push_back(
          {Datum::Varchar(n.id), Datum::Varchar(n.address), Datum::Bool(n.id == node_.node_id())});
    }
    return out;
  }

  query::SystemTable Shards() const {
    query::SystemTable out;
    out.columns = {{"shard", DataType::kBigint},
                   {"leader", DataType::kVarchar},
                   {"epoch", DataType::kBigint},
                   {"log_first_sequence", DataType::kBigint},
                   {"log_sequence", DataType::kBigint},
                   {"placement", DataType::kVarchar},
                   {"node_id", DataType::kVarchar},
                   {"reachable", DataType::kBoolean},
                   {"applied_sequence", DataType::kBigint},
                   {"lag", DataType::kBigint},
                   {"digest", DataType::kVarchar}};
    for (const ShardStatus& s : node_.Shards()) {
      for (const ShardStatus::Copy& c : s.replicas) {
        const int64_t lag =
            s.last_sequence > c.applied ? static_cast<int64_t>(s.last_sequence - c.applied) : 0;
        out.rows.push_back(
            {Datum::Bigint(s.shard),
             s.leader.empty() ? Datum::Null(DataType::kVarchar) : Datum::Varchar(s.leader),
             Datum::Bigint(s.epoch), Datum::Bigint(static_cast<int64_t>(s.first_sequence)),
             Datum::Bigint(static_cast<int64_t>(s.last_sequence)), Datum::Varchar(s.placement),
             Datum::Varchar(c.node), Datum::Bool(c.reachable),
             c.reachable ? Datum::Bigint(static_cast<int64_t>(c.applied))
                         : Datum::Null(DataType::kBigint),
             c.reachable ? Datum::Bigint(lag) : Datum::Null(DataType::kBigint),
             c.reachable ? Datum::Varchar(absl::StrCat(absl::Hex(c.digest, absl::kZeroPad16)))
                         : Datum::Null(DataType::kVarchar)});
      }
    }
    return out;
  }

  ClusterNode& node_;
  std::unique_ptr<query::SystemTables> others_;
};

}  // namespace

std::unique_ptr<query::SystemTables> WithClusterTables(
    ClusterNode* node, std::unique_ptr<query::SystemTables> others) {
  return std::make_unique<ClusterTables>(node, std::move(others));
}

}  // namespace strata::cluster
