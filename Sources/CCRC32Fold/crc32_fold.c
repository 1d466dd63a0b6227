// CRC-32 by folding 128-bit lanes with PCLMULQDQ, after Gopal et al., "Fast CRC Computation for Generic
// Polynomials Using PCLMULQDQ Instruction" (Intel, 2009). The CRC of a message is its remainder modulo
// P(x); folding replaces a 128-bit lane L followed by N more bits with L * (x^N mod P), which has the
// same remainder, until one lane is left, and a Barrett reduction takes that lane to 32 bits.
// In the reflected bit order CRC-32 uses, each constant below is (x^k mod P) bit-reflected and shifted
// left by one, as the paper derives them:
//   fold by four lanes (512 bits):  x^(512+32) and x^(512-32)
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

// The copy is a store of each lane already loaded for folding, so a read that must check and keep the
// bytes passes over them once. The test of `copy` is the same every iteration.
FOLD_TARGET uint32_t crc32_fold_blocks(uint32_t crc, unsigned char *copy, const unsigned char *bytes, size_t length) {
    const unsigned char *start = bytes;
    const __m128i byFour = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);
    const __m128i byOne = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);
    const __m128i toSixtyFour = _mm_set_epi64x(0, 0x163cd6124);
    const __m128i barrett = _mm_set_epi64x(0x1f7011641, 0x1db710641);
    const __m128i low32 = _mm_set_epi32(0, -1, 0, -1);

    // Four lanes in flight, so that the multiplier's latency overlaps; the register enters the first.
    __m128i lanes[4];
    for (int i = 0; i < 4; i++) {
        lanes[i] = load(bytes + 16 * i);
        keep(copy, 16 * i, lanes[i]);
    }
    lanes[0] = _mm_xor_si128(lanes[0], _mm_cvtsi32_si128((int)crc));
    bytes += 64;
    length -= 64;
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
