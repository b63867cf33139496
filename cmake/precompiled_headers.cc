// The translation unit that compiles the precompiled header its target holds for the others
// (cmake/precompiled_headers.cmake). It has no code of its own.
