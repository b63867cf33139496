#include "storage/read/stored_blocks.h"

#include "common/status.h"
#include "storage/blocks/block.h"

namespace strata {

absl::StatusOr<std::optional<std::string>> ReadBlock(const Store& store,
                                                     const rocksdb::ReadOptions& options,
                                                     std::string_view block_key) {
  std::string stored;
  rocksdb::Status s = store.db()->Get(options, store.family(Store::kCold), block_key, &stored);
  if (s.IsNotFound()) return std::nullopt;
  RETURN_IF_ERROR(FromRocks(s, "reading a magnetic-store block"));
  if (format::IsWholeBlock(stored)) return stored;
  std::string header, block;
  s = store.db()->Get(options, store.family(Store::kColdHeader), block_key, &header);
  if (!s.IsNotFound()) RETURN_IF_ERROR(FromRocks(s, "reading a magnetic-store block header"));
  RETURN_IF_ERROR(
      JoinedBlock(s.IsNotFound() ? std::nullopt : std::optional<std::string_view>(header), stored,
                  &block)
          .status());
  return block;
}

absl::StatusOr<format::BlockView> StoredBlockView(std::optional<std::string_view> header,
                                                  std::string_view stored) {
  if (format::IsWholeBlock(stored)) return format::BlockView{.header = stored};
  if (!header) {
    return absl::DataLossError(
        "a magnetic-store block's header is missing although its values are stored; restore "
        "from a backup");
  }
  return format::ViewBlock(*header, stored);
}

absl::StatusOr<std::string_view> JoinedBlock(std::optional<std::string_view> header,
                                             std::string_view stored, std::string* buffer) {
  ASSIGN_OR_RETURN(const format::BlockView view, StoredBlockView(header, stored));
  if (!view.bodies.has_value()) return view.header;
  RETURN_IF_ERROR(format::JoinBlock(view.header, *view.bodies, buffer));
  return std::string_view(*buffer);
}

absl::Status PutBlock(const Store& store, std::string_view block_key, std::string_view block,
                      rocksdb::WriteBatch* batch) {
  ASSIGN_OR_RETURN(format::StoredBlock parts, format::SplitBlock(block));
  batch->Put(store.family(Store::kCold), block_key, parts.bodies);
  batch->Put(store.family(Store::kColdHeader), block_key, parts.header);
  return absl::OkStatus();
}

void DeleteBlock(const Store& store, std::string_view block_key, rocksdb::WriteBatch* batch) {
  batch->Delete(store.family(Store::kCold), block_key);
  batch->Delete(store.family(Store::kColdHeader), block_key);
}

}  // namespace strata
