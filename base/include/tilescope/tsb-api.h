/*
 * The export and C++ linkage macros of libtilescope-base's public headers
 * (and of the headers above it that include them), in one place: each
 * header said the same nine lines before.
 *
 * TSB_API marks a tsb_ function the library exports, TSI_API a tsi_ one
 * (base's error convention, logging and suggestions, and the runtime's
 * whole API). Each expands to default visibility only inside the library
 * that defines the function (TSB_BUILDING_LIBRARY or TSI_BUILDING_LIBRARY
 * before the first include), since the libraries build with hidden
 * symbols; to nothing for a caller. TSB_BEGIN_DECLS and TSB_END_DECLS
 * bracket a header's declarations so that C++ sees C linkage.
 */
#pragma once

#if defined(TSB_BUILDING_LIBRARY)
#define TSB_API __attribute__((visibility("default")))
#else
#define TSB_API
#endif

#if defined(TSI_BUILDING_LIBRARY)
#define TSI_API __attribute__((visibility("default")))
#else
#define TSI_API
#endif

#ifdef __cplusplus
#define TSB_BEGIN_DECLS extern "C" {
#define TSB_END_DECLS }
#else
#define TSB_BEGIN_DECLS
#define TSB_END_DECLS
#endif
