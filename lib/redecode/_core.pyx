# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, infer_types=False
"""Compiled decode core: the Encoding Standard's decoders as C loops (built from this file with
Cython by ``setup.py``; optional).

Spec concept -> function (Encoding Standard, whatwg/encoding @ ``redecode.decode.TABLES_REVISION``):

==============================================  ==================================================
Encoding Standard                               here
==============================================  ==================================================
"UTF-8 decoder", error count only               :func:`utf8_errors`
"single-byte decoder" (+ its 28 indexes),       :func:`decode_single_byte`
  "x-user-defined decoder"
"Shift_JIS decoder", "EUC-JP decoder",          :func:`decode_multibyte`
  "EUC-KR decoder", "Big5 decoder",
  "gb18030 decoder" (GBK's is the same),
  "ISO-2022-JP decoder"
"UTF-8 decoder" over a page's words, their      :func:`utf8_runs` (for :mod:`redecode.stretches`,
  sequences and errors                            whose ``_utf8_runs_pure`` is its twin)
==============================================  ==================================================

Every decoder has a pure-Python twin in :mod:`redecode.decode`, which stays the reference: the
tables here are built from the same generated module (:mod:`redecode._tables`, the pinned WHATWG
indexes) when a decoder is first used, and ``tests/test_core.py`` proves the two give identical
text and error counts, exhaustively over every 1- and 2-byte sequence of each legacy encoding,
EUC-JP's 3-byte and gb18030's 4-byte ranges, and by property tests on arbitrary bytes.
``REDECODE_PURE=1`` in the environment makes :mod:`redecode.decode` ignore this module.

The legacy decoders read the input once, left to right, exactly as the standard's state machines do,
written with look-ahead instead of a state variable: a lead byte and the bytes after it are examined
together, and where the standard "restores" (prepends to the I/O queue) a byte, the loop simply does
not step over it. Each error writes one U+FFFD and is counted. Output goes to a buffer of 16-bit code
units (every index of Shift_JIS, EUC-JP, EUC-KR and ISO-2022-JP is in the BMP; a Big5 or gb18030
input that decodes to a character outside the BMP is decoded again into 32-bit units), from which the
``str`` is made (``PyUnicode_FromKindAndData``: narrowest kind, as every ``str`` must be).

In its own section at the end of this file: ``LanguageScorer``, the compiled twin of
:mod:`redecode.language`'s plausibility scorer (``language._score_texts`` is the reference;
``tests/test_language.py`` proves them identical on random and corpus readings).

Deviations: none. Input is ``bytes`` only (the callers convert).
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.object cimport PyObject
from cpython.ref cimport Py_DECREF
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memchr, memcmp, memcpy, memset

cdef extern from "Python.h":
    # a bytes object written in place, then cut to its length without a copy (_PyBytes_Resize)
    PyObject *_raw_bytes "PyBytes_FromStringAndSize"(const char *v, Py_ssize_t n)
    char *_raw_bytes_data "PyBytes_AS_STRING"(PyObject *o)
    int _PyBytes_Resize(PyObject **pv, Py_ssize_t newsize)
    object PyUnicode_FromKindAndData(int kind, const void *buffer, Py_ssize_t size)
    object PyUnicode_New(Py_ssize_t size, uint32_t maxchar)
    void *PyUnicode_DATA(object o)
    object PyUnicode_DecodeASCII(const char *s, Py_ssize_t size, const char *errors)
    object PyUnicode_DecodeLatin1(const char *s, Py_ssize_t size, const char *errors)
    int PyUnicode_1BYTE_KIND
    int PyUnicode_2BYTE_KIND
    int PyUnicode_4BYTE_KIND

import sys

from . import _tables

cdef extern from *:
    """
    /* Byte loops that C writes better than Cython. */
    #include <string.h>
    #if defined(__SSE2__) && defined(__GNUC__)
    #include <emmintrin.h>
    #define RD_SSE2 1
    #endif
    #define RD_HIGH 0x8080808080808080ULL
    #if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    #define RD_FIRST_HIGH(m) ((Py_ssize_t)(__builtin_ctzll(m) >> 3))
    #else
    #define RD_FIRST_HIGH(m) (-1)
    #endif
    #if defined(__GNUC__)
    #define RD_INLINE static inline __attribute__((always_inline))
    #else
    #define RD_INLINE static inline
    #endif
    /* The number of bytes of x (a word whose bytes are 0x00 or 0x80) that are 0x80. */
    #define RD_COUNT_HIGH(x) ((Py_ssize_t)((((x) >> 7) * 0x0101010101010101ULL) >> 56))

    /* Code point cp as UTF-8 at out[o]; returns the next o. */
    RD_INLINE Py_ssize_t rd_put8(uint8_t *out, Py_ssize_t o, uint32_t cp) {
        if (cp < 0x80) {
            out[o] = (uint8_t)cp;
            return o + 1;
        }
        if (cp < 0x800) {
            out[o] = (uint8_t)(0xC0 | (cp >> 6));
            out[o + 1] = (uint8_t)(0x80 | (cp & 0x3F));
            return o + 2;
        }
        if (cp < 0x10000) {
            out[o] = (uint8_t)(0xE0 | (cp >> 12));
            out[o + 1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
            out[o + 2] = (uint8_t)(0x80 | (cp & 0x3F));
            return o + 3;
        }
        out[o] = (uint8_t)(0xF0 | (cp >> 18));
        out[o + 1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
        out[o + 2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        out[o + 3] = (uint8_t)(0x80 | (cp & 0x3F));
        return o + 4;
    }

    /* The two-byte sequences from s[i] on whose pair-table entry has a UTF-8 form (u8s: the
       table's UTF-8 forms, four bytes each, the count in the fourth, 0 for none): each form's
       four bytes written to out[*po:], as many kept as its count, for as long as they follow one
       another; returns the index of the first byte not decoded (see _pair_run). */
    static Py_ssize_t rd_pairs8_wide(const uint8_t *s, Py_ssize_t i, Py_ssize_t n, const uint8_t *u8s,
                                     uint8_t *out, Py_ssize_t *po);  /* (AVX2, eight pairs a step: below) */

    RD_INLINE Py_ssize_t rd_pairs8(const uint8_t *s, Py_ssize_t i, Py_ssize_t n, const uint8_t *u8s,
                                   uint8_t *out, Py_ssize_t *po) {
        Py_ssize_t o;
        if (i + 8 <= n && (s[i + 2] & s[i + 6]) >= 0x80)
            i = rd_pairs8_wide(s, i, n, u8s, out, po);  /* (where a run of four pairs or more may start) */
        o = *po;
        while (i + 3 < n) {
            /* two pairs a step (the loop below, twice, without its tests in between) */
            uint8_t b0 = s[i], b1 = s[i + 2];
            if ((b0 & b1) < 0x80)
                break;  /* (one of them is ASCII: the loop below reads up to it) */
            const uint8_t *u0 = u8s + 4 * ((((Py_ssize_t)b0 & 0x7F) << 8) | s[i + 1]);
            const uint8_t *u1 = u8s + 4 * ((((Py_ssize_t)b1 & 0x7F) << 8) | s[i + 3]);
            uint8_t m0 = u0[3], m1 = u1[3];
            if (m0 == 0 || m1 == 0)
                break;
            memcpy(out + o, u0, 4);
            o += m0;
            memcpy(out + o, u1, 4);
            o += m1;
            i += 4;
        }
        while (i + 1 < n) {
            uint8_t b = s[i];
            if (b < 0x80)
                break;
            const uint8_t *u = u8s + 4 * ((((Py_ssize_t)b & 0x7F) << 8) | s[i + 1]);
            uint8_t m = u[3];
            if (m == 0)
                break;
            memcpy(out + o, u, 4);
            o += m;
            i += 2;
        }
        *po = o;
        return i;
    }

    /* Length of the longest prefix of s[:n] made of bytes below 0x80. */
    static inline Py_ssize_t rd_ascii_len(const uint8_t *s, Py_ssize_t n) {
        Py_ssize_t i = 0;
        uint64_t a, b, m;
        /* the first 8 bytes as one word: most runs between non-ASCII characters are short */
        if (n >= 8) {
            memcpy(&a, s, 8);
            m = a & RD_HIGH;
            if (m) {
                Py_ssize_t k = RD_FIRST_HIGH(m);
                if (k >= 0)
                    return k;
                while (s[i] < 0x80)
                    i++;
                return i;
            }
            i = 8;
        } else {
            while (i < n && s[i] < 0x80)
                i++;
            return i;
        }
    #ifdef RD_SSE2
        while (i + 32 <= n) {
            __m128i x = _mm_loadu_si128((const __m128i *)(s + i));
            __m128i y = _mm_loadu_si128((const __m128i *)(s + i + 16));
            if (_mm_movemask_epi8(_mm_or_si128(x, y)))
                break;
            i += 32;
        }
        while (i + 16 <= n) {
            int mask = _mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(s + i)));
            if (mask)
                return i + __builtin_ctz(mask);
            i += 16;
        }
    #else
        while (i + 16 <= n) {
            memcpy(&a, s + i, 8);
            memcpy(&b, s + i + 8, 8);
            if ((a | b) & RD_HIGH)
                break;
            i += 16;
        }
    #endif
        while (i + 8 <= n) {
            memcpy(&a, s + i, 8);
            m = a & RD_HIGH;
            if (m) {
                Py_ssize_t k = RD_FIRST_HIGH(m);
                if (k >= 0)
                    return i + k;
                break;
            }
            i += 8;
        }
        while (i < n && s[i] < 0x80)
            i++;
        return i;
    }

    /* Whether the 16 bytes at p are all below 0x80. */
    static inline int rd_ascii16(const uint8_t *p) {
        uint64_t a, b;
        memcpy(&a, p, 8);
        memcpy(&b, p + 8, 8);
        return ((a | b) & RD_HIGH) == 0;
    }

    /* low[:n] = s[:n] with A-Z lowered; returns the number of line feeds. (Loops the compiler
       vectorises.) */
    static Py_ssize_t rd_lower_count_lf(const uint8_t *s, uint8_t *low, Py_ssize_t n) {
        Py_ssize_t i, lf = 0;
        for (i = 0; i < n; i++) {
            uint8_t c = s[i];
            low[i] = (uint8_t)(c + (((uint8_t)(c - 0x41) < 26) ? 32 : 0));
        }
        for (i = 0; i < n; i++)
            lf += s[i] == 0x0A;
        return lf;
    }

    /* Offset of the first occurrence of needle[:m] in hay[:n] (m >= 1), or -1. */
    static Py_ssize_t rd_find(const uint8_t *hay, Py_ssize_t n, const uint8_t *needle, Py_ssize_t m) {
        Py_ssize_t i = 0;
        while (i + m <= n) {
            const uint8_t *p = (const uint8_t *)memchr(hay + i, needle[0], (size_t)(n - m + 1 - i));
            if (p == NULL)
                return -1;
            i = p - hay;
            if (memcmp(p, needle, (size_t)m) == 0)
                return i;
            i++;
        }
        return -1;
    }

    /* The code points of s[:n] when it is valid UTF-8 (Encoding Standard "UTF-8 decoder" without
       an error), else -1. One pass: ASCII a word at a time; a 2- or 3-byte sequence checked in one
       step (the ranges of the standard's UTF-8 decoder: C2..DF; E0 then A0..BF, ED then 80..9F,
       other E1..EF then 80..BF; F0 then 90..BF, F4 then 80..8F, F1..F3 then 80..BF; every other
       continuation byte 80..BF). The count is n less the continuation bytes. */
    static Py_ssize_t rd_utf8_valid_count_scalar(const uint8_t *s, Py_ssize_t n) {
        Py_ssize_t i = 0, cont = 0;
        uint64_t w, m;
        while (i < n) {
            uint8_t b = s[i];
            if (b < 0x80) {
                i++;
    #ifdef RD_SSE2
                /* long ASCII runs (markup) 32 bytes at a time */
                while (i + 32 <= n) {
                    __m128i x = _mm_loadu_si128((const __m128i *)(s + i));
                    __m128i y = _mm_loadu_si128((const __m128i *)(s + i + 16));
                    if (_mm_movemask_epi8(_mm_or_si128(x, y)))
                        break;
                    i += 32;
                }
    #endif
                while (i + 8 <= n) {
                    memcpy(&w, s + i, 8);
                    m = w & RD_HIGH;
                    if (m) {
    #if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
                        i += __builtin_ctzll(m) >> 3;
    #endif
                        break;
                    }
                    i += 8;
                }
                continue;
            }
            if (b >= 0xC2 && b <= 0xDF) {
                if (i + 1 < n && (s[i + 1] & 0xC0) == 0x80) {
                    i += 2;
                    cont += 1;
                    continue;
                }
                return -1;
            }
            if ((b & 0xF0) == 0xE0) {
                if (i + 2 < n) {
                    uint8_t c1 = s[i + 1], c2 = s[i + 2];
                    uint8_t lo = b == 0xE0 ? 0xA0 : 0x80, hi = b == 0xED ? 0x9F : 0xBF;
                    if (c1 >= lo && c1 <= hi && (c2 & 0xC0) == 0x80) {
                        i += 3;
                        cont += 2;
                        continue;
                    }
                }
                return -1;
            }
            if (b >= 0xF0 && b <= 0xF4) {
                if (i + 3 < n) {
                    uint8_t c1 = s[i + 1], c2 = s[i + 2], c3 = s[i + 3];
                    uint8_t lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
                    if (c1 >= lo && c1 <= hi && (c2 & 0xC0) == 0x80 && (c3 & 0xC0) == 0x80) {
                        i += 4;
                        cont += 3;
                        continue;
                    }
                }
                return -1;
            }
            return -1;
        }
        return n - cont;
    }

    #if defined(__GNUC__) && defined(__x86_64__) && !defined(RD_NO_AVX2)
    #include <immintrin.h>
    #define RD_AVX2 1
    /* UTF-8 validity 32 bytes at a time: the "lookup" algorithm of Keiser and Lemire, "Validating
       UTF-8 in less than one instruction per byte" (Software: Practice and Experience, 2021). Each
       byte and the one before it are classified by three 16-entry tables (the high nibble of the
       byte before, its low nibble, the high nibble of this byte); a bit set in all three is an error
       of a 2-byte window (too short, too long, overlong, surrogate, above U+10FFFF, two
       continuations), and bytes 2 and 3 after a 3- or 4-byte lead must be continuations. Its
       notion of valid is RFC 3629's, which is the Encoding Standard UTF-8 decoder's "no error". */
    #define RD_TOO_SHORT   (1 << 0)
    #define RD_TOO_LONG    (1 << 1)
    #define RD_OVERLONG_3  (1 << 2)
    #define RD_TOO_LARGE   (1 << 3)
    #define RD_SURROGATE   (1 << 4)
    #define RD_OVERLONG_2  (1 << 5)
    #define RD_TOO_LARGE_1000 (1 << 6)
    #define RD_OVERLONG_4  (1 << 6)
    #define RD_TWO_CONTS   (1 << 7)
    #define RD_CARRY (RD_TOO_SHORT | RD_TOO_LONG | RD_TWO_CONTS)
    #define RD_T16(a, b, c, d, e, f, g, h, i, j, k, l, m, n2, o, q) \
        _mm256_setr_epi8(a, b, c, d, e, f, g, h, i, j, k, l, m, n2, o, q, \
                         a, b, c, d, e, f, g, h, i, j, k, l, m, n2, o, q)

    __attribute__((target("avx2"))) static inline __m256i rd_prev(__m256i input, __m256i prev, int k) {
        __m256i shifted = _mm256_permute2x128_si256(prev, input, 0x21);
        switch (k) {
        case 1: return _mm256_alignr_epi8(input, shifted, 15);
        case 2: return _mm256_alignr_epi8(input, shifted, 14);
        default: return _mm256_alignr_epi8(input, shifted, 13);
        }
    }

    /* (low, k60, k70, k80: the bytes 0x0F, 0x60, 0x70 and 0x80, given by the caller: see
       rd_utf8_valid_count_avx2) */
    __attribute__((target("avx2"))) static inline __m256i rd_utf8_errors32(__m256i input, __m256i prev_input, __m256i low,
                                                                          __m256i k60, __m256i k70, __m256i k80) {
        __m256i prev1 = rd_prev(input, prev_input, 1);
        __m256i byte_1_high = _mm256_shuffle_epi8(RD_T16(
            RD_TOO_LONG, RD_TOO_LONG, RD_TOO_LONG, RD_TOO_LONG, RD_TOO_LONG, RD_TOO_LONG, RD_TOO_LONG, RD_TOO_LONG,
            RD_TWO_CONTS, RD_TWO_CONTS, RD_TWO_CONTS, RD_TWO_CONTS,
            RD_TOO_SHORT | RD_OVERLONG_2, RD_TOO_SHORT, RD_TOO_SHORT | RD_OVERLONG_3 | RD_SURROGATE,
            RD_TOO_SHORT | RD_TOO_LARGE | RD_TOO_LARGE_1000 | RD_OVERLONG_4),
            _mm256_and_si256(_mm256_srli_epi16(prev1, 4), low));
        __m256i byte_1_low = _mm256_shuffle_epi8(RD_T16(
            RD_CARRY | RD_OVERLONG_3 | RD_OVERLONG_2 | RD_OVERLONG_4, RD_CARRY | RD_OVERLONG_2, RD_CARRY, RD_CARRY,
            RD_CARRY | RD_TOO_LARGE, RD_CARRY | RD_TOO_LARGE | RD_TOO_LARGE_1000,
            RD_CARRY | RD_TOO_LARGE | RD_TOO_LARGE_1000, RD_CARRY | RD_TOO_LARGE | RD_TOO_LARGE_1000,
            RD_CARRY | RD_TOO_LARGE | RD_TOO_LARGE_1000, RD_CARRY | RD_TOO_LARGE | RD_TOO_LARGE_1000,
            RD_CARRY | RD_TOO_LARGE | RD_TOO_LARGE_1000, RD_CARRY | RD_TOO_LARGE | RD_TOO_LARGE_1000,
            RD_CARRY | RD_TOO_LARGE | RD_TOO_LARGE_1000, RD_CARRY | RD_TOO_LARGE | RD_TOO_LARGE_1000 | RD_SURROGATE,
            RD_CARRY | RD_TOO_LARGE | RD_TOO_LARGE_1000, RD_CARRY | RD_TOO_LARGE | RD_TOO_LARGE_1000),
            _mm256_and_si256(prev1, low));
        __m256i byte_2_high = _mm256_shuffle_epi8(RD_T16(
            RD_TOO_SHORT, RD_TOO_SHORT, RD_TOO_SHORT, RD_TOO_SHORT, RD_TOO_SHORT, RD_TOO_SHORT, RD_TOO_SHORT,
            RD_TOO_SHORT,
            RD_TOO_LONG | RD_OVERLONG_2 | RD_TWO_CONTS | RD_OVERLONG_3 | RD_TOO_LARGE_1000 | RD_OVERLONG_4,
            RD_TOO_LONG | RD_OVERLONG_2 | RD_TWO_CONTS | RD_OVERLONG_3 | RD_TOO_LARGE,
            RD_TOO_LONG | RD_OVERLONG_2 | RD_TWO_CONTS | RD_SURROGATE | RD_TOO_LARGE,
            RD_TOO_LONG | RD_OVERLONG_2 | RD_TWO_CONTS | RD_SURROGATE | RD_TOO_LARGE,
            RD_TOO_SHORT, RD_TOO_SHORT, RD_TOO_SHORT, RD_TOO_SHORT),
            _mm256_and_si256(_mm256_srli_epi16(input, 4), low));
        __m256i special = _mm256_and_si256(_mm256_and_si256(byte_1_high, byte_1_low), byte_2_high);
        /* bytes 2 and 3 after a 3- and 4-byte lead must be continuations (their 0x80 bit in special) */
        __m256i prev2 = rd_prev(input, prev_input, 2), prev3 = rd_prev(input, prev_input, 3);
        __m256i must23 = _mm256_or_si256(_mm256_subs_epu8(prev2, k60), _mm256_subs_epu8(prev3, k70));
        return _mm256_xor_si256(_mm256_and_si256(must23, k80), special);
    }

    /* rd_utf8_valid_count's answer with AVX2: 128 bytes a step, each 32-byte block of a step that
       is not all ASCII checked in turn, continuation bytes counted as it goes; then 32 bytes a
       step, then the last bytes padded with ASCII. */
    #define RD_VALID_BLOCK(x)                                                                     \
        do {                                                                                      \
            __m256i x_ = (x);                                                                     \
            if (_mm256_movemask_epi8(x_) == 0) {                                                  \
                /* all ASCII: only a sequence the block before left open is an error */           \
                error = _mm256_or_si256(error, incomplete);                                       \
            } else {                                                                              \
                error = _mm256_or_si256(error, rd_utf8_errors32(x_, prev, k0f, k60, k70, k80));   \
                incomplete = _mm256_subs_epu8(x_, max_end);                                       \
                cont += __builtin_popcount((unsigned)_mm256_movemask_epi8(                        \
                    _mm256_cmpgt_epi8(kc0, x_)));                                                 \
            }                                                                                     \
            prev = x_;                                                                            \
        } while (0)

    __attribute__((target("avx2,popcnt"))) static Py_ssize_t rd_utf8_valid_count_avx2(const uint8_t *s, Py_ssize_t n) {
        /* a sequence may not be cut at the end: the last 3 bytes are checked against leads */
        const __m256i max_end = _mm256_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                                 -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                                 (char)(0xF0 - 1), (char)(0xE0 - 1), (char)(0xC0 - 1));
        /* the byte constants of rd_utf8_errors32 and the continuation bytes' bound ((int8) 0x80..0xBF
           < -64), made once: hidden from the compiler (the empty asm), which would otherwise build
           each again in the loop from a general register, three instructions a use */
        __m256i k0f = _mm256_set1_epi8(0x0F), k60 = _mm256_set1_epi8(0xE0 - 0x80);
        __m256i k70 = _mm256_set1_epi8(0xF0 - 0x80), k80 = _mm256_set1_epi8((char)0x80), kc0 = _mm256_set1_epi8(-64);
        __asm__("" : "+x"(k0f), "+x"(k60), "+x"(k70), "+x"(k80), "+x"(kc0));
        __m256i error = _mm256_setzero_si256(), prev = _mm256_setzero_si256(), incomplete = _mm256_setzero_si256();
        Py_ssize_t i = 0, cont = 0;
        uint8_t tail[32];
        while (i + 128 <= n) {
            __m256i b0 = _mm256_loadu_si256((const __m256i *)(s + i));
            __m256i b1 = _mm256_loadu_si256((const __m256i *)(s + i + 32));
            __m256i b2 = _mm256_loadu_si256((const __m256i *)(s + i + 64));
            __m256i b3 = _mm256_loadu_si256((const __m256i *)(s + i + 96));
            if (_mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(b0, b1), _mm256_or_si256(b2, b3))) == 0) {
                /* four ASCII blocks (markup, scripts): what the four steps below would do */
                error = _mm256_or_si256(error, incomplete);
                prev = b3;
            } else {
                RD_VALID_BLOCK(b0);
                RD_VALID_BLOCK(b1);
                RD_VALID_BLOCK(b2);
                RD_VALID_BLOCK(b3);
            }
            i += 128;
            if ((i & 1023) < 128 && !_mm256_testz_si256(error, error))
                return -1;  /* (at each 1024-byte boundary crossed: an invalid page ends early) */
        }
        while (i < n) {
            __m256i input;
            if (i + 32 <= n) {
                input = _mm256_loadu_si256((const __m256i *)(s + i));
            } else {
                memset(tail, 0, 32);  /* ASCII padding: the end of input */
                memcpy(tail, s + i, (size_t)(n - i));
                input = _mm256_loadu_si256((const __m256i *)tail);
            }
            RD_VALID_BLOCK(input);
            i += 32;
        }
        error = _mm256_or_si256(error, incomplete);
        return _mm256_testz_si256(error, error) ? n - cont : -1;
    }
    #undef RD_VALID_BLOCK

    static int rd_have_avx2 = -1;

    /* Whether the processor has AVX2 and POPCNT (asked once). */
    static inline int rd_avx2(void) {
        if (rd_have_avx2 < 0) {
            __builtin_cpu_init();
            rd_have_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
        }
        return rd_have_avx2;
    }
    #endif

    /* The code points of s[:n] when it is valid UTF-8 (Encoding Standard "UTF-8 decoder" without
       an error), else -1: AVX2 where the processor has it, else the scalar loop. */
    static Py_ssize_t rd_utf8_valid_count(const uint8_t *s, Py_ssize_t n) {
    #ifdef RD_AVX2
        if (rd_avx2() && n >= 64)
            return rd_utf8_valid_count_avx2(s, n);
    #endif
        return rd_utf8_valid_count_scalar(s, n);
    }

    #ifdef RD_AVX2
    /* rd_utf8_count's continuation bytes of u[:n - n % 32], 32 bytes a step. */
    __attribute__((target("avx2,popcnt"))) static Py_ssize_t rd_utf8_cont_avx2(const uint8_t *u, Py_ssize_t n) {
        const __m256i cont_below = _mm256_set1_epi8(-64);  /* (int8) 0x80..0xBF < -64 */
        Py_ssize_t i = 0, cont = 0;
        for (; i + 32 <= n; i += 32) {
            __m256i input = _mm256_loadu_si256((const __m256i *)(u + i));
            cont += __builtin_popcount((unsigned)_mm256_movemask_epi8(_mm256_cmpgt_epi8(cont_below, input)));
        }
        return cont;
    }
    #endif

    /* Bytes of u[:n] that are not UTF-8 continuation bytes (10xxxxxx): the code points of valid
       UTF-8 (32 bytes a step with AVX2, else 8). */
    static Py_ssize_t rd_utf8_count(const uint8_t *u, Py_ssize_t n) {
        Py_ssize_t i = 0, cont = 0;
        uint64_t x;
    #ifdef RD_AVX2
        if (n >= 64 && rd_avx2()) {
            i = n - n % 32;
            cont = rd_utf8_cont_avx2(u, i);
        }
    #endif
        for (; i + 8 <= n; i += 8) {
            memcpy(&x, u + i, 8);
            cont += RD_COUNT_HIGH(x & ~(x << 1) & RD_HIGH);
        }
        for (; i < n; i++)
            cont += (u[i] & 0xC0) == 0x80;
        return n - cont;
    }
    """
    Py_ssize_t rd_ascii_len(const uint8_t *s, Py_ssize_t n) nogil
    Py_ssize_t rd_utf8_count(const uint8_t *u, Py_ssize_t n) nogil
    Py_ssize_t rd_utf8_valid_count(const uint8_t *s, Py_ssize_t n) nogil
    Py_ssize_t rd_put8(uint8_t *out, Py_ssize_t o, uint32_t cp) nogil
    Py_ssize_t rd_pairs8(const uint8_t *s, Py_ssize_t i, Py_ssize_t n, const uint8_t *u8s,
                         uint8_t *out, Py_ssize_t *po) nogil
    Py_ssize_t rd_lower_count_lf(const uint8_t *s, uint8_t *low, Py_ssize_t n) nogil
    bint rd_ascii16(const uint8_t *p) nogil
    Py_ssize_t rd_find(const uint8_t *hay, Py_ssize_t n, const uint8_t *needle, Py_ssize_t m) nogil

ctypedef uint16_t ucs2_t
ctypedef uint32_t ucs4_t

ctypedef fused out_t:
    uint8_t  # UTF-8 code units
    ucs2_t
    ucs4_t

cdef enum:
    FFFD = 0xFFFD
    # decode_multibyte's encodings
    ENC_SHIFT_JIS = 1
    ENC_EUC_JP = 2
    ENC_EUC_KR = 3
    ENC_BIG5 = 4
    ENC_GB18030 = 5
    ENC_ISO2022JP = 6
    EOQ = 0x100  # end of queue, as a pseudo-byte

#: Bump when the output of any function here can change (it must never differ from the pure path).
CORE_VERSION = "1"

# The GIL is held throughout: releasing and taking it back costs about as much as decoding a few
# hundred bytes, and the job runs one process per core.


cdef inline Py_ssize_t _ascii_prefix(const uint8_t *s, Py_ssize_t n) noexcept nogil:
    """Length of the longest prefix of s[:n] made of bytes below 0x80."""
    return rd_ascii_len(s, n)


cdef inline Py_ssize_t _put(out_t *out, Py_ssize_t o, uint32_t cp) noexcept nogil:
    """Write code point *cp* at out[o] (UTF-8 for 8-bit units); return the next o."""
    if out_t is uint8_t:
        return rd_put8(out, o, cp)
    else:
        out[o] = cp
        return o + 1


# --------------------------------------------------------------------------------------------------
# UTF-8


cdef inline bint _utf8_sequence(const uint8_t *s, Py_ssize_t n, Py_ssize_t *at, uint8_t b) noexcept nogil:
    """The Encoding Standard's UTF-8 decoder on the sequence whose lead byte *b* was read, *at[0]*
    just after it: True when the sequence is whole and valid, *at[0]* after its last byte; False
    for an error, *at[0]* on the byte the decoder reads again (a continuation byte out of range,
    or any other) or at n (the input ends inside the sequence)."""
    cdef uint8_t lo = 0x80, hi = 0xBF
    cdef int needed
    cdef Py_ssize_t i = at[0]
    if 0xC2 <= b <= 0xDF:
        needed = 1
    elif 0xE0 <= b <= 0xEF:
        needed = 2
        if b == 0xE0:
            lo = 0xA0
        elif b == 0xED:
            hi = 0x9F
    elif 0xF0 <= b <= 0xF4:
        needed = 3
        if b == 0xF0:
            lo = 0x90
        elif b == 0xF4:
            hi = 0x8F
    else:
        return False  # (not a lead byte: an error at once, nothing read again)
    while needed > 0:
        if i >= n or s[i] < lo or s[i] > hi:
            at[0] = i  # end of queue, or a byte that is restored (read again from the initial state)
            return False
        lo = 0x80
        hi = 0xBF
        i += 1
        needed -= 1
    at[0] = i
    return True


cdef Py_ssize_t _utf8_errors(const uint8_t *s, Py_ssize_t n, bint stop) noexcept nogil:
    """Errors of the standard's UTF-8 decoder on s[:n] (each one U+FFFD); with *stop*, returns 1 at
    the first error."""
    cdef Py_ssize_t i = 0, errors = 0
    cdef uint8_t b
    while i < n:
        b = s[i]
        if b < 0x80:
            i += rd_ascii_len(s + i, n - i)
            continue
        i += 1
        if not _utf8_sequence(s, n, &i, b):
            # (at the end of the queue inside a sequence, i is n: one error, finished)
            errors += 1
            if stop:
                return errors
    return errors


def utf8_errors(bytes data, bint stop=False):
    """Encoding Standard "UTF-8 decoder" on *data* (bytes), counting only: the number of errors
    (U+FFFD it would insert; 0 means valid UTF-8), without building the text. With *stop*, 0 or 1
    (returns at the first error). A BOM is not special here."""
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    if rd_utf8_valid_count(s, n) >= 0:  # (the wide check first: most inputs asked about are valid)
        return 0
    if stop:
        return 1
    return _utf8_errors(s, n, False)


# --------------------------------------------------------------------------------------------------
# Index tables (built from redecode._tables on first use; 0 = no code point)


cdef class _Index:
    cdef uint32_t *cp
    cdef Py_ssize_t n

    def __cinit__(self, str index, str null):
        cdef Py_ssize_t i
        cdef Py_UCS4 c
        cdef Py_UCS4 nul = ord(null)
        self.n = len(index)
        self.cp = <uint32_t *>PyMem_Malloc(max(self.n, 1) * sizeof(uint32_t))
        if self.cp == NULL:
            raise MemoryError()
        for i in range(self.n):
            c = index[i]
            self.cp[i] = 0 if c == nul else c

    def __dealloc__(self):
        PyMem_Free(self.cp)


cdef class _Ranges:
    """Encoding Standard "index gb18030 ranges": (pointer, code point) starts, ascending."""
    cdef uint32_t *ptr
    cdef uint32_t *cp
    cdef Py_ssize_t n

    def __cinit__(self, ranges):
        cdef Py_ssize_t i
        self.n = len(ranges)
        self.ptr = <uint32_t *>PyMem_Malloc(max(self.n, 1) * sizeof(uint32_t))
        self.cp = <uint32_t *>PyMem_Malloc(max(self.n, 1) * sizeof(uint32_t))
        if self.ptr == NULL or self.cp == NULL:
            raise MemoryError()
        for i in range(self.n):
            self.ptr[i] = ranges[i][0]
            self.cp[i] = ranges[i][1]

    def __dealloc__(self):
        PyMem_Free(self.ptr)
        PyMem_Free(self.cp)


cdef dict _INDEXES = {}


cdef _Index _index(str name):
    idx = _INDEXES.get(name)
    if idx is None:
        idx = _Index(getattr(_tables, name), _tables.NULL)
        _INDEXES[name] = idx
    return <_Index>idx


cdef _Ranges _RANGES = None


cdef inline uint32_t _index_cp(const uint32_t *table, Py_ssize_t size, Py_ssize_t pointer) noexcept nogil:
    if pointer < 0 or pointer >= size:
        return 0
    return table[pointer]


cdef const uint32_t *_R_PTR = NULL  # the ranges' pointers (kept alive by _RANGES)
cdef const uint32_t *_R_CP = NULL  # their code points
cdef Py_ssize_t _R_N = 0


cdef uint32_t _ranges_cp(Py_ssize_t pointer) noexcept nogil:
    """Encoding Standard "index gb18030 ranges code point"; 0 for null."""
    cdef Py_ssize_t lo = 0, hi = _R_N, mid
    if (39419 < pointer < 189000) or pointer > 1237575:
        return 0
    if pointer == 7457:
        return 0xE7C7
    while hi - lo > 1:  # the last range start <= pointer
        mid = (lo + hi) >> 1
        if _R_PTR[mid] <= pointer:
            lo = mid
        else:
            hi = mid
    return _R_CP[lo] + pointer - _R_PTR[lo]


cdef inline Py_ssize_t _ascii_run(const uint8_t *s, Py_ssize_t *pi, Py_ssize_t n, out_t *out,
                                  Py_ssize_t o) noexcept nogil:
    """Copy the run of ASCII bytes starting at s[pi[0]] (an ASCII byte) to out[o:]; advance pi[0]
    past it and return the next o. (Every decoder here maps an ASCII byte read in its initial state
    to itself.)"""
    cdef Py_ssize_t i = pi[0], k, j
    k = rd_ascii_len(s + i, n - i)
    if out_t is uint8_t:
        if k > 32:
            memcpy(out + o, s + i, k)
        else:
            for j in range(k):
                out[o + j] = s[i + j]
    else:
        for j in range(k):
            out[o + j] = s[i + j]
    pi[0] = i + k
    return o + k


cdef enum:
    _PAIR_ENC = 32768  # (a _Pairs table's entry after its pairs: its encoding)
    _PAIR_U8 = 32769  # (where a _Pairs table's UTF-8 forms of its code points start)

cdef uint32_t _PAIR_UNSET = 0xFFFFFFFF  # (a _Pairs entry not made yet)


cdef uint32_t _pair_fill(const uint32_t *pairs, Py_ssize_t k) noexcept nogil:
    """The _Pairs entry *k* of *pairs*, made now and kept: its decoder run on the two bytes
    without the table (as :class:`_Pairs` says), the first time a page holds them."""
    cdef uint8_t pair[2]
    cdef uint32_t buf[8]
    cdef Py_ssize_t length, errors = 0
    cdef uint32_t cp
    pair[0] = <uint8_t>(0x80 | (k >> 8))
    pair[1] = <uint8_t>(k & 0xFF)
    cdef uint8_t *u8 = <uint8_t *>(<uint32_t *>pairs + _PAIR_U8 + k)
    length = _run(<int>pairs[_PAIR_ENC], pair, 2, <ucs4_t *>buf, &errors, False)
    cp = buf[0] if length == 1 and errors == 0 else 0
    if 0 < cp < 0x10000:
        # its UTF-8 bytes in memory order, their count in the fourth byte (see _pair_run)
        u8[3] = <uint8_t>rd_put8(u8, 0, cp)
    (<uint32_t *>pairs)[k] = cp
    return cp


cdef inline Py_ssize_t _pair_run(const uint8_t *s, Py_ssize_t i, Py_ssize_t n, const uint32_t *pairs,
                                out_t *out, Py_ssize_t *po) noexcept nogil:
    """The two-byte fast path of the stateless multi-byte decoders (Shift_JIS, EUC-JP, EUC-KR,
    Big5, gb18030/GBK), shared: from s[i] (a byte above 0x7F) on, each two-byte sequence whose
    *pairs* entry (see :class:`_Pairs`) is a code point is written to out[po[0]:] as its decoder's
    slow path would write it, for as long as they follow one another. Returns the index of the
    first byte not decoded (i itself when s[i:i+2] is not such a pair: the decoder's own path
    takes it), or -1 when out_t is 16-bit and a code point above U+FFFF came up (the caller
    decodes again into 32-bit units); po[0] is the next output index."""
    cdef Py_ssize_t o = po[0]
    cdef uint32_t cp
    cdef Py_ssize_t k
    while True:
        if out_t is uint8_t:
            # the entries made with a UTF-8 form, copied (rd_pairs8); the loop takes the rest
            i = rd_pairs8(s, i, n, <const uint8_t *>(pairs + _PAIR_U8), out, &o)
        if i + 1 >= n or s[i] < 0x80:
            break
        k = ((s[i] & 0x7F) << 8) | s[i + 1]
        cp = pairs[k]
        if cp == _PAIR_UNSET:
            cp = _pair_fill(pairs, k)
        if cp == 0:
            break
        if out_t is ucs2_t:
            if cp > 0xFFFF:
                return -1
        if out_t is uint8_t:
            if cp < 0x10000:
                # the entry's UTF-8 bytes (_pair_fill): four bytes written, as many kept as the
                # fourth says (at most 3 bytes an input byte: the output has room for 3 * n + 8)
                memcpy(out + o, pairs + _PAIR_U8 + k, 4)
                o += (<const uint8_t *>(pairs + _PAIR_U8 + k))[3]
            else:
                o = rd_put8(out, o, cp)
        else:
            out[o] = cp
            o += 1
        i += 2
    po[0] = o
    return i


# --------------------------------------------------------------------------------------------------
# The multi-byte decoders. Each writes to *out* (room for 4 * n + 8 units) and returns the number of
# units written, or -1 when out_t is 16-bit and a code point above U+FFFF came up (the caller decodes
# again into 32-bit units); *errors* receives the error count. Each error writes one U+FFFD.


cdef Py_ssize_t _shift_jis(const uint8_t *s, Py_ssize_t n, out_t *out, Py_ssize_t *errors,
                           const uint32_t *jis, Py_ssize_t jis_n,
        const uint32_t *pairs) noexcept nogil:
    cdef Py_ssize_t i = 0, o = 0, err = 0, j, pointer
    cdef uint32_t b, t, cp, lead_offset, offset
    while i < n:
        b = s[i]
        if b < 0x80:
            o = _ascii_run(s, &i, n, out, o)
            continue
        if pairs != NULL:
            j = _pair_run(s, i, n, pairs, out, &o)
            if j < 0:
                return -1
            if j > i:
                i = j
                continue
        if b == 0x80:
            cp = 0x80
        elif 0xA1 <= b <= 0xDF:
            cp = 0xFF61 - 0xA1 + b
        elif (0x81 <= b <= 0x9F) or (0xE0 <= b <= 0xFC):
            if i + 1 >= n:  # a lead byte, then the end of queue
                o = _put(out, o, FFFD)
                err += 1
                break
            t = s[i + 1]
            cp = 0
            if (0x40 <= t <= 0x7E) or (0x80 <= t <= 0xFC):
                offset = 0x40 if t < 0x7F else 0x41
                lead_offset = 0x81 if b < 0xA0 else 0xC1
                pointer = (b - lead_offset) * 188 + t - offset
                if 8836 <= pointer <= 10715:
                    cp = 0xE000 - 8836 + pointer  # EUDC
                else:
                    cp = _index_cp(jis, jis_n, pointer)
            if cp:
                i += 2
            else:
                cp = FFFD
                err += 1
                i += 1 if t < 0x80 else 2  # an ASCII trail byte is restored
            if out_t is uint8_t:  # (written out: the compiler does not inline _put here)
                o = rd_put8(out, o, cp)
            else:
                out[o] = cp
                o += 1
            continue
        else:
            cp = FFFD
            err += 1
        if out_t is uint8_t:  # (written out: the compiler does not inline _put here)
            o = rd_put8(out, o, cp)
        else:
            out[o] = cp
            o += 1
        i += 1
    errors[0] = err
    return o


cdef Py_ssize_t _euc_jp(const uint8_t *s, Py_ssize_t n, out_t *out, Py_ssize_t *errors,
                        const uint32_t *jis, Py_ssize_t jis_n,
                        const uint32_t *jis12, Py_ssize_t jis12_n,
        const uint32_t *pairs) noexcept nogil:
    cdef Py_ssize_t i = 0, o = 0, err = 0, j
    cdef uint32_t b, t, u, cp
    while i < n:
        b = s[i]
        if b < 0x80:
            o = _ascii_run(s, &i, n, out, o)
            continue
        if pairs != NULL:
            j = _pair_run(s, i, n, pairs, out, &o)
            if j < 0:
                return -1
            if j > i:
                i = j
                continue
        if not (b == 0x8E or b == 0x8F or 0xA1 <= b <= 0xFE):
            o = _put(out, o, FFFD)
            err += 1
            i += 1
            continue
        if i + 1 >= n:
            o = _put(out, o, FFFD)
            err += 1
            break
        t = s[i + 1]
        cp = 0
        if b == 0x8E:
            if 0xA1 <= t <= 0xDF:
                cp = 0xFF61 - 0xA1 + t
        elif b == 0x8F:
            if 0xA1 <= t <= 0xFE:
                # JIS X 0212: t is now the lead byte, with the "jis0212" flag set
                if i + 2 >= n:
                    o = _put(out, o, FFFD)
                    err += 1
                    break
                u = s[i + 2]
                if 0xA1 <= u <= 0xFE:
                    cp = _index_cp(jis12, jis12_n, (t - 0xA1) * 94 + u - 0xA1)
                if cp:
                    i += 3
                else:
                    cp = FFFD
                    err += 1
                    i += 2 if u < 0x80 else 3
                if out_t is uint8_t:  # (written out: the compiler does not inline _put here)
                    o = rd_put8(out, o, cp)
                else:
                    out[o] = cp
                    o += 1
                continue
        elif 0xA1 <= t <= 0xFE:
            cp = _index_cp(jis, jis_n, (b - 0xA1) * 94 + t - 0xA1)
        if cp:
            i += 2
        else:
            cp = FFFD
            err += 1
            i += 1 if t < 0x80 else 2
        if out_t is uint8_t:  # (written out: the compiler does not inline _put here)
            o = rd_put8(out, o, cp)
        else:
            out[o] = cp
            o += 1
    errors[0] = err
    return o


cdef Py_ssize_t _euc_kr(const uint8_t *s, Py_ssize_t n, out_t *out, Py_ssize_t *errors,
                        const uint32_t *kr, Py_ssize_t kr_n,
        const uint32_t *pairs) noexcept nogil:
    cdef Py_ssize_t i = 0, o = 0, err = 0, j
    cdef uint32_t b, t, cp
    while i < n:
        b = s[i]
        if b < 0x80:
            o = _ascii_run(s, &i, n, out, o)
            continue
        if pairs != NULL:
            j = _pair_run(s, i, n, pairs, out, &o)
            if j < 0:
                return -1
            if j > i:
                i = j
                continue
        if not (0x81 <= b <= 0xFE):
            o = _put(out, o, FFFD)
            err += 1
            i += 1
            continue
        if i + 1 >= n:
            o = _put(out, o, FFFD)
            err += 1
            break
        t = s[i + 1]
        cp = 0
        if 0x41 <= t <= 0xFE:
            cp = _index_cp(kr, kr_n, (b - 0x81) * 190 + t - 0x41)
        if cp:
            i += 2
        else:
            cp = FFFD
            err += 1
            i += 1 if t < 0x80 else 2
        if out_t is uint8_t:  # (written out: the compiler does not inline _put here)
            o = rd_put8(out, o, cp)
        else:
            out[o] = cp
            o += 1
    errors[0] = err
    return o


cdef Py_ssize_t _big5(const uint8_t *s, Py_ssize_t n, out_t *out, Py_ssize_t *errors,
                      const uint32_t *big5, Py_ssize_t big5_n,
        const uint32_t *pairs) noexcept nogil:
    cdef Py_ssize_t i = 0, o = 0, err = 0, j, pointer
    cdef uint32_t b, t, cp, offset
    while i < n:
        b = s[i]
        if b < 0x80:
            o = _ascii_run(s, &i, n, out, o)
            continue
        if pairs != NULL:
            j = _pair_run(s, i, n, pairs, out, &o)
            if j < 0:
                return -1
            if j > i:
                i = j
                continue
        if not (0x81 <= b <= 0xFE):
            o = _put(out, o, FFFD)
            err += 1
            i += 1
            continue
        if i + 1 >= n:
            o = _put(out, o, FFFD)
            err += 1
            break
        t = s[i + 1]
        cp = 0
        if (0x40 <= t <= 0x7E) or (0xA1 <= t <= 0xFE):
            offset = 0x40 if t < 0x7F else 0x62
            pointer = (b - 0x81) * 157 + t - offset
            # Four pointers decode to two code points each.
            if pointer == 1133 or pointer == 1135 or pointer == 1164 or pointer == 1166:
                o = _put(out, o, 0x00CA if pointer < 1164 else 0x00EA)
                o = _put(out, o, 0x0304 if pointer == 1133 or pointer == 1164 else 0x030C)
                i += 2
                continue
            cp = _index_cp(big5, big5_n, pointer)
        if cp:
            if out_t is ucs2_t:
                if cp > 0xFFFF:
                    return -1
            i += 2
        else:
            cp = FFFD
            err += 1
            i += 1 if t < 0x80 else 2
        if out_t is uint8_t:  # (written out: the compiler does not inline _put here)
            o = rd_put8(out, o, cp)
        else:
            out[o] = cp
            o += 1
    errors[0] = err
    return o


cdef Py_ssize_t _gb18030(const uint8_t *s, Py_ssize_t n, out_t *out, Py_ssize_t *errors,
                         const uint32_t *gb, Py_ssize_t gb_n,
        const uint32_t *pairs) noexcept nogil:
    cdef Py_ssize_t i = 0, o = 0, err = 0, j
    cdef uint32_t b, t, u, v, cp, offset
    while i < n:
        b = s[i]
        if b < 0x80:
            o = _ascii_run(s, &i, n, out, o)
            continue
        if pairs != NULL:
            j = _pair_run(s, i, n, pairs, out, &o)
            if j < 0:
                return -1
            if j > i:
                i = j
                continue
        if b == 0x80 or b == 0xFF:
            if b == 0x80:
                cp = 0x20AC
            else:
                cp = FFFD
                err += 1
            o = _put(out, o, cp)
            i += 1
            continue
        # b is a first byte, 0x81..0xFE
        if i + 1 >= n:
            o = _put(out, o, FFFD)
            err += 1
            break
        t = s[i + 1]
        if 0x30 <= t <= 0x39:
            # first and second of a four-byte sequence, unless the next bytes say otherwise; the end
            # of queue inside one is one error for all of it
            if i + 2 >= n:
                o = _put(out, o, FFFD)
                err += 1
                break
            u = s[i + 2]
            if not (0x81 <= u <= 0xFE):
                o = _put(out, o, FFFD)  # second and this byte are restored
                err += 1
                i += 1
                continue
            if i + 3 >= n:
                o = _put(out, o, FFFD)
                err += 1
                break
            v = s[i + 3]
            if not (0x30 <= v <= 0x39):
                o = _put(out, o, FFFD)  # second, third and this byte are restored
                err += 1
                i += 1
                continue
            cp = _ranges_cp((((b - 0x81) * 10 + t - 0x30) * 126 + u - 0x81) * 10 + v - 0x30)
            if cp:
                if out_t is ucs2_t:
                    if cp > 0xFFFF:
                        return -1
            else:
                cp = FFFD
                err += 1
            if out_t is uint8_t:  # (written out: the compiler does not inline _put here)
                o = rd_put8(out, o, cp)
            else:
                out[o] = cp
                o += 1
            i += 4
            continue
        cp = 0
        if (0x40 <= t <= 0x7E) or (0x80 <= t <= 0xFE):
            offset = 0x40 if t < 0x7F else 0x41
            cp = _index_cp(gb, gb_n, (b - 0x81) * 190 + t - offset)
        if cp:
            i += 2
        else:
            cp = FFFD
            err += 1
            i += 1 if t < 0x80 else 2
        if out_t is uint8_t:  # (written out: the compiler does not inline _put here)
            o = rd_put8(out, o, cp)
        else:
            out[o] = cp
            o += 1
    errors[0] = err
    return o


cdef enum:
    # ISO-2022-JP decoder states
    J_ASCII = 0
    J_ROMAN = 1
    J_KATAKANA = 2
    J_LEAD = 3
    J_TRAIL = 4
    J_ESCAPE_START = 5
    J_ESCAPE = 6


cdef Py_ssize_t _iso2022jp(const uint8_t *s, Py_ssize_t n, out_t *out, Py_ssize_t *errors,
                           const uint32_t *jis, Py_ssize_t jis_n) noexcept nogil:
    # The standard's state machine as it is; "restore" means not stepping over the byte (the end
    # of queue is the pseudo-byte EOQ at i == n).
    cdef Py_ssize_t i = 0, o = 0, err = 0
    cdef int state = J_ASCII, output_state = J_ASCII, new_state
    cdef uint32_t b, lead = 0, cp
    cdef bint output = False, was_output
    while True:
        b = <uint32_t>s[i] if i < n else <uint32_t>EOQ
        if state == J_ASCII:
            if b == EOQ:
                break
            i += 1
            if b == 0x1B:
                state = J_ESCAPE_START
                continue
            output = False
            if b < 0x80 and b != 0x0E and b != 0x0F:
                cp = b
            else:
                cp = FFFD
                err += 1
            if out_t is uint8_t:  # (written out: the compiler does not inline _put here)
                o = rd_put8(out, o, cp)
            else:
                out[o] = cp
                o += 1
        elif state == J_ROMAN:
            if b == EOQ:
                break
            i += 1
            if b == 0x1B:
                state = J_ESCAPE_START
                continue
            output = False
            if b == 0x5C:
                cp = 0x00A5
            elif b == 0x7E:
                cp = 0x203E
            elif b < 0x80 and b != 0x0E and b != 0x0F:
                cp = b
            else:
                cp = FFFD
                err += 1
            if out_t is uint8_t:  # (written out: the compiler does not inline _put here)
                o = rd_put8(out, o, cp)
            else:
                out[o] = cp
                o += 1
        elif state == J_KATAKANA:
            if b == EOQ:
                break
            i += 1
            if b == 0x1B:
                state = J_ESCAPE_START
                continue
            output = False
            if 0x21 <= b <= 0x5F:
                cp = 0xFF61 - 0x21 + b
            else:
                cp = FFFD
                err += 1
            if out_t is uint8_t:  # (written out: the compiler does not inline _put here)
                o = rd_put8(out, o, cp)
            else:
                out[o] = cp
                o += 1
        elif state == J_LEAD:
            if b == EOQ:
                break
            i += 1
            if b == 0x1B:
                state = J_ESCAPE_START
                continue
            output = False
            if 0x21 <= b <= 0x7E:
                lead = b
                state = J_TRAIL
            else:
                o = _put(out, o, FFFD)
                err += 1
        elif state == J_TRAIL:
            cp = FFFD
            if b == 0x1B:
                state = J_ESCAPE_START
                i += 1
            elif 0x21 <= b <= 0x7E:
                state = J_LEAD
                i += 1
                cp = _index_cp(jis, jis_n, (lead - 0x21) * 94 + b - 0x21)
                if not cp:
                    cp = FFFD
            else:
                # any other byte is consumed; the end of queue is restored
                state = J_LEAD
                if b != EOQ:
                    i += 1
            if cp == FFFD:
                err += 1
            if out_t is uint8_t:  # (written out: the compiler does not inline _put here)
                o = rd_put8(out, o, cp)
            else:
                out[o] = cp
                o += 1
        elif state == J_ESCAPE_START:
            if b == 0x24 or b == 0x28:
                lead = b
                state = J_ESCAPE
                i += 1
            else:
                # restore byte: read it again in the output state
                output = False
                state = output_state
                o = _put(out, o, FFFD)
                err += 1
        else:  # J_ESCAPE
            new_state = -1
            if lead == 0x28:
                if b == 0x42:
                    new_state = J_ASCII
                elif b == 0x4A:
                    new_state = J_ROMAN
                elif b == 0x49:
                    new_state = J_KATAKANA
            elif lead == 0x24 and (b == 0x40 or b == 0x42):
                new_state = J_LEAD
            lead = 0
            if new_state >= 0:
                state = output_state = new_state
                was_output = output
                output = True
                i += 1
                if was_output:  # two escape sequences in a row
                    o = _put(out, o, FFFD)
                    err += 1
            else:
                # restore lead (at i - 1) and byte: read them again in the output state
                output = False
                state = output_state
                i -= 1
                o = _put(out, o, FFFD)
                err += 1
    errors[0] = err
    return o


cdef Py_ssize_t _run(int enc, const uint8_t *s, Py_ssize_t n, out_t *out, Py_ssize_t *errors,
                    bint fast=True) noexcept nogil:
    # the tables are module globals set by _load (see decode_multibyte); without *fast*, no pair
    # table (how the pair tables are made)
    cdef const uint32_t *pairs = _PAIRS[enc] if fast else NULL
    if enc == ENC_SHIFT_JIS:
        return _shift_jis(s, n, out, errors, _T1, _T1_N, pairs)
    if enc == ENC_EUC_JP:
        return _euc_jp(s, n, out, errors, _T1, _T1_N, _T2, _T2_N, pairs)
    if enc == ENC_EUC_KR:
        return _euc_kr(s, n, out, errors, _T3, _T3_N, pairs)
    if enc == ENC_BIG5:
        return _big5(s, n, out, errors, _T4, _T4_N, pairs)
    if enc == ENC_ISO2022JP:
        return _iso2022jp(s, n, out, errors, _T1, _T1_N)
    return _gb18030(s, n, out, errors, _T5, _T5_N, pairs)


cdef class _Pairs:
    """The two-byte sequences of a stateless multi-byte encoding that decode alone to exactly one
    code point without error: (lead & 0x7F) << 8 | trail -> that code point (0 for every other
    sequence: those take the decoder's full path). Each entry is made by running the decoder itself
    (without this table) on its sequence, so the table can only repeat what the decoder says; made
    the first time a page holds the sequence (:func:`_pair_fill`: a page meets a few thousand of
    the 32,768), not all when the encoding is first used. Entry ``_PAIR_ENC`` is the encoding;
    from ``_PAIR_U8`` on, each made entry's code point below U+10000 as UTF-8 (its bytes in memory
    order, their count in the fourth byte; 0 where there is none yet, or none to make), which the
    decode to UTF-8 copies."""
    cdef uint32_t cp[32769 + 32768]

    def __cinit__(self, int enc):
        memset(self.cp, 0xFF, 32768 * sizeof(uint32_t))  # every entry _PAIR_UNSET
        memset(self.cp + _PAIR_U8, 0, 32768 * sizeof(uint32_t))  # no UTF-8 form (count 0) yet
        self.cp[_PAIR_ENC] = <uint32_t>enc


# Table pointers for _run (kept alive by _INDEXES).
cdef const uint32_t *_T1 = NULL  # jis0208
cdef Py_ssize_t _T1_N = 0
cdef const uint32_t *_T2 = NULL  # jis0212
cdef Py_ssize_t _T2_N = 0
cdef const uint32_t *_T3 = NULL  # euc-kr
cdef Py_ssize_t _T3_N = 0
cdef const uint32_t *_T4 = NULL  # big5
cdef Py_ssize_t _T4_N = 0
cdef const uint32_t *_T5 = NULL  # gb18030
cdef Py_ssize_t _T5_N = 0
cdef const uint32_t *_PAIRS[8]  # by encoding (see _Pairs); NULL until loaded
cdef list _PAIR_TABLES = []  # (keeps them alive)

cdef dict _ENCODINGS = {
    "Shift_JIS": ENC_SHIFT_JIS,
    "EUC-JP": ENC_EUC_JP,
    "EUC-KR": ENC_EUC_KR,
    "Big5": ENC_BIG5,
    "GBK": ENC_GB18030,
    "gb18030": ENC_GB18030,
    "ISO-2022-JP": ENC_ISO2022JP,
}
cdef set _LOADED = set()


cdef void _load(int enc) except *:
    global _T1, _T1_N, _T2, _T2_N, _T3, _T3_N, _T4, _T4_N, _T5, _T5_N, _RANGES, _R_PTR, _R_CP, _R_N
    cdef _Index idx
    if enc in _LOADED:
        return
    if enc == ENC_SHIFT_JIS or enc == ENC_EUC_JP or enc == ENC_ISO2022JP:
        idx = _index("INDEX_JIS0208")
        _T1 = idx.cp
        _T1_N = idx.n
    if enc == ENC_EUC_JP:
        idx = _index("INDEX_JIS0212")
        _T2 = idx.cp
        _T2_N = idx.n
    if enc == ENC_EUC_KR:
        idx = _index("INDEX_EUC_KR")
        _T3 = idx.cp
        _T3_N = idx.n
    if enc == ENC_BIG5:
        idx = _index("INDEX_BIG5")
        _T4 = idx.cp
        _T4_N = idx.n
    if enc == ENC_GB18030:
        idx = _index("INDEX_GB18030")
        _T5 = idx.cp
        _T5_N = idx.n
        if _RANGES is None:
            _RANGES = _Ranges(_tables.INDEX_GB18030_RANGES)
            _R_PTR = _RANGES.ptr
            _R_CP = _RANGES.cp
            _R_N = _RANGES.n
    if enc != ENC_ISO2022JP:
        pairs = _Pairs(enc)
        _PAIR_TABLES.append(pairs)
        _PAIRS[enc] = (<_Pairs>pairs).cp
    _LOADED.add(enc)


cdef PyObject *_new_out(Py_ssize_t size) except NULL:
    """A new bytes object of *size* bytes to write into (a reference :func:`_cut` takes over)."""
    return _raw_bytes(NULL, size)


cdef object _cut(PyObject *out, Py_ssize_t length):
    """The bytes object *out* (from :func:`_new_out`, nothing else refers to it) cut to its first
    *length* bytes in place (no copy of what was written, unlike a slice)."""
    if _PyBytes_Resize(&out, length) < 0:
        raise MemoryError()
    result = <object>out
    Py_DECREF(result)  # (the reference _new_out made is now result's)
    return result


cdef inline Py_ssize_t _count_chars(const uint8_t *u, Py_ssize_t n) noexcept nogil:
    """Code points in the valid UTF-8 u[:n]: the bytes that are not continuation bytes."""
    return rd_utf8_count(u, n)


def decode_multibyte(bytes data, str name):
    """The Encoding Standard decoder of *name* (``Shift_JIS``, ``EUC-JP``, ``EUC-KR``, ``Big5``,
    ``GBK``, ``gb18030``, ``ISO-2022-JP``) on *data* (bytes, no BOM handling): ``(text, errors)``,
    *errors* being the number of U+FFFD the decoder inserted. ``KeyError`` for another name."""
    cdef int enc = _ENCODINGS[name]
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef Py_ssize_t length, errors = 0
    cdef ucs2_t *buf2
    cdef ucs4_t *buf4
    if enc != ENC_ISO2022JP and _ascii_prefix(s, n) == n:
        return PyUnicode_DecodeASCII(<const char *>s, n, NULL), 0
    _load(enc)
    buf2 = <ucs2_t *>PyMem_Malloc((n + 8) * sizeof(ucs2_t))
    if buf2 == NULL:
        raise MemoryError()
    try:
        length = _run(enc, s, n, buf2, &errors)
        if length >= 0:
            return PyUnicode_FromKindAndData(PyUnicode_2BYTE_KIND, buf2, length), errors
    finally:
        PyMem_Free(buf2)
    # a code point above U+FFFF: again, into 32-bit units
    buf4 = <ucs4_t *>PyMem_Malloc((n + 8) * sizeof(ucs4_t))
    if buf4 == NULL:
        raise MemoryError()
    try:
        length = _run(enc, s, n, buf4, &errors)
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf4, length), errors
    finally:
        PyMem_Free(buf4)


# --------------------------------------------------------------------------------------------------
# Single-byte encodings


cdef class _SingleByte:
    cdef uint16_t table[256]  # byte -> code point (U+FFFD for no code point: an error)
    cdef uint32_t utf8[256]  # byte -> its code point's UTF-8 bytes (in memory order), zero-padded
    cdef uint8_t utf8_len[256]
    cdef bint holes  # some byte maps to U+FFFD (an error)

    def __cinit__(self, str high):
        cdef int b, k
        cdef Py_UCS4 c
        cdef Py_UCS4 nul = ord(_tables.NULL)
        cdef uint32_t cp
        cdef uint8_t u[4]
        for b in range(256):
            c = b if b < 128 else high[b - 128]
            # No index maps a byte to U+FFFD: each U+FFFD is an error.
            self.table[b] = FFFD if c == nul else c
            if c == nul:
                self.holes = True
            cp = self.table[b]
            # its UTF-8 bytes, as the 4 bytes in memory (written with one memcpy), zero-padded
            memset(u, 0, 4)
            if cp < 0x80:
                u[0] = <uint8_t>cp
                k = 1
            elif cp < 0x800:
                u[0] = <uint8_t>(0xC0 | (cp >> 6))
                u[1] = <uint8_t>(0x80 | (cp & 0x3F))
                k = 2
            else:  # (a table entry is a BMP code point, never a surrogate)
                u[0] = <uint8_t>(0xE0 | (cp >> 12))
                u[1] = <uint8_t>(0x80 | ((cp >> 6) & 0x3F))
                u[2] = <uint8_t>(0x80 | (cp & 0x3F))
                k = 3
            self.utf8_len[b] = k
            memcpy(&self.utf8[b], u, 4)


cdef dict _SINGLE = {}


cdef _SingleByte _single(str name):
    t = _SINGLE.get(name)
    if t is None:
        if name == "x-user-defined":
            high = "".join([chr(0xF780 + b) for b in range(128)])
        else:
            high = _tables.SINGLE_BYTE[name]
        t = _SingleByte(high)
        _SINGLE[name] = t
    return <_SingleByte>t


def decode_single_byte(bytes data, str name):
    """The Encoding Standard "single-byte decoder" of *name* (or the "x-user-defined decoder") on
    *data* (bytes): ``(text, errors)``. One pass writing the ``str`` in place: 8-bit characters
    while every character so far is below U+0100, then (after widening what was written) 16-bit
    ones; every index is in the BMP, and no index maps a byte 0x80..0xFF below U+0080. ``KeyError``
    for a name that is not a single-byte encoding."""
    cdef _SingleByte t = _single(name)
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef Py_ssize_t i, k, end, errors = 0
    cdef uint32_t c
    cdef uint8_t *o1
    cdef uint16_t *o2
    cdef const uint16_t *table = t.table
    i = _ascii_prefix(s, n)
    if i == n:
        return PyUnicode_DecodeASCII(<const char *>s, n, NULL), 0
    text = PyUnicode_New(n, 0xFF)
    o1 = <uint8_t *>PyUnicode_DATA(text)
    memcpy(o1, s, i)
    i = rd_single8(s, i, n, table, o1)  # (AVX2: 32 bytes a step, while 32 are left)
    # 16 bytes at a time: a block of ASCII is copied, any other block mapped byte by byte through
    # the table with no branch on the byte (text in these encodings mixes both byte by byte)
    while i < n:
        if i + 16 <= n and rd_ascii16(s + i):
            memcpy(o1 + i, s + i, 16)
            i += 16
            continue
        end = min(i + 16, n)
        while i < end:
            c = table[s[i]]
            if c > 0xFF:
                break
            o1[i] = <uint8_t>c
            i += 1
        if i < end:
            break
    if i == n:
        return text, 0
    # A character above U+00FF at i: the rest is written as 16-bit units.
    wide = PyUnicode_New(n, 0xFFFF)
    o2 = <uint16_t *>PyUnicode_DATA(wide)
    for k in range(i):
        o2[k] = o1[k]
    i = rd_single16(s, i, n, table, o2, &errors)  # (AVX2: 16 bytes a step, while 16 are left)
    while i < n:
        if i + 16 <= n and rd_ascii16(s + i):
            for k in range(i, i + 16):
                o2[k] = s[k]
            i += 16
            continue
        end = min(i + 16, n)
        while i < end:
            c = table[s[i]]
            errors += c == FFFD
            o2[i] = <uint16_t>c
            i += 1
    return wide, errors


# --------------------------------------------------------------------------------------------------
# Decoding to UTF-8 bytes (the text as the Parquet writer stores it), without a str


cdef Py_ssize_t _utf8_repair(const uint8_t *s, Py_ssize_t n, uint8_t *out, Py_ssize_t *errors) noexcept nogil:
    """The standard's UTF-8 decoder on s[:n], re-encoded: valid sequences copied, each error written
    as EF BF BD. Returns the bytes written (at most 3 * n)."""
    cdef Py_ssize_t i = 0, o = 0, err = 0, start
    cdef uint8_t b
    while i < n:
        b = s[i]
        if b < 0x80:
            out[o] = b
            o += 1
            i += 1
            continue
        start = i
        i += 1
        if _utf8_sequence(s, n, &i, b):
            memcpy(out + o, s + start, i - start)
            o += i - start
        else:  # (the end of queue, or a byte that is restored)
            out[o] = 0xEF
            out[o + 1] = 0xBF
            out[o + 2] = 0xBD
            o += 3
            err += 1
    errors[0] = err
    return o


cdef inline Py_ssize_t _utf8_chars(const uint8_t *s, Py_ssize_t n, Py_ssize_t *errors) noexcept nogil:
    """Code points of the valid UTF-8 s[:n] (errors[0] = 0), or errors[0] = 1 at the first error."""
    cdef Py_ssize_t chars = rd_utf8_valid_count(s, n)
    errors[0] = chars < 0
    return chars if chars >= 0 else 0


def decode_to_utf8(bytes data, str name):
    """The Encoding Standard decoder of *name* on *data* (bytes, no BOM handling), the text given as
    UTF-8: ``(utf8, length, errors)``, *utf8* being ``text.encode("utf-8")`` of the text the decoder
    makes, *length* its length in code points and *errors* the number of U+FFFD inserted; for valid
    UTF-8 input *utf8* is *data* itself. None for UTF-16BE/LE and replacement (not handled here).
    No ``str`` is built."""
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef Py_ssize_t length, errors = 0, i, k, end, chars
    cdef int enc
    cdef uint8_t *o
    cdef uint8_t b
    cdef _SingleByte t
    cdef PyObject *out
    if name == "UTF-8":
        chars = _utf8_chars(s, n, &errors)
        if errors == 0:
            return data, chars, 0
        out = _new_out(3 * n + 8)
        o = <uint8_t *>_raw_bytes_data(out)
        length = _utf8_repair(s, n, o, &errors)
        chars = _count_chars(o, length)
        return _cut(out, length), chars, errors
    enc = _ENCODINGS.get(name, 0)
    if enc == 0:
        if name not in _tables.SINGLE_BYTE and name != "x-user-defined":
            return None
        i = _ascii_prefix(s, n)
        if i == n:
            return data, n, 0
        t = _single(name)
        out = _new_out(3 * n + 40)  # (32 bytes of room for the wide loop's stores)
        o = <uint8_t *>_raw_bytes_data(out)
        memcpy(o, s, i)
        length = i
        # (AVX2: 32 bytes a step while 32 are left; the loop below takes the rest)
        i = rd_single_utf8_wide(s, i, n, t.utf8, t.utf8_len, t.table, t.holes, o, &length, &errors)
        while i < n:
            if i + 16 <= n and rd_ascii16(s + i):
                memcpy(o + length, s + i, 16)
                length += 16
                i += 16
                continue
            end = min(i + 16, n)
            if t.holes:
                while i < end:
                    b = s[i]
                    memcpy(o + length, &t.utf8[b], 4)
                    length += t.utf8_len[b]
                    errors += t.table[b] == FFFD
                    i += 1
            else:  # (no byte is an error: windows-1252, windows-1251...)
                while i + 4 <= end:  # (four bytes a step: the loop below, without its tests)
                    b = s[i]
                    memcpy(o + length, &t.utf8[b], 4)
                    length += t.utf8_len[b]
                    b = s[i + 1]
                    memcpy(o + length, &t.utf8[b], 4)
                    length += t.utf8_len[b]
                    b = s[i + 2]
                    memcpy(o + length, &t.utf8[b], 4)
                    length += t.utf8_len[b]
                    b = s[i + 3]
                    memcpy(o + length, &t.utf8[b], 4)
                    length += t.utf8_len[b]
                    i += 4
                while i < end:
                    b = s[i]
                    memcpy(o + length, &t.utf8[b], 4)
                    length += t.utf8_len[b]
                    i += 1
        return _cut(out, length), n, errors
    if enc != ENC_ISO2022JP and _ascii_prefix(s, n) == n:
        return data, n, 0
    _load(enc)
    out = _new_out(3 * n + 8)
    o = <uint8_t *>_raw_bytes_data(out)
    length = _run(enc, s, n, o, &errors)
    chars = _count_chars(o, length)
    return _cut(out, length), chars, errors


# --------------------------------------------------------------------------------------------------
# WARC header fields (redecode.archive)


cdef inline uint8_t _lower(uint8_t c) noexcept nogil:
    return c + 32 if 0x41 <= c <= 0x5A else c


cdef inline bint _str_space(uint8_t c) noexcept nogil:
    # what str.strip() removes from ASCII text: \t \n \x0b \x0c \r \x1c..\x1f and space
    return c == 0x20 or 0x09 <= c <= 0x0D or 0x1C <= c <= 0x1F


cdef dict _NAME_KEYS = {}  # names tuple -> [b"\r\n" + name + b":" for each name]
cdef object _last_names = None  # (the names of the last call and their keys: one tuple in use)
cdef list _last_keys = None
cdef enum:
    _MAX_NAMES = 32  # (names warc_fields takes at most)
    _STACK_HEAD = 2048  # (a header block up to this size is lowered on the stack)


def warc_fields(bytes head, tuple names, Py_ssize_t lines):
    """The fast branch of ``redecode.archive._fast_fields`` on a WARC header block *head* (bytes, as
    FastWARC writes it back: CRLF-terminated lines, then CRLF): ``{name: value}`` for each of *names*
    (lower-case ASCII field names, str, at most 32) found as ``CRLF name:`` (ASCII case-insensitive;
    the first one), the value up to the next CRLF, stripped as ``str.strip()`` does. None where that
    branch cannot answer or the block is not plain: it has not exactly *lines* line feeds, has a byte
    above 0x7F, or names a wanted field elsewhere than as ``CRLF name:`` without that (then the
    caller reads it field by field). One pass over the lines: a line after a CRLF is a wanted
    field's when its first colon ends one of the names (issue 27: where a search per name read
    the whole block again)."""
    global _last_names, _last_keys
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(head)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(head)
    cdef Py_ssize_t j, m, at, vs, ve, lf, q, ls, le, colon, k = len(names), found = 0
    cdef Py_ssize_t start[_MAX_NAMES]
    cdef Py_ssize_t size[_MAX_NAMES]
    cdef const uint8_t *key
    cdef const void *p
    cdef uint8_t stack[_STACK_HEAD]
    cdef uint8_t *low
    cdef bytes bkey
    cdef dict out = {}
    cdef list keys
    if k > _MAX_NAMES:
        raise ValueError("at most 32 names")
    if names is _last_names:
        keys = _last_keys
    else:
        keys = _NAME_KEYS.get(names)
        if keys is None:
            keys = [b"\r\n" + (<str>x).encode("ascii") + b":" for x in names]
            _NAME_KEYS[names] = keys
        _last_names, _last_keys = names, keys
    if rd_ascii_len(s, n) != n:
        return None
    low = <uint8_t *>stack if n <= _STACK_HEAD else <uint8_t *>PyMem_Malloc(n + 1)
    if low == NULL:
        raise MemoryError()
    try:
        lf = rd_lower_count_lf(s, low, n)
        if lf != lines:
            return None
        for j in range(k):
            start[j] = -1
            size[j] = PyBytes_GET_SIZE(<bytes>keys[j]) - 3  # (the name's length)
        # each line that follows a CRLF: its first colon, and the names of that length
        q = 0
        while found < k:
            p = memchr(low + q, 0x0A, <size_t>(n - q)) if q < n else NULL
            if p == NULL:
                break
            q = <Py_ssize_t>((<const uint8_t *>p) - low)
            ls = q + 1  # (after this LF)
            q = ls
            if q - 2 < 0 or low[q - 2] != 0x0D or ls >= n:
                continue
            p = memchr(low + ls, 0x0A, <size_t>(n - ls))
            le = n if p == NULL else <Py_ssize_t>((<const uint8_t *>p) - low)
            p = memchr(low + ls, 0x3A, <size_t>(le - ls)) if le > ls else NULL
            if p == NULL:
                continue
            colon = <Py_ssize_t>((<const uint8_t *>p) - low)
            for j in range(k):
                if start[j] < 0 and size[j] == colon - ls:
                    bkey = <bytes>keys[j]
                    if memcmp(low + ls, <const uint8_t *>PyBytes_AS_STRING(bkey) + 2, <size_t>size[j]) == 0:
                        start[j] = colon + 1
                        found += 1
        for j in range(k):
            bkey = <bytes>keys[j]
            key = <const uint8_t *>PyBytes_AS_STRING(bkey)
            m = PyBytes_GET_SIZE(bkey)
            if start[j] < 0:
                # named, but not as "CRLF name:": not this branch
                at = rd_find(low, n, key + 2, m - 3)
                if at >= 0:
                    return None
                continue
            vs = start[j]
            ve = rd_find(s + vs, n - vs, <const uint8_t *>"\r\n", 2)
            ve = vs + ve if ve >= 0 else n - 1  # (text[i:-1] when there is no CRLF after)
            if ve < vs:
                ve = vs  # (text[i:-1] is empty when the block ends with the colon)
            while vs < ve and _str_space(s[vs]):
                vs += 1
            while ve > vs and _str_space(s[ve - 1]):
                ve -= 1
            out[names[j]] = PyUnicode_DecodeASCII(<const char *>(s + vs), ve - vs, NULL)
        return out
    finally:
        if low != <uint8_t *>stack:
            PyMem_Free(low)


# --------------------------------------------------------------------------------------------------
# HTTP response heads (redecode.http.parse_response_head)


cdef inline bint _field_space(uint8_t c) noexcept nogil:
    # what redecode.http strips around field names and values: SP, HTAB, CR
    return c == 0x20 or c == 0x09 or c == 0x0D


cdef inline object _latin1(const uint8_t *s, Py_ssize_t a, Py_ssize_t b):
    """s[a:b] decoded as ISO-8859-1 after stripping SP, HTAB and CR from both ends."""
    while a < b and _field_space(s[a]):
        a += 1
    while b > a and _field_space(s[b - 1]):
        b -= 1
    return PyUnicode_DecodeLatin1(<const char *>(s + a), b - a, NULL)


cdef inline Py_ssize_t _line_end(const uint8_t *s, Py_ssize_t i, Py_ssize_t end) noexcept nogil:
    """The index of the first line feed in s[i:end], or end."""
    cdef const void *p
    if i >= end:
        return end
    p = memchr(s + i, 0x0A, <size_t>(end - i))
    return end if p == NULL else <Py_ssize_t>((<const uint8_t *>p) - s)


def http_head(bytes block):
    """The compiled twin of :func:`redecode.http.parse_response_head` (RFC 9112 "Message Format"
    for a response, with that function's deviations): None when *block* (bytes) does not start
    with ``HTTP/``, else ``(version, status, reason, headers, head_length, terminated)`` as its
    :class:`redecode.http.HttpHead` holds them. Names and values are ISO-8859-1 ``str``, stripped
    of SP, HTAB and CR; obs-fold lines joined to the value before with one space."""
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(block)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(block)
    cdef Py_ssize_t crlf, lf, fe, bs, e0, a, b, sp, r, ls, le, colon
    cdef bint terminated = True, folded = False
    cdef const void *p
    if n < 5 or memcmp(s, b"HTTP/", 5) != 0:
        return None
    # the first empty line: CRLF, or a bare LF one before it (never the whole body scanned for it)
    crlf = rd_find(s, n, <const uint8_t *>"\n\r\n", 3)
    lf = rd_find(s, crlf + 2 if crlf >= 0 else n, <const uint8_t *>"\n\n", 2)
    if lf >= 0:
        fe, bs = lf + 1, lf + 2
    elif crlf >= 0:
        fe, bs = crlf + 1, crlf + 3
    else:
        fe = bs = n
        terminated = False
    # the status-line: version, the first 3 digits after it, the reason phrase
    e0 = _line_end(s, 0, fe)
    a, b = 0, e0
    while a < b and _field_space(s[a]):
        a += 1
    while b > a and _field_space(s[b - 1]):
        b -= 1
    p = memchr(s + a, 0x20, <size_t>(b - a)) if b > a else NULL
    sp = b if p == NULL else <Py_ssize_t>((<const uint8_t *>p) - s)
    version = PyUnicode_DecodeLatin1(<const char *>(s + a), sp - a, NULL)
    r = sp + 1 if sp < b else b
    while r < b and (s[r] == 0x20 or s[r] == 0x09):
        r += 1
    status = None
    if b - r >= 3 and 0x30 <= s[r] <= 0x39 and 0x30 <= s[r + 1] <= 0x39 and 0x30 <= s[r + 2] <= 0x39:
        status = (s[r] - 0x30) * 100 + (s[r + 1] - 0x30) * 10 + (s[r + 2] - 0x30)
        r += 3
        while r < b and (s[r] == 0x20 or s[r] == 0x09):
            r += 1
    reason = PyUnicode_DecodeLatin1(<const char *>(s + r), b - r, NULL)
    # obs-fold: some line of the head starts with SP or HTAB
    ls = e0
    while ls < fe:
        if ls + 1 < fe and (s[ls + 1] == 0x20 or s[ls + 1] == 0x09):
            folded = True
            break
        ls = _line_end(s, ls + 1, fe)
    headers = []
    ls = e0 + 1
    while ls < fe:
        le = _line_end(s, ls, fe)
        if folded and (s[ls] == 0x20 or s[ls] == 0x09):
            if headers:  # (the module is compiled without wraparound: no headers[-1])
                last = len(headers) - 1
                name, value = headers[last]
                cont = _latin1(s, ls, le)
                headers[last] = (name, f"{value} {cont}" if value else cont)
            ls = le + 1
            continue
        p = memchr(s + ls, 0x3A, <size_t>(le - ls)) if le > ls else NULL
        if p != NULL:
            colon = <Py_ssize_t>((<const uint8_t *>p) - s)
            headers.append((_latin1(s, ls, colon), _latin1(s, colon + 1, le)))
        ls = le + 1
    return version, status, reason, headers, bs, terminated


# --------------------------------------------------------------------------------------------------
# Byte search (redecode.warc)


def find(bytes haystack, bytes needle):
    """``haystack.find(needle)`` (bytes; *needle* not empty): the offset of its first occurrence,
    or -1. A memchr for the needle's first byte, then a compare: fast where that byte is rare
    (``WARC/`` in a payload), where ``bytes.find`` steps through every byte."""
    cdef Py_ssize_t m = PyBytes_GET_SIZE(needle)
    if m == 0:
        raise ValueError("empty needle")
    return rd_find(<const uint8_t *>PyBytes_AS_STRING(haystack), PyBytes_GET_SIZE(haystack),
                   <const uint8_t *>PyBytes_AS_STRING(needle), m)


# --------------------------------------------------------------------------------------------------
# The author's-text byte profile (redecode.validate): each measure in one pass over its bytes


cdef inline void _window(Py_ssize_t n, Py_ssize_t start, Py_ssize_t window, Py_ssize_t *a,
                         Py_ssize_t *b) noexcept nogil:
    """payload[start:start + window]'s bounds for start >= 0 and window >= 0, as Python slices."""
    a[0] = start if start < n else n
    b[0] = start + window if start + window < n else n
    if b[0] < a[0]:
        b[0] = a[0]


def first_non_ascii(bytes data):
    """The offset of *data*'s first byte above 0x7F (``re.search(rb"[\\x80-\\xff]", data)``'s
    start), or -1 when there is none."""
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef Py_ssize_t i = rd_ascii_len(<const uint8_t *>PyBytes_AS_STRING(data), n)
    return i if i < n else -1


cdef uint8_t _BINARY_BYTE[256]
for _b in range(256):
    # MIME Sniffing's "binary data bytes": C0 controls but TAB, LF, FF, CR and ESC
    _BINARY_BYTE[_b] = _b < 0x20 and _b not in (0x09, 0x0A, 0x0C, 0x0D, 0x1B)


def binary_bytes(bytes data):
    """How many of *data*'s bytes are MIME Sniffing "binary data bytes" (0x00-0x08, 0x0B,
    0x0E-0x1A, 0x1C-0x1F): :func:`redecode.validate.binary_bytes`."""
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data), i = 0, j, c = 0
    cdef uint64_t x, ones = 0x0101010101010101ULL
    # eight bytes at a time: a word without a byte below 0x20 holds none (text has few)
    while i + 8 <= n:
        memcpy(&x, s + i, 8)
        if ((x - ones * 0x20) & ~x & (ones * 0x80)) != 0:
            for j in range(i, i + 8):
                c += _BINARY_BYTE[s[j]]
        i += 8
    while i < n:
        c += _BINARY_BYTE[s[i]]
        i += 1
    return c


