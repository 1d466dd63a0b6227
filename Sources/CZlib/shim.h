// The only home of static inline wrappers for zlib macros that Swift cannot import.
#ifndef LARDER_CZLIB_SHIM_H
#define LARDER_CZLIB_SHIM_H
#include <zlib.h>

/// deflateInit2 is a macro that passes the library version and stream size.
static inline int czlib_deflate_init2(z_streamp stream, int level, int windowBits, int memLevel, int strategy) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, memLevel, strategy);
}

/// inflateInit2 is a macro that passes the library version and stream size.
static inline int czlib_inflate_init2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}
#endif
