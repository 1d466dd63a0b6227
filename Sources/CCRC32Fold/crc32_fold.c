// CRC-32 by folding 128-bit lanes with PCLMULQDQ, after Gopal et al., "Fast CRC Computation for Generic
// Polynomials Using PCLMULQDQ Instruction" (Intel, 2009). The CRC of a message is its remainder modulo
// P(x); folding replaces a 128-bit lane L followed by N more bits with L * (x^N mod P), which has the
// same remainder, until one lane is left, and a Barrett reduction takes that lane to 32 bits.
// In the reflected bit order CRC-32 uses, each constant below is (x^k mod P) bit-reflected and shifted
// left by one, as the paper derives them:
//   fold by four lanes (512 bits):  x^(512+32) and x^(512-32)
//   fold by four 512-bit lanes (2048 bits), in the wide variant: x^(2048+32) and x^(2048-32)
//   fold by one lane (128 bits):    x^(128+32) and x^(128-32)
//   128 to 64 bits:                 x^64
//   Barrett reduction:              P(x) itself, and floor(x^64 / P(x))
#include "crc32_fold.h"

#include <cpuid.h>
#include <immintrin.h>

#define FOLD_TARGET __attribute__((target("pclmul,sse4.1")))

int crc32_fold_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    // CPUID.1:ECX bit 1 is PCLMULQDQ, bit 19 is SSE4.1.
    return (ecx & (1u << 1)) && (ecx & (1u << 19)) ? 1 : 0;
}

// lane * (low constant) for its low half, lane * (high constant) for its high half, summed (XOR is
// addition of polynomials over GF(2)): the lane moved forward by the distance the constants encode.
FOLD_TARGET static inline __m128i fold(__m128i lane, __m128i constants) {
    __m128i low = _mm_clmulepi64_si128(lane, constants, 0x00);
    __m128i high = _mm_clmulepi64_si128(lane, constants, 0x11);
    return _mm_xor_si128(low, high);
}

FOLD_TARGET static inline __m128i load(const unsigned char *bytes) {
    return _mm_loadu_si128((const __m128i *)bytes);
}

// Stores a lane read from the source at the same offset of the copy, when there is one.
FOLD_TARGET static inline void keep(unsigned char *copy, size_t offset, __m128i lane) {
    if (copy) _mm_storeu_si128((__m128i *)(copy + offset), lane);
}

// Folds the bytes after four lanes already in flight (`bytes` is where they end, `start` where the
// copy's offsets count from) and reduces the result to the 32-bit register. Shared by both widths: the
// wide loop hands over its last 64 bytes as four lanes.
FOLD_TARGET static inline uint32_t fold_rest(
    __m128i lanes[4], unsigned char *copy, const unsigned char *start, const unsigned char *bytes, size_t length) {
    const __m128i byFour = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);
    const __m128i byOne = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);
    const __m128i toSixtyFour = _mm_set_epi64x(0, 0x163cd6124);
    const __m128i barrett = _mm_set_epi64x(0x1f7011641, 0x1db710641);
    const __m128i low32 = _mm_set_epi32(0, -1, 0, -1);

    while (length >= 64) {
        for (int i = 0; i < 4; i++) {
            __m128i next = load(bytes + 16 * i);
            keep(copy, (size_t)(bytes - start) + 16 * i, next);
            lanes[i] = _mm_xor_si128(fold(lanes[i], byFour), next);
        }
        bytes += 64;
        length -= 64;
    }

    // The four lanes into one, then the remaining whole lanes.
    __m128i lane = lanes[0];
    for (int i = 1; i < 4; i++) lane = _mm_xor_si128(fold(lane, byOne), lanes[i]);
    while (length >= 16) {
        __m128i next = load(bytes);
        keep(copy, (size_t)(bytes - start), next);
        lane = _mm_xor_si128(fold(lane, byOne), next);
        bytes += 16;
        length -= 16;
    }

    // 128 bits to 64: the low half moved past the high half.
    __m128i moved = _mm_clmulepi64_si128(lane, byOne, 0x10);
    lane = _mm_xor_si128(_mm_srli_si128(lane, 8), moved);
    // 64 bits to 32 (plus the 32 bits still to be reduced).
    __m128i upper = _mm_srli_si128(lane, 4);
    lane = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(lane, low32), toSixtyFour, 0x00), upper);
    // Barrett: quotient estimate q = (low 32 bits * floor(x^64/P)), remainder = value - q * P.
    __m128i quotient = _mm_clmulepi64_si128(_mm_and_si128(lane, low32), barrett, 0x10);
    __m128i product = _mm_clmulepi64_si128(_mm_and_si128(quotient, low32), barrett, 0x00);
    lane = _mm_xor_si128(lane, product);
    return (uint32_t)_mm_extract_epi32(lane, 1);
}