cdef extern from *:
    """
    /* The checks' byte passes (runs_share, symbols_in_words, script_letters, class_anomalies) read
       their bytes 64 at a time as bit masks: bit j of a chunk's mask for byte s[j] of the chunk.
       With AVX2 (where the processor has it: rd_simd) a mask is made 32 bytes a step; else byte by
       byte. rd_set_simd(0) turns AVX2 off for these and for utf8_length_errors (tests run both). */
    static int rd_simd_off = 0;

    static int rd_simd(void) {
    #ifdef RD_AVX2
        return !rd_simd_off && rd_avx2();
    #else
        return 0;
    #endif
    }

    /* Turn the AVX2 paths of the checks' passes off (0) or back on (1); returns the previous
       setting. (For tests: both paths give the same answers.) */
    static int rd_set_simd(int on) {
        int was = !rd_simd_off;
        rd_simd_off = !on;
        return was;
    }

    /* rd_pairs8's long runs with AVX2 (rd_simd): eight pairs a step, their forms gathered by
       their indexes; when all eight are 3-byte forms (most of a CJK page) their first three bytes
       are packed and stored at once, else the eight are taken one by one as rd_pairs8 takes them;
       then four pairs the same way where they are there. Returns the index of the first byte not
       decoded (*po the next output index): the end of the run, or where the steps stop (rd_pairs8
       goes on from there). */
    #ifdef RD_AVX2
    __attribute__((target("avx2"))) static Py_ssize_t rd_pairs8_avx2(
            const uint8_t *s, Py_ssize_t i, Py_ssize_t n, const uint8_t *u8s, uint8_t *out, Py_ssize_t *po) {
        const int *forms = (const int *)(const void *)u8s;
        /* each 16-bit lane's two bytes swapped (a pair's index is its lead's low 7 bits, then its trail) */
        const __m128i swap = _mm_setr_epi8(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14);
        const __m128i low15 = _mm_set1_epi16(0x7FFF);
        /* each lane's four forms' first three bytes, packed into its first twelve */
        const __m256i pack = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
                                              0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
        const __m256i three = _mm256_set1_epi32(3);
        Py_ssize_t o = *po;
        int j;
        while (i + 16 <= n) {
            __m128i x = _mm_loadu_si128((const __m128i *)(s + i));
            if ((_mm_movemask_epi8(x) & 0x5555) != 0x5555)
                break;  /* (an ASCII byte where a lead should be: the run ends in these 16 bytes) */
            __m256i idx = _mm256_cvtepu16_epi32(_mm_and_si128(_mm_shuffle_epi8(x, swap), low15));
            __m256i e = _mm256_i32gather_epi32(forms, idx, 4);
            if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(_mm256_srli_epi32(e, 24), three)) == -1) {
                __m256i packed = _mm256_shuffle_epi8(e, pack);
                _mm_storeu_si128((__m128i *)(out + o), _mm256_castsi256_si128(packed));
                _mm_storeu_si128((__m128i *)(out + o + 12), _mm256_extracti128_si256(packed, 1));
                o += 24;
                i += 16;
                continue;
            }
            /* some form is not 3 bytes (or not made yet): the eight one by one, as rd_pairs8 */
            for (j = 0; j < 8; j++) {
                uint8_t b = s[i];
                if (b < 0x80)
                    goto done;
                const uint8_t *u = u8s + 4 * ((((Py_ssize_t)b & 0x7F) << 8) | s[i + 1]);
                uint8_t m = u[3];
                if (m == 0)
                    goto done;
                memcpy(out + o, u, 4);
                o += m;
                i += 2;
            }
        }
        /* four pairs the same way (a shorter run, or the end of a long one) */
        if (i + 8 <= n) {
            __m128i x = _mm_loadl_epi64((const __m128i *)(s + i));
            if ((_mm_movemask_epi8(x) & 0x55) == 0x55) {
                __m128i idx = _mm_cvtepu16_epi32(_mm_and_si128(_mm_shuffle_epi8(x, swap), low15));
                __m128i e = _mm_i32gather_epi32(forms, idx, 4);
                if (_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_srli_epi32(e, 24), _mm256_castsi256_si128(three))) == 0xFFFF) {
                    _mm_storeu_si128((__m128i *)(out + o), _mm_shuffle_epi8(e, _mm256_castsi256_si128(pack)));
                    o += 12;
                    i += 8;
                }
            }
        }
    done:
        *po = o;
        return i;
    }
    #endif

    static Py_ssize_t rd_pairs8_wide(const uint8_t *s, Py_ssize_t i, Py_ssize_t n, const uint8_t *u8s,
                                     uint8_t *out, Py_ssize_t *po) {
    #ifdef RD_AVX2
        if (rd_simd())
            return rd_pairs8_avx2(s, i, n, u8s, out, po);
    #endif
        return i;
    }

    /* decode_to_utf8's single-byte loop with AVX2 (rd_simd), 32 input bytes a step, from s[i] while
       32 are left: an all-ASCII block stored whole; a block with at most eight bytes above 0x7F
       (Latin text) as its ASCII stretches, each stored with one 32-byte store (the output has 32
       bytes of room past what it needs: its caller's), and each such byte's UTF-8 form from the
       table; a denser block byte by byte through the table. *holes*: count the bytes the table
       maps to U+FFFD (table16) into *errors. Returns the index of the first byte not decoded;
       *po the next output index. */
    #ifdef RD_AVX2
    __attribute__((target("avx2,popcnt"))) static Py_ssize_t rd_single_utf8_avx2(
            const uint8_t *s, Py_ssize_t i, Py_ssize_t n, const uint32_t *forms, const uint8_t *lens,
            const uint16_t *table16, int holes, uint8_t *out, Py_ssize_t *po, Py_ssize_t *errors) {
        Py_ssize_t o = *po, err = 0;
        while (i + 32 <= n) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(s + i));
            uint32_t m = (uint32_t)_mm256_movemask_epi8(x);
            if (m == 0) {
                _mm256_storeu_si256((__m256i *)(out + o), x);
                o += 32;
                i += 32;
                continue;
            }
            if (__builtin_popcount(m) <= 8) {
                Py_ssize_t p = 0;
                while (m) {
                    Py_ssize_t k = __builtin_ctz(m);
                    uint8_t b = s[i + k];
                    m &= m - 1;
                    _mm256_storeu_si256((__m256i *)(out + o), _mm256_loadu_si256((const __m256i *)(s + i + p)));
                    o += k - p;
                    memcpy(out + o, &forms[b], 4);
                    o += lens[b];
                    if (holes)
                        err += table16[b] == 0xFFFD;
                    p = k + 1;
                }
                _mm256_storeu_si256((__m256i *)(out + o), _mm256_loadu_si256((const __m256i *)(s + i + p)));
                o += 32 - p;
                i += 32;
                continue;
            }
            {
                Py_ssize_t e = i + 32;
                for (; i < e; i++) {
                    uint8_t b = s[i];
                    memcpy(out + o, &forms[b], 4);
                    o += lens[b];
                    if (holes)
                        err += table16[b] == 0xFFFD;
                }
            }
        }
        *po = o;
        *errors += err;
        return i;
    }
    #endif

    static Py_ssize_t rd_single_utf8_wide(const uint8_t *s, Py_ssize_t i, Py_ssize_t n, const uint32_t *forms,
                                          const uint8_t *lens, const uint16_t *table16, int holes, uint8_t *out,
                                          Py_ssize_t *po, Py_ssize_t *errors) {
    #ifdef RD_AVX2
        if (rd_simd())
            return rd_single_utf8_avx2(s, i, n, forms, lens, table16, holes, out, po, errors);
    #endif
        return i;
    }

    /* decode_single_byte's two passes with AVX2 (rd_simd). Every table maps an ASCII byte to
       itself, so a block of input is written whole (widened for 16-bit units) and then its bytes
       above 0x7F are written again from the table, one by one.
       rd_single8: o1[i:] for 32 bytes a step while 32 are left and every code point is below
       U+0100; returns the first index of a block not written (a byte whose code point is above
       U+00FF is in it, or fewer than 32 bytes are left: the caller's loop goes on from there).
       rd_single16: o2[i:] for 16 bytes a step while 16 are left, the U+FFFD written counted into
       *errors; returns the first index not written. */
    #ifdef RD_AVX2
    __attribute__((target("avx2"))) static Py_ssize_t rd_single8_avx2(const uint8_t *s, Py_ssize_t i, Py_ssize_t n,
                                                                      const uint16_t *table, uint8_t *o1) {
        while (i + 32 <= n) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(s + i));
            uint32_t m = (uint32_t)_mm256_movemask_epi8(x);
            _mm256_storeu_si256((__m256i *)(o1 + i), x);
            while (m) {
                Py_ssize_t k = i + __builtin_ctz(m);
                uint16_t c = table[s[k]];
                if (c > 0xFF)
                    return i;
                o1[k] = (uint8_t)c;
                m &= m - 1;
            }
            i += 32;
        }
        return i;
    }

    __attribute__((target("avx2,popcnt"))) static Py_ssize_t rd_single16_avx2(
            const uint8_t *s, Py_ssize_t i, Py_ssize_t n, const uint16_t *table, uint16_t *o2, Py_ssize_t *errors) {
        Py_ssize_t err = 0, k;
        while (i + 16 <= n) {
            __m128i x = _mm_loadu_si128((const __m128i *)(s + i));
            uint32_t m = (uint32_t)_mm_movemask_epi8(x);
            if (__builtin_popcount(m) > 6) {
                for (k = i; k < i + 16; k++) {
                    uint16_t c = table[s[k]];
                    err += c == 0xFFFD;
                    o2[k] = c;
                }
            } else {
                _mm256_storeu_si256((__m256i *)(o2 + i), _mm256_cvtepu8_epi16(x));
                while (m) {
                    k = i + __builtin_ctz(m);
                    uint16_t c = table[s[k]];
                    err += c == 0xFFFD;
                    o2[k] = c;
                    m &= m - 1;
                }
            }
            i += 16;
        }
        *errors += err;
        return i;
    }
    #endif

    static Py_ssize_t rd_single8(const uint8_t *s, Py_ssize_t i, Py_ssize_t n, const uint16_t *table, uint8_t *o1) {
    #ifdef RD_AVX2
        if (rd_simd())
            return rd_single8_avx2(s, i, n, table, o1);
    #endif
        return i;
    }

    static Py_ssize_t rd_single16(const uint8_t *s, Py_ssize_t i, Py_ssize_t n, const uint16_t *table, uint16_t *o2,
                                  Py_ssize_t *errors) {
    #ifdef RD_AVX2
        if (rd_simd())
            return rd_single16_avx2(s, i, n, table, o2, errors);
    #endif
        return i;
    }

    /* Bits 0..k-1 set (k in 0..64). */
    static inline uint64_t rd_low_bits(Py_ssize_t k) {
        return k >= 64 ? ~0ULL : ((1ULL << k) - 1);
    }

    /* The bytes above 0x7F of p[:len] (len <= 64) as a mask. */
    #ifdef RD_AVX2
    __attribute__((target("avx2"))) static inline uint64_t rd_high64_avx2(const uint8_t *p) {
        uint32_t lo = (uint32_t)_mm256_movemask_epi8(_mm256_loadu_si256((const __m256i *)p));
        uint32_t hi = (uint32_t)_mm256_movemask_epi8(_mm256_loadu_si256((const __m256i *)(p + 32)));
        return ((uint64_t)hi << 32) | lo;
    }
    #endif

    RD_INLINE uint64_t rd_high64(const uint8_t *p, Py_ssize_t len, int simd) {
        uint64_t m = 0, x;
        Py_ssize_t j;
    #ifdef RD_AVX2
        if (simd && len == 64)
            return rd_high64_avx2(p);
    #endif
        j = 0;
        for (; j + 8 <= len; j += 8) {
            memcpy(&x, p + j, 8);
            /* the top bit of each byte gathered into 8 bits (bit k for byte k) */
            m |= ((((x & RD_HIGH) >> 7) * 0x0102040810204080ULL) >> 56) << j;
        }
        for (; j < len; j++)
            m |= (uint64_t)(p[j] >> 7) << j;
        return m;
    }

    /* Classes of bytes: a 256-byte table of class bytes and up to four class bytes asked for.
       For AVX2, the bytes of each class as bitmaps read with two 16-entry lookups (the classic
       nibble lookup): lo[c][x & 15] has bit h when the byte (h << 4) | (x & 15) is of class c,
       for h < 8; hi[c][x & 15] the same with bit h - 8 for h >= 8. */
    typedef struct {
        const uint8_t *table;
        int k;
        uint8_t cls[4];
        uint8_t lo[4][16];
        uint8_t hi[4][16];
    } rd_classes;

    static void rd_classes_init(rd_classes *c, const uint8_t *table, int k, const uint8_t *cls) {
        int j, x;
        memset(c, 0, sizeof *c);
        c->table = table;
        c->k = k;
        for (j = 0; j < k; j++)
            c->cls[j] = cls[j];
        for (x = 0; x < 256; x++)
            for (j = 0; j < k; j++)
                if (table[x] == cls[j]) {
                    if (x < 128)
                        c->lo[j][x & 15] |= (uint8_t)(1 << (x >> 4));
                    else
                        c->hi[j][x & 15] |= (uint8_t)(1 << ((x >> 4) - 8));
                }
    }

    #ifdef RD_AVX2
    __attribute__((target("avx2"))) static inline void rd_classes32_avx2(const rd_classes *c, const uint8_t *p,
                                                                  uint32_t *out) {
        const __m256i low = _mm256_set1_epi8(0x0F);
        const __m256i bit_lo = _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0,
                                                1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0);
        const __m256i bit_hi = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, -128,
                                                0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, -128);
        __m256i x = _mm256_loadu_si256((const __m256i *)p);
        __m256i xl = _mm256_and_si256(x, low);
        __m256i xh = _mm256_and_si256(_mm256_srli_epi16(x, 4), low);
        __m256i bl = _mm256_shuffle_epi8(bit_lo, xh), bh = _mm256_shuffle_epi8(bit_hi, xh);
        int j;
        for (j = 0; j < c->k; j++) {
            __m256i tl = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)c->lo[j]));
            __m256i th = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)c->hi[j]));
            __m256i m = _mm256_or_si256(_mm256_and_si256(_mm256_shuffle_epi8(tl, xl), bl),
                                        _mm256_and_si256(_mm256_shuffle_epi8(th, xl), bh));
            out[j] = ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(m, _mm256_setzero_si256()));
        }
    }
    #endif

    /* out[j]: the mask of the bytes of p[:len] (len <= 64) of class c->cls[j]; bits from len on 0. */
    RD_INLINE void rd_classes64(const rd_classes *c, const uint8_t *p, Py_ssize_t len, int simd, uint64_t *out) {
        int j;
        Py_ssize_t i;
    #ifdef RD_AVX2
        if (simd) {
            uint32_t a[4], b[4];
            uint8_t buf[64];
            if (len < 64) {
                memset(buf, 0, 64);
                memcpy(buf, p, (size_t)len);
                p = buf;
            }
            rd_classes32_avx2(c, p, a);
            rd_classes32_avx2(c, p + 32, b);
            for (j = 0; j < c->k; j++)
                out[j] = (((uint64_t)b[j] << 32) | a[j]) & rd_low_bits(len);
            return;
        }
    #endif
        for (j = 0; j < c->k; j++)
            out[j] = 0;
        for (i = 0; i < len; i++) {
            uint8_t v = c->table[p[i]];
            for (j = 0; j < c->k; j++)
                out[j] |= (uint64_t)(v == c->cls[j]) << i;
        }
    }

    #define RD_EVEN 0x5555555555555555ULL
    #define RD_ODD 0xAAAAAAAAAAAAAAAAULL

    /* runs_share's counts over s[a:b]: the bytes above 0x7F (*high) and the non-overlapping pairs
       of adjacent ones (*pairs: a run of r such bytes holds r // 2). */
    RD_INLINE void rd_runs_body(const uint8_t *s, Py_ssize_t a, Py_ssize_t b, Py_ssize_t *high, Py_ssize_t *pairs,
                                int simd) {
        Py_ssize_t h = 0, p = 0, run = 0, i, len;
        for (i = a; i < b; i += 64) {
            len = b - i < 64 ? b - i : 64;
            uint64_t m = rd_high64(s + i, len, simd);
            h += __builtin_popcountll(m);
            if (m == ~0ULL) {  /* (len is 64) the open run goes on */
                run += 64;
                continue;
            }
            /* the bits from 0 on continue the run open before this chunk, which ends here */
            run += __builtin_ctzll(~m);
            p += run >> 1;
            run = 0;
            m &= m + 1;
            /* the bits up to 63 (a full chunk) open a run that the next chunk may go on with */
            if (len == 64 && (m >> 63)) {
                int t = __builtin_clzll(~m);
                run = t;
                m &= ~0ULL >> t;
            }
            if (m) {
                /* the runs inside: a run from bit u to bit e (its first bit not set) has an odd
                   length when u and e differ in parity; adding its first bit carries to e */
                uint64_t starts = m & ~(m << 1);
                uint64_t ends_e = (m + (starts & RD_EVEN)) & ~m;
                uint64_t ends_o = (m + (starts & RD_ODD)) & ~m;
                Py_ssize_t odd = __builtin_popcountll(ends_e & RD_ODD) + __builtin_popcountll(ends_o & RD_EVEN);
                p += (__builtin_popcountll(m) - odd) >> 1;
            }
        }
        p += run >> 1;
        *high = h;
        *pairs = p;
    }

    /* script_letters' and class_anomalies' counts over s[a:b] with classes (a, s, l, u) = c->cls:
       *other the bytes of class cls[0] ("a": *high = b - a less them), *sym those of cls[1], *flips
       a byte of cls[2] right before one of cls[3]. With c->k == 3 the classes are (s, l, u). */
    RD_INLINE void rd_letters_body(const rd_classes *c, const uint8_t *s, Py_ssize_t a, Py_ssize_t b,
                                   Py_ssize_t *first, Py_ssize_t *sym, Py_ssize_t *flips, int simd) {
        Py_ssize_t n0 = 0, n1 = 0, f = 0, i, len;
        uint64_t m[4], prev_l = 0;
        int o = c->k - 3;  /* (the masks of s, l, u are m[o], m[o + 1], m[o + 2]) */
        for (i = a; i < b; i += 64) {
            len = b - i < 64 ? b - i : 64;
            rd_classes64(c, s + i, len, simd, m);
            if (o)
                n0 += __builtin_popcountll(m[0]);
            n1 += __builtin_popcountll(m[o]);
            f += __builtin_popcountll(m[o + 1] & (m[o + 2] >> 1)) + (Py_ssize_t)(prev_l & m[o + 2] & 1);
            prev_l = m[o + 1] >> 63;
        }
        *first = n0;
        *sym = n1;
        *flips = f;
    }

    /* symbols_in_words' count over s[a:b] with classes (a, s) = c->cls: t.count(b"asa") +
       t.count(b"asasa") of the translated bytes t, each count left to right without overlap (as
       bytes.count): an occurrence at p is taken when it starts at or after the end of the last
       one taken. Each chunk's occurrences are known once the next chunk's masks are (the
       patterns reach 4 bytes on). */
    RD_INLINE Py_ssize_t rd_symbols_body(const rd_classes *c, const uint8_t *s, Py_ssize_t a, Py_ssize_t b,
                                         int simd) {
        Py_ssize_t i, len, next3 = 0, next5 = 0, count = 0, base;
        uint64_t cur[2], nxt[2] = {0, 0}, occ3, occ3n, occ5;
        if (b <= a)
            return 0;
        len = b - a < 64 ? b - a : 64;
        rd_classes64(c, s + a, len, simd, nxt);
        for (base = a; base < b; base += 64) {
            cur[0] = nxt[0];
            cur[1] = nxt[1];
            i = base + 64;
            if (i < b) {
                len = b - i < 64 ? b - i : 64;
                rd_classes64(c, s + i, len, simd, nxt);
            } else {
                nxt[0] = nxt[1] = 0;
            }
            /* "asa" at p: a at p, s at p + 1, a at p + 2 (p + 1, p + 2 may be in the next chunk) */
            occ3 = cur[0] & ((cur[1] >> 1) | (nxt[1] << 63)) & ((cur[0] >> 2) | (nxt[0] << 62));
            if (!occ3)
                continue;
            /* "asasa" at p: "asa" at p and at p + 2 (the next chunk's first two from its masks) */
            occ3n = nxt[0] & (nxt[1] >> 1) & (nxt[0] >> 2);
            occ5 = occ3 & ((occ3 >> 2) | (occ3n << 62));
            while (occ3) {
                Py_ssize_t p = base + __builtin_ctzll(occ3);
                occ3 &= occ3 - 1;
                if (p >= next3) {
                    count++;
                    next3 = p + 3;
                }
            }
            while (occ5) {
                Py_ssize_t p = base + __builtin_ctzll(occ5);
                occ5 &= occ5 - 1;
                if (p >= next5) {
                    count++;
                    next5 = p + 5;
                }
            }
        }
        return count;
    }

    /* The three passes, each compiled twice: for AVX2 and POPCNT, and for any processor. */
    #ifdef RD_AVX2
    __attribute__((target("avx2,popcnt"))) static void rd_runs_avx2(
            const uint8_t *s, Py_ssize_t a, Py_ssize_t b, Py_ssize_t *high, Py_ssize_t *pairs) {
        rd_runs_body(s, a, b, high, pairs, 1);
    }
    __attribute__((target("avx2,popcnt"))) static void rd_letters_avx2(
            const rd_classes *c, const uint8_t *s, Py_ssize_t a, Py_ssize_t b, Py_ssize_t *first,
            Py_ssize_t *sym, Py_ssize_t *flips) {
        rd_letters_body(c, s, a, b, first, sym, flips, 1);
    }
    __attribute__((target("avx2,popcnt"))) static Py_ssize_t rd_symbols_avx2(
            const rd_classes *c, const uint8_t *s, Py_ssize_t a, Py_ssize_t b) {
        return rd_symbols_body(c, s, a, b, 1);
    }
    #endif

    static void rd_runs(const uint8_t *s, Py_ssize_t a, Py_ssize_t b, Py_ssize_t *high, Py_ssize_t *pairs) {
    #ifdef RD_AVX2
        if (rd_simd()) {
            rd_runs_avx2(s, a, b, high, pairs);
            return;
        }
    #endif
        rd_runs_body(s, a, b, high, pairs, 0);
    }

    static void rd_letters(const rd_classes *c, const uint8_t *s, Py_ssize_t a, Py_ssize_t b,
                           Py_ssize_t *first, Py_ssize_t *sym, Py_ssize_t *flips) {
    #ifdef RD_AVX2
        if (rd_simd()) {
            rd_letters_avx2(c, s, a, b, first, sym, flips);
            return;
        }
    #endif
        rd_letters_body(c, s, a, b, first, sym, flips, 0);
    }

    static Py_ssize_t rd_symbols(const rd_classes *c, const uint8_t *s, Py_ssize_t a, Py_ssize_t b) {
    #ifdef RD_AVX2
        if (rd_simd())
            return rd_symbols_avx2(c, s, a, b);
    #endif
        return rd_symbols_body(c, s, a, b, 0);
    }
    """
    int rd_set_simd(int on) nogil
    Py_ssize_t rd_single8(const uint8_t *s, Py_ssize_t i, Py_ssize_t n, const uint16_t *table, uint8_t *o1) nogil
    Py_ssize_t rd_single16(const uint8_t *s, Py_ssize_t i, Py_ssize_t n, const uint16_t *table, uint16_t *o2,
                           Py_ssize_t *errors) nogil
    Py_ssize_t rd_single_utf8_wide(const uint8_t *s, Py_ssize_t i, Py_ssize_t n, const uint32_t *forms,
                                   const uint8_t *lens, const uint16_t *table16, int holes, uint8_t *out,
                                   Py_ssize_t *po, Py_ssize_t *errors) nogil
    ctypedef struct rd_classes:
        pass
    void rd_classes_init(rd_classes *c, const uint8_t *table, int k, const uint8_t *cls) nogil
    void rd_runs(const uint8_t *s, Py_ssize_t a, Py_ssize_t b, Py_ssize_t *high, Py_ssize_t *pairs) nogil
    void rd_letters(const rd_classes *c, const uint8_t *s, Py_ssize_t a, Py_ssize_t b,
                    Py_ssize_t *first, Py_ssize_t *sym, Py_ssize_t *flips) nogil
    Py_ssize_t rd_symbols(const rd_classes *c, const uint8_t *s, Py_ssize_t a, Py_ssize_t b) nogil


