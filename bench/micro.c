/*
 * micro.c: micro-benchmark of the core, without a server.
 *
 *     cc -O2 -I src bench/micro.c src/core_*.c -lm -o micro && ./micro
 *
 * Reports ns per add and per lookup (XXH3-128 of 8 bytes, then k probes) on
 * a filter for n = 1,000,000 at p = 0.01 (m = 9585059, 1.2 MB, k = 7), and
 * the throughput of base64 and popcount on 12 MB.  Each figure is the best
 * of a few repetitions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core.h"

#define REPEAT 5

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Keep the smaller of *best and the time since start. */
static void
keep_best(double *best, double start)
{
	double		elapsed = now() - start;

	if (elapsed < *best)
		*best = elapsed;
}

static bf_hash
hash_key(uint64_t key)
{
	return bf_hash_bytes(&key, sizeof(key));
}

int
main(void)
{
	const int64_t n = 1000000;
	uint64_t	m;
	uint32_t	k;
	size_t		nbytes;
	uint8_t    *bits;
	double		best_add = 1e9,
				best_hit = 1e9,
				best_miss = 1e9,
				best_encode = 1e9,
				best_decode = 1e9,
				best_popcount = 1e9;
	uint64_t	found = 0;

	if (bf_optimal_shape(0.01, n, &m, &k) != BF_OK)
		return 1;
	nbytes = (size_t) bloom_payload_bytes(m);
	bits = calloc(nbytes, 1);

	for (int r = 0; r < REPEAT; r++)
	{
		double		start;

		memset(bits, 0, nbytes);
		start = now();
		for (int64_t key = 0; key < n; key++)
			bf_add_hash(bits, m, k, hash_key(key));
		keep_best(&best_add, start);

		start = now();
		for (int64_t key = 0; key < n; key++)
			found += bf_contains_hash(bits, m, k, hash_key(key));
		keep_best(&best_hit, start);

		start = now();
		for (int64_t key = n; key < 2 * n; key++)
			found += bf_contains_hash(bits, m, k, hash_key(key));
		keep_best(&best_miss, start);
	}
	printf("filter m = %llu (%.2f MB), k = %u, n = %lld\n",
		   (unsigned long long) m, nbytes / 1e6, k, (long long) n);
	printf("add:             %6.1f ns\n", best_add / n * 1e9);
	printf("lookup, member:  %6.1f ns\n", best_hit / n * 1e9);
	printf("lookup, absent:  %6.1f ns\n", best_miss / n * 1e9);

	{
		size_t		size = 12 * 1000 * 1000;
		size_t		len = (size_t) bf_base64_length(size);
		uint8_t    *data = malloc(size);
		uint8_t    *back = malloc(size);
		char	   *text = malloc(len);
		uint64_t	count = 0;

		for (size_t i = 0; i < size; i++)
			data[i] = (uint8_t) (i * 2654435761u >> 13);
		for (int r = 0; r < REPEAT; r++)
		{
			double		start = now();

			bf_base64_encode(data, size, text);
			keep_best(&best_encode, start);
			start = now();
			if (bf_base64_decode(text, len, back, size) != BF_OK)
				return 1;
			keep_best(&best_decode, start);
			start = now();
			count += bf_popcount(data, size);
			keep_best(&best_popcount, start);
		}
		if (memcmp(data, back, size) != 0)
			return 1;
		printf("base64 encode:   %6.0f MB/s of bit array (12 MB)\n", size / best_encode / 1e6);
		printf("base64 decode:   %6.0f MB/s of bit array (12 MB)\n", size / best_decode / 1e6);
		printf("popcount:        %6.0f MB/s (12 MB)\n", size / best_popcount / 1e6);
		found += count;
		free(data);
		free(back);
		free(text);
	}
	/* keep the lookups from being optimized away */
	return found == 0;
}
