/*
 * SipHash-2-4 (base/siphash.h), written from the algorithm's paper: two
 * compression rounds a word, four finalisation rounds, little-endian
 * words.
 */
#define _GNU_SOURCE

#include "base/siphash.h"

#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static uint64_t
siphash_rotate(uint64_t value, unsigned bits)
{
	return value << bits | value >> (64 - bits);
}

struct siphash_state {
	uint64_t v0, v1, v2, v3;
};

static void
siphash_round(struct siphash_state *s)
{
	s->v0 += s->v1;
	s->v1 = siphash_rotate(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = siphash_rotate(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = siphash_rotate(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = siphash_rotate(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = siphash_rotate(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = siphash_rotate(s->v2, 32);
}

static void
siphash_word(struct siphash_state *s, uint64_t word)
{
	s->v3 ^= word;
	siphash_round(s);
	siphash_round(s);
	s->v0 ^= word;
}

uint64_t
dci_siphash(const struct dci_siphash_key *key, const void *bytes, size_t length)
{
	const unsigned char *byte = bytes;
	struct siphash_state s = {
	    .v0 = key->k0 ^ UINT64_C(0x736f6d6570736575),
	    .v1 = key->k1 ^ UINT64_C(0x646f72616e646f6d),
	    .v2 = key->k0 ^ UINT64_C(0x6c7967656e657261),
	    .v3 = key->k1 ^ UINT64_C(0x7465646279746573),
	};
	uint64_t last = (uint64_t)length << 56;
	size_t whole = length - length % 8;

	for (size_t at = 0; at < whole; at += 8) {
		uint64_t word = 0;
		for (unsigned i = 0; i < 8; i++)
			word |= (uint64_t)byte[at + i] << (8 * i);
		siphash_word(&s, word);
	}
	for (size_t i = whole; i < length; i++)
		last |= (uint64_t)byte[i] << (8 * (i - whole));
	siphash_word(&s, last);
	s.v2 ^= 0xff;
	for (unsigned i = 0; i < 4; i++)
		siphash_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

void
dci_siphash_random_key(struct dci_siphash_key *key)
{
	uint64_t words[2];
	struct timespec now;
	struct dci_siphash_key fallback = {
	    UINT64_C(0x0706050403020100), UINT64_C(0x0f0e0d0c0b0a0908)};

	if (getrandom(words, sizeof words, GRND_NONBLOCK) ==
	    (ssize_t)sizeof words) {
		key->k0 = words[0];
		key->k1 = words[1];
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	words[0] = (uint64_t)now.tv_nsec ^ (uint64_t)now.tv_sec << 32;
	words[1] = (uint64_t)(uintptr_t)key ^ (uint64_t)getpid() << 40;
	key->k0 = dci_siphash(&fallback, words, sizeof words);
	key->k1 = dci_siphash(&fallback, &key->k0, sizeof key->k0);
}