def _simd(bint on):
    """Turn the AVX2 paths of the checks' byte passes and of :func:`utf8_length_errors` off
    (False) or back on (True, where the processor has AVX2); returns the previous setting. For
    tests, which run both paths against the pure twins."""
    return bool(rd_set_simd(on))


cdef class _Classes:
    """A table's :c:type:`rd_classes` for some class bytes, made once per table (kept in a dict
    keyed by the table, cleared past 256 tables)."""
    cdef rd_classes c
    cdef bytes table  # (kept alive: c points into it)

    def __cinit__(self, bytes table, bytes classes):
        self.table = table
        rd_classes_init(&self.c, <const uint8_t *>PyBytes_AS_STRING(table), <int>len(classes),
                        <const uint8_t *>PyBytes_AS_STRING(classes))


cdef dict _CLASSES_ASLU = {}  # table -> its _Classes for (a, s, l, u)
cdef dict _CLASSES_SLU = {}  # table -> its _Classes for (s, l, u)
cdef dict _CLASSES_AS = {}  # table -> its _Classes for (a, s)


cdef _Classes _classes(dict cache, bytes table, bytes classes):
    if PyBytes_GET_SIZE(table) != 256:
        raise ValueError("table must be 256 bytes")
    cdef object found = cache.get(table)
    if found is not None:
        return <_Classes>found
    if len(cache) >= 256:
        cache.clear()
    cdef _Classes made = _Classes(table, classes)
    cache[table] = made
    return made


