#pragma once
// Whether this test binary runs under AddressSanitizer (scripts/test-sanitizers.sh address: clang
// at -O0). Tests whose host code repeats one path thousands of times (numeric sweeps over sizes,
// property tests over random shapes) run a subset there, where the question is memory errors in
// that path, and all of it in the release run.
namespace tessera::testing {

// GCC says so by __SANITIZE_ADDRESS__, clang by __has_feature (which GCC 12 lacks).
#if defined(__has_feature)
#define TESSERA_TEST_HAS_FEATURE(feature) __has_feature(feature)
#else
#define TESSERA_TEST_HAS_FEATURE(feature) 0
#endif
#if defined(__SANITIZE_ADDRESS__) || TESSERA_TEST_HAS_FEATURE(address_sanitizer)
inline constexpr bool under_address_sanitizer = true;
#else
inline constexpr bool under_address_sanitizer = false;
#endif
#undef TESSERA_TEST_HAS_FEATURE

}  // namespace tessera::testing
