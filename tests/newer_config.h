/* A config as a newer libxlat header would lay it out: the struct this
 * library knows, then members it does not. A test sets struct_size to
 * sizeof the wrapper, so the library may read every byte it is told of. */
#ifndef XLAT_TEST_NEWER_CONFIG_H
#define XLAT_TEST_NEWER_CONFIG_H

#define XLAT_TEST_NEWER(type) \
    struct {                  \
        type cfg;             \
        unsigned char newer[8]; \
    }

#endif
