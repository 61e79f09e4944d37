/*
 * fingerprint — see fingerprint.h. Words are read little-endian whatever the host, as the
 * algorithms define them, so the values are the same everywhere.
 */
#include "base/fingerprint.h"

static uint64_t fetch64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

static uint32_t fetch32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rotate(uint64_t v, int s) { return s == 0 ? v : (v >> s) | (v << (64 - s)); }
static uint64_t shift_mix(uint64_t v) { return v ^ (v >> 47); }

/* ---- FarmHash Fingerprint64 (the "na" variant) ---- */

static const uint64_t k0 = 0xc3a5c85c97cb3127ULL, k1 = 0xb492b66fbe98f273ULL, k2 = 0x9ae16a3b2f90404fULL;

static uint64_t hash_len16(uint64_t u, uint64_t v, uint64_t mul) {
  uint64_t a = (u ^ v) * mul;
  a ^= a >> 47;
  uint64_t b = (v ^ a) * mul;
  b ^= b >> 47;
  return b * mul;
}

static uint64_t hash_len0to16(const unsigned char *s, size_t len) {
  if (len >= 8) {
    uint64_t mul = k2 + len * 2, a = fetch64(s) + k2, b = fetch64(s + len - 8);
    uint64_t c = rotate(b, 37) * mul + a, d = (rotate(a, 25) + b) * mul;
    return hash_len16(c, d, mul);
  }
  if (len >= 4) {
    uint64_t mul = k2 + len * 2, a = fetch32(s);
    return hash_len16(len + (a << 3), fetch32(s + len - 4), mul);
  }
  if (len > 0) {
    uint32_t y = (uint32_t)s[0] + ((uint32_t)s[len >> 1] << 8);
    uint32_t z = (uint32_t)len + ((uint32_t)s[len - 1] << 2);
    return shift_mix(y * k2 ^ z * k0) * k2;
  }
  return k2;
}

static uint64_t hash_len17to32(const unsigned char *s, size_t len) {
  uint64_t mul = k2 + len * 2, a = fetch64(s) * k1, b = fetch64(s + 8);
  uint64_t c = fetch64(s + len - 8) * mul, d = fetch64(s + len - 16) * k2;
  return hash_len16(rotate(a + b, 43) + rotate(c, 30) + d, a + rotate(b + k2, 18) + c, mul);
}

static uint64_t hash_len33to64(const unsigned char *s, size_t len) {
  uint64_t mul = k2 + len * 2, a = fetch64(s) * k2, b = fetch64(s + 8);
  uint64_t c = fetch64(s + len - 8) * mul, d = fetch64(s + len - 16) * k2;
  uint64_t y = rotate(a + b, 43) + rotate(c, 30) + d;
  uint64_t z = hash_len16(y, a + rotate(b + k2, 18) + c, mul);
  uint64_t e = fetch64(s + 16) * mul, f = fetch64(s + 24);
  uint64_t g = (y + fetch64(s + len - 32)) * mul, h = (z + fetch64(s + len - 24)) * mul;
  return hash_len16(rotate(e + f, 43) + rotate(g, 30) + h, e + rotate(f + a, 18) + g, mul);
}

typedef struct pair64 {
  uint64_t first, second;
} pair64;

static pair64 weak_hash_len32_with_seeds(const unsigned char *s, uint64_t a, uint64_t b) {
  uint64_t w = fetch64(s), x = fetch64(s + 8), y = fetch64(s + 16), z = fetch64(s + 24);
  a += w;
  b = rotate(b + a + z, 21);
  uint64_t c = a;
  a += x;
  a += y;
  b += rotate(a, 44);
  return (pair64){a + z, b + c};
}