def runs_share(bytes payload, Py_ssize_t start, Py_ssize_t window, Py_ssize_t min_bytes):
    """:func:`redecode.validate.runs_share` (start and window >= 0): twice the non-overlapping
    pairs of adjacent bytes above 0x7F over those bytes, in ``payload[start:start + window]``;
    0.0 with fewer than *min_bytes* of them. (Their masks 64 bytes a step: rd_runs.)"""
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(payload)
    cdef Py_ssize_t a, b, high, pairs
    _window(PyBytes_GET_SIZE(payload), start, window, &a, &b)
    rd_runs(s, a, b, &high, &pairs)
    if high < min_bytes:
        return 0.0
    return <double>(2 * pairs) / <double>high


def symbols_in_words(bytes payload, bytes table, Py_ssize_t start, Py_ssize_t window, Py_ssize_t min_bytes):
    """:func:`redecode.validate.symbols_in_words` (start and window >= 0), *table* its 256-byte
    translation (letters to ``a``, the symbols to ``s``, the rest to a space; ValueError for
    another length): ``(t.count(b"asa") + t.count(b"asasa")) / high`` of the translated window
    *t* without making it (rd_symbols), 0.0 with fewer than *min_bytes* bytes above 0x7F."""
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(payload)
    cdef Py_ssize_t a, b, high, pairs, k
    cdef _Classes cl = _classes(_CLASSES_AS, table, b"as")
    _window(PyBytes_GET_SIZE(payload), start, window, &a, &b)
    rd_runs(s, a, b, &high, &pairs)
    if high < min_bytes:
        return 0.0
    k = rd_symbols(&cl.c, s, a, b)
    return <double>k / <double>high


