// The ingest target's driver without libFuzzer (driver.h): byte mutations
// (byte_mutator.h) of line-protocol bodies of every field type and escape,
// and of serialized remote-write requests.
#include <string>
#include <vector>

#include "prometheus/remote.pb.h"
#include "tests/fuzz/byte_mutator.h"
#include "tests/fuzz/driver.h"

namespace {

std::vector<std::string> Seeds() {
  std::vector<std::string> seeds = {
      std::string("\x00\x05", 2) +
          "cpu,host=a,region=eu usage=1.5,procs=3i,up=t,note=\"a \\\"q\\\"\" 1709294390000000000\n"
          "cpu,host=b usage=2.5 1709294391000000000\r\n# comment\n\n"
          "my\\ meas,tag\\=k=v\\,1 f=-1e3,u=7u 1709294392000000000\n",
      std::string("\x02\x11", 2) + "mem,host=a used=10i,free=2u 1709294390\nbad line\nmem v=\n",
      std::string("\x04\x00", 2) + "disk,path=/ used=1i\ndisk,path=/ used=2i\n",
  };
  prometheus::WriteRequest request;
  auto* series = request.add_timeseries();
  for (auto [name, value] : {std::pair{"__name__", "up"}, {"job", "node"}, {"instance", "h:9100"}}) {
    auto* label = series->add_labels();
    label->set_name(name);
    label->set_value(value);
  }
  for (int i = 0; i < 5; ++i) {
    auto* sample = series->add_samples();
    sample->set_timestamp(1'709'294'390'000 + i * 1000);
    sample->set_value(i);
  }
  seeds.push_back(std::string("\x01\x00", 2) + request.SerializeAsString());
  return seeds;
}

}  // namespace

int main(int argc, char** argv) {
  return strata::fuzz::RunDriver(argc, argv, "ingest", Seeds(), strata::fuzz::MutateBytes, 100'000);
}
