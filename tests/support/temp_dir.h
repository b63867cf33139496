// A directory under $TMPDIR that is removed with everything in it when the
// object goes away. Hermetic tests create one each.
#pragma once

#include <filesystem>
#include <string>

namespace strata::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string Sub(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace strata::testing
