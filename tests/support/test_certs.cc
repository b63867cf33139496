#include "tests/support/test_certs.h"

#include <fstream>
#include <sstream>

#include "tests/support/subprocess.h"

namespace strata::testing {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool TestCerts::Run(const std::string& command) {
  if (!ok()) return false;
  ProcessResult r =
      RunProcess({"/bin/sh", "-c", "cd '" + dir_.path().string() + "' && " + command});
  if (r.exit_code != 0) error_ = command + ":\n" + r.err;
  return ok();
}

TestCerts::TestCerts() {
  const std::string ec = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
  // Certificate requests signed by `ca` with the extensions a server or a
  // client needs; OpenSSL 3's x509 -extfile.
  auto sign = [&](const std::string& name, const std::string& cn, const std::string& ca,
                  const std::string& ext) {
    return Run("printf '" + ext + "\\n' > " + name + ".ext && openssl req " + ec + " -keyout " +
               name + ".key -out " + name + ".csr -subj /CN=" + cn +
               " 2>/dev/null && openssl x509 -req -in " + name + ".csr -CA " + ca + ".pem -CAkey " +
               ca + ".key -CAcreateserial -days 2 -out " + name + ".pem -extfile " + name +
               ".ext 2>/dev/null");
  };
  for (const std::string ca : {"ca", "other-ca", "cluster-ca"}) {
    Run("openssl req -x509 " + ec + " -keyout " + ca + ".key -out " + ca +
        ".pem -days 2 -subj /CN=strata-test-" + ca + " 2>/dev/null");
  }
  const std::string server_ext =
      "subjectAltName=IP:127.0.0.1,DNS:localhost\\nextendedKeyUsage=serverAuth";
  sign("server", "localhost", "ca", server_ext);
  sign("renewed", "localhost", "ca", server_ext);
  sign("client", "strata-test-client", "ca", "extendedKeyUsage=clientAuth");
  sign("node", "strata-test-node", "cluster-ca",
       "subjectAltName=IP:127.0.0.1,DNS:localhost\\nextendedKeyUsage=serverAuth,clientAuth");
}

std::shared_ptr<grpc::ChannelCredentials> TestCerts::Credentials(const std::string& ca,
                                                                 bool with_client_cert) const {
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = ReadFile(ca);
  if (with_client_cert) {
    options.pem_cert_chain = ReadFile(client_cert());
    options.pem_private_key = ReadFile(client_key());
  }
  return grpc::SslCredentials(options);
}

}  // namespace strata::testing