// The copy is a store of each lane already loaded for folding, so a read that must check and keep the
// bytes passes over them once. The test of `copy` is the same every iteration.
FOLD_TARGET uint32_t crc32_fold_blocks(uint32_t crc, unsigned char *copy, const unsigned char *bytes, size_t length) {
    // Four lanes in flight, so that the multiplier's latency overlaps; the register enters the first.
    __m128i lanes[4];
    for (int i = 0; i < 4; i++) {
        lanes[i] = load(bytes + 16 * i);
        keep(copy, 16 * i, lanes[i]);
    }
    lanes[0] = _mm_xor_si128(lanes[0], _mm_cvtsi32_si128((int)crc));
    return fold_rest(lanes, copy, bytes, bytes + 64, length - 64);
}

int crc32_fold_wide_available(void) {
    if (!crc32_fold_available()) return 0;
    unsigned int eax, ebx, ecx, edx;
    // CPUID.1:ECX bit 27: the OS saves extended state (XGETBV may be used).
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 27))) return 0;
    // XCR0 bits 1, 2 (SSE, AVX state) and 5, 6, 7 (opmask, upper ZMM halves, ZMM16-31): the OS saves
    // the AVX-512 registers across context switches.
    unsigned int xcr0, xcr0High;
    __asm__("xgetbv" : "=a"(xcr0), "=d"(xcr0High) : "c"(0));
    if ((xcr0 & 0xE6) != 0xE6) return 0;
    // CPUID.(7,0):EBX bit 16 is AVX512F, ECX bit 10 is VPCLMULQDQ.
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    return (ebx & (1u << 16)) && (ecx & (1u << 10)) ? 1 : 0;
}

#define FOLD_WIDE_TARGET __attribute__((target("avx512f,vpclmulqdq,pclmul,sse4.1")))

// Each 128-bit quarter of a 512-bit lane folded by the distance the constants encode, as `fold` does.
FOLD_WIDE_TARGET static inline __m512i fold_wide(__m512i lane, __m512i constants) {
    __m512i low = _mm512_clmulepi64_epi128(lane, constants, 0x00);
    __m512i high = _mm512_clmulepi64_epi128(lane, constants, 0x11);
    return _mm512_xor_si512(low, high);
}

FOLD_WIDE_TARGET static inline void keep_wide(unsigned char *copy, size_t offset, __m512i lane) {
    if (copy) _mm512_storeu_si512((void *)(copy + offset), lane);
}

// Four 512-bit lanes, 256 bytes a step: each of their sixteen 128-bit quarters folds forward by 2048
// bits, x^(2048+32) and x^(2048-32). At the end the four fold into one by 512 bits (the narrow code's
// four-lane constants), whose four quarters are the narrow code's four lanes for the rest.
FOLD_WIDE_TARGET uint32_t crc32_fold_blocks_wide(
    uint32_t crc, unsigned char *copy, const unsigned char *bytes, size_t length) {
    const unsigned char *start = bytes;
    const __m512i byFourWide = _mm512_broadcast_i32x4(_mm_set_epi64x(0x1322d1430, 0x11542778a));
    const __m512i byOneWide = _mm512_broadcast_i32x4(_mm_set_epi64x(0x1c6e41596, 0x154442bd4));

    __m512i lanes[4];
    for (int i = 0; i < 4; i++) {
        lanes[i] = _mm512_loadu_si512((const void *)(bytes + 64 * i));
        keep_wide(copy, 64 * i, lanes[i]);
    }
    lanes[0] = _mm512_xor_si512(lanes[0], _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)crc)));
    bytes += 256;
    length -= 256;
    while (length >= 256) {
        for (int i = 0; i < 4; i++) {
            __m512i next = _mm512_loadu_si512((const void *)(bytes + 64 * i));
            keep_wide(copy, (size_t)(bytes - start) + 64 * i, next);
            lanes[i] = _mm512_xor_si512(fold_wide(lanes[i], byFourWide), next);
        }
        bytes += 256;
        length -= 256;
    }
    __m512i lane = lanes[0];
    for (int i = 1; i < 4; i++) lane = _mm512_xor_si512(fold_wide(lane, byOneWide), lanes[i]);
    __m128i quarters[4] = {
        _mm512_extracti32x4_epi32(lane, 0), _mm512_extracti32x4_epi32(lane, 1),
        _mm512_extracti32x4_epi32(lane, 2), _mm512_extracti32x4_epi32(lane, 3),
    };
    return fold_rest(quarters, copy, start, bytes, length);
}
