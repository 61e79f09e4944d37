/*
 * fingerprint — the string hashes of TF's hash-bucket ops, each from its published algorithm:
 *   - tfc_fingerprint64: FarmHash's Fingerprint64 (farmhashna::Hash64), which
 *     StringToHashBucketFast and the lookup tables' hash buckets use; stable across
 *     platforms and releases by FarmHash's promise.
 *   - tfc_siphash24: SipHash-2-4 with a 128-bit key (two 64-bit words), StringToHashBucketStrong.
 *   - tfc_tf_hash64: TensorFlow's own 64-bit Hash64 (a MurmurHash2 variant, seed 0xDECAFCAFFE),
 *     the legacy StringToHashBucket.
 * Pure functions of their input; thread-safe.
 */
#ifndef TFC_BASE_FINGERPRINT_H
#define TFC_BASE_FINGERPRINT_H

#include <stddef.h>
#include <stdint.h>

uint64_t tfc_fingerprint64(const void *data, size_t len);
uint64_t tfc_siphash24(const uint64_t key[2], const void *data, size_t len);
uint64_t tfc_tf_hash64(const void *data, size_t len);

#endif
