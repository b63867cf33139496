"""Stubs generated from proto/strata/v1 (protoc and grpc_python_plugin from Debian 12).

Do not edit: regenerate with `cmake --build build --target strata_python_package_stubs`;
the `client_stub_drift` test fails when these differ from what the protos generate.
"""
