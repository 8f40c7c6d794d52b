/**
 * @file version.h
 * @brief Compile-time and run-time version of libxlat.
 */
#ifndef XLAT_VERSION_H
#define XLAT_VERSION_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @defgroup version Version
 *  @brief The package version; the header's and the library's must agree.
 *  @{ */
#define XLAT_VERSION_MAJOR 0 /**< Incompatible API changes. */
#define XLAT_VERSION_MINOR 1 /**< Backwards-compatible additions. */
#define XLAT_VERSION_PATCH 0 /**< Fixes. */
/** @brief MAJOR * 10000 + MINOR * 100 + PATCH. */
#define XLAT_VERSION_NUMBER \
    (XLAT_VERSION_MAJOR * 10000 + XLAT_VERSION_MINOR * 100 + XLAT_VERSION_PATCH)
/** @cond */
#define XLAT_STR_(x) #x
#define XLAT_STR(x) XLAT_STR_(x)
/** @endcond */
/** @brief "MAJOR.MINOR.PATCH". */
#define XLAT_VERSION_STRING \
    XLAT_STR(XLAT_VERSION_MAJOR) "." XLAT_STR(XLAT_VERSION_MINOR) "." XLAT_STR(XLAT_VERSION_PATCH)

/**
 * @brief The library's version number, to compare with the header's.
 * @return the ::XLAT_VERSION_NUMBER the library was built with.
 */
XLAT_API uint32_t xlat_version_number(void);
/**
 * @brief The library's version string.
 * @return the ::XLAT_VERSION_STRING the library was built with; static,
 *         never NULL.
 */
XLAT_API const char *xlat_version_string(void);
/** @} */

#ifdef __cplusplus
}
#endif

#endif /* XLAT_VERSION_H */