def script_letters(bytes payload, bytes table, Py_ssize_t start, Py_ssize_t window, Py_ssize_t min_bytes):
    """:func:`redecode.validate.script_letters` (start and window >= 0), *table* its 256-byte
    translation (ASCII to ``a``, lower-case letters ``l``, upper-case ``u``, other letters ``o``,
    the rest ``s``; ValueError for another length): ``(non_letters, case_flips)``, shares of the
    window's bytes not translated to ``a`` (``(0.0, 0.0)`` with fewer than *min_bytes* of them):
    those translated to ``s``, and the ``l`` right before a ``u`` (rd_letters)."""
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(payload)
    cdef Py_ssize_t a, b, high, ascii, other, flips
    cdef _Classes cl = _classes(_CLASSES_ASLU, table, b"aslu")
    _window(PyBytes_GET_SIZE(payload), start, window, &a, &b)
    rd_letters(&cl.c, s, a, b, &ascii, &other, &flips)
    high = (b - a) - ascii
    if high < min_bytes:
        return 0.0, 0.0
    return <double>other / <double>high, <double>flips / <double>high


def utf8_signal(bytes payload, Py_ssize_t tries):
    """The plain cases of :func:`redecode.validate._utf8_signal` (check e) in one pass: ``(True,
    0)`` for valid UTF-8; ``(False, first)`` when no valid multi-byte sequence comes before the
    *tries*-th invalid one (or the end), *first* being the offset of the first invalid one; None
    when a valid multi-byte sequence comes before that (then the Python function decides: mostly
    valid UTF-8 or not). Invalid sequences are the Encoding Standard UTF-8 decoder's errors (a
    maximal invalid subpart each, as Python's decoder reports them)."""
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(payload)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(payload), i = 0, p, first = -1, skipped = 0
    cdef uint8_t b
    if rd_utf8_valid_count(s, n) >= 0:
        return True, 0
    while i < n:
        b = s[i]
        if b < 0x80:
            i += rd_ascii_len(s + i, n - i)
            continue
        p = i
        i += 1
        if _utf8_sequence(s, n, &i, b):
            return None  # a valid multi-byte sequence, then (the payload is not valid) an invalid one
        if first < 0:
            first = p
        skipped += 1
        if skipped >= tries:
            return False, first
    return False, first  # (invalid sequences only, fewer than tries: not UTF-8)


# ==================================================================================================
# Language plausibility scorer (redecode.language; owned with lib/redecode/language.py)
# ==================================================================================================
#
# The compiled twin of redecode.language._score_texts (the pure-Python reference: read it first;
# every step here mirrors one there, in the same order, and tests/test_language.py proves the two
# give identical rows on random and corpus readings). The tables are language.py's (generated by
# tools/gen_language_tables.py), copied into C arrays once: every score is a sum of integers in
# table units, so both scorers give the same numbers exactly.

cimport cython
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport calloc, free, malloc, realloc

cdef extern from "Python.h":
    int PyUnicode_KIND(object o)
    uint32_t PyUnicode_READ(int kind, const void *data, Py_ssize_t index) nogil
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
    bint Py_UNICODE_ISSPACE(uint32_t ch) nogil
    bint Py_UNICODE_ISALNUM(uint32_t ch) nogil
    bint Py_UNICODE_ISDECIMAL(uint32_t ch) nogil
    uint32_t Py_UNICODE_TOLOWER(uint32_t ch) nogil

import unicodedata as _unicodedata

cdef enum:
    _L_CARET = 0x5E   # "^": a word's start (never a word character)
    _L_DOLLAR = 0x24  # "$": a word's end
    _L_LETTER = 0
    _L_DEFECT = 3
    _L_MAXLANG = 64
    _L_DENSE = 4      # a pair of this many languages or more has a row of every language's units


cdef inline bint _l_word_char(uint32_t c) noexcept nogil:
    """language._WORD: neither whitespace, ASCII punctuation or digits, nor C0/C1 controls."""
    if c < 0xA0:
        return (0x41 <= c <= 0x5A) or (0x61 <= c <= 0x7A)
    return not Py_UNICODE_ISSPACE(c)


cdef inline bint _l_control(uint32_t c) noexcept nogil:
    """language._CONTROLS: C0 controls but TAB, LF, FF, CR; DEL; C1 controls."""
    return c <= 0x08 or c == 0x0B or (0x0E <= c <= 0x1F) or (0x7F <= c <= 0x9F)


cdef inline uint32_t _l_fold(uint32_t c) noexcept nogil:
    """language.FOLD."""
    if c == 0x0219:
        return 0x015F
    if c == 0x021B:
        return 0x0163
    if c == 0x06CC:
        return 0x064A
    if c == 0x06A9:
        return 0x0643
    return c


cdef extern from *:
    """
    static inline int redecode_ctz64(unsigned long long x) {
    #if defined(__GNUC__) || defined(__clang__)
        return __builtin_ctzll(x);
    #else
        int n = 0;
        while (!(x & 1)) { x >>= 1; n++; }
        return n;
    #endif
    }
    """
    int _l_ctz "redecode_ctz64"(unsigned long long x) nogil


cdef struct _Counts:
    # an insertion-ordered multiset of 64-bit keys (open addressing): a profile's pairs or
    # letters, in the order of first occurrence
    uint64_t *keys       # in order of first occurrence
    int64_t *counts
    Py_ssize_t n
    Py_ssize_t *slots    # hash slot -> 1 + position, 0 empty
    Py_ssize_t mask
    int shift            # 64 - log2(slots): the hash is the key's top bits times a constant


cdef int _counts_init(_Counts *c, Py_ssize_t capacity) except -1:
    """An empty multiset for at most *capacity* distinct keys (its hash table grows)."""
    c.mask = 63
    c.shift = 58
    c.n = 0
    c.slots = <Py_ssize_t *>calloc(c.mask + 1, sizeof(Py_ssize_t))
    c.keys = <uint64_t *>malloc((capacity + 1) * sizeof(uint64_t))
    c.counts = <int64_t *>malloc((capacity + 1) * sizeof(int64_t))
    if c.slots == NULL or c.keys == NULL or c.counts == NULL:
        raise MemoryError()
    return 0


cdef void _counts_free(_Counts *c) noexcept:
    free(c.slots)
    free(c.keys)
    free(c.counts)
    c.slots = NULL
    c.keys = NULL
    c.counts = NULL


cdef inline int _counts_add(_Counts *c, uint64_t key, int64_t count) except -1:
    """Count *key* *count* times more (the caller sized the multiset for its distinct keys)."""
    cdef Py_ssize_t h, s, i, size
    cdef Py_ssize_t *slots
    if 2 * (c.n + 1) > c.mask + 1:  # at most half full: grow and put the keys back
        size = 2 * (c.mask + 1)
        slots = <Py_ssize_t *>calloc(size, sizeof(Py_ssize_t))
        if slots == NULL:
            raise MemoryError()
        free(c.slots)
        c.slots = slots
        c.mask = size - 1
        c.shift -= 1
        for i in range(c.n):
            h = <Py_ssize_t>((c.keys[i] * <uint64_t>0x9E3779B97F4A7C15) >> c.shift)
            while c.slots[h] != 0:
                h = (h + 1) & c.mask
            c.slots[h] = i + 1
    h = <Py_ssize_t>((key * <uint64_t>0x9E3779B97F4A7C15) >> c.shift)
    while True:
        s = c.slots[h]
        if s == 0:
            c.keys[c.n] = key
            c.counts[c.n] = count
            c.n += 1
            c.slots[h] = c.n
            return 0
        if c.keys[s - 1] == key:
            c.counts[s - 1] += count
            return 0
        h = (h + 1) & c.mask


cdef inline uint64_t _l_rd(const unsigned char *p, int n) noexcept:
    """The little-endian unsigned integer of the *n* bytes at *p* (any alignment)."""
    cdef uint64_t v = 0
    cdef int i
    for i in range(n - 1, -1, -1):
        v = (v << 8) | p[i]
    return v


@cython.final
cdef class _Prof:
    """language._Profile: the fixed cost (table units), the defects, the distinct pairs as model
    indices with their counts, the letters (code points) with their counts, first occurrence
    first."""
    cdef int64_t fixed
    cdef Py_ssize_t defects
    cdef _Counts pairs
    cdef _Counts letters
    cdef int32_t *ia   # the pairs' first letters as model indices
    cdef int32_t *ib   # their second
    cdef int32_t *pe   # their entries in the scorer's pair table (-1: none, see LanguageScorer)
    cdef bint has_neutral
    cdef int64_t neutral

    def __dealloc__(self):
        free(self.ia)
        free(self.ib)
        free(self.pe)
        _counts_free(&self.pairs)
        _counts_free(&self.letters)


@cython.final
cdef class LanguageScorer:
    """The compiled scorer of :mod:`redecode.language` over its compact tables (built once per
    process by ``language._compiled`` from ``data/language-tables.bin.gz``):
    ``score(texts) -> [(language, units, characters, defects)]``, the rows of
    ``language._score_texts``."""
    cdef Py_ssize_t nlang
    cdef Py_ssize_t width        # model indices: 0 unknown, then the letters, "$", "^"
    cdef uint16_t *cp_index      # BMP code point -> model index (0: not in the model)
    cdef int32_t *uni            # [lang * width + index] (the floor for a letter not used)
    cdef int32_t *floor
    cdef uint64_t *native        # [index]: the languages the letter is native to (bit = language)
    cdef uint64_t *uses          # [index]: the languages that use it at all
    cdef uint64_t latin          # the languages that write ASCII letters natively
    # the pair table, keyed once for all languages: slot -> (a << 16 | b) + 1 (0 empty) and its
    # entry; entry -> the languages that have the pair (a bit each) and its items (language,
    # table units) from estart[entry] to estart[entry + 1]; an entry of _L_DENSE languages or
    # more also has a row of nlang units from dense + erow[entry] (-1: none), the second
    # letter's own units where a language has no item
    cdef uint32_t *qkeys
    cdef int32_t *qent
    cdef uint64_t qmask
    cdef int qshift
    cdef uint64_t *emask
    cdef int32_t *estart
    cdef uint8_t *elang
    cdef int32_t *evals
    cdef int32_t *erow
    cdef int32_t *dense
    cdef uint8_t *kinds          # code point -> 1 + class * 3 + case, 0 not met yet
    cdef object kind_of
    cdef int64_t costs[4]
    cdef int64_t case_flip
    cdef Py_ssize_t max_words, context_words, shortlist
    cdef int32_t caret, dollar

    def __cinit__(self, bytes tables, object kind_of, tuple costs, long case_flip,
                  Py_ssize_t max_words, Py_ssize_t context_words, Py_ssize_t shortlist):
        """*tables*: the compact tables (``language.compact_tables``; its comment gives the
        layout), read here into the scorer's arrays with no Python object per entry."""
        cdef const unsigned char *b = tables
        cdef Py_ssize_t size = len(tables), nletters, nuni, npairs, ncodes, o, i, l, hsize
        cdef Py_ssize_t o_native, o_latin, o_floor, o_univ, o_pairv, o_letters, o_unii, o_pa
        cdef Py_ssize_t o_pb, o_unil, o_pairl
        cdef uint32_t a, c2
        cdef int32_t e, nent, ndense
        cdef int32_t *ids
        if size < 60 or tables[:8] != b"RDLANG\x01\x00":
            raise ValueError("not the compact language tables (language.compact_tables)")
        self.nlang = <Py_ssize_t>_l_rd(b + 40, 4)
        nletters = <Py_ssize_t>_l_rd(b + 44, 4)
        nuni = <Py_ssize_t>_l_rd(b + 48, 4)
        npairs = <Py_ssize_t>_l_rd(b + 52, 4)
        ncodes = <Py_ssize_t>_l_rd(b + 56, 4)
        if self.nlang > _L_MAXLANG:
            raise ValueError("at most 64 languages")
        if not 0 <= context_words <= 64 or shortlist > _L_MAXLANG:
            raise ValueError("at most 64 context words and languages")
        self.width = nletters + 3
        if self.width > 0xFFFF:
            raise ValueError("too many letters")
        o_native = 60 + ncodes
        o_latin = o_native + 8 * self.width
        o_floor = o_latin + 8
        o_univ = o_floor + 4 * self.nlang
        o_pairv = o_univ + 4 * nuni
        o_letters = o_pairv + 4 * npairs
        o_unii = o_letters + 2 * nletters
        o_pa = o_unii + 2 * nuni
        o_pb = o_pa + 2 * npairs
        o_unil = o_pb + 2 * npairs
        o_pairl = o_unil + nuni
        if o_pairl + npairs != size:
            raise ValueError("the compact language tables are truncated or too long")
        self.dollar = <int32_t>(nletters + 1)
        self.caret = <int32_t>(nletters + 2)
        self.cp_index = <uint16_t *>calloc(0x10000, sizeof(uint16_t))
        self.uni = <int32_t *>malloc(self.nlang * self.width * sizeof(int32_t) + 1)
        self.floor = <int32_t *>malloc(self.nlang * sizeof(int32_t) + 1)
        self.native = <uint64_t *>calloc(self.width, sizeof(uint64_t))
        self.uses = <uint64_t *>calloc(self.width, sizeof(uint64_t))
        hsize = 16
        self.qshift = 60
        while hsize < 2 * npairs:
            hsize *= 2
            self.qshift -= 1
        self.qmask = hsize - 1
        self.qkeys = <uint32_t *>calloc(hsize, sizeof(uint32_t))
        self.qent = <int32_t *>malloc(hsize * sizeof(int32_t))
        self.emask = <uint64_t *>calloc(npairs + 1, sizeof(uint64_t))
        self.estart = <int32_t *>calloc(npairs + 2, sizeof(int32_t))
        self.elang = <uint8_t *>malloc(npairs + 1)
        self.evals = <int32_t *>malloc((npairs + 1) * sizeof(int32_t))
        self.erow = <int32_t *>malloc((npairs + 1) * sizeof(int32_t))
        self.kinds = <uint8_t *>calloc(0x110000, 1)
        if (self.cp_index == NULL or self.uni == NULL or self.floor == NULL or self.native == NULL
                or self.uses == NULL or self.qkeys == NULL or self.qent == NULL or self.emask == NULL
                or self.estart == NULL or self.elang == NULL or self.evals == NULL or self.erow == NULL
                or self.kinds == NULL):
            raise MemoryError()
        for i in range(nletters):
            self.cp_index[_l_rd(b + o_letters + 2 * i, 2)] = <uint16_t>(i + 1)
        self.cp_index[_L_DOLLAR] = <uint16_t>self.dollar
        self.cp_index[_L_CARET] = <uint16_t>self.caret
        for i in range(self.width):
            self.native[i] = _l_rd(b + o_native + 8 * i, 8)
        for l in range(self.nlang):
            self.floor[l] = <int32_t><uint32_t>_l_rd(b + o_floor + 4 * l, 4)
            for i in range(self.width):
                self.uni[l * self.width + i] = self.floor[l]
        for i in range(nuni):
            l = b[o_unil + i]
            a = <uint32_t>_l_rd(b + o_unii + 2 * i, 2)
            if l >= self.nlang or a >= <uint32_t>self.width:
                raise ValueError("a letter entry out of range")
            self.uni[l * self.width + a] = <int32_t><uint32_t>_l_rd(b + o_univ + 4 * i, 4)
            if a != <uint32_t>self.dollar:
                self.uses[a] |= (<uint64_t>1) << l
        # the pair table: entries numbered as first met, then each entry's items after those of
        # the entries before it (estart[e + 1] counts entry e's items while they are placed)
        ids = <int32_t *>malloc((npairs + 1) * sizeof(int32_t))
        if ids == NULL:
            raise MemoryError()
        try:
            nent = 0
            for i in range(npairs):
                l = b[o_pairl + i]
                a = <uint32_t>_l_rd(b + o_pa + 2 * i, 2)
                c2 = <uint32_t>_l_rd(b + o_pb + 2 * i, 2)
                if l >= self.nlang or a >= <uint32_t>self.width or c2 >= <uint32_t>self.width:
                    raise ValueError("a pair entry out of range")
                e = self._entry(a, c2)
                if e < 0:
                    e = self._new_entry(a, c2, nent)
                    nent += 1
                if self.emask[e] >> l & 1:
                    raise ValueError("a pair entry given twice")
                self.emask[e] |= (<uint64_t>1) << l
                self.estart[e + 2] += 1
                ids[i] = e
            for i in range(2, nent + 2):
                self.estart[i] += self.estart[i - 1]
            for i in range(npairs):
                e = ids[i]
                self.elang[self.estart[e + 1]] = b[o_pairl + i]
                self.evals[self.estart[e + 1]] = <int32_t><uint32_t>_l_rd(b + o_pairv + 4 * i, 4)
                self.estart[e + 1] += 1
        finally:
            free(ids)
        ndense = 0
        for e in range(nent):
            self.erow[e] = -1
            if self.estart[e + 1] - self.estart[e] >= _L_DENSE:
                self.erow[e] = <int32_t>(ndense * self.nlang)
                ndense += 1
        self.dense = <int32_t *>malloc((ndense * self.nlang + 1) * sizeof(int32_t))
        if self.dense == NULL:
            raise MemoryError()
        for i in range(hsize):
            if self.qkeys[i] != 0 and self.erow[self.qent[i]] >= 0:
                e = self.qent[i]
                c2 = (self.qkeys[i] - 1) & 0xFFFF
                for l in range(self.nlang):
                    self.dense[self.erow[e] + l] = self.uni[l * self.width + c2]
                for o in range(self.estart[e], self.estart[e + 1]):
                    self.dense[self.erow[e] + self.elang[o]] = self.evals[o]
        self.latin = _l_rd(b + o_latin, 8)
        self.kind_of = kind_of
        for i in range(4):
            self.costs[i] = costs[i]
        self.case_flip = case_flip
        self.max_words = max_words
        self.context_words = context_words
        self.shortlist = shortlist

    def __dealloc__(self):
        free(self.cp_index)
        free(self.uni)
        free(self.floor)
        free(self.native)
        free(self.uses)
        free(self.qkeys)
        free(self.qent)
        free(self.emask)
        free(self.estart)
        free(self.elang)
        free(self.evals)
        free(self.erow)
        free(self.dense)
        free(self.kinds)

    cdef inline int32_t _index(self, uint32_t c) noexcept:
        return self.cp_index[c] if c < 0x10000 else 0

    cdef inline int32_t _entry(self, uint32_t a, uint32_t b) noexcept:
        """The pair table's entry of the letters (model indices) *a*, *b*, or -1."""
        cdef uint32_t key = ((a << 16) | b) + 1
        cdef uint64_t h = (key * <uint64_t>0x9E3779B97F4A7C15) >> self.qshift
        while self.qkeys[h] != 0:
            if self.qkeys[h] == key:
                return self.qent[h]
            h = (h + 1) & self.qmask
        return -1

    cdef int32_t _new_entry(self, uint32_t a, uint32_t b, int32_t e) noexcept:
        """Entry *e* for the pair *a*, *b* (not in the table yet); returns *e*."""
        cdef uint32_t key = ((a << 16) | b) + 1
        cdef uint64_t h = (key * <uint64_t>0x9E3779B97F4A7C15) >> self.qshift
        while self.qkeys[h] != 0:
            h = (h + 1) & self.qmask
        self.qkeys[h] = key
        self.qent[h] = e
        return e

    cdef inline int _kind(self, uint32_t c) except -1:
        cdef int k = self.kinds[c]
        if k == 0:
            k = self.kind_of(chr(c))
            self.kinds[c] = k
        return k

    cdef void _bits(self, _Prof p, const int *langs, Py_ssize_t nl, int64_t *out) noexcept:
        """language._bits of *p* under each of the *nl* distinct languages *langs*, into *out*:
        each pair's table units under a language are its entry's item for that language where
        there is one, else its second letter's own (the floor for a letter the language does
        not use): read from the entry's row where it has one, else the second letter's own
        under every language and what the entry's items differ by."""
        cdef Py_ssize_t i, j, k
        cdef int64_t cnt
        cdef int32_t b, e
        cdef uint64_t want = 0
        cdef int l
        cdef const int32_t *row[_L_MAXLANG]
        cdef const int32_t *d
        cdef Py_ssize_t at[_L_MAXLANG]
        for i in range(nl):
            out[i] = p.fixed
            row[i] = self.uni + langs[i] * self.width
            want |= (<uint64_t>1) << langs[i]
            at[langs[i]] = i
        for j in range(p.pairs.n):
            cnt = p.pairs.counts[j]
            e = p.pe[j]
            if e >= 0 and self.erow[e] >= 0:
                d = self.dense + self.erow[e]
                for i in range(nl):
                    out[i] += cnt * d[langs[i]]
                continue
            b = p.ib[j]
            for i in range(nl):
                out[i] += cnt * row[i][b]
            if e >= 0 and self.emask[e] & want:
                for k in range(self.estart[e], self.estart[e + 1]):
                    l = self.elang[k]
                    if want >> l & 1:
                        out[at[l]] += cnt * (self.evals[k] - row[at[l]][b])

    cdef _Prof _profile(self, str text, bint turkic_i=False):
        """language._Profile of the words joined in *text* (already NFC); *turkic_i*: İ (U+0130)
        lower-cased to i, as Turkish does (language.plausibility's)."""
        cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), i, m = 0, j
        cdef int kind = PyUnicode_KIND(text)
        cdef const void *data = PyUnicode_DATA(text)
        cdef uint32_t c, prev
        cdef int k, cls, case, last_case = 2
        cdef _Prof p = _Prof.__new__(_Prof)
        cdef uint32_t *buf = <uint32_t *>malloc((n + 1) * sizeof(uint32_t))
        cdef bint space = True  # (collapsing: a space seen and not yet written)
        cdef Py_ssize_t flips = 0
        cdef bint special
        if buf == NULL:
            raise MemoryError()
        p.fixed = 0
        p.defects = 0
        try:
            # non-letters cost their class and end a run of letters; spaces collapse; case flips
            # are counted on the collapsed text (a lower-case letter right before an upper-case)
            for i in range(n):
                c = PyUnicode_READ(kind, data, i)
                if c != 0x20:
                    k = self._kind(c) - 1
                    cls = k // 3
                    case = k % 3
                    if cls != _L_LETTER:
                        p.fixed += self.costs[cls]
                        if cls == _L_DEFECT:
                            p.defects += 1
                        c = 0x20
                if c == 0x20:
                    space = True
                    last_case = 2
                    continue
                if space and m:
                    buf[m] = 0x20
                    m += 1
                space = False
                if last_case == 0 and case == 1:
                    flips += 1
                last_case = case
                buf[m] = c
                m += 1
            p.fixed += self.case_flip * flips
            # str.lower(): the simple mapping but for U+0130 (two characters) and U+03A3 (final
            # sigma), which go through Python's; with turkic_i U+0130 is read as "i" first (its
            # case flip counted above), which lower() keeps
            special = False
            for i in range(m):
                if buf[i] == 0x130:
                    if turkic_i:
                        buf[i] = 0x69
                    else:
                        special = True
                elif buf[i] == 0x3A3:
                    special = True
            if special:
                lowered = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, m).lower()
                n = PyUnicode_GET_LENGTH(lowered)
                kind = PyUnicode_KIND(lowered)
                data = PyUnicode_DATA(lowered)
                free(buf)
                buf = <uint32_t *>malloc((n + 1) * sizeof(uint32_t))
                if buf == NULL:
                    raise MemoryError()
                for i in range(n):
                    buf[i] = _l_fold(PyUnicode_READ(kind, data, i))
            else:
                n = m
                for i in range(n):
                    c = buf[i]
                    if c < 0x80:
                        if 0x41 <= c <= 0x5A:
                            buf[i] = c + 0x20
                    else:
                        buf[i] = _l_fold(Py_UNICODE_TOLOWER(c))
            _counts_init(&p.pairs, n + 1)
            _counts_init(&p.letters, n)
            if n:
                prev = _L_CARET
                for i in range(n):
                    c = buf[i]
                    if c == 0x20:
                        _counts_add(&p.pairs, (<uint64_t>prev << 21) | <uint64_t>_L_DOLLAR, 1)
                        prev = _L_CARET
                    else:
                        _counts_add(&p.pairs, (<uint64_t>prev << 21) | <uint64_t>c, 1)
                        prev = c
                _counts_add(&p.pairs, (<uint64_t>prev << 21) | <uint64_t>_L_DOLLAR, 1)
                # every letter is the first of exactly one pair (in the order of first occurrence)
                for j in range(p.pairs.n):
                    if (p.pairs.keys[j] >> 21) != _L_CARET:
                        _counts_add(&p.letters, p.pairs.keys[j] >> 21, p.pairs.counts[j])
        finally:
            free(buf)
        p.ia = <int32_t *>malloc((p.pairs.n + 1) * sizeof(int32_t))
        p.ib = <int32_t *>malloc((p.pairs.n + 1) * sizeof(int32_t))
        p.pe = <int32_t *>malloc((p.pairs.n + 1) * sizeof(int32_t))
        if p.ia == NULL or p.ib == NULL or p.pe == NULL:
            raise MemoryError()
        for j in range(p.pairs.n):
            p.ia[j] = self._index(<uint32_t>(p.pairs.keys[j] >> 21))
            p.ib[j] = self._index(<uint32_t>(p.pairs.keys[j] & 0x1FFFFF))
            # (a letter not in the model has no pair: its second letter's own units)
            p.pe[j] = self._entry(p.ia[j], p.ib[j]) if p.ia[j] != 0 and p.ib[j] != 0 else -1
        p.has_neutral = False
        return p

    cdef int _candidates(self, _Prof p, int *out) except -1:
        """language._candidates: the languages to score (in code order) into *out*; their
        number."""
        cdef Py_ssize_t ntop = p.letters.n if p.letters.n < 24 else 24
        cdef Py_ssize_t order[24]
        cdef Py_ssize_t i, j, t, l, count = 0
        cdef int64_t cover[_L_MAXLANG]
        cdef int64_t units[_L_MAXLANG]
        cdef int keep[_L_MAXLANG]
        cdef uint64_t mask, seen = 0
        cdef int64_t best = 0
        cdef int32_t idx
        cdef int nkeep = 0, x
        if p.letters.n == 0:
            out[0] = 0
            return 1
        # the 24 most frequent letters, ties in the order of first occurrence (a stable
        # selection: Counter.most_common)
        for i in range(p.letters.n):
            if count < ntop:
                j = count
                count += 1
            elif p.letters.counts[i] > p.letters.counts[order[ntop - 1]]:
                j = ntop - 1
            else:
                continue
            while j > 0 and p.letters.counts[order[j - 1]] < p.letters.counts[i]:
                order[j] = order[j - 1]
                j -= 1
            order[j] = i
        memset(cover, 0, sizeof(cover))
        for t in range(ntop):
            idx = self._index(<uint32_t>p.letters.keys[order[t]])
            mask = self.native[idx]
            seen |= mask
            while mask:
                cover[_l_ctz(mask)] += p.letters.counts[order[t]]
                mask &= mask - 1
        if seen == 0:
            for t in range(ntop):
                idx = self._index(<uint32_t>p.letters.keys[order[t]])
                mask = self.uses[idx]
                while mask:
                    cover[_l_ctz(mask)] += p.letters.counts[order[t]]
                    mask &= mask - 1
            seen = ((<uint64_t>1) << self.nlang) - 1 if self.nlang < 64 else ~(<uint64_t>0)
        for l in range(self.nlang):
            if seen >> l & 1 and cover[l] > best:
                best = cover[l]
        for l in range(self.nlang):
            if not best or (seen >> l & 1 and <double>cover[l] >= 0.8 * <double>best):
                keep[nkeep] = l
                nkeep += 1
        if nkeep <= self.shortlist:
            for i in range(nkeep):
                out[i] = keep[i]
            return nkeep
        # the shortlist: the best on the letters' own units, ties to the smaller code
        for i in range(nkeep):
            l = keep[i]
            units[l] = 0
            for t in range(ntop):
                idx = self._index(<uint32_t>p.letters.keys[order[t]])
                units[l] += p.letters.counts[order[t]] * self.uni[l * self.width + idx]
        for i in range(1, nkeep):  # insertion sort by (-units, code); keep is in code order
            x = keep[i]
            j = i
            while j > 0 and units[keep[j - 1]] < units[x]:
                keep[j] = keep[j - 1]
                j -= 1
            keep[j] = x
        nkeep = <int>self.shortlist
        for i in range(1, nkeep):  # back to code order
            x = keep[i]
            j = i
            while j > 0 and keep[j - 1] > x:
                keep[j] = keep[j - 1]
                j -= 1
            keep[j] = x
        for i in range(nkeep):
            out[i] = keep[i]
        return nkeep

    cdef str _joined(self, str text, _Words *w, Py_ssize_t *which, Py_ssize_t count):
        """The words *which* of *w* (spans of *text*) joined by spaces."""
        cdef Py_ssize_t size = 0, i, j, o = 0
        cdef int kind = PyUnicode_KIND(text)
        cdef const void *data = PyUnicode_DATA(text)
        cdef uint32_t *buf
        for i in range(count):
            size += w.end[which[i]] - w.start[which[i]] + 1
        buf = <uint32_t *>malloc((size + 1) * sizeof(uint32_t))
        if buf == NULL:
            raise MemoryError()
        try:
            for i in range(count):
                if i:
                    buf[o] = 0x20
                    o += 1
                for j in range(w.start[which[i]], w.end[which[i]]):
                    buf[o] = PyUnicode_READ(kind, data, j)
                    o += 1
            return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, o)
        finally:
            free(buf)

    def score(self, list texts, uint64_t turkic=0):
        """The rows of ``language._score_texts(texts, turkic_i)``: for each text (a reading, markup
        skipped) ``(language number or -1, half table units, characters scored, defects)``.
        *turkic*: the languages (bit = language number) that read İ (U+0130) as i, 0 for none
        (``turkic_i``: language._turkic_mask(); a reading with İ has them as candidates)."""
        cdef Py_ssize_t ntexts = len(texts), t, i, j, n, start, non_ascii, after
        cdef Py_ssize_t since, npend, nscored, nctx, controls, units, l, nc
        cdef _Words *words = <_Words *>calloc(ntexts + 1, sizeof(_Words))
        cdef _Words *ws
        cdef Py_ssize_t *scored = NULL
        cdef Py_ssize_t *context = NULL
        cdef Py_ssize_t pend[64]
        cdef int kind
        cdef const void *data
        cdef uint32_t c
        cdef bint ascii, has_letter, nonascii_scored, shared, dotted
        cdef uint64_t chosen
        cdef int cands[_L_MAXLANG]
        cdef int lat[_L_MAXLANG]
        cdef int every[_L_MAXLANG]
        cdef int64_t ptot[_L_MAXLANG]
        cdef int64_t ttot[_L_MAXLANG]
        cdef int64_t ctot[_L_MAXLANG]
        cdef int64_t ntot[_L_MAXLANG]
        cdef Py_ssize_t nlat
        cdef int64_t total, best_total, ctxu
        cdef int best
        cdef _Prof prof, ctx, tprof
        cdef list rows = []
        cdef dict contexts = {}
        cdef Py_ssize_t *wids = NULL    # each word's id among the ASCII-only words (-1: not one)
        cdef Py_ssize_t *woff = NULL    # where each text's words start in wids
        cdef Py_ssize_t *common = NULL  # id -> how many times every text has that word
        cdef Py_ssize_t *left = NULL
        cdef Py_ssize_t nids = 0, k, wid
        cdef bint use_common = False
        cdef str text, joined, ckey
        if words == NULL:
            raise MemoryError()
        try:
            for t in range(ntexts):
                # language._first_words: the words up to the max_words-th non-ASCII one and
                # context_words more
                text = texts[t]
                ws = &words[t]
                n = PyUnicode_GET_LENGTH(text)
                kind = PyUnicode_KIND(text)
                data = PyUnicode_DATA(text)
                non_ascii = 0
                after = -1
                i = 0
                while i < n:
                    c = PyUnicode_READ(kind, data, i)
                    if not _l_word_char(c):
                        i += 1
                        continue
                    start = i
                    ascii = True
                    while i < n:
                        c = PyUnicode_READ(kind, data, i)
                        if not _l_word_char(c):
                            break
                        if c >= 0x80:
                            ascii = False
                        i += 1
                    _words_add(ws, start, i, ascii)
                    if after >= 0:
                        after += 1
                        if after >= self.context_words:
                            break
                    elif not ascii:
                        non_ascii += 1
                        if non_ascii >= self.max_words:
                            after = 0
            if ntexts > 1 and not _same_ascii_words(texts, words, ntexts):
                # the readings' ASCII-only words differ: those they share (a multiset: the least
                # count over the texts) cancel; none shared, all count as shared (the pure one's
                # empty Counter)
                n = 0
                for t in range(ntexts):
                    n += words[t].n
                wids = <Py_ssize_t *>malloc((n + 1) * sizeof(Py_ssize_t))
                woff = <Py_ssize_t *>malloc((ntexts + 1) * sizeof(Py_ssize_t))
                if wids == NULL or woff == NULL:
                    raise MemoryError()
                nids = _ascii_word_ids(texts, words, ntexts, wids, woff)
                common = <Py_ssize_t *>malloc((nids + 1) * sizeof(Py_ssize_t))
                left = <Py_ssize_t *>malloc((nids + 1) * sizeof(Py_ssize_t))
                if common == NULL or left == NULL:
                    raise MemoryError()
                for t in range(ntexts):
                    memset(left, 0, (nids + 1) * sizeof(Py_ssize_t))
                    for i in range(words[t].n):
                        wid = wids[woff[t] + i]
                        if wid >= 0:
                            left[wid] += 1
                    for k in range(nids):
                        if t == 0 or left[k] < common[k]:
                            common[k] = left[k]
                for k in range(nids):
                    if common[k] > 0:
                        use_common = True
                        break
            for t in range(ntexts):
                text = texts[t]
                ws = &words[t]
                # language._split: the scored words' and the context's indices
                free(scored)
                free(context)
                scored = <Py_ssize_t *>malloc((ws.n + 1) * sizeof(Py_ssize_t))
                context = <Py_ssize_t *>malloc((ws.n + 1) * sizeof(Py_ssize_t))
                if scored == NULL or context == NULL:
                    raise MemoryError()
                if use_common:
                    memcpy(left, common, (nids + 1) * sizeof(Py_ssize_t))
                nscored = nctx = npend = 0
                nonascii_scored = False
                since = self.context_words + 1
                for i in range(ws.n):
                    shared = ws.ascii[i]
                    if shared and use_common:
                        wid = wids[woff[t] + i]
                        if left[wid] > 0:
                            left[wid] -= 1
                        else:
                            shared = False
                    if shared:
                        since += 1
                        if since <= self.context_words:
                            context[nctx] = i
                            nctx += 1
                        else:
                            if npend == self.context_words:
                                for j in range(1, npend):
                                    pend[j - 1] = pend[j]
                                npend -= 1
                            pend[npend] = i
                            npend += 1
                        continue
                    if nscored == self.max_words:
                        break
                    for j in range(npend):
                        context[nctx] = pend[j]
                        nctx += 1
                    npend = 0
                    scored[nscored] = i
                    nscored += 1
                    if not ws.ascii[i]:
                        nonascii_scored = True
                    since = 0
                n = PyUnicode_GET_LENGTH(text)
                kind = PyUnicode_KIND(text)
                data = PyUnicode_DATA(text)
                controls = 0
                for i in range(n):
                    if _l_control(PyUnicode_READ(kind, data, i)):
                        controls += 1
                if not nscored and not controls:
                    rows.append((-1, 0, 0, 0))
                    continue
                joined = self._joined(text, ws, scored, nscored)
                if nonascii_scored:
                    joined = _unicodedata.normalize("NFC", joined)
                n = PyUnicode_GET_LENGTH(joined)
                kind = PyUnicode_KIND(joined)
                data = PyUnicode_DATA(joined)
                units = 0
                has_letter = False
                dotted = False
                for i in range(n):
                    c = PyUnicode_READ(kind, data, i)
                    if c != 0x20:
                        units += 1
                        if c == 0x130:
                            dotted = True
                        if not has_letter and (Py_UNICODE_ISALNUM(c) and not Py_UNICODE_ISDECIMAL(c)
                                               and c != 0x5F):
                            has_letter = True
                prof = self._profile(joined)
                # (İ read as i, by the languages that write it)
                tprof = self._profile(joined, True) if turkic and dotted else None
                ctx = None
                if nctx:
                    ckey = self._joined(text, ws, context, nctx)
                    ctx = contexts.get(ckey)
                    if ctx is None:
                        ctx = self._profile(ckey)
                        contexts[ckey] = ctx
                nc = self._candidates(prof if prof.letters.n or ctx is None else ctx, cands)
                if tprof is not None:  # İ is a letter of the Turkic languages: they are candidates
                    chosen = turkic
                    for i in range(nc):
                        chosen |= (<uint64_t>1) << cands[i]
                    nc = 0
                    while chosen:
                        cands[nc] = _l_ctz(chosen)
                        nc += 1
                        chosen &= chosen - 1
                # the bits under every candidate at once, the context's under the candidates
                # that write ASCII letters natively; under the others the context costs its
                # best over all languages (neutral), made once per context
                self._bits(prof, cands, nc, ptot)
                if tprof is not None:
                    self._bits(tprof, cands, nc, ttot)
                if ctx is not None:
                    nlat = 0
                    for i in range(nc):
                        if self.latin >> cands[i] & 1:
                            lat[nlat] = cands[i]
                            nlat += 1
                        elif not ctx.has_neutral:
                            for l in range(self.nlang):
                                every[l] = <int>l
                            self._bits(ctx, every, self.nlang, ntot)
                            ctx.neutral = ntot[0]
                            for l in range(1, self.nlang):
                                if ntot[l] > ctx.neutral:
                                    ctx.neutral = ntot[l]
                            ctx.has_neutral = True
                    self._bits(ctx, lat, nlat, ctot)
                best = -1
                best_total = 0
                j = 0
                for i in range(nc):
                    l = cands[i]
                    total = 2 * (ttot[i] if tprof is not None and turkic >> l & 1 else ptot[i])
                    if ctx is not None:
                        if self.latin >> l & 1:
                            ctxu = ctot[j]
                            j += 1
                        else:
                            ctxu = ctx.neutral
                        total += ctxu
                    if best < 0 or total > best_total:
                        best = l
                        best_total = total
                rows.append((best if has_letter else -1,
                             best_total + 2 * self.costs[_L_DEFECT] * controls,
                             units + controls, prof.defects + controls))
            return rows
        finally:
            free(scored)
            free(context)
            free(wids)
            free(woff)
            free(common)
            free(left)
            for t in range(ntexts):
                _words_free(&words[t])
            free(words)


