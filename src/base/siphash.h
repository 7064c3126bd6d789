/*
 * SipHash-2-4 (Aumasson and Bernstein): a keyed 64-bit hash of a byte
 * string, for hash tables fed by untrusted senders. With a secret random
 * key, a sender cannot choose inputs that collide (in the table's slots or
 * in the whole hash) more often than chance.
 */
#ifndef DCISTAT_BASE_SIPHASH_H
#define DCISTAT_BASE_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

struct dci_siphash_key {
	uint64_t k0, k1;
};

uint64_t dci_siphash(
    const struct dci_siphash_key *key, const void *bytes, size_t length);

/* A key from getrandom(2); from the clock and addresses when the kernel
 * has none to give (a weaker key, still not known before the process
 * starts). */
void dci_siphash_random_key(struct dci_siphash_key *key);

#endif