uint64_t tfc_fingerprint64(const void *data, size_t len) {
  const unsigned char *s = data;
  if (len <= 16) return hash_len0to16(s, len);
  if (len <= 32) return hash_len17to32(s, len);
  if (len <= 64) return hash_len33to64(s, len);
  const uint64_t seed = 81;
  uint64_t x = seed, y = seed * k1 + 113, z = shift_mix(y * k2 + 113) * k2, t;
  pair64 v = {0, 0}, w = {0, 0};
  x = x * k2 + fetch64(s);
  const unsigned char *end = s + ((len - 1) / 64) * 64, *last64 = end + ((len - 1) & 63) - 63;
  do {
    x = rotate(x + y + v.first + fetch64(s + 8), 37) * k1;
    y = rotate(y + v.second + fetch64(s + 48), 42) * k1;
    x ^= w.second;
    y += v.first + fetch64(s + 40);
    z = rotate(z + w.first, 33) * k1;
    v = weak_hash_len32_with_seeds(s, v.second * k1, x + w.first);
    w = weak_hash_len32_with_seeds(s + 32, z + w.second, y + fetch64(s + 16));
    t = z, z = x, x = t;
    s += 64;
  } while (s != end);
  uint64_t mul = k1 + ((z & 0xff) << 1);
  s = last64;
  w.first += (len - 1) & 63;
  v.first += w.first;
  w.first += v.first;
  x = rotate(x + y + v.first + fetch64(s + 8), 37) * mul;
  y = rotate(y + v.second + fetch64(s + 48), 42) * mul;
  x ^= w.second * 9;
  y += v.first * 9 + fetch64(s + 40);
  z = rotate(z + w.first, 33) * mul;
  v = weak_hash_len32_with_seeds(s, v.second * mul, x + w.first);
  w = weak_hash_len32_with_seeds(s + 32, z + w.second, y + fetch64(s + 16));
  t = z, z = x, x = t;
  return hash_len16(hash_len16(v.first, w.first, mul) + shift_mix(y) * k0 + z, hash_len16(v.second, w.second, mul) + x,
                    mul);
}

/* ---- SipHash-2-4 ---- */

#define SIP_ROUND(v0, v1, v2, v3)                                                                  \
  do {                                                                                             \
    v0 += v1, v1 = rotate(v1, 64 - 13), v1 ^= v0, v0 = rotate(v0, 32);                              \
    v2 += v3, v3 = rotate(v3, 64 - 16), v3 ^= v2;                                                  \
    v0 += v3, v3 = rotate(v3, 64 - 21), v3 ^= v0;                                                  \
    v2 += v1, v1 = rotate(v1, 64 - 17), v1 ^= v2, v2 = rotate(v2, 32);                              \
  } while (0)

uint64_t tfc_siphash24(const uint64_t key[2], const void *data, size_t len) {
  const unsigned char *s = data;
  uint64_t v0 = key[0] ^ 0x736f6d6570736575ULL, v1 = key[1] ^ 0x646f72616e646f6dULL;
  uint64_t v2 = key[0] ^ 0x6c7967656e657261ULL, v3 = key[1] ^ 0x7465646279746573ULL;
  size_t full = len & ~(size_t)7;
  for (size_t i = 0; i < full; i += 8) {
    uint64_t m = fetch64(s + i);
    v3 ^= m;
    SIP_ROUND(v0, v1, v2, v3);
    SIP_ROUND(v0, v1, v2, v3);
    v0 ^= m;
  }
  uint64_t b = (uint64_t)len << 56;
  for (size_t i = full; i < len; i++) b |= (uint64_t)s[i] << (8 * (i - full));
  v3 ^= b;
  SIP_ROUND(v0, v1, v2, v3);
  SIP_ROUND(v0, v1, v2, v3);
  v0 ^= b;
  v2 ^= 0xff;
  for (int i = 0; i < 4; i++) SIP_ROUND(v0, v1, v2, v3);
  return v0 ^ v1 ^ v2 ^ v3;
}

/* ---- TensorFlow's Hash64 ---- */

uint64_t tfc_tf_hash64(const void *data, size_t n) {
  const unsigned char *s = data;
  const uint64_t m = 0xc6a4a7935bd1e995ULL, seed = 0xDECAFCAFFEULL;
  const int r = 47;
  uint64_t h = seed ^ (n * m);
  for (; n >= 8; s += 8, n -= 8) {
    uint64_t k = fetch64(s);
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  if (n) {
    for (size_t i = n; i-- > 0;) h ^= (uint64_t)s[i] << (8 * i);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}