cdef struct _Words:
    # the words of a text: spans (start, end: characters) and whether each is ASCII only
    Py_ssize_t *start
    Py_ssize_t *end
    char *ascii
    Py_ssize_t n
    Py_ssize_t cap


cdef int _words_add(_Words *w, Py_ssize_t start, Py_ssize_t end, bint ascii) except -1:
    cdef Py_ssize_t cap
    cdef void *p
    if w.n == w.cap:
        cap = 64 if w.cap == 0 else 2 * w.cap
        p = realloc(w.start, cap * sizeof(Py_ssize_t))
        if p == NULL:
            raise MemoryError()
        w.start = <Py_ssize_t *>p
        p = realloc(w.end, cap * sizeof(Py_ssize_t))
        if p == NULL:
            raise MemoryError()
        w.end = <Py_ssize_t *>p
        p = realloc(w.ascii, cap)
        if p == NULL:
            raise MemoryError()
        w.ascii = <char *>p
        w.cap = cap
    w.start[w.n] = start
    w.end[w.n] = end
    w.ascii[w.n] = ascii
    w.n += 1
    return 0


cdef void _words_free(_Words *w) noexcept:
    free(w.start)
    free(w.end)
    free(w.ascii)


cdef Py_ssize_t _ascii_word_ids(list texts, _Words *words, Py_ssize_t ntexts, Py_ssize_t *ids,
                                Py_ssize_t *off) except -1:
    """Number the distinct ASCII-only words of *texts* (equal words, equal numbers, from 0):
    ``ids[off[t] + i]`` is word *i* of text *t*'s number, -1 for a word that is not ASCII only;
    *off* is filled. Returns how many numbers were given."""
    cdef Py_ssize_t t, i, j, o = 0, total = 0, size = 16, h, slot, nids = 0, length, rt, ri
    cdef uint64_t hv
    cdef Py_ssize_t *slots
    cdef Py_ssize_t *rep_t
    cdef Py_ssize_t *rep_i
    cdef uint64_t *rep_h
    cdef str text, other
    cdef int kind, okind
    cdef const void *data
    cdef const void *odata
    cdef bint same
    for t in range(ntexts):
        total += words[t].n
    while size < 2 * total:
        size *= 2
    slots = <Py_ssize_t *>calloc(size, sizeof(Py_ssize_t))  # an id + 1, 0 empty
    rep_t = <Py_ssize_t *>malloc((total + 1) * sizeof(Py_ssize_t))
    rep_i = <Py_ssize_t *>malloc((total + 1) * sizeof(Py_ssize_t))
    rep_h = <uint64_t *>malloc((total + 1) * sizeof(uint64_t))
    try:
        if slots == NULL or rep_t == NULL or rep_i == NULL or rep_h == NULL:
            raise MemoryError()
        for t in range(ntexts):
            text = texts[t]
            kind = PyUnicode_KIND(text)
            data = PyUnicode_DATA(text)
            off[t] = o
            for i in range(words[t].n):
                if not words[t].ascii[i]:
                    ids[o + i] = -1
                    continue
                hv = <uint64_t>0xCBF29CE484222325  # FNV-1a over the word's characters
                for j in range(words[t].start[i], words[t].end[i]):
                    hv = (hv ^ <uint64_t>PyUnicode_READ(kind, data, j)) * <uint64_t>0x100000001B3
                length = words[t].end[i] - words[t].start[i]
                slot = <Py_ssize_t>(hv & <uint64_t>(size - 1))
                while True:
                    h = slots[slot]
                    if h == 0:
                        rep_t[nids] = t
                        rep_i[nids] = i
                        rep_h[nids] = hv
                        ids[o + i] = nids
                        nids += 1
                        slots[slot] = nids
                        break
                    rt = rep_t[h - 1]
                    ri = rep_i[h - 1]
                    if rep_h[h - 1] == hv and words[rt].end[ri] - words[rt].start[ri] == length:
                        other = texts[rt]
                        okind = PyUnicode_KIND(other)
                        odata = PyUnicode_DATA(other)
                        same = True
                        for j in range(length):
                            if (PyUnicode_READ(kind, data, words[t].start[i] + j)
                                    != PyUnicode_READ(okind, odata, words[rt].start[ri] + j)):
                                same = False
                                break
                        if same:
                            ids[o + i] = h - 1
                            break
                    slot = (slot + 1) & (size - 1)
            o += words[t].n
        return nids
    finally:
        free(slots)
        free(rep_t)
        free(rep_i)
        free(rep_h)


cdef bint _same_ascii_words(list texts, _Words *words, Py_ssize_t ntexts) except -1:
    """Whether every text has the same sequence of ASCII-only words as the first."""
    cdef Py_ssize_t t, i, j, x, y, length
    cdef str a = texts[0], b
    cdef int kind_a = PyUnicode_KIND(a), kind_b
    cdef const void *da = PyUnicode_DATA(a)
    cdef const void *db
    for t in range(1, ntexts):
        b = texts[t]
        kind_b = PyUnicode_KIND(b)
        db = PyUnicode_DATA(b)
        x = y = 0
        while True:
            while x < words[0].n and not words[0].ascii[x]:
                x += 1
            while y < words[t].n and not words[t].ascii[y]:
                y += 1
            if x == words[0].n or y == words[t].n:
                if x != words[0].n or y != words[t].n:
                    return False
                break
            length = words[0].end[x] - words[0].start[x]
            if words[t].end[y] - words[t].start[y] != length:
                return False
            for j in range(length):
                if (PyUnicode_READ(kind_a, da, words[0].start[x] + j)
                        != PyUnicode_READ(kind_b, db, words[t].start[y] + j)):
                    return False
            x += 1
            y += 1
    return True


# --------------------------------------------------------------------------------------------------
# Words as the UTF-8 decoder reads them (redecode.stretches: pages in two encodings)


cdef extern from *:
    """
    /* The first offset i in [i, n - 1) where s[i] is a byte C0..FF followed by a continuation byte
       80..BF (where a valid multi-byte UTF-8 sequence can start: its lead is C2..F4), or n. Eight
       bytes at a time where none is: text in a legacy encoding rarely has one. */
    #ifdef RD_AVX2
    /* rd_lead_cont's 32 bytes at a time (the same first offset): lead = (byte & C0) == C0 at i,
       continuation = (byte & C0) == 80 at i + 1. Returns the offset found, or the first offset
       not yet tested (the scalar loop goes on from there). */
    __attribute__((target("avx2"))) static Py_ssize_t rd_lead_cont_avx2(const uint8_t *s, Py_ssize_t i, Py_ssize_t n) {
        const __m256i top = _mm256_set1_epi8((char)0xC0);
        const __m256i cont = _mm256_set1_epi8((char)0x80);
        while (i + 33 <= n) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(s + i));
            __m256i y = _mm256_loadu_si256((const __m256i *)(s + i + 1));
            __m256i hit = _mm256_and_si256(
                _mm256_cmpeq_epi8(_mm256_and_si256(x, top), top),
                _mm256_cmpeq_epi8(_mm256_and_si256(y, top), cont));
            unsigned m = (unsigned)_mm256_movemask_epi8(hit);
            if (m)
                return i + __builtin_ctz(m);
            i += 32;
        }
        return i;
    }
    #endif

    static Py_ssize_t rd_lead_cont(const uint8_t *s, Py_ssize_t i, Py_ssize_t n) {
        uint64_t a, b;
    #ifdef RD_AVX2
        if (rd_avx2() && i + 33 <= n) {
            i = rd_lead_cont_avx2(s, i, n);
            if (i + 33 <= n)
                return i;  /* (found: the AVX2 loop stops only there or near the end) */
        }
    #endif
        while (i + 1 < n) {
            if (i + 9 <= n) {
                memcpy(&a, s + i, 8);
                memcpy(&b, s + i + 1, 8);
                if (!((a & (a << 1)) & (b & ~(b << 1)) & 0x8080808080808080ULL)) {
                    i += 8;
                    continue;
                }
            }
            if (s[i] >= 0xC0 && (s[i + 1] & 0xC0) == 0x80)
                return i;
            i++;
        }
        return n;
    }

    /* Whether b is a cut: an ASCII control, space, !"#$%&'()*+,-./ or :;<=>? (bytes no legacy
       decoder consumes as part of a multi-byte sequence; digits are gb18030's). */
    static inline int rd_cut(uint8_t b) {
        return b <= 0x2F || (b >= 0x3A && b <= 0x3F);
    }

    /* The first offset j in [i, n) with a cut byte, or n; eight bytes at a time while none of them
       is below 0x40 (words of CJK text are long). */
    static Py_ssize_t rd_word_end(const uint8_t *s, Py_ssize_t i, Py_ssize_t n) {
        uint64_t x;
        for (;;) {
            while (i + 8 <= n) {
                memcpy(&x, s + i, 8);
                if ((x - 0x4040404040404040ULL) & ~x & 0x8080808080808080ULL)
                    break;
                i += 8;
            }
            Py_ssize_t stop = i + 8 <= n ? i + 8 : n;
            for (; i < stop; i++)
                if (rd_cut(s[i]))
                    return i;
            if (i >= n)
                return n;
        }
    }

    /* The start of the word holding s[i] (s[i] not a cut): the offset after the last cut byte
       before i, or 0. */
    static Py_ssize_t rd_word_start(const uint8_t *s, Py_ssize_t i) {
        uint64_t x;
        for (;;) {
            while (i >= 8) {
                memcpy(&x, s + i - 8, 8);
                if ((x - 0x4040404040404040ULL) & ~x & 0x8080808080808080ULL)
                    break;
                i -= 8;
            }
            Py_ssize_t stop = i >= 8 ? i - 8 : 0;
            for (; i > stop; i--)
                if (rd_cut(s[i - 1]))
                    return i;
            if (i <= 0)
                return 0;
        }
    }

    /* The first candidate (as rd_lead_cont) after the end of the word holding s[i] (as
       rd_word_end): rd_lead_cont(s, rd_word_end(s, i, n), n) in one pass, 32 bytes a step with
       AVX2 (rd_simd): the first cut byte, then the first lead-and-continuation after it. */
    #ifdef RD_AVX2
    __attribute__((target("avx2"))) static Py_ssize_t rd_after_word_avx2(const uint8_t *s, Py_ssize_t i, Py_ssize_t n) {
        const __m256i top = _mm256_set1_epi8((char)0xC0);
        const __m256i cont = _mm256_set1_epi8((char)0x80);
        int in_word = 1;
        while (i + 33 <= n) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(s + i));
            uint32_t skip = 0;  /* (the offsets up to the word's end: not candidates) */
            if (in_word) {
                /* a cut: 00..2F or 3A..3F */
                __m256i d = _mm256_sub_epi8(x, _mm256_set1_epi8(0x3A));
                __m256i cut = _mm256_or_si256(
                    _mm256_cmpeq_epi8(_mm256_min_epu8(x, _mm256_set1_epi8(0x2F)), x),
                    _mm256_cmpeq_epi8(_mm256_min_epu8(d, _mm256_set1_epi8(0x3F - 0x3A)), d));
                uint32_t m = (uint32_t)_mm256_movemask_epi8(cut);
                if (!m) {
                    i += 32;
                    continue;
                }
                in_word = 0;
                skip = ((2u << __builtin_ctz(m)) - 1);  /* (bits up to the cut: 0 - 1 for bit 31) */
                if (__builtin_ctz(m) == 31)
                    skip = 0xFFFFFFFFu;
            }
            __m256i y = _mm256_loadu_si256((const __m256i *)(s + i + 1));
            __m256i hit = _mm256_and_si256(
                _mm256_cmpeq_epi8(_mm256_and_si256(x, top), top),
                _mm256_cmpeq_epi8(_mm256_and_si256(y, top), cont));
            uint32_t h = (uint32_t)_mm256_movemask_epi8(hit) & ~skip;
            if (h)
                return i + __builtin_ctz(h);
            i += 32;
        }
        if (in_word)
            i = rd_word_end(s, i, n);
        return rd_lead_cont(s, i, n);
    }
    #endif

    static Py_ssize_t rd_after_word(const uint8_t *s, Py_ssize_t i, Py_ssize_t n) {
    #ifdef RD_AVX2
        if (rd_simd())
            return rd_after_word_avx2(s, i, n);
    #endif
        return rd_lead_cont(s, rd_word_end(s, i, n), n);
    }
    """
    Py_ssize_t rd_lead_cont(const uint8_t *s, Py_ssize_t i, Py_ssize_t n) nogil
    Py_ssize_t rd_word_end(const uint8_t *s, Py_ssize_t i, Py_ssize_t n) nogil
    Py_ssize_t rd_word_start(const uint8_t *s, Py_ssize_t i) nogil
    Py_ssize_t rd_after_word(const uint8_t *s, Py_ssize_t i, Py_ssize_t n) nogil


cdef inline bint _is_cut(uint8_t b) noexcept nogil:
    # ASCII controls, space, !"#$%&'()*+,-./ and :;<=>?: bytes that no legacy decoder consumes as
    # part of a multi-byte sequence (redecode.decode's safe cuts; digits are gb18030's)
    return b <= 0x2F or 0x3A <= b <= 0x3F


cdef inline Py_ssize_t _word_read(const uint8_t *s, Py_ssize_t n, Py_ssize_t i, Py_ssize_t *seqs,
                                  Py_ssize_t *bad) noexcept nogil:
    """Read the word from s[i] (no cut byte before its end) with the standard's UTF-8 decoder up
    to its first error: its valid multi-byte sequences into seqs[0]; returns the word's end (a
    cut byte, or n) with bad[0] == 0, else where its first error ended with bad[0] == 1 (the
    word ends at ``rd_word_end`` from there). The decoder keeps no state across an error, so the
    rest of the word reads the same from there."""
    cdef uint8_t b
    seqs[0] = bad[0] = 0
    while i < n:
        b = s[i]
        if b < 0x80:
            if _is_cut(b):
                return i
            i += 1
            continue
        i += 1
        if _utf8_sequence(s, n, &i, b):
            seqs[0] += 1
            continue
        bad[0] = 1
        return i
    return n


cdef inline Py_ssize_t _word_utf8(const uint8_t *s, Py_ssize_t n, Py_ssize_t i, Py_ssize_t *seqs,
                                  Py_ssize_t *bad, bint stop) noexcept nogil:
    """Read the word from s[i] (no cut byte before its end) with the standard's UTF-8 decoder:
    its valid multi-byte sequences into seqs[0], its errors into bad[0]; returns where it ends (a
    cut byte, or n). With *stop*, the counting stops at the first error (the end is the word's all
    the same). :func:`_word_read` read again from where each error ended."""
    cdef Py_ssize_t more_seqs, more_bad
    i = _word_read(s, n, i, seqs, bad)
    if not bad[0]:
        return i
    if stop:
        return rd_word_end(s, i, n)
    while True:
        i = _word_read(s, n, i, &more_seqs, &more_bad)
        seqs[0] += more_seqs
        if not more_bad:
            return i
        bad[0] += 1


