// Loads SLEEF's libraries once and names their functions (NOTE: [Vector math]).
#include "math_library.h"

#include <dlfcn.h>

#include <string>

namespace bcast::math {

bool host_has_fma() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

namespace {

// SLEEF's error bound in its names: u10 (1.0 ULP) for all but hypot, whose
// most accurate build is u05.
std::string_view ulp_suffix(std::string_view name) { return name == "hypot" ? "u05" : "u10"; }

Library load() {
  Library lib;
#if !defined(BCAST_SLEEF_PATH) || !defined(BCAST_SLEEF_GNUABI_PATH)
  lib.why_libm = "bcast was built without SLEEF (install libsleef-dev and configure again)";
  return lib;
#else
#if !defined(__x86_64__)
  // The flavours below are SLEEF's x86-64 builds; other hosts keep the C library.
  lib.why_libm = "SLEEF's vector functions are used on x86-64 only";
  return lib;
#endif
  // RTLD_LOCAL: glibc's libmvec defines the same _ZGV names, and a kernel must
  // bind to SLEEF's whatever the process loaded first.
  lib.scalar = ::dlopen(BCAST_SLEEF_PATH, RTLD_NOW | RTLD_LOCAL);
  lib.vector = lib.scalar ? ::dlopen(BCAST_SLEEF_GNUABI_PATH, RTLD_NOW | RTLD_LOCAL) : nullptr;
  if (lib.scalar == nullptr || lib.vector == nullptr) {
    const char* error = ::dlerror();
    lib.why_libm = std::string("SLEEF cannot be loaded: ") + (error ? error : "unknown error");
    lib.scalar = lib.vector = nullptr;
    return lib;
  }
  lib.flavour = host_has_fma() ? Flavour::sleef_purecfma : Flavour::sleef_purec;
  return lib;
#endif
}

}  // namespace

const Library& library() {
  static const Library lib = load();
  return lib;
}

std::string scalar_symbol(std::string_view name, bool f64) {
  const Flavour flavour = library().flavour;
  if (flavour == Flavour::libm) return std::string(name) + (f64 ? "" : "f");
  return "Sleef_" + std::string(name) + (f64 ? "d1_" : "f1_") + std::string(ulp_suffix(name)) +
         (flavour == Flavour::sleef_purecfma ? "purecfma" : "purec");
}

std::string vector_symbol(std::string_view name, bool f64, char isa, int lanes, int arity) {
  if (library().vector == nullptr) return "";
  std::string symbol = "_ZGV" + std::string(1, isa) + "N" + std::to_string(lanes) + std::string(arity, 'v') + "_" +
                       std::string(name) + (f64 ? "" : "f");
  return address_of(symbol) ? symbol : "";
}

void* address_of(const std::string& symbol) {
  const Library& lib = library();
  if (symbol.starts_with("Sleef_")) return lib.scalar ? ::dlsym(lib.scalar, symbol.c_str()) : nullptr;
  if (symbol.starts_with("_ZGV")) return lib.vector ? ::dlsym(lib.vector, symbol.c_str()) : nullptr;
  return ::dlsym(RTLD_DEFAULT, symbol.c_str());
}

}  // namespace bcast::math
