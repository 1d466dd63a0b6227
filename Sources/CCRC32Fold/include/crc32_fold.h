// CRC-32 (the gzip/zlib/PNG polynomial, reflected 0xEDB88320) folded with carry-less multiplication.
// Imported only by the Zlib target, which falls back to zlib's crc32_z where this does not apply.
#ifndef LARDER_CRC32_FOLD_H
#define LARDER_CRC32_FOLD_H
#include <stddef.h>
#include <stdint.h>

/// Whether this CPU has the instructions crc32_fold_blocks needs (PCLMULQDQ and SSE4.1).
int crc32_fold_available(void);

/// Continues a CRC-32 register over `length` bytes, which must be a multiple of 16 and at least 64, and
/// copies them to `copy` in the same pass (which must not overlap them; NULL copies nothing).
/// The register is the raw one: the caller inverts before and after (zlib's crc32_z does that
/// inside), so `~crc32_fold_blocks(~crc, NULL, ...)` equals `crc32_z(crc, ...)`.
/// Call only when crc32_fold_available() returned 1.
uint32_t crc32_fold_blocks(uint32_t crc, unsigned char *copy, const unsigned char *bytes, size_t length);

/// Whether this CPU and OS can run crc32_fold_blocks_wide (AVX-512 with VPCLMULQDQ, the ZMM state saved
/// by the OS), besides what crc32_fold_blocks needs.
int crc32_fold_wide_available(void);

/// crc32_fold_blocks with four 512-bit lanes, 256 bytes a step: the same result and copy. `length` must
/// be a multiple of 16 and at least 256. Call only when crc32_fold_wide_available() returned 1.
uint32_t crc32_fold_blocks_wide(uint32_t crc, unsigned char *copy, const unsigned char *bytes, size_t length);

#endif