cdef inline Py_ssize_t _word_start(const uint8_t *s, Py_ssize_t i) noexcept nogil:
    return rd_word_start(s, i)


def utf8_runs(bytes data, bint valid_only=False):
    """The pure twin is ``redecode.stretches._utf8_runs_pure`` (its docstring is the contract):
    the words of *data* that hold a byte above 0x7F, as the Encoding Standard's UTF-8 decoder
    reads them, grouped into runs of words of one kind. A list of ``(valid, start, end,
    sequences, invalid)``: *valid* whether no word of the run has an invalid sequence, *start*
    and *end* the byte offsets of the run's first word's start and last word's end, *sequences*
    the valid multi-byte sequences in it, *invalid* the U+FFFD the decoder inserts in it. With
    *valid_only*, only the valid runs (the same ones), found faster where they are rare: a valid
    word holds a lead byte followed by a continuation byte, and only words that do are read."""
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef Py_ssize_t i = 0, w0, j, seqs = 0, bad = 0
    cdef Py_ssize_t r0 = 0, r1 = 0, rseqs = 0, rbad = 0
    cdef int kind = -1  # the current run's: 1 valid, 0 not, -1 none yet
    cdef list out = []
    if valid_only:
        i = rd_lead_cont(s, 0, n)
        while i < n:
            # The decoder reads s[i] (C0..FF, never a continuation) from its initial state
            # whatever came before, so an error from i on is the word's: such a word (most, in
            # a page of double-byte text) is passed over without going back to its start, to
            # the first candidate after its end (one pass: rd_after_word).
            j = _word_read(s, n, i, &seqs, &bad)
            if bad:
                i = rd_after_word(s, j, n)
                continue
            w0 = _word_start(s, i)
            if w0 < i:
                # (the word is read from its start: a byte before i decides whether it is valid)
                j = _word_utf8(s, n, w0, &seqs, &bad, True)
            if bad == 0:
                if kind == 1 and rd_ascii_len(s + r1, w0 - r1) == w0 - r1:
                    # no byte above 0x7F since the run's last word: no invalid word between
                    r1 = j
                    rseqs += seqs
                else:
                    if kind == 1:
                        out.append((True, r0, r1, rseqs, 0))
                    kind = 1
                    r0, r1, rseqs = w0, j, seqs
            i = rd_lead_cont(s, j, n)
        if kind == 1:
            out.append((True, r0, r1, rseqs, 0))
        return out
    while True:
        i += rd_ascii_len(s + i, n - i)
        if i >= n:
            break
        w0 = _word_start(s, i)
        j = _word_utf8(s, n, w0, &seqs, &bad, False)
        if kind == (bad == 0):
            r1 = j
            rseqs += seqs
            rbad += bad
        else:
            if kind >= 0:
                out.append((kind == 1, r0, r1, rseqs, rbad))
            kind = bad == 0
            r0, r1, rseqs, rbad = w0, j, seqs, bad
        i = j
    if kind >= 0:
        out.append((kind == 1, r0, r1, rseqs, rbad))
    return out


# --------------------------------------------------------------------------------------------------
# The excerpt language evidence reads (validate.ByteProfile.excerpt): its spans of the payload.
# The pure twin is ``validate._excerpt_spans`` (regular expressions; the same spans,
# tests/test_core.py).

cdef uint8_t _X_CLASS[256]  # 1: bytes-pattern \s (space, TAB, LF, VT, FF, CR); 2: [^\s<>]
for _b in range(256):
    _X_CLASS[_b] = 1 if (_b == 0x20 or 0x09 <= _b <= 0x0D) else 0 if _b in (0x3C, 0x3E) else 2


cdef inline bint _x_space(uint8_t b) noexcept nogil:
    # bytes-pattern \s: space, TAB, LF, VT, FF, CR (one table load: the scans call it per byte)
    return _X_CLASS[b] == 1


cdef inline bint _x_word(uint8_t b) noexcept nogil:
    # [^\s<>]
    return _X_CLASS[b] == 2


cdef Py_ssize_t _x_after(const uint8_t *s, Py_ssize_t i, Py_ssize_t end, Py_ssize_t reach,
                         Py_ssize_t words, Py_ssize_t *word_end) noexcept nogil:
    """validate._WORDS_AFTER.match(data, i, end): the rest of the word at *i* (its end into
    *word_end*), then up to *words* words, each after whitespace or tags (``<`` and at most
    *reach* bytes but ``<`` and ``>``, then ``>``); the match's end. (The pattern backtracks
    into nothing that could end elsewhere: this greedy scan is its match.)"""
    cdef Py_ssize_t k, j, t, w, cnt, seps
    while i < end and _x_word(s[i]):
        i += 1
    word_end[0] = i
    for k in range(words):
        j = i
        seps = 0
        while j < end:
            if _x_space(s[j]):
                j += 1
                seps += 1
                continue
            if s[j] == 0x3C:  # "<": a tag when ">" closes it within reach, before any "<"
                t = j + 1
                cnt = 0
                while t < end and cnt < reach and s[t] != 0x3C and s[t] != 0x3E:
                    t += 1
                    cnt += 1
                if t < end and s[t] == 0x3E:
                    j = t + 1
                    seps += 1
                    continue
            break
        if seps == 0:
            break
        w = j
        while w < end and _x_word(s[w]):
            w += 1
        if w == j:
            break
        i = w
    return i


cdef Py_ssize_t _x_before(const uint8_t *s, Py_ssize_t lo, Py_ssize_t i, Py_ssize_t reach,
                          Py_ssize_t words) noexcept nogil:
    """validate._WORDS_BEFORE.match(data[lo:i][::-1]), read backwards: the start of the word
    ending at *i*, after up to *words* words before it (each before whitespace or tags); the
    start (an offset of *s*)."""
    cdef Py_ssize_t k, j, t, w, cnt, seps
    while i > lo and _x_word(s[i - 1]):
        i -= 1
    for k in range(words):
        j = i
        seps = 0
        while j > lo:
            if _x_space(s[j - 1]):
                j -= 1
                seps += 1
                continue
            if s[j - 1] == 0x3E:  # ">" read backwards: a tag when "<" opens it within reach
                t = j - 1
                cnt = 0
                while t > lo and cnt < reach and s[t - 1] != 0x3C and s[t - 1] != 0x3E:
                    t -= 1
                    cnt += 1
                if t > lo and s[t - 1] == 0x3C:
                    j = t - 1
                    seps += 1
                    continue
            break
        if seps == 0:
            break
        w = j
        while w > lo and _x_word(s[w - 1]):
            w -= 1
        if w == j:
            break
        i = w
    return i


def excerpt_spans(bytes data, bytes table, Py_ssize_t pos, Py_ssize_t reach, Py_ssize_t cap,
                  Py_ssize_t max_words, Py_ssize_t context_words):
    """The pure twin is ``redecode.validate._excerpt_spans`` (its docstring is the contract):
    the spans ``[start, end]`` (byte offsets) of the excerpt of *data*: the runs of bytes whose
    *table* entry (256 bytes, 0 at every ASCII byte) is not 0, from *pos*, each run's word with *context_words* words on
    each side (at most *reach* bytes from it; a tag holds at most *reach* bytes), a run longer
    than *cap* cut after an even number of bytes, up to *max_words* words or *cap* bytes in
    all. One pass; no regular expression."""
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(data)
    cdef const uint8_t *tab = <const uint8_t *>PyBytes_AS_STRING(table)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data), i, a, e, end, word_end = 0, lo, start
    cdef Py_ssize_t total = 0, words = 0, last_end = 0
    cdef list spans = []
    cdef list last = None
    if PyBytes_GET_SIZE(table) != 256:
        raise ValueError("table must be 256 bytes")
    for i in range(128):
        if tab[i] != 0:
            raise ValueError("table must be 0 at every ASCII byte")
    i = pos if pos > 0 else 0
    while i < n:
        while i < n:  # (no ASCII byte is in the table: those are skipped a word at a time)
            i += rd_ascii_len(s + i, n - i)
            if i >= n or tab[s[i]] != 0:
                break
            i += 1
        if i >= n:
            break
        a = i
        while i < n and tab[s[i]] != 0:
            i += 1
        if a < word_end:
            continue  # another run of the same word
        e = i
        if e - a > cap:
            e = a + (cap & ~(<Py_ssize_t>1))  # a long run of double-byte text: between characters
        end = _x_after(s, e, n if n < e + reach else e + reach, reach, context_words, &word_end)
        if last is not None and a <= last_end:
            if end > last_end:
                total += end - last_end
                last_end = end
                last[1] = end
        else:
            lo = a - reach
            if lo < last_end:
                lo = last_end
            start = _x_before(s, lo if lo > 0 else 0, a, reach, context_words)
            last = [start, end]
            last_end = end
            spans.append(last)
            total += end - start
        words += 1
        if words >= max_words or total >= cap:
            break
    if total > cap:
        last[1] = last_end - (total - cap)
    return spans


# --- whole-page counts of the author's checks (issue 27) ----------------------------------------

from cpython.unicode cimport PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_KIND


def non_ascii_chars(str text):
    """How many code points of *text* are above U+007F (lone surrogates included):
    :func:`redecode.validate._non_ascii_chars`, ``len(text) - len(text.encode("ascii", "ignore"))``,
    whose error handler runs per such character."""
    if text.isascii():  # (O(1); it also makes a legacy str ready, as the macros below need)
        return 0
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), i, c = 0
    cdef int kind = PyUnicode_KIND(text)
    cdef const uint8_t *p1
    cdef const uint16_t *p2
    cdef const uint32_t *p4
    # in blocks of 255 code points, counted in a byte (no overflow): the compiler's vector lanes
    cdef uint8_t acc
    cdef Py_ssize_t j, end
    p1 = <const uint8_t *>PyUnicode_DATA(text)
    p2 = <const uint16_t *>PyUnicode_DATA(text)
    p4 = <const uint32_t *>PyUnicode_DATA(text)
    i = 0
    while i < n:
        end = i + 255 if n - i > 255 else n
        acc = 0
        if kind == 1:
            for j in range(i, end):
                acc += p1[j] >= 0x80
        elif kind == 2:
            for j in range(i, end):
                acc += p2[j] >= 0x80
        else:
            for j in range(i, end):
                acc += p4[j] >= 0x80
        c += acc
        i = end
    return c


def c1_or_pua(str text):
    """How many code points of *text* are C1 controls (U+0080-U+009F) or in the BMP's
    private-use area (U+E000-U+F8FF): ``len(_C1_OR_PUA.findall(text))`` of
    :mod:`redecode.validate` and :mod:`redecode.stretches` (that pattern is the twin), without a
    string per match."""
    if text.isascii():  # (O(1); it also makes a legacy str ready, as the macros below need)
        return 0
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text), j, c = 0
    cdef int kind = PyUnicode_KIND(text)
    cdef const uint8_t *p1 = <const uint8_t *>PyUnicode_DATA(text)
    cdef const uint16_t *p2 = <const uint16_t *>PyUnicode_DATA(text)
    cdef const uint32_t *p4 = <const uint32_t *>PyUnicode_DATA(text)
    if kind == 1:
        for j in range(n):
            c += <uint8_t>(p1[j] - 0x80) < 0x20
    elif kind == 2:
        for j in range(n):
            c += (<uint16_t>(p2[j] - 0x80) < 0x20) + (<uint16_t>(p2[j] - 0xE000) < 0x1900)
    else:
        for j in range(n):
            c += (<uint32_t>(p4[j] - 0x80) < 0x20) + (<uint32_t>(p4[j] - 0xE000) < 0x1900)
    return c


def untag(bytes data):
    """``re.sub(rb"<[^<>]*>", b" ", data)``: each tag (``<``, bytes but ``<`` and ``>``, ``>``; the
    leftmost, not overlapping) replaced by one space, in one pass (validate.ByteProfile's
    excerpt; the pure twin is that expression, ``validate._TAG``). *data* itself when it holds
    no ``<``."""
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data), i = 0, j, o = 0
    cdef const uint8_t *lt = <const uint8_t *>memchr(s, 0x3C, n)
    if lt == NULL:
        return data
    cdef uint8_t *out = <uint8_t *>malloc(n + 1)
    if out == NULL:
        raise MemoryError()
    try:
        while i < n:
            if s[i] != 0x3C:
                out[o] = s[i]
                o += 1
                i += 1
                continue
            j = i + 1
            while j < n and s[j] != 0x3C and s[j] != 0x3E:
                j += 1
            if j < n and s[j] == 0x3E:  # a tag: one space for it
                out[o] = 0x20
                o += 1
                i = j + 1
            else:  # no tag starts here: the "<" stays, the search goes on after it
                out[o] = s[i]
                o += 1
                i += 1
        return PyBytes_FromStringAndSize(<const char *>out, o)
    finally:
        free(out)


def byte_counts(bytes data):
    """How many times each byte value occurs in *data*: a list of 256 ints (``[data.count(b)
    for b in range(256)]`` in one pass; the pure twin is ``redecode.validate._byte_counts_pure``)."""
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data), i
    # four tables, so that runs of one byte do not wait on one counter
    cdef Py_ssize_t *c = <Py_ssize_t *>calloc(4 * 256, sizeof(Py_ssize_t))
    if c == NULL:
        raise MemoryError()
    try:
        i = 0
        while i + 4 <= n:
            c[s[i]] += 1
            c[256 + s[i + 1]] += 1
            c[512 + s[i + 2]] += 1
            c[768 + s[i + 3]] += 1
            i += 4
        while i < n:
            c[s[i]] += 1
            i += 1
        return [c[b] + c[256 + b] + c[512 + b] + c[768 + b] for b in range(256)]
    finally:
        free(c)


def count_bytes_in(bytes data, bytes table):
    """How many of *data*'s bytes *b* have ``table[b]`` non-zero (*table*: 256 bytes; ValueError
    otherwise): ``len(data.translate(None, <the bytes whose entry is zero>))`` without a copy
    (:func:`redecode.validate.c1_controls`). A table whose counted bytes are one range (the C1
    controls 0x80-0x9F of ISO-8859-x) is counted by a comparison the compiler vectorizes; another
    one byte by byte, skipping ASCII runs a word at a time when no ASCII byte counts."""
    if PyBytes_GET_SIZE(table) != 256:
        raise ValueError("table must be 256 bytes")
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(data)
    cdef const uint8_t *t = <const uint8_t *>PyBytes_AS_STRING(table)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data), i, c = 0
    cdef int lo = -1, hi = -1, b
    cdef bint one_range = True
    for b in range(256):
        if t[b]:
            if lo < 0:
                lo = b
            elif hi != b - 1:
                one_range = False
            hi = b
    if lo < 0:
        return 0
    cdef uint8_t first = <uint8_t>lo, span = <uint8_t>(hi - lo)
    cdef uint8_t acc
    cdef Py_ssize_t j, end
    if one_range:
        # in blocks of 255 bytes, counted in a byte (no overflow): the compiler's vector lanes
        i = 0
        while i < n:
            end = i + 255 if n - i > 255 else n
            acc = 0
            for j in range(i, end):
                acc += <uint8_t>(s[j] - first) <= span
            c += acc
            i = end
        return c
    if lo < 0x80:
        for i in range(n):
            c += t[s[i]] != 0
        return c
    i = 0
    while True:
        i += rd_ascii_len(s + i, n - i)
        if i >= n:
            return c
        while i < n and s[i] >= 0x80:
            c += t[s[i]] != 0
            i += 1


def class_anomalies(bytes data, bytes table):
    """:func:`redecode.validate.anomalies`: with ``t = data.translate(table)`` (*table*: 256 class
    bytes; ValueError otherwise), ``t.count(b"s") + t.count(b"lu")`` in one pass without the
    translated copy (``lu`` cannot overlap itself, so its count is the count of such pairs; the
    classes' masks 64 bytes a step: rd_letters)."""
    cdef _Classes cl = _classes(_CLASSES_SLU, table, b"slu")
    cdef Py_ssize_t unused, symbols, flips
    rd_letters(&cl.c, <const uint8_t *>PyBytes_AS_STRING(data), 0, PyBytes_GET_SIZE(data), &unused,
               &symbols, &flips)
    return symbols + flips


# ==================================================================================================
# The per-record path outside the decision (issue 27's per MB; helper "perrecord": redecode.row,
# redecode.warc, redecode.writer). Each function has a pure twin in its module, the reference and
# the fallback (REDECODE_PURE=1); tests/test_core.py compares them.

from cpython.list cimport PyList_GET_SIZE
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE


def put_at(list row, tuple slots, tuple values):
    """``row[slots[i]] = values[i]`` for each i (:func:`redecode.row._put_at_pure`): a row's
    columns set from a tuple of values in one call. IndexError when a slot is outside *row* or
    *values* is shorter than *slots*."""
    cdef Py_ssize_t i, j, n = PyTuple_GET_SIZE(slots), width = PyList_GET_SIZE(row)
    if PyTuple_GET_SIZE(values) < n:
        raise IndexError("fewer values than slots")
    for i in range(n):
        j = <Py_ssize_t>(<object>PyTuple_GET_ITEM(slots, i))
        if j < 0:
            j += width  # (a negative slot counts from the end, as a list's index does)
        if j < 0 or j >= width:
            raise IndexError("slot outside the row")
        row[j] = <object>PyTuple_GET_ITEM(values, i)


def put_named(list row, dict index, dict values):
    """``row[index[name]] = value`` for each ``name: value`` of *values*
    (:func:`redecode.row._put_named_pure`); KeyError for a name *index* lacks, IndexError for a
    position outside *row*."""
    cdef Py_ssize_t j, width = PyList_GET_SIZE(row)
    for name, value in values.items():
        j = <Py_ssize_t>index[name]
        if j < 0:
            j += width  # (a negative slot counts from the end, as a list's index does)
        if j < 0 or j >= width:
            raise IndexError("slot outside the row")
        row[j] = value


def ints_within(list row, tuple bounds):
    """True when every value at the row's slots named by *bounds* (``(slot, bound)`` pairs) is
    None, 0 or an ``int`` whose magnitude is below its bound (:func:`redecode.row._ints_within_pure`);
    False otherwise, also for a value of another type (the caller then checks each value
    exactly)."""
    cdef Py_ssize_t i, j, n = PyTuple_GET_SIZE(bounds), width = PyList_GET_SIZE(row)
    cdef long long v
    cdef unsigned long long magnitude, bound
    cdef int overflow
    for i in range(n):
        pair = <tuple>PyTuple_GET_ITEM(bounds, i)
        j = <Py_ssize_t>(<object>PyTuple_GET_ITEM(pair, 0))
        if j < 0:
            j += width  # (a negative slot counts from the end, as a list's index does)
        if j < 0 or j >= width:
            raise IndexError("slot outside the row")
        value = row[j]
        if value is None:
            continue
        if type(value) is not int:
            return False
        v = PyLong_AsLongLongAndOverflow(value, &overflow)
        if overflow:
            return False
        bound = <unsigned long long>(<object>PyTuple_GET_ITEM(pair, 1))  # (2**63 for int64)
        magnitude = <unsigned long long>v if v >= 0 else (<unsigned long long>0) - <unsigned long long>v
        if magnitude >= bound:
            return False
    return True


def http_head_facts(list headers):
    """``(the Content-Type values in order, whether a Content-Encoding or Transfer-Encoding field
    is present)`` of an HTTP head's ``(name, value)`` fields, names compared as ``str.lower()``
    gives them (:func:`redecode.warc._head_facts_pure`). Only names of those lengths are lowered
    (``str.lower()`` changes a length only for U+0130, into a non-ASCII pair)."""
    cdef list ctv = []
    cdef bint coded = False
    cdef Py_ssize_t n
    for item in headers:
        name, value = item
        n = len(<str>name)
        if n == 12:
            if name.lower() == "content-type":
                ctv.append(value)
        elif n == 16 or n == 17:
            lk = name.lower()
            if lk == "content-encoding" or lk == "transfer-encoding":
                coded = True
    return ctv, coded


# --------------------------------------------------------------------------------------------------
# The detectors' sample (redecode.detect.detector_sample, whose _detector_sample_pure is the twin)


cdef inline bint _evidence_byte(uint8_t b) noexcept nogil:
    """A byte the sample counts as evidence: non-ASCII, or ESC."""
    return b >= 0x80 or b == 0x1B


cdef inline bint _maybe_inside(uint8_t b) noexcept nogil:
    """A byte that may be inside a multi-byte character: a digit or a high byte
    (redecode.detect._MAYBE_INSIDE)."""
    return b >= 0x80 or 0x30 <= b <= 0x39


def detector_sample(bytes data, Py_ssize_t max_bytes, Py_ssize_t min_nonascii):
    """:func:`redecode.detect.detector_sample` for *data* longer than *max_bytes* (the caller
    checked the bounds and returns shorter data itself): the lines holding a non-ASCII or ESC
    byte, in order, joined by ``\\n``, until they hold *min_nonascii* such bytes or the next
    would pass *max_bytes* (that one cut at its last byte that is neither a digit nor non-ASCII
    within the room left, else at the room). One pass: the ASCII between lines skipped eight
    bytes at a time, ESC found by memchr."""
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef Py_ssize_t pos = 0, hit, start, end, room, length, k, i, o = 0
    cdef Py_ssize_t size = 0, seen = 0, parts = 0
    cdef const uint8_t *esc
    cdef PyObject *out
    cdef uint8_t *w
    out = _new_out(max_bytes if max_bytes < n else n)
    w = <uint8_t *>_raw_bytes_data(out)
    while seen < min_nonascii:
        # the first evidence byte at or after pos
        if pos >= n:
            break
        hit = pos + rd_ascii_len(s + pos, n - pos)
        esc = <const uint8_t *>memchr(s + pos, 0x1B, hit - pos)
        if esc != NULL:
            hit = esc - s
        if hit >= n:
            break
        # its line: from after the last LF before it (data[pos - 1] is one, or pos is 0) to the
        # next LF after it, or the end
        start = hit
        while start > pos and s[start - 1] != 0x0A:
            start -= 1
        esc = <const uint8_t *>memchr(s + hit + 1, 0x0A, n - hit - 1)
        end = esc - s if esc != NULL else n
        room = max_bytes - size - (1 if parts else 0)
        if room <= 0:
            break
        if parts:
            w[o] = 0x0A
            o += 1
        length = end - start
        if length > room:
            k = room
            while k > 0 and _maybe_inside(s[start + k - 1]):
                k -= 1
            if k == 0:
                k = room
            memcpy(w + o, s + start, k)
            o += k
            break
        memcpy(w + o, s + start, length)
        o += length
        parts += 1
        size += length + (1 if parts > 1 else 0)
        for i in range(start, end):
            seen += _evidence_byte(s[i])
        pos = end + 1
    return _cut(out, o)


cdef extern from *:
    """
    /* utf8_length_errors' counts with AVX2, 64 bytes a step. In the Encoding Standard's UTF-8
       decoder a lead byte (C2..F4) is always read from the initial state (a byte that ends a
       sequence early is read again from there), so a byte is consumed as a continuation exactly
       when it is one (80..BF) and: the byte before it is a lead and it is in that lead's first
       range (E0: A0..BF, ED: 80..9F, F0: 90..BF, F4: 80..8F, else 80..BF: "first"); or the byte
       before it is the first continuation of a 3- or 4-byte lead ("second"); or the byte before
       it is the second continuation of a 4-byte lead ("third"). Every other byte starts a code
       point: an ASCII character, a lead (its sequence's character when the sequence completes,
       else one U+FFFD) or an error (one U+FFFD). So the length is the bytes less those consumed,
       and the errors are the non-ASCII bytes less those consumed less the sequences that
       complete. A step's masks have bit j for its byte j; "of the byte before" is a mask shifted
       by one with the previous step's last bit carried in (RD_B). */
    #ifdef RD_AVX2
    __attribute__((target("avx2"))) static inline __m256i rd_in_range(__m256i x, int lo, int hi) {
        __m256i d = _mm256_sub_epi8(x, _mm256_set1_epi8((char)lo));
        return _mm256_cmpeq_epi8(_mm256_min_epu8(d, _mm256_set1_epi8((char)(hi - lo))), d);
    }

    __attribute__((target("avx2"))) static inline uint32_t rd_mm(__m256i v) {
        return (uint32_t)_mm256_movemask_epi8(v);
    }

    /* The classes of p[:32]: 80..FF, 80..BF, C2..DF, E0..EF, F0..F4, E0, ED, F0, F4, 80..9F, 80..8F. */
    __attribute__((target("avx2"))) static inline void rd_u8_classes(const uint8_t *p, uint32_t *m) {
        __m256i x = _mm256_loadu_si256((const __m256i *)p);
        __m256i hi4 = _mm256_and_si256(x, _mm256_set1_epi8((char)0xF0));
        m[0] = rd_mm(x);
        m[1] = rd_mm(_mm256_cmpgt_epi8(_mm256_set1_epi8(-64), x));
        m[2] = rd_mm(rd_in_range(x, 0xC2, 0xDF));
        m[3] = rd_mm(_mm256_cmpeq_epi8(hi4, _mm256_set1_epi8((char)0xE0)));
        m[4] = rd_mm(rd_in_range(x, 0xF0, 0xF4));
        m[5] = rd_mm(_mm256_cmpeq_epi8(x, _mm256_set1_epi8((char)0xE0)));
        m[6] = rd_mm(_mm256_cmpeq_epi8(x, _mm256_set1_epi8((char)0xED)));
        m[7] = rd_mm(_mm256_cmpeq_epi8(x, _mm256_set1_epi8((char)0xF0)));
        m[8] = rd_mm(_mm256_cmpeq_epi8(x, _mm256_set1_epi8((char)0xF4)));
        m[9] = rd_mm(_mm256_cmpeq_epi8(_mm256_and_si256(x, _mm256_set1_epi8((char)0xE0)),
                                       _mm256_set1_epi8((char)0x80)));
        m[10] = rd_mm(_mm256_cmpeq_epi8(hi4, _mm256_set1_epi8((char)0x80)));
    }

    #define RD_B(x, px) (((x) << 1) | ((px) >> 63))

    /* utf8_length_errors' (length, errors) of s[:n] into *chars, *errors. */
    __attribute__((target("avx2,popcnt"))) static void rd_utf8_length_errors_avx2(
            const uint8_t *s, Py_ssize_t n, Py_ssize_t *chars, Py_ssize_t *errors) {
        Py_ssize_t i, high = 0, consumed = 0, complete = 0;
        /* the previous step's masks (their last bits are carried) */
        uint64_t pl1 = 0, pl2 = 0, pl3 = 0, pe0 = 0, ped = 0, pf0 = 0, pf4 = 0, pg2 = 0, pg3 = 0, ps3 = 0;
        uint8_t tail[64];
        for (i = 0; i < n; i += 64) {
            const uint8_t *p = s + i;
            uint32_t a[11], b[11];
            if (n - i < 64) {
                memset(tail, 0, 64);  /* ASCII padding: starts and consumes nothing */
                memcpy(tail, p, (size_t)(n - i));
                p = tail;
            } else if (!_mm256_movemask_epi8(_mm256_or_si256(_mm256_loadu_si256((const __m256i *)p),
                                                             _mm256_loadu_si256((const __m256i *)(p + 32))))) {
                /* all ASCII: nothing consumed here, nothing carried on */
                pl1 = pl2 = pl3 = pe0 = ped = pf0 = pf4 = pg2 = pg3 = ps3 = 0;
                continue;
            }
            rd_u8_classes(p, a);
            rd_u8_classes(p + 32, b);
            uint64_t m[11];
            int k;
            for (k = 0; k < 11; k++)
                m[k] = ((uint64_t)b[k] << 32) | a[k];
            uint64_t h = m[0], c = m[1], l1 = m[2], l2 = m[3], l3 = m[4];
            uint64_t e0 = m[5], ed = m[6], f0 = m[7], f4 = m[8], a0 = m[9], n0 = m[10];
            uint64_t b1 = RD_B(l1, pl1), b2 = RD_B(l2, pl2), b3 = RD_B(l3, pl3);
            uint64_t bad = (RD_B(e0, pe0) & a0) | (RD_B(ed, ped) & ~a0) | (RD_B(f0, pf0) & n0)
                         | (RD_B(f4, pf4) & ~n0);
            uint64_t first = (b1 | b2 | b3) & c & ~bad;
            uint64_t g2 = first & b2, g3 = first & b3;
            uint64_t s2 = RD_B(g2, pg2) & c;   /* a 3-byte sequence's second continuation: its end */
            uint64_t s3 = RD_B(g3, pg3) & c;   /* a 4-byte sequence's second continuation */
            uint64_t t3 = RD_B(s3, ps3) & c;   /* a 4-byte sequence's third continuation: its end */
            high += __builtin_popcountll(h);
            consumed += __builtin_popcountll(first | s2 | s3 | t3);
            complete += __builtin_popcountll((first & b1) | s2 | t3);
            pl1 = l1; pl2 = l2; pl3 = l3; pe0 = e0; ped = ed; pf0 = f0; pf4 = f4;
            pg2 = g2; pg3 = g3; ps3 = s3;
        }
        *chars = n - consumed;
        *errors = high - consumed - complete;
    }
    #undef RD_B
    #endif

    /* 1 with (*chars, *errors) set when the AVX2 count ran, else 0 (the caller counts). */
    static int rd_utf8_length_errors_wide(const uint8_t *s, Py_ssize_t n, Py_ssize_t *chars, Py_ssize_t *errors) {
    #ifdef RD_AVX2
        if (rd_simd()) {
            rd_utf8_length_errors_avx2(s, n, chars, errors);
            return 1;
        }
    #endif
        return 0;
    }
    """
    int rd_utf8_length_errors_wide(const uint8_t *s, Py_ssize_t n, Py_ssize_t *chars, Py_ssize_t *errors) nogil


def utf8_length_errors(bytes data):
    """``(length, errors)`` of the Encoding Standard "UTF-8 decoder" on *data* (bytes; a BOM is not
    special): the length in code points of the text it makes and the U+FFFD it inserts, counted
    without making the text (``redecode.validate._utf8_counts``, whose pure path decodes). Every
    ASCII byte, valid sequence and error is one code point."""
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data)
    cdef Py_ssize_t i = 0, k, chars, errors = 0
    cdef uint8_t b
    chars = rd_utf8_valid_count(s, n)
    if chars >= 0:
        return chars, 0
    if rd_utf8_length_errors_wide(s, n, &chars, &errors):
        return chars, errors  # (AVX2: which bytes are consumed, from masks of their classes)
    chars = 0
    while i < n:
        b = s[i]
        if b < 0x80:
            k = rd_ascii_len(s + i, n - i)
            i += k
            chars += k
            continue
        i += 1
        chars += 1  # (a valid sequence's character, or the U+FFFD of an error)
        if not _utf8_sequence(s, n, &i, b):
            errors += 1
    return chars, errors


cdef extern from *:
    """
    /* find_lower's first pass, 32 offsets a step with AVX2: a candidate is an offset whose byte is
       the needle's first letter in either case ((byte | 0x20) == p[0], a lower-case letter) and
       whose byte m - 1 further on is the needle's last byte up to case ((byte | 0x20) ==
       (p[m - 1] | 0x20): true of every byte whose ASCII lower-casing is p[m - 1], and of a few
       others), each candidate compared whole, in order. Returns the first offset of a match, or
       -1 - i: no match starts before i, the first offset not tested (the scalar loop goes on
       from there; -1 where AVX2 is not used). */
    #ifdef RD_AVX2
    __attribute__((target("avx2"))) static Py_ssize_t rd_find_lower_avx2(const uint8_t *s, Py_ssize_t n,
                                                                          const uint8_t *p, Py_ssize_t m) {
        const __m256i bit = _mm256_set1_epi8(0x20);
        const __m256i first = _mm256_set1_epi8((char)p[0]);
        const __m256i last = _mm256_set1_epi8((char)(p[m - 1] | 0x20));
        Py_ssize_t i = 0, c, k;
        unsigned mask;
        uint8_t x;
        while (i + m - 1 + 32 <= n) {
            __m256i a = _mm256_loadu_si256((const __m256i *)(s + i));
            __m256i b = _mm256_loadu_si256((const __m256i *)(s + i + m - 1));
            mask = (unsigned)_mm256_movemask_epi8(_mm256_and_si256(
                _mm256_cmpeq_epi8(_mm256_or_si256(a, bit), first),
                _mm256_cmpeq_epi8(_mm256_or_si256(b, bit), last)));
            while (mask) {
                c = i + __builtin_ctz(mask);
                for (k = 1; k < m; k++) {
                    x = s[c + k];
                    if (x >= 0x41 && x <= 0x5A)
                        x |= 0x20;
                    if (x != p[k])
                        break;
                }
                if (k == m)
                    return c;
                mask &= mask - 1;
            }
            i += 32;
        }
        return -1 - i;
    }
    #endif

    static Py_ssize_t rd_find_lower_wide(const uint8_t *s, Py_ssize_t n, const uint8_t *p, Py_ssize_t m) {
    #ifdef RD_AVX2
        if (n >= m - 1 + 64 && rd_avx2())
            return rd_find_lower_avx2(s, n, p, m);
    #endif
        return -1;
    }
    """
    Py_ssize_t rd_find_lower_wide(const uint8_t *s, Py_ssize_t n, const uint8_t *p, Py_ssize_t m) nogil


def find_lower(bytes data, bytes needle):
    """``data.lower().find(needle)`` for a *needle* of ASCII without upper-case letters that starts
    with a lower-case letter (ValueError otherwise; redecode.prescan.head_scan's "charset" and
    "http-equiv"), without the lower-cased copy: candidates found 32 offsets at a time with AVX2 (the first letter in
    either case and the last byte up to case, rd_find_lower_avx2), else the first letter's two
    cases eight bytes at a time, each compared with ASCII lower-casing."""
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(data)
    cdef const uint8_t *p = <const uint8_t *>PyBytes_AS_STRING(needle)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data), m = PyBytes_GET_SIZE(needle), i = 0, j, k, last
    cdef uint64_t x, v, ones = 0x0101010101010101ULL, first
    cdef uint8_t b
    cdef bint k_ok
    if m == 0:
        raise ValueError("empty needle")
    if not 0x61 <= p[0] <= 0x7A:
        raise ValueError("the needle must start with a lower-case ASCII letter")
    for j in range(m):
        if p[j] >= 0x80 or 0x41 <= p[j] <= 0x5A:
            raise ValueError("the needle must be ASCII without upper-case letters")
    first = ones * p[0]
    last = n - m  # the last offset a match can start at
    i = rd_find_lower_wide(s, n, p, m)  # (32 offsets a step where AVX2 is there)
    if i >= 0:
        return i
    i = -1 - i
    while i <= last:
        if i + 8 <= n:
            memcpy(&x, s + i, 8)
            v = (x | (ones * 0x20)) ^ first  # a zero byte where the first letter is, either case
            if ((v - ones) & ~v & (ones * 0x80)) == 0:
                i += 8
                continue
        # a candidate in s[i:i+8] (or the tail): byte by byte
        j = i + 8 if i + 8 <= last + 1 else last + 1
        while i < j:
            if (s[i] | 0x20) == p[0]:
                k_ok = True
                for k in range(1, m):
                    b = s[i + k]
                    if 0x41 <= b <= 0x5A:
                        b |= 0x20
                    if b != p[k]:
                        k_ok = False
                        break
                if k_ok:
                    return i
            i += 1
    return -1


cdef inline Py_ssize_t _slice_at(Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    """A slice bound *i* of a sequence of *n* items as Python takes it (negative from the end,
    clamped to 0..n)."""
    if i < 0:
        i += n
        if i < 0:
            return 0
    return i if i < n else n


def join_spans(bytes data, list spans):
    """``b"\\n".join(data[a:b] for a, b in spans)`` (*spans*: ``[a, b]`` pairs of ints, as
    :func:`excerpt_spans` gives them; bounds taken as slices take them) in one allocation
    (redecode.validate.ByteProfile's excerpt)."""
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data), k = len(spans), i, a, b, total = 0, o = 0
    cdef Py_ssize_t *bounds
    cdef PyObject *out
    cdef uint8_t *w
    if k == 0:
        return b""
    bounds = <Py_ssize_t *>PyMem_Malloc(2 * k * sizeof(Py_ssize_t))
    if bounds == NULL:
        raise MemoryError()
    try:
        for i in range(k):
            a, b = spans[i]
            a = _slice_at(a, n)
            b = _slice_at(b, n)
            if b < a:
                b = a
            bounds[2 * i] = a
            bounds[2 * i + 1] = b
            total += b - a
        out = _new_out(total + k - 1)
        w = <uint8_t *>_raw_bytes_data(out)
        for i in range(k):
            if i:
                w[o] = 0x0A
                o += 1
            memcpy(w + o, s + bounds[2 * i], bounds[2 * i + 1] - bounds[2 * i])
            o += bounds[2 * i + 1] - bounds[2 * i]
        return _cut(out, o)
    finally:
        PyMem_Free(bounds)


def ascii_lower(bytes data):
    """``data.lower()`` (ASCII letters only, as bytes.lower does) in a loop the compiler
    vectorizes (redecode.prescan's window)."""
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(data)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(data), i
    cdef PyObject *out = _new_out(n)
    cdef uint8_t *w = <uint8_t *>_raw_bytes_data(out)
    cdef uint8_t c
    for i in range(n):
        c = s[i]
        w[i] = c + (32 if <uint8_t>(c - 0x41) < 26 else 0)
    return _cut(out, n)


# --------------------------------------------------------------------------------------------------
# The prescan's fast path over plain markup (redecode.prescan._skip_plain, whose regular
# expressions _PREFIX and _RAW_START are the twin: the same offset, tests/test_prescan_fast.py).
# Each step is one alternative of _PREFIX, read as the pattern reads it: every repetition there is
# atomic or followed by a byte it cannot hold, so the first way each alternative matches is the
# only one, and the scan stops where no alternative matches. Bytes from *end* on do not exist.


cdef inline bint _p_space(uint8_t c) noexcept nogil:
    # prescan._W: TAB, LF, FF, CR, space
    return c == 0x20 or c == 0x09 or c == 0x0A or c == 0x0C or c == 0x0D


cdef inline bint _p_name_end(uint8_t c) noexcept nogil:
    # what ends a tag name: whitespace, "/", ">"
    return _p_space(c) or c == 0x2F or c == 0x3E


cdef inline Py_ssize_t _p_find(const uint8_t *s, Py_ssize_t i, Py_ssize_t end, uint8_t c) noexcept nogil:
    """The first offset of byte *c* in s[i:end], or -1."""
    cdef const void *p
    if i >= end:
        return -1
    p = memchr(s + i, c, end - i)
    return -1 if p == NULL else <const uint8_t *>p - s


cdef Py_ssize_t _p_value(const uint8_t *s, Py_ssize_t k, Py_ssize_t end) noexcept nogil:
    """An attribute's "= value" at s[k] (the optional group of prescan._PLAIN_ATTRS): where it
    ends, or -1 for none."""
    cdef Py_ssize_t q, r
    cdef uint8_t c
    if k < end and s[k] == 0x3D:  # "=" then a double-quoted or an unquoted value
        if k + 1 < end:
            c = s[k + 1]
            if c == 0x22:
                r = _p_find(s, k + 2, end, 0x22)
                if r >= 0:
                    return r + 1
            elif not (_p_space(c) or c == 0x3E or c == 0x27):
                q = k + 2
                while q < end and not (_p_space(s[q]) or s[q] == 0x3E):
                    q += 1
                return q
    q = k  # whitespace, "=", whitespace, then a quoted or an unquoted value
    while q < end and _p_space(s[q]):
        q += 1
    if q >= end or s[q] != 0x3D:
        return -1
    q += 1
    while q < end and _p_space(s[q]):
        q += 1
    if q >= end:
        return -1
    c = s[q]
    if c == 0x22 or c == 0x27:
        r = _p_find(s, q + 1, end, c)
        return r + 1 if r >= 0 else -1
    if c == 0x3E:
        return -1
    q += 1
    while q < end and not (_p_space(s[q]) or s[q] == 0x3E):
        q += 1
    return q


cdef Py_ssize_t _p_attrs(const uint8_t *s, Py_ssize_t j, Py_ssize_t end) noexcept nogil:
    """prescan._PLAIN_ATTRS from s[j]: where it ends (it always matches, maybe nothing)."""
    cdef Py_ssize_t k, v
    cdef uint8_t c
    while True:
        k = j
        while k < end and (_p_space(s[k]) or s[k] == 0x2F):
            k += 1
        if k >= end:
            break
        c = s[k]
        if c == 0x3E or c == 0x3D or c == 0x22 or c == 0x27:
            break  # no attribute name starts here
        k += 1
        while k < end:
            c = s[k]
            if _p_name_end(c) or c == 0x3D or c == 0x22 or c == 0x27:
                break
            k += 1
        v = _p_value(s, k, end)
        j = v if v >= 0 else k
    while j < end and (_p_space(s[j]) or s[j] == 0x2F):
        j += 1
    return j


cdef Py_ssize_t _p_tag(const uint8_t *s, Py_ssize_t k, Py_ssize_t end) noexcept nogil:
    """A tag name from s[k] (a letter), its attributes and ">": the offset after the ">", or -1."""
    k += 1
    while k < end and not _p_name_end(s[k]):
        k += 1
    k = _p_attrs(s, k, end)
    return k + 1 if k < end and s[k] == 0x3E else -1


cdef bytes _P_RAW = b"title\0textarea\0script\0style\0xmp\0iframe\0noembed\0noframes\0plaintext\0"


cdef Py_ssize_t _p_raw_name(const uint8_t *s, Py_ssize_t k, Py_ssize_t end, bint plaintext) noexcept:
    """The length of the raw-text element name (with *plaintext*, or "plaintext") at s[k] followed
    by whitespace, "/" or ">" before *end*, else 0."""
    cdef const uint8_t *names = <const uint8_t *>PyBytes_AS_STRING(_P_RAW)
    cdef Py_ssize_t at = 0, m
    cdef uint8_t c = s[k] if k < end else 0
    if not (c == 0x74 or c == 0x73 or c == 0x78 or c == 0x69 or c == 0x6E or c == 0x70):
        return 0  # (no name starts so: t, s, x, i, n, p)
    while names[at]:
        m = 0
        while names[at + m]:
            m += 1
        if names[at] == c and (plaintext or c != 0x70) and k + m < end \
                and memcmp(s + k, names + at, m) == 0 and _p_name_end(s[k + m]):
            return m
        at += m + 1
    return 0


cdef Py_ssize_t _p_prefix(const uint8_t *s, Py_ssize_t i, Py_ssize_t end) noexcept:
    """prescan._PREFIX.match(s, i, end).end()."""
    cdef Py_ssize_t j
    cdef uint8_t c
    while i < end:
        if s[i] != 0x3C:  # text
            j = _p_find(s, i, end, 0x3C)
            i = end if j < 0 else j
            continue
        if i + 1 >= end:
            return i
        c = s[i + 1]
        if 0x61 <= c <= 0x7A:  # a start tag, not of raw text or plaintext
            if _p_raw_name(s, i + 1, end, True):
                return i
            j = _p_tag(s, i + 1, end)
        elif c == 0x2F:
            if i + 2 < end and 0x61 <= s[i + 2] <= 0x7A:  # an end tag
                j = _p_tag(s, i + 2, end)
            else:  # "</" + not a letter, to ">"
                j = _p_find(s, i + 2, end, 0x3E)
                j = j + 1 if j >= 0 else -1
        elif c == 0x21:
            if i + 3 < end and s[i + 2] == 0x2D and s[i + 3] == 0x2D:
                # "<!--" to "-?>" right after it, else to the first "-->" or "--!>"
                j = i + 4
                if j < end and s[j] == 0x3E:
                    j += 1
                elif j + 1 < end and s[j] == 0x2D and s[j + 1] == 0x3E:
                    j += 2
                else:
                    while True:
                        j = _p_find(s, j, end, 0x2D)
                        if j < 0:
                            break
                        if j + 2 < end and s[j + 1] == 0x2D:
                            if s[j + 2] == 0x3E:
                                j += 3
                                break
                            if s[j + 2] == 0x21 and j + 3 < end and s[j + 3] == 0x3E:
                                j += 4
                                break
                        j += 1
            else:  # "<!" to ">"
                j = _p_find(s, i + 2, end, 0x3E)
                j = j + 1 if j >= 0 else -1
        elif c == 0x3F:  # "<?" to ">"
            j = _p_find(s, i + 2, end, 0x3E)
            j = j + 1 if j >= 0 else -1
        else:  # "<" as text
            j = i + 1
        if j < 0:
            return i
        i = j
    return i


def skip_plain(bytes low, Py_ssize_t end):
    """``redecode.prescan._skip_plain(low, end)`` (its docstring is the contract; its regular
    expressions are the twin): *low* the lower-cased window (bytes), *end* an offset in it; the
    offset in ``[0, end]`` where the full scan may start. Never raises for bytes."""
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(low)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(low), pos, j, m, k, t
    if end > n:
        end = n
    if end < 0:
        end = 0
    pos = _p_prefix(s, 0, end)
    while True:
        # a raw-text start tag in plain syntax (_RAW_START), then its text up to the first end
        # tag of its name, which must lie wholly before *end* (the end tag is searched for in
        # all of *low*, as prescan._raw_text_end does)
        if pos + 1 >= end or s[pos] != 0x3C:
            return pos
        m = _p_raw_name(s, pos + 1, end, False)
        if m == 0:
            return pos
        j = _p_attrs(s, pos + 1 + m, end)
        if j >= end or s[j] != 0x3E:
            return pos
        k = j + 1
        while True:  # prescan._raw_text_end
            t = _p_find(s, k, n, 0x3C)
            if t < 0 or t + 1 >= n:
                return pos
            if s[t + 1] != 0x2F:
                k = t + 1
                continue
            if t + 2 + m >= n:
                return pos
            if _p_name_end(s[t + 2 + m]) and _p_lower_eq(s + t + 2, s + pos + 1, m):
                break
            k = t + 2
        if t + m + 3 > end:
            return pos
        pos = _p_prefix(s, t, end)


cdef inline bint _p_at(const uint8_t *s, Py_ssize_t i, Py_ssize_t n, const char *lit, Py_ssize_t m) noexcept nogil:
    """s[i:i+m] == lit (within s[:n])."""
    return i + m <= n and memcmp(s + i, lit, m) == 0


cdef inline Py_ssize_t _p_skip(const uint8_t *s, Py_ssize_t i, Py_ssize_t n, bint slash) noexcept nogil:
    """The offset after the whitespace (with *slash*, and "/") from s[i]."""
    while i < n and (_p_space(s[i]) or (slash and s[i] == 0x2F)):
        i += 1
    return i


cdef Py_ssize_t _p_equiv(const uint8_t *s, Py_ssize_t k, Py_ssize_t n) noexcept nogil:
    """prescan._HTTP_EQUIV after its "http-equiv" (at s[k]): where it ends, or -1."""
    k = _p_skip(s, k, n, False)
    if k >= n or s[k] != 0x3D:
        return -1
    k = _p_skip(s, k + 1, n, False)
    if _p_at(s, k, n, b'"content-type"', 14) or _p_at(s, k, n, b"'content-type'", 14):
        return k + 14
    if _p_at(s, k, n, b"content-type", 12) and k + 12 < n and _p_space(s[k + 12]):
        return k + 13
    return -1


cdef Py_ssize_t _p_content(const uint8_t *s, Py_ssize_t k, Py_ssize_t n, Py_ssize_t *vs,
                           Py_ssize_t *ve) noexcept nogil:
    """prescan._CONTENT after its "content" (at s[k]): where it ends, or -1; its quoted value's
    span (no "&" in it) into vs[0], ve[0]."""
    cdef uint8_t q
    k = _p_skip(s, k, n, False)
    if k >= n or s[k] != 0x3D:
        return -1
    k = _p_skip(s, k + 1, n, False)
    if k >= n or (s[k] != 0x22 and s[k] != 0x27):
        return -1
    q = s[k]
    vs[0] = k + 1
    k += 1
    while k < n and s[k] != q:
        if s[k] == 0x26:
            return -1
        k += 1
    if k >= n:
        return -1
    ve[0] = k
    return k + 1


def meta_plain(bytes low, Py_ssize_t lt):
    """The two usual declaring metas at *lt* in the lower-cased window *low* (bytes), as
    ``redecode.prescan._META_CHARSET.match(low, lt)`` and then ``_META_PRAGMA.match(low, lt)``
    read them (those regular expressions are the twin, ``tests/test_prescan_fast.py``):
    ``(pragma, start, end, match_end)``, *pragma* False for a ``charset`` attribute and True
    for the pragma, *start*/*end* the value's span (the charset's label, or the pragma's
    ``content``), *match_end* the offset after the meta's ``>``; None where neither matches.
    Never raises for bytes."""
    cdef const uint8_t *s = <const uint8_t *>PyBytes_AS_STRING(low)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(low), i, j, k, vs = 0, ve = 0, after = -1
    cdef uint8_t c
    if lt < 0 or not _p_at(s, lt, n, b"<meta", 5):
        return None
    i = lt + 5
    j = _p_skip(s, i, n, True)
    if j == i:
        return None
    if _p_at(s, j, n, b"charset", 7):
        k = _p_skip(s, j + 7, n, False)
        if k >= n or s[k] != 0x3D:
            return None
        k = _p_skip(s, k + 1, n, False)
        if k >= n:
            return None
        c = s[k]
        if c == 0x22 or c == 0x27:
            after = _p_find(s, k + 1, n, c)
            if after < 0:
                return None
            vs, ve = k + 1, after
            after += 1
        elif c == 0x3E:
            return None
        else:  # unquoted, up to whitespace or ">" (which must follow)
            after = k + 1
            while after < n and not (_p_space(s[after]) or s[after] == 0x3E):
                after += 1
            if after >= n:
                return None
            vs, ve = k, after
        k = _p_attrs(s, after, n)
        if k < n and s[k] == 0x3E:
            return False, vs, ve, k + 1
        return None
    if _p_at(s, j, n, b"http-equiv", 10):
        k = _p_equiv(s, j + 10, n)
        if k < 0:
            return None
        k = _p_skip(s, k, n, True)
        if not _p_at(s, k, n, b"content", 7):
            return None
        k = _p_content(s, k + 7, n, &vs, &ve)
    elif _p_at(s, j, n, b"content", 7):
        k = _p_content(s, j + 7, n, &vs, &ve)
        if k < 0:
            return None
        k = _p_skip(s, k, n, True)
        if not _p_at(s, k, n, b"http-equiv", 10):
            return None
        k = _p_equiv(s, k + 10, n)
    else:
        return None
    if k < 0:
        return None
    k = _p_skip(s, k, n, True)
    if k < n and s[k] == 0x3E:
        return True, vs, ve, k + 1
    return None


cdef inline bint _p_lower_eq(const uint8_t *a, const uint8_t *name, Py_ssize_t m) noexcept nogil:
    """``a[:m].lower() == name[:m]`` (ASCII lower-casing; *name* is lower case)."""
    cdef Py_ssize_t i
    cdef uint8_t c
    for i in range(m):
        c = a[i]
        if 0x41 <= c <= 0x5A:
            c += 32
        if c != name[i]:
            return False
    return True


# --------------------------------------------------------------------------------------------------
# A URL's top-level domain, the usual shape (redecode.tld.tld_of's first path; its regular
# expression _SIMPLE_URL_TLD is the twin: tests/test_sniff_fast.py).


cdef inline bint _u_label(uint32_t c) noexcept nogil:
    # [A-Za-z0-9-]
    return (0x61 <= c <= 0x7A) or (0x41 <= c <= 0x5A) or (0x30 <= c <= 0x39) or c == 0x2D


def url_tld(str url):
    """``redecode.tld._SIMPLE_URL_TLD.match(url)``'s group 1 lower-cased, or None where the
    pattern does not match: a scheme of 1 to 15 characters without ":", "://", dot-separated
    labels of ASCII letters, digits and "-" whose last starts with a letter (that one returned,
    lower case), an optional final dot and port, then the end or "/", "?", "#". Never raises
    for a str."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(url), p, h, e, f, d, i
    cdef int kind = PyUnicode_KIND(url)
    cdef const void *data = PyUnicode_DATA(url)
    cdef uint32_t c
    cdef uint8_t *w
    p = 0
    while p < n and p < 16 and PyUnicode_READ(kind, data, p) != 0x3A:
        p += 1
    if p == 0 or p >= 16 or p + 2 >= n or PyUnicode_READ(kind, data, p + 1) != 0x2F \
            or PyUnicode_READ(kind, data, p + 2) != 0x2F:
        return None
    h = p + 3
    e = h  # the host: labels and dots
    while e < n:
        c = PyUnicode_READ(kind, data, e)
        if not (_u_label(c) or c == 0x2E):
            break
        e += 1
    # the last label (before a final dot, if any) and the dot before it
    d = e - 1 if e > h and PyUnicode_READ(kind, data, e - 1) == 0x2E else e
    f = d
    while f > h and PyUnicode_READ(kind, data, f - 1) != 0x2E:
        f -= 1
    if f == d or f - 1 <= h:  # no last label, or no label before it
        return None
    c = PyUnicode_READ(kind, data, f)
    if not ((0x61 <= c <= 0x7A) or (0x41 <= c <= 0x5A)):
        return None
    # the labels before it: none empty (no leading dot, no two dots in a row)
    if PyUnicode_READ(kind, data, h) == 0x2E:
        return None
    for i in range(h + 1, f - 1):
        if PyUnicode_READ(kind, data, i) == 0x2E and PyUnicode_READ(kind, data, i - 1) == 0x2E:
            return None
    if PyUnicode_READ(kind, data, f - 2) == 0x2E:
        return None
    i = e  # an optional port, then the end or "/", "?", "#"
    if i < n and PyUnicode_READ(kind, data, i) == 0x3A:
        i += 1
        while i < n and 0x30 <= PyUnicode_READ(kind, data, i) <= 0x39:
            i += 1
    if i < n:
        c = PyUnicode_READ(kind, data, i)
        if not (c == 0x2F or c == 0x3F or c == 0x23):
            return None
    out = PyUnicode_New(d - f, 0x7F)
    w = <uint8_t *>PyUnicode_DATA(out)
    for i in range(d - f):
        c = PyUnicode_READ(kind, data, f + i)
        w[i] = <uint8_t>(c + 32 if 0x41 <= c <= 0x5A else c)
    return out
